"""The options several commands share, each defined once: above all those of the commands that run graphs
(run, resume, fork, batch).

`add_run_options` gives a command every option they all take, with one meaning and one help: the
agents' config and MCP servers (`--config`, `--mcp-config`), the time limit (`--timeout`), `-q`,
`--all`, and the agents, the executor and the embedded model (`--agents`, `--executor`,
`--local-model`). `--trace` and `--checkpoint` are defined here too, for the commands that take
them; graphrt serve and graphrt mcp take `--mcp-config` with their servers' lifetime, and the commands
that only look at agents or graphs (agents, test-agents, validate, viz, mcp, serve) take `--agents`. What
each option gives the command is read here too: the registry (`registry_for`), the executor, open while
the command runs (`executor_for`), the embedded model's file (`apply_local_model`), the run config
(`run_config`).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager, redirect_stdout
from typing import TYPE_CHECKING, Any, Iterator

from graphrt.authoring.plugins import make_registry
from graphrt.authoring.registry import Registry
from graphrt.base.defaults import UNCERTAIN_CALLS
from graphrt.base.errors import GraphError, RegistrationError
from graphrt.cli.arguments import budget, non_empty, shown_later
from graphrt.executors import EXECUTOR_VARIABLE, executor_names

if TYPE_CHECKING:
    from graphrt.authoring.agent_info import AgentInfo
    from graphrt.engine.executor import Executor

__all__ = ["LOCAL_MODEL_ENV", "add_agents_option", "add_budget_option", "add_cassette_options", "add_checkpoint_option",
           "add_config_option", "add_executor_option", "add_local_model_option", "add_mcp_config_option",
           "add_run_id_option", "add_run_options", "add_trace_option", "add_uncertain_option", "apply_local_model",
           "cassette_of", "config_file", "executor_for", "named_agents", "not_installed", "registry_for", "run_config"]

LOCAL_MODEL_ENV = "GRAPHRT_LOCAL_MODEL"
"""The GGUF file the embedded model serves (graphrt_agents.llm.local_model reads it): `--local-model` sets it."""

RUNS_MCP_SERVERS = "each run starts those its agents use, and stops them when it ends"
"""When the MCP servers of `--mcp-config` run, for the commands that run graphs."""


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options every command that runs graphs takes: run, resume, fork and batch."""
    add_config_option(parser)
    add_mcp_config_option(parser, RUNS_MCP_SERVERS)
    add_budget_option(parser, "a run (in a batch: each row's run)")
    shown_later(parser.add_argument("--timeout", type=float, metavar="SECONDS",
                                    help="stop a run after SECONDS, and fail it (in a batch: each row's run); "
                                    "default: $%(variable)s, else no limit"), variable=_timeout_variable)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the results: no warnings, no progress (what agents print goes to stderr)")
    parser.add_argument("--all", action="store_true",
                        help="every node's result in the results, not only isResult nodes'")
    add_agents_option(parser)
    add_executor_option(parser)
    add_local_model_option(parser)


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """`--config FILE`: the agents' config and what LLM calls cost (run, resume, fork, batch and serve take it)."""
    parser.add_argument("--config", metavar="FILE",
                        help="the agents' config (JSON or YAML), as GraphAI's: {AGENT: {...}, global: {...}}, "
                        "e.g. {fileReadAgent: {baseDir: data}, runShellAgent: {allow: [yarn]}}, and what LLM calls "
                        "cost: {prices: {openai: {gpt-4o-mini: {input: 0.15, output: 0.6}}}} (USD per million "
                        "tokens); a checkpoint keeps it without its credentials: give it again to resume or fork a "
                        "run, over what was kept")


def add_budget_option(parser: argparse.ArgumentParser, whose: str) -> None:
    """`--budget UNIT=LIMIT,...`: what `whose` may spend; repeatable."""
    parser.add_argument("--budget", type=budget, action="append", metavar="UNIT=LIMIT,...",
                        help=f"what {whose} may spend, over the config's budget: tokens, cost (USD, from the config's "
                        "prices), llm_calls, tool_calls, seconds; NODE.UNIT=LIMIT for each node of that id (with what "
                        "is nested in it), e.g. tokens=20000,cost=0.5,react.tokens=2000. The run stops before a call "
                        "that would pass it (BudgetExceeded), keeping what it has; repeatable")


def add_mcp_config_option(parser: argparse.ArgumentParser, lifetime: str) -> None:
    """`--mcp-config FILE.json`: the MCP servers that agents (mcpToolsListAgent, mcpToolsCallAgent, toolsAgent) use;
    `lifetime` says when they run."""
    parser.add_argument("--mcp-config", metavar="FILE.json",
                        help="MCP servers for the graphs' agents, as MCP clients configure them: "
                        '{"mcpServers": {"name": {"command", "args", "env"} or {"url", "headers"}}}; ' + lifetime)


