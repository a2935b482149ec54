"""graphrt's command-line parser: one sub-parser for a known command, every one for --help, argparse's layout."""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from graphrt.cli.main import COMMANDS, build_parser, main


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def test_a_known_command_gets_its_own_sub_parser_alone() -> None:
    assert list(_subparsers(build_parser(["run", "g.yaml"]))) == ["run"]


def test_help_and_an_unknown_command_list_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    names = [name for name, _, _ in COMMANDS]
    assert list(_subparsers(build_parser(["--help"]))) == names
    assert list(_subparsers(build_parser(None))) == names
    with pytest.raises(SystemExit) as stopped:
        main(["nope"])
    assert stopped.value.code == 2
    assert "invalid choice: 'nope' (choose from 'run', 'batch'" in capsys.readouterr().err


HELLO = str(Path(__file__).resolve().parents[2] / "graphs" / "hello.yaml")

OWN_PROCESS = """
import gc, sys
from graphrt.cli import command
sys.argv = ["graphrt", "validate", sys.argv[1]]
code = command()
print(code, gc.isenabled(), gc.get_freeze_count() > 1000)
"""


def test_the_command_in_its_own_process_freezes_what_its_imports_made() -> None:
    done = subprocess.run([sys.executable, "-c", OWN_PROCESS, HELLO], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-3:] == ["0", "True", "True"]  # the collector is on again, the imports' objects frozen


def test_main_called_by_a_program_leaves_the_garbage_collector_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    frozen = gc.get_freeze_count()
    assert main(["validate", HELLO]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


@pytest.mark.parametrize("columns", ["50", "100", "180"])
def test_help_is_laid_out_as_argparse_lays_it_out(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    for parser in (build_parser(["--help"]), _subparsers(build_parser(["run", "g.yaml"]))["run"]):
        ours = parser.format_help()
        monkeypatch.setattr(type(parser), "_get_formatter", argparse.ArgumentParser._get_formatter)
        assert ours == parser.format_help()  # argparse's own formatter, which asks shutil for the width
        monkeypatch.undo()
        monkeypatch.setenv("COLUMNS", columns)


def test_the_commands_listed_by_help_read_as_their_own_parsers_say() -> None:
    """Each command's one line of help is written once: `graphrt --help` (no sub-parser built) shows what the
    parser built with every sub-parser shows."""
    assert build_parser(["--help"]).format_help() == build_parser(None).format_help()


# The commands that run graphs, each with the arguments it needs, and the options all of them take.
RUNNING = {"run": ["g.yaml"], "resume": [], "fork": ["--run-id", "r1", "--from", "n"],
           "batch": ["g.yaml", "rows.jsonl"]}
SHARED = [
    (["--config", "config.yaml"], "config", "config.yaml"),
    (["--mcp-config", "mcp.json"], "mcp_config", "mcp.json"),
    (["--timeout", "2.5"], "timeout", 2.5),
    (["-q"], "quiet", True),
    (["--quiet"], "quiet", True),
    (["--all"], "all", True),
    (["--agents", "mine.py", "--agents", "more"], "agents", ["mine.py", "more"]),
    (["--executor", "ray", "--address", "auto"], "address", "auto"),
    (["--local-model", "model.gguf"], "local_model", "model.gguf"),
    (["--checkpoint", "runs.db"], "checkpoint", "runs.db"),
]
# The options of a saved run's name and its events, and the commands that take them.
SAVED = [
    (["--run-id", "r2"], "run_id", "r2", ("run", "resume")),
    (["--trace", "events.jsonl"], "trace", "events.jsonl", ("run", "resume", "fork")),
    (["--force"], "force", True, ("resume", "fork")),
]


def _parsed(command: str, options: list[str]) -> argparse.Namespace:
    return build_parser([command]).parse_args([command, *RUNNING[command], *options])


@pytest.mark.parametrize("command", RUNNING)
@pytest.mark.parametrize(("options", "name", "value"), SHARED, ids=[options[0] for options, *_ in SHARED])
def test_every_command_that_runs_graphs_takes_the_shared_options(command: str, options: list[str], name: str,
                                                                 value: object) -> None:
    assert getattr(_parsed(command, options), name) == value


@pytest.mark.parametrize(("options", "name", "value", "commands"), SAVED, ids=[options[0] for options, *_ in SAVED])
def test_the_commands_that_save_or_read_a_run_take_its_options(options: list[str], name: str, value: object,
                                                               commands: tuple[str, ...]) -> None:
    for command in commands:
        assert getattr(_parsed(command, options), name) == value


@pytest.mark.parametrize("option", ["--config", "--mcp-config", "--timeout", "--quiet", "--all", "--agents",
                                    "--executor", "--address", "--local-model", "--trace", "--force"])
def test_a_shared_option_says_the_same_in_every_command(option: str) -> None:
    helps = {}
    for command in RUNNING:
        actions = _subparsers(build_parser([command]))[command]._option_string_actions
        if option in actions:
            helps[command] = actions[option].help
    assert len(helps) >= 2 and len(set(helps.values())) == 1, helps
