"""runShellAgent (GraphAI's @graphai/shell_utilty_agent): runs a program, off unless whoever runs the graph allows it.

A graph names the program (`inputs.commands: [program, ...args]`, run without a
shell), so running it is the graph's author running code on this machine. graphrt
runs it only when the run's config allows that program:

    config = {"runShellAgent": {"allow": ["yarn", "/opt/tools/build"]}}   # these programs
    config = {"runShellAgent": {"allow": True}}                            # any program

The allow-list names files: a name is the file PATH gives for it, and the command
runs only if its program is one of those files (a path to another file called
`yarn` is refused; see shell/programs.py). A malformed `allow` is a config error.

As GraphAI's, it runs in `inputs.dirs` (joined as path.resolve does) or
`inputs.baseDir`, and returns `{text: stdout, stderr: ""}`. A program that fails
returns GraphAI's error shape `{error, stdout, stderr}`, with its exit status as
`code` (negative: killed by that signal), whichever way it failed: output on
stderr (`error` is then the stderr, as bytes; GraphAI's is its first chunk, a
Buffer), or an exit status other than 0 (GraphAI does not look at it; here
`error` says the status when stderr is empty, so that `false` does not read as
empty output). A program that cannot be started fails the node (GraphAI's
process dies of it). A node `timeout`, Ctrl-C or an abort stops the program and
everything it started; output past the config's `maxBytes` (32 MiB) stops it
too, and fails the node with ShellOutputLimit (shell/process.py).
"""

from __future__ import annotations

import signal
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.jsvalue import is_truthy, js_string

from ..files.path_utils import node_resolve
from . import process
from .process import ShellOutputLimit
from .programs import ShellNotAllowed, allowance, locate

__all__ = ["AGENTS", "run_shell_agent", "ShellNotAllowed", "ShellOutputLimit"]


def _max_bytes(config: dict[str, Any] | None) -> int:
    value = (config or {}).get("maxBytes", process.DEFAULT_MAX_BYTES)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"runShellAgent: config 'maxBytes' must be a positive whole number, got {value!r}")
    return value


def _folder(inputs: dict[str, Any]) -> str | None:
    if inputs.get("dirs"):
        return node_resolve(*inputs["dirs"])
    return js_string(inputs["baseDir"]) if is_truthy(inputs.get("baseDir")) else None


def _failure(program: str, code: int) -> str:
    if code < 0:
        try:
            return f"runShellAgent: {program!r} was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"runShellAgent: {program!r} was killed by signal {-code}"
    return f"runShellAgent: {program!r} exited with status {code}"


async def _run(ctx: AgentContext, config: dict[str, Any] | None) -> dict[str, Any]:
    commands = ctx.inputs.get("commands")
    if not isinstance(commands, list):
        return {"error": "runShellAgent error: command must be string[]"}  # GraphAI returns it, not throws
    if not commands or not all(isinstance(part, str) for part in commands):
        raise TypeError(f"runShellAgent: inputs.commands must be [program, ...arguments] as strings, got {commands!r}")
    allowed, max_bytes = allowance(config), _max_bytes(config)
    folder = _folder(ctx.inputs)
    program = commands[0]
    path = locate(program, folder) if program else None
    allowed.check(program, path)
    if path is None:
        raise FileNotFoundError(2, f"runShellAgent: cannot run {program!r}: not found on PATH")
    try:
        done = await process.run([path, *commands[1:]], folder, max_bytes=max_bytes, shown=program)
    except OSError as error:
        raise type(error)(error.errno, f"runShellAgent: cannot run {program!r}: {error.strerror}") from error
    stdout, stderr = (done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))
    if done.stderr or done.code != 0:
        error = done.stderr if done.stderr else _failure(program, done.code)
        return {"error": error, "stdout": stdout, "stderr": stderr, "code": done.code}
    return {"text": stdout, "stderr": ""}


async def run_shell_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs `inputs.commands` (program and arguments) if the config allows the program; returns its output.

    Returns:
        `{text, stderr: ""}` when it exits with 0 and writes nothing on stderr; else `{error, stdout, stderr,
        code}`, GraphAI's error shape with the exit status.

    Raises:
        ShellNotAllowed: the run's config does not allow the program (the default).
        ValueError: the config's `allow` or `maxBytes` is malformed.
        OSError: the program cannot be found or started.
        ShellOutputLimit: it wrote more than the config's `maxBytes`; it and what it started were killed.
    """
    return await _run(ctx, ctx.config)


async def _echo_only(ctx: AgentContext) -> dict[str, Any]:
    """runShellAgent's mock (its samples run it): the agent with only `echo` allowed, whatever the config says."""
    return await _run(ctx, {"allow": ["echo"]})


run_shell_agent_info = AgentInfo(
    name="runShellAgent",
    func=run_shell_agent,
    mock=_echo_only,
    description="shell utility agent (off unless the run's config allows the program)",
    inputs={"type": "object", "properties": {
        "commands": {"type": "array", "items": {"type": "string"}, "description": "the program and its arguments"},
        "baseDir": {"type": "string", "description": "the folder to run it in"},
        "dirs": {"type": "array", "items": {"type": "string"}, "description": "the folder to run it in, in parts"},
    }, "required": ["commands"]},
    output={"type": "object", "properties": {"text": {"type": "string"}, "stderr": {"type": "string"},
                                             "stdout": {"type": "string"}, "error": {},
                                             "code": {"type": "integer", "description": "the exit status of a failure "
                                                      "(negative: the signal that killed it)"}}},
    config={"type": "object", "properties": {
        "allow": {"anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}],
                  "description": "the programs graphs may run (names, found on PATH, or absolute paths), or true for "
                                 "any; none by default"},
        "maxBytes": {"type": "integer", "description": "the most output (stdout and stderr) kept; past it the program "
                                                       "is stopped (default 32 MiB)"}}},
    samples=(Sample(inputs={"commands": ["echo", "1"], "baseDir": "./"}, params={},
                    result={"text": "1\n", "stderr": ""}),),
    category=("system",),
    author="isamu arimoto",
    repository="https://github.com/receptron/graphai-agents/tree/main/system/shell-util-agent",
    source="https://github.com/receptron/graphai-agents/tree/main/system/shell-util-agent/src/run_shell_agent.ts",
    package="@graphai/shell_utilty_agent",
    license="MIT",
    runs_local=True,
)

AGENTS: list[AgentInfo] = [run_shell_agent_info]
