"""The options of the commands that run graphs (run, resume, fork, batch), each defined once.

`add_run_options` gives a command every option they all take, with one meaning and one help: the
agents' config and MCP servers (`--config`, `--mcp-config`), the time limit (`--timeout`), `-q`,
`--all`, and the agents, the executor and the embedded model (`--agents`, `--executor`,
`--local-model`). `--trace` and `--checkpoint` are defined here too, for the commands that take
them; graphrt serve and graphrt mcp take `--mcp-config` with their servers' lifetime.
"""

from __future__ import annotations

import argparse
from typing import Any

from graphrt.base.defaults import UNCERTAIN_CALLS
from graphrt.checkpoint import describe_targets
from graphrt.cli.agent_modules import add_agents_option
from graphrt.cli.arguments import budget, non_empty
from graphrt.cli.executor_option import add_executor_option
from graphrt.cli.local_model_option import add_local_model_option
from graphrt.engine.run import RUN_TIMEOUT_VARIABLE

__all__ = ["add_budget_option", "add_cassette_options", "add_checkpoint_option", "add_config_option",
           "add_mcp_config_option", "add_run_id_option", "add_run_options", "add_trace_option", "add_uncertain_option",
           "cassette_of", "config_file", "run_config"]

RUNS_MCP_SERVERS = "each run starts those its agents use, and stops them when it ends"
"""When the MCP servers of `--mcp-config` run, for the commands that run graphs."""


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options every command that runs graphs takes: run, resume, fork and batch."""
    add_config_option(parser)
    add_mcp_config_option(parser, RUNS_MCP_SERVERS)
    add_budget_option(parser, "a run (in a batch: each row's run)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="stop a run after SECONDS, and fail it (in a batch: each row's run); default: "
                        f"${RUN_TIMEOUT_VARIABLE}, else no limit")
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
    parser.add_argument("--checkpoint", type=non_empty, default=value, metavar="PATH",
                        help=f"{what}: {describe_targets()} (default: {default})")


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