def add_uncertain_option(parser: argparse.ArgumentParser) -> None:
    """`--uncertain ask|fail`: what a saved run does with a call that started and left no result (graphrt run
    --checkpoint, graphrt resume)."""
    parser.add_argument("--uncertain", choices=UNCERTAIN_CALLS, default=UNCERTAIN_CALLS[0],
                        help="a call with side effects that started before the run stopped and left no result in its "
                        "journal, of an agent that is not idempotent: ask whether it happened (the run waits for "
                        "the answer: no, yes, or {\"result\": ...}), or fail the run (default: ask)")


def add_cassette_options(parser: argparse.ArgumentParser) -> None:
    """`--record FILE` and `--replay FILE`, one or the other: a cassette of the run's outside calls (graphrt run,
    graphrt batch: graphrt/testing/cassette.py)."""
    taped = parser.add_mutually_exclusive_group()
    taped.add_argument("--record", metavar="FILE.jsonl",
                       help="write the outside calls (LLM requests and replies, tool calls, services') to a "
                       "cassette, JSON Lines without credentials, to replay them with --replay")
    taped.add_argument("--replay", metavar="FILE.jsonl",
                       help="answer the outside calls from a cassette that --record wrote, making none: no "
                       "network, no key; a call the recording does not hold as asked stops the run, with a diff")


def cassette_of(args: argparse.Namespace) -> Any:
    """The Cassette that `--record` or `--replay` names (graphrt.testing.cassette), or None."""
    if not (args.record or args.replay):
        return None
    from graphrt.testing.cassette import Cassette

    return Cassette.record(args.record) if args.record else Cassette.replay(args.replay)


def add_trace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trace", metavar="FILE.jsonl",
                        help="write every event of the run to FILE, one JSON object a line")


def add_checkpoint_option(parser: argparse._ActionsContainer, what: str, default: str, *,
                          value: str | None = None) -> None:
    """`--checkpoint PATH`: the checkpoint store; `what` the command does with it, `default` what it does without
    (in words), `value` the store it then uses when the option itself has one (else None: the command decides)."""
    shown_later(parser.add_argument("--checkpoint", type=non_empty, default=value, metavar="PATH",
                                    help=f"{what}: %(targets)s (default: {default})"), targets=_targets)


def _timeout_variable() -> str:
    """The variable every run's time limit is read from unless given: a command that runs no graph (validate,
    agents) imports no engine for its `--help`."""
    from graphrt.engine.run import RUN_TIMEOUT_VARIABLE

    return RUN_TIMEOUT_VARIABLE


def _targets() -> str:
    """What a checkpoint target may be, from the installed stores: only `--help` imports graphrt.checkpoint."""
    from graphrt.checkpoint import describe_targets

    return describe_targets()


def add_run_id_option(parser: argparse._ActionsContainer, doing: str, default: str | None) -> None:
    """`--run-id ID`: the run of the checkpoint store the command does something to (`doing`: "save"); `default`
    says which run it is without the option (None: the option is required)."""
    parser.add_argument("--run-id", metavar="ID",
                        help=f"the id of the run to {doing}" + (f" (default: {default})" if default else " (required)"))


def run_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run config the options give: the agents' config of `--config`, with `{"mcp": ...}` from `--mcp-config`."""
    config = config_file(args.config) if args.config else {}
    if not args.mcp_config:
        return config
    from graphrt.mcp.config import load_config_file

    return {**config, "mcp": load_config_file(args.mcp_config)}


def config_file(path: str) -> dict[str, Any]:
    """`--config FILE`: a mapping of agent names (and `global`) to mappings.

    Raises:
        GraphLoadError: the file cannot be read, is not JSON or YAML, or is not such a mapping.
    """
    import yaml

    from graphrt.base.errors import GraphLoadError

    try:
        with open(path, encoding="utf-8") as file:
            data = yaml.safe_load(file)
    except OSError as error:
        raise GraphLoadError(f"{path}: cannot read the config: {error.strerror or error}") from error
    except yaml.YAMLError as error:
        raise GraphLoadError(f"{path}: the config is not valid JSON or YAML: {error}") from error
    if not isinstance(data, dict) or not all(isinstance(value, dict) for value in data.values()):
        raise GraphLoadError(f"{path}: the config must map agent names (or 'global') to mappings, "
                             "e.g. {fileReadAgent: {baseDir: data}}")
    from graphrt.observe.meter import UsageSettings

    UsageSettings(data, where=path)  # its prices (and budget, rate limits): a mistake is said naming the file
    return data


# ----- --agents: which registry a command runs with -----


def add_agents_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agents", action="append", default=[], metavar="MODULE",
                        help="import MODULE (dotted name or .py file) and add the agents it defines; repeatable")


