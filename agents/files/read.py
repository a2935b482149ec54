"""GraphAI's fileReadAgent (@graphai/vanilla_node_agents): files of the base folder as bytes, text, base64 or a stream."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_truthy, js_string

from .confined import BaseFolder, base_folder, locate, open_located

__all__ = ["AGENTS", "file_read_agent", "SAMPLES_FOLDER"]

SAMPLES_FOLDER = str(Path(__file__).resolve().parent / "samples")  # GraphAI's tests/files, for the samples
_OUTPUT_TYPES = ("text", "base64", "stream")


def _read(base: BaseFolder, name: Any, field: str, output_type: Any) -> Any:
    located = locate(base, js_string(name), field, "fileReadAgent")
    try:
        fd = open_located(located, os.O_RDONLY, "fileReadAgent", field)
    finally:
        os.close(located.dir_fd)
    if output_type == "stream":
        return os.fdopen(fd, "rb")  # GraphAI's fs.ReadStream: an open binary file, for an agent that uploads it
    with os.fdopen(fd, "rb") as file:
        data = file.read()
    if output_type == "base64":
        return base64.b64encode(data).decode("ascii")
    if output_type == "text":
        return data.decode("utf-8-sig", errors="replace")  # TextDecoder: UTF-8, BOM dropped, bad bytes replaced
    return data  # GraphAI's Buffer (JSON: {"type": "Buffer", "data": [...]})


def file_read_agent(ctx: AgentContext) -> dict[str, Any]:
    """Reads `inputs.file` (→ `{data}`) or every file of `inputs.array` (→ `{array}`) in the base folder.

    `params.outputType` is "text" (UTF-8), "base64", "stream" (an open binary
    file) or, when absent, the bytes. The base folder is the agent's config
    `baseDir` or `params.baseDir` (see confined.py); no path leaves it.

    Raises:
        OutsideBaseFolder: no base folder, or a path that would leave it (`..`, absolute, a symlink out).
        OSError: a file that is not there or cannot be read.
    """
    params = ctx.params
    output_type = params.get("outputType")
    output_type = output_type if output_type in _OUTPUT_TYPES else None
    with base_folder("fileReadAgent", params, ctx.config) as base:
        array = ctx.inputs.get("array")
        if is_truthy(array):
            if not isinstance(array, list):
                raise TypeError("fileReadAgent: inputs.array must be an array of file names")
            return {"array": [_read(base, name, f"inputs.array[{index}]", output_type) for index, name in enumerate(array)]}
        if is_truthy(ctx.inputs.get("file")):
            return {"data": _read(base, ctx.inputs["file"], "inputs.file", output_type)}
    raise ValueError("fileReadAgent no file")


_SAMPLES = (
    Sample(inputs={"array": ["test.txt"]}, params={"baseDir": SAMPLES_FOLDER}, result={"array": [b"hello\n"]}),
    Sample(inputs={"array": ["test.txt"]}, params={"baseDir": SAMPLES_FOLDER, "outputType": "base64"},
           result={"array": ["aGVsbG8K"]}),
    Sample(inputs={"array": ["test.txt"]}, params={"baseDir": SAMPLES_FOLDER, "outputType": "text"},
           result={"array": ["hello\n"]}),
    Sample(inputs={"file": "test.txt"}, params={"baseDir": SAMPLES_FOLDER, "outputType": "text"}, result={"data": "hello\n"},
           description="Reads a single file named 'test.txt' from the given base directory and returns its contents "
                       "as a UTF-8 string."),
)

_CONTENT = {"oneOf": [
    {"type": "string", "description": "Text or base64 depending on outputType"},
    {"type": "object", "description": "Readable stream (not serializable in JSON)"},
    {"type": "array", "items": {"type": "number"}, "description": "Buffer (as byte array)"},
]}

file_read_agent_info = AgentInfo(
    name="fileReadAgent",
    func=file_read_agent,
    description="Read data from file system and returns data",
    inputs={
        "type": "object",
        "properties": {
            "file": {"type": "string", "description": "Name of a single file to read"},
            "array": {"type": "array", "items": {"type": "string"}, "description": "List of multiple file names to read"},
        },
        "oneOf": [{"required": ["file"]}, {"required": ["array"]}],
    },
    params={
        "type": "object",
        "properties": {
            "baseDir": {"type": "string", "description": "Base directory where the file(s) are located (inside the "
                                                         "config's baseDir when that is set)"},
            "outputType": {"type": "string", "enum": list(_OUTPUT_TYPES),
                           "description": "Desired output format. If omitted, returns raw Buffer"},
        },
    },
    output={"oneOf": [
        {"type": "object", "required": ["data"], "properties": {"data": _CONTENT}, "additionalProperties": False},
        {"type": "object", "required": ["array"], "properties": {"array": {"type": "array", "items": _CONTENT}},
         "additionalProperties": False},
    ]},
    config={"type": "object", "properties": {
        "baseDir": {"type": "string", "description": "The folder no path may leave (params.baseDir is then inside it)"}}},
    samples=_SAMPLES,
    category=("fs",),
    author="Receptron team",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/vanilla_node_agents/src/node_file_agents/file_read_agent.ts",
    package="@graphai/vanilla_node_agents",
    license="MIT",
)

AGENTS: list[AgentInfo] = [file_read_agent_info]
