"""The CLI reference page, made from the argparse parsers themselves, so that it says what `--help` says.

Each command of `graphrt.cli.main.COMMANDS` gets its one line of help, the opening paragraph of its
module's docstring, its usage and a table of its arguments, read from the parser its module builds
(`add_arguments`), with help texts expanded as argparse expands them (`%(default)s`).
"""

from __future__ import annotations

import argparse
import importlib
import inspect

from docsite.markdown import cell, fenced

__all__ = ["cli_page", "command_parser"]

_WIDTH = 100  # the usage lines' width, fixed so that the page does not depend on the terminal it was built on


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=_WIDTH)


def command_parser(name: str, module: str) -> argparse.ArgumentParser:
    """The parser of `graphrt NAME`, as graphrt.cli.main builds it for that command."""
    parser = argparse.ArgumentParser(prog=f"graphrt {name}", formatter_class=_formatter, add_help=True)
    importlib.import_module(f"graphrt.cli.{module}").add_arguments(parser)
    parser.formatter_class = _formatter  # a command may set its own (batch's keeps its description's lines)
    return parser


def _name(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    takes_value = action.nargs != 0
    metavar = action.metavar or action.dest.upper()
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    return ", ".join(f"`{option} {metavar}`" if takes_value else f"`{option}`" for option in action.option_strings)


def _default(action: argparse.Action, help_text: str) -> str:
    default = action.default
    if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0 or "default" in help_text:
        return ""
    return f"`{default}`"


def _rows(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        help_text = formatter._expand_help(action) if action.help else ""
        if action.choices and not isinstance(action.choices, dict):
            help_text += f" (one of: {', '.join(f'`{choice}`' for choice in action.choices)})"
        rows.append(f"| {_name(action)} | {cell(help_text)} | {cell(_default(action, help_text))} |")
    return rows


def _described(module: str) -> list[str]:
    """The command module's docstring after its title line: paragraphs as text, indented ones as shell examples."""
    doc = inspect.getdoc(importlib.import_module(f"graphrt.cli.{module}")) or ""
    parts = []
    for paragraph in doc.split("\n\n")[1:]:
        if paragraph.startswith("    "):
            parts.append(fenced("\n".join(line[4:] for line in paragraph.splitlines()), "sh"))
        elif paragraph.strip():
            parts.append(" ".join(paragraph.split()))
    return parts


def cli_page() -> str:
    """The whole page: every command of `graphrt`, in the order `graphrt --help` lists them."""
    from graphrt.cli.main import COMMANDS
    from graphrt.cli.resume_command import STOPPED, WAITING_FOR_ANSWER

    parts = ["# The `graphrt` command", "",
             "Generated from graphrt's own argparse parsers when this site was built, so it says what "
             "`graphrt COMMAND --help` says. Every command exits with 0 on success and 1 on an error, which it "
             "reports in one line naming the file, the node and the field; `run`, `resume` and `fork` also exit "
             f"with {WAITING_FOR_ANSWER} when the run stops to ask a person (answer it with `graphrt resume "
             f"--answer`), and a command stopped by Ctrl-C exits with {STOPPED}.", "",
             "| command | what it does |", "| --- | --- |"]
    parts += [f"| [`graphrt {name}`](#graphrt-{name}) | {cell(help_text)} |" for name, _, help_text in COMMANDS]
    for name, module, help_text in COMMANDS:
        parser = command_parser(name, module)
        parts += ["", f"## graphrt {name}", "", f"{help_text[0].upper()}{help_text[1:]}.", ""]
        for paragraph in _described(module):
            parts += [paragraph, ""]
        parts += [fenced(parser.format_usage().strip(), "text"), "",
                  "| argument | what it does | default |", "| --- | --- | --- |", *_rows(parser)]
    return "\n".join(parts) + "\n"