def registry_for(args: argparse.Namespace) -> Registry:
    """The built-in agents (and agent packs) plus those of every `--agents` module; the default registry if none."""
    if not args.agents:
        return make_registry(None)
    from graphrt.authoring.agent_like import module_agents  # only with --agents: it imports the authoring tools

    return make_registry([info for module in args.agents for info in module_agents(module)] or None)


def named_agents(args: argparse.Namespace) -> tuple[Registry, list[AgentInfo]]:
    """The registry of `registry_for`, and the agents `args.names` names (all of them if none), in name order.

    Listing all, an agent whose pack is not installed is left out (`not_installed` names them).

    Raises:
        RegistrationError: naming the agents that are not registered, or the first named one that cannot
            load (its pack's extra is not installed, or graphrt does not provide it).
    """
    from graphrt.testing.samples import select_agents

    registry = registry_for(args)
    for name in args.names:
        reason = registry.why_unavailable(name)
        if reason:
            raise RegistrationError(reason)
    try:
        names = args.names or [name for name in registry.names() if not registry.why_unavailable(name)]
        return registry, select_agents(registry, names)
    except KeyError as error:
        raise RegistrationError(f"no agent named {error.args[0]} (see: graphrt agents)") from None


def not_installed(registry: Registry) -> list[str]:
    """The registered agents whose pack's extra is not installed, in name order."""
    return [name for name in registry.names() if registry.why_unavailable(name)]


# ----- --executor and --address: where agent calls run -----


def add_executor_option(parser: argparse.ArgumentParser) -> None:
    names = executor_names()
    installed = (f"an installed executor ({', '.join(names)}) by NAME, or NAME://ADDRESS" if names
                 else "no other is installed")
    parser.add_argument("--executor", metavar="NAME",
                        help=f"where agent calls run: 'inprocess' (the default), or {installed}; "
                        f"default: ${EXECUTOR_VARIABLE}")
    parser.add_argument("--address", metavar="ADDR",
                        help="the address of the cluster the executor uses (e.g. Ray's 'auto': the one Ray cluster "
                        "running on this machine, an error if several run); without --executor, the one installed "
                        "executor's")


@contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[Executor | None]:
    """The executor the options name (None: in this process), open while the command runs.

    The command made it, so the command opens it, once, before its runs (a cluster that does not
    answer is one line here) and closes it, once, when it is done; its runs, batch or server borrow it.
    """
    spec = getattr(args, "executor", None)
    address = getattr(args, "address", None)
    if spec is None and address is None and not os.environ.get(EXECUTOR_VARIABLE):
        yield None  # in this process: the executor's seam (graphrt.engine.executor) is not even imported
        return
    from graphrt.executors import executor_from_spec

    if spec is None and address is not None:
        names = executor_names()
        if len(names) != 1:
            from graphrt.engine.executor import ExecutorError

            raise ExecutorError(f"--address {address} needs --executor NAME (installed: {', '.join(names) or 'none'})")
        spec = names[0]
    with _refusal_said(spec):
        executor = executor_from_spec(spec, address=address)
    if executor is None:
        yield None
        return
    import anyio

    # What the cluster library prints as it connects goes to stderr: stdout holds the command's results alone.
    with _refusal_said(spec), redirect_stdout(sys.stderr):
        anyio.run(executor.open)
    try:
        yield executor
    finally:
        anyio.run(executor.close)


@contextmanager
def _refusal_said(spec: str | None) -> Iterator[None]:
    """The cluster library's own refusal (a missing ray[client], no cluster) as one ExecutorError line."""
    try:
        yield
    except GraphError:
        raise
    except Exception as error:  # noqa: BLE001 - said in one line, naming the option
        from graphrt.engine.executor import ExecutorError

        first = str(error).splitlines()[0] if str(error) else ""
        raise ExecutorError(f"--executor {spec}: {type(error).__name__}: {first}") from error


# ----- --local-model: the GGUF the embedded model serves -----


def add_local_model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--local-model", metavar="FILE.gguf",
                        help="the GGUF model the embedded llama.cpp server runs when no LLM server is configured, "
                        "with the chat template stored in it "
                        f"(default: ${LOCAL_MODEL_ENV}, else SmolLM2-135M-Instruct)")


def apply_local_model(args: argparse.Namespace) -> None:
    """Makes `--local-model` the embedded model's file, as GRAPHRT_LOCAL_MODEL would.

    LLM agents start the embedded model when no server is configured; it serves the file that
    GRAPHRT_LOCAL_MODEL names (graphrt_agents.llm.local_model reads it), so the option sets that variable
    for this process and its children rather than reaching into the agent library, which graphrt never imports.
    """
    chosen = getattr(args, "local_model", None)
    if chosen:
        os.environ[LOCAL_MODEL_ENV] = os.path.abspath(os.path.expanduser(chosen))
