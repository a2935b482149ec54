"""graphrt's command-line parser: one sub-parser for a known command, every one for --help, argparse's layout."""

from __future__ import annotations

import argparse

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


@pytest.mark.parametrize("columns", ["50", "100", "180"])
def test_help_is_laid_out_as_argparse_lays_it_out(monkeypatch: pytest.MonkeyPatch, columns: str) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    for parser in (build_parser(["--help"]), _subparsers(build_parser(["run", "g.yaml"]))["run"]):
        ours = parser.format_help()
        monkeypatch.setattr(type(parser), "_get_formatter", argparse.ArgumentParser._get_formatter)
        assert ours == parser.format_help()  # argparse's own formatter, which asks shutil for the width
        monkeypatch.undo()
        monkeypatch.setenv("COLUMNS", columns)
