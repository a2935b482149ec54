"""GraphAI's pathUtilsAgent (@graphai/vanilla_node_agents): Node's `path.resolve`, `path.join`, `path.normalize` (POSIX).

Strings only: it touches no file. Node's rules differ from Python's posixpath in
small ways that a graph sees (a trailing slash kept by normalize, `//a` is `/a`,
an empty join is "."), so they are written out here as Node's path module has them.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import UNDEFINED, is_truthy

__all__ = ["AGENTS", "path_utils_agent", "node_normalize", "node_join", "node_resolve"]


def _normalize_string(path: str, allow_above_root: bool) -> str:
    """Node's normalizeString: `.` dropped, `..` applied, empty parts dropped."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif allow_above_root:
                parts.append("..")
            continue
        parts.append(part)
    return "/".join(parts)


def _check(paths: list[Any]) -> list[str]:
    for index, path in enumerate(paths):
        if not isinstance(path, str):
            got = "undefined" if path is UNDEFINED else type(path).__name__
            raise TypeError(f'The "paths[{index}]" argument must be of type string. Received {got}')
    return paths


def node_normalize(path: str) -> str:
    """`path.posix.normalize(path)`."""
    if not path:
        return "."
    absolute, trailing = path.startswith("/"), path.endswith("/")
    path = _normalize_string(path, not absolute)
    if not path:
        return "/" if absolute else ("./" if trailing else ".")
    if trailing:
        path += "/"
    return f"/{path}" if absolute else path


def node_join(*paths: Any) -> str:
    """`path.posix.join(...paths)`."""
    joined = "/".join(path for path in _check(list(paths)) if path)
    return node_normalize(joined) if joined else "."


def node_resolve(*paths: Any) -> str:
    """`path.posix.resolve(...paths)`: from the right until a path is absolute, else from the working folder."""
    resolved, absolute = "", False
    for path in [os.getcwd(), *_check(list(paths))][::-1]:
        if not path:
            continue
        resolved = f"{path}/{resolved}"
        absolute = path.startswith("/")
        if absolute:
            break
    resolved = _normalize_string(resolved, not absolute)
    return f"/{resolved}" if absolute else (resolved or ".")


def path_utils_agent(ctx: AgentContext) -> dict[str, str]:
    """`params.method` "resolve" or "join" on `dirs`, "normalize" on `path` (inputs over params): `{path}`."""
    method = ctx.params.get("method")
    if not is_truthy(method):
        raise ValueError("pathUtilsAgent: params.method is UNDEFINED!")
    values = {**ctx.params, **ctx.inputs}
    dirs, path = values.get("dirs"), values.get("path")
    if method in ("resolve", "join"):
        if not isinstance(dirs, list):
            raise ValueError("pathUtilsAgent: dir is not Array!")
        return {"path": node_resolve(*dirs) if method == "resolve" else node_join(*dirs)}
    if method == "normalize":
        if not is_truthy(path):
            raise ValueError("pathUtilsAgent: path is UNDEFINED!")
        if not isinstance(path, str):
            raise TypeError(f'The "path" argument must be of type string. Received {type(path).__name__}')
        return {"path": node_normalize(path)}
    raise ValueError("pathUtilsAgent no file")  # GraphAI's words for an unknown method


path_utils_agent_info = AgentInfo(
    name="pathUtilsAgent",
    func=path_utils_agent,
    description="Path utils",
    inputs={"type": "object", "properties": {"dirs": {"type": "array", "description": "directory names"},
                                             "path": {"type": "string", "description": "a path, for normalize"}}},
    params={"type": "object", "properties": {
        "method": {"type": "string", "enum": ["resolve", "join", "normalize"], "description": "Node's path function"}},
        "required": ["method"]},
    output={"type": "object", "properties": {"path": {"type": "string"}}},
    samples=(
        Sample(inputs={"dirs": ["/base/", "tmp/", "test.txt"]}, params={"method": "resolve"},
               result={"path": "/base/tmp/test.txt"}),
        Sample(inputs={"dirs": ["base/", "tmp/", "test.txt"]}, params={"method": "join"}, result={"path": "base/tmp/test.txt"}),
        Sample(inputs={"path": "base///tmp//test.txt"}, params={"method": "normalize"}, result={"path": "base/tmp/test.txt"}),
    ),
    category=("fs",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_node_agents/src/node_file_agents/path_utils_agent.ts",
    package="@graphai/vanilla_node_agents",
    license="MIT",
)

AGENTS: list[AgentInfo] = [path_utils_agent_info]
