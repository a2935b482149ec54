"""runShellAgent (GraphAI's @graphai/shell_utilty_agent): runs a program, off unless whoever runs the graph allows it.

A graph names the program (`inputs.commands: [program, ...args]`, run without a
shell), so running it is the graph's author running code on this machine. graphrt
runs it only when the run's config allows that program:

    config = {"runShellAgent": {"allow": ["yarn", "npm"]}}     # these programs (by name)
    config = {"runShellAgent": {"allow": True}}                # any program

As GraphAI's, it runs in `inputs.dirs` (joined as path.resolve does) or
`inputs.baseDir`, and returns `{text: stdout, stderr: ""}`; output on stderr makes
it `{error, stdout, stderr}` (GraphAI's `error` is the first stderr chunk, a
Buffer; here the whole stderr, as bytes); the exit status is not looked at, as
in GraphAI. A program that cannot be started fails the node (GraphAI's process
dies of it). A node `timeout` stops the program.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import is_truthy, js_string

from ..files.path_utils import node_resolve

__all__ = ["AGENTS", "run_shell_agent", "ShellNotAllowed"]


class ShellNotAllowed(AgentError, PermissionError):
    """Raised when a graph asks to run a program that the run's config does not allow."""


def _allowed(config: dict[str, Any] | None, program: str) -> None:
    allow = (config or {}).get("allow", False)
    if allow is True or (isinstance(allow, list) and (program in allow or os.path.basename(program) in allow)):
        return
    how = "{runShellAgent: {allow: [%r]}} (program names, or true for any)" % os.path.basename(program)
    if isinstance(allow, list) and allow:
        raise ShellNotAllowed(f"runShellAgent: {program!r} is not among the programs the config allows "
                              f"({', '.join(map(str, allow))}); allow it with {how}")
    raise ShellNotAllowed(f"runShellAgent is off: it runs programs on this machine; whoever runs the graph can allow "
                          f"{program!r} with the config {how}")


def _folder(inputs: dict[str, Any]) -> str | None:
    if inputs.get("dirs"):
        return node_resolve(*inputs["dirs"])
    return js_string(inputs["baseDir"]) if is_truthy(inputs.get("baseDir")) else None


async def _run(ctx: AgentContext, config: dict[str, Any] | None) -> dict[str, Any]:
    commands = ctx.inputs.get("commands")
    if not isinstance(commands, list):
        return {"error": "runShellAgent error: command must be string[]"}  # GraphAI returns it, not throws
    if not commands or not all(isinstance(part, str) for part in commands):
        raise TypeError(f"runShellAgent: inputs.commands must be [program, ...arguments] as strings, got {commands!r}")
    _allowed(config, commands[0])
    import anyio

    try:
        done = await anyio.run_process(commands, cwd=_folder(ctx.inputs), check=False)
    except OSError as error:
        raise type(error)(error.errno, f"runShellAgent: cannot run {commands[0]!r}: {error.strerror}") from error
    stdout, stderr = (done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"))
    if done.stderr:
        return {"error": done.stderr, "stdout": stdout, "stderr": stderr}
    return {"text": stdout, "stderr": ""}


async def run_shell_agent(ctx: AgentContext) -> dict[str, Any]:
    """Runs `inputs.commands` (program and arguments) if the config allows the program; returns its output.

    Raises:
        ShellNotAllowed: the run's config does not allow the program (the default).
        OSError: the program cannot be started.
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
                                             "stdout": {"type": "string"}, "error": {}}},
    config={"type": "object", "properties": {"allow": {
        "anyOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}],
        "description": "the programs graphs may run (names), or true for any; none by default"}}},
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
