"""GraphAI's fileWriteAgent (@graphai/vanilla_node_agents): text or bytes to a file of the base folder."""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_null, is_truthy, js_string

from .confined import BaseFolder, Located, base_folder, locate, open_located
from .read import SAMPLES_FOLDER

__all__ = ["AGENTS", "file_write_agent"]


def _data(inputs: dict[str, Any]) -> bytes:
    """`text ?? buffer ?? ""` as `fs.writeFileSync` takes it: a string as UTF-8, bytes as they are."""
    text = inputs.get("text")
    data = text if not is_null(text) else inputs.get("buffer")
    if is_null(data):
        return b""
    if isinstance(data, str):
        return data.encode()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError('fileWriteAgent: the "data" argument must be of type string or an instance of Buffer '
                    f"(inputs.text or inputs.buffer), got {type(data).__name__}")


def _check_inputs(inputs: dict[str, Any]) -> None:
    """GraphAI's asserts, made before any file is touched."""
    if not is_truthy(inputs.get("file")):
        raise ValueError("fileWriteAgent: inputs.file is UNDEFINED!")
    if not is_truthy(inputs.get("text")) and not is_truthy(inputs.get("buffer")):
        raise ValueError("fileWriteAgent: inputs.file and inputs.buffer are UNDEFINED!")  # GraphAI's words


def _target(ctx: AgentContext, base: BaseFolder) -> Located:
    return locate(base, js_string(ctx.inputs["file"]), "inputs.file", "fileWriteAgent")


def _result(located: Located) -> dict[str, Any]:
    return {"result": True, "path": located.path, "dir": os.path.dirname(located.path),
            "file": os.path.basename(located.path)}


def file_write_agent(ctx: AgentContext) -> dict[str, Any]:
    """Writes `inputs.text` (or `inputs.buffer`) to `inputs.file` in the base folder; returns `{result, path, dir, file}`.

    The file is created or truncated; its folder must exist, as for GraphAI. The base
    folder is the agent's config `baseDir` or `params.baseDir` (see confined.py): GraphAI
    writes anywhere without one, graphrt writes nowhere without one.

    Raises:
        OutsideBaseFolder: no base folder, or a path that would leave it (`..`, absolute, a symlink out).
        OSError: the folder is not there, or the file cannot be written.
    """
    _check_inputs(ctx.inputs)
    with base_folder("fileWriteAgent", ctx.params, ctx.config) as base:
        located = _target(ctx, base)
        try:
            data = _data(ctx.inputs)
            fd = open_located(located, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "fileWriteAgent", "inputs.file")
        finally:
            os.close(located.dir_fd)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return _result(located)


def _dry_run(ctx: AgentContext) -> dict[str, Any]:
    """fileWriteAgent's mock (its samples run it): checks the path as the agent does and writes nothing."""
    _check_inputs(ctx.inputs)
    with base_folder("fileWriteAgent", ctx.params, ctx.config) as base:
        located = _target(ctx, base)
        os.close(located.dir_fd)
        _data(ctx.inputs)
        return _result(located)


file_write_agent_info = AgentInfo(
    name="fileWriteAgent",
    func=file_write_agent,
    mock=_dry_run,
    description="Write data to file system",
    inputs={
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "text data"},
            "file": {"type": "string", "description": "file name"},
            "buffer": {"description": "binary data (bytes), written when there is no text"},
        },
        "required": ["file"],
    },
    params={"type": "object", "properties": {
        "baseDir": {"type": "string", "description": "The folder to write in (inside the config's baseDir when that is set)"}}},
    output={"type": "object"},
    config={"type": "object", "properties": {
        "baseDir": {"type": "string", "description": "The folder no path may leave (params.baseDir is then inside it)"}}},
    samples=(Sample(
        inputs={"file": "write.txt", "text": "hello"},
        params={"baseDir": SAMPLES_FOLDER},
        result={"path": os.path.join(SAMPLES_FOLDER, "write.txt"), "dir": SAMPLES_FOLDER, "file": "write.txt",
                "result": True},
        description="Writes 'hello' to write.txt in the base folder (the sample runs the mock, which writes nothing).",
    ),),
    category=("fs",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_node_agents/src/node_file_agents/file_write_agent.ts",
    package="@graphai/vanilla_node_agents",
    license="MIT",
)

AGENTS: list[AgentInfo] = [file_write_agent_info]
