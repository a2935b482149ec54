"""The README's examples run as written: its shell commands, Python, YAML and TOML blocks.

Commands run with the project's venv on PATH, in a scratch folder that sees the
repository's `graphs/` (so `runs.db` and such land there). Where an example
needs an LLM, the scripted OpenAI-compatible server of tests/conftest.py
answers, through OPENAI_BASE_URL. A transcript (`$ command` then its output)
must print that output: JSON exactly, other lines each somewhere in stdout or
stderr. Install commands are not run (they would reinstall this very venv),
but each extra they name must exist. Every local file the README links exists.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import graphrt

from .conftest import NEEDS, need, need_agents, need_of_module, text, tool_calls

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent
EMBEDDED_MODEL = "SmolLM2-135M-Instruct"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass
class Block:
    language: str
    code: str
    line: int
    before: str  # the README's text from the previous block to this one

    def __str__(self) -> str:
        return f"README.md:{self.line} ({self.language or 'text'})"


def blocks() -> list[Block]:
    text_ = README.read_text(encoding="utf-8")
    found, last_end = [], 0
    for match in _FENCE.finditer(text_):
        found.append(Block(match.group(1), match.group(2), text_[: match.start()].count("\n") + 1,
                           text_[last_end:match.start()]))
        last_end = match.end()
    return found


def of(*languages: str) -> list[Block]:
    return [block for block in blocks() if block.language in languages]


# --- shell ---------------------------------------------------------------------------------------


@dataclass
class Command:
    line: str
    expected: list[str]  # the transcript's output lines, if any


def commands(block: Block) -> Iterator[Command]:
    """`$ cmd` lines with the output after them, or (no `$`) every non-comment line."""
    lines = block.code.splitlines()
    if any(line.startswith("$ ") for line in lines):
        current: Command | None = None
        for line in lines:
            if line.startswith("$ "):
                if current:
                    yield current
                current = Command(line[2:], [])
            elif current is not None:
                current.expected.append(line)
        if current:
            yield current
    else:
        for line in lines:
            if line.strip() and not line.lstrip().startswith("#"):
                yield Command(line, [])


def _without_comment(line: str) -> str:
    return shlex.join(shlex.split(line, comments=True)) if "#" in line else line


def _is_install(part: str) -> bool:
    return part.startswith(("./install.sh", "python3 -m venv")) or "pip install" in part


def _extras_exist(part: str) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    known = set(pyproject["project"]["optional-dependencies"])
    for group in re.findall(r"(?:graphrt|\.)\[([\w,]+)\]", part):
        assert set(group.split(",")) <= known, f"{part!r} names an extra pyproject.toml does not have"
    if part.startswith("./install.sh"):
        assert (ROOT / "install.sh").stat().st_mode & 0o111, "install.sh is not executable"
        for extra in part.split()[1:2]:
            assert set(extra.split(",")) <= known, f"{part!r} names an extra pyproject.toml does not have"


def _script_llm(server: Any, command: str) -> None:
    """What the scripted server answers for the README's LLM commands: a search, then the answer."""
    server.reset()
    if "react_tools.yaml" in command:
        server.script(tool_calls(("wikiAgent--search", {"entity": "Eiffel Tower"})),
                      text("Gustave Eiffel", model=EMBEDDED_MODEL))
    elif "react.yaml" in command:
        server.script(text("Thought: I need to read about the tower.\nAction: search[Eiffel Tower]", model=EMBEDDED_MODEL),
                      text("Thought: The page says who designed it.\nAction: finish[Gustave Eiffel]", model=EMBEDDED_MODEL))
    else:  # any other graph with an LLM (the MCP example's toolsAgent): a plain answer ends it
        server.script(*[text("Done.")] * 3)


def _check_output(command: Command, result: subprocess.CompletedProcess[str]) -> None:
    expected = "\n".join(command.expected).strip()
    if not expected:
        return
    json_start = expected.find("{")
    if json_start >= 0:
        try:
            wanted = json.loads(expected[json_start:])
        except ValueError:
            wanted = None
        if wanted is not None:
            assert json.loads(result.stdout) == wanted, f"{command.line}: stdout differs"
            expected = expected[:json_start].strip()
    printed = result.stdout + result.stderr
    for line in filter(None, expected.splitlines()):
        if "no LLM server configured" in line:
            continue  # the embedded model's notice: here the scripted server answers instead
        assert line in printed, f"{command.line}: printed no line {line!r}:\n{printed}"


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A folder where `graphs/` and `.venv` are the repository's."""
    (tmp_path / "graphs").symlink_to(ROOT / "graphs")
    (tmp_path / ".venv").symlink_to(VENV_BIN.parent)
    return tmp_path


def _env(server: Any) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-readme"}
    env.pop("OPENAI_MODEL", None)
    return env


def _serves(part: str) -> bool:
    return part.startswith("graphrt serve")


def _run_server_briefly(part: str, cwd: Path, env: dict[str, str]) -> None:
    """A server runs until stopped: it must start and answer, then it is stopped."""
    need("serve")
    process = subprocess.Popen(["bash", "-c", part], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    hang_guard = threading.Timer(60, process.kill)  # a server that neither starts nor exits ends the wait below
    hang_guard.start()
    printed: list[str] = []
    try:
        while (line := process.stdout.readline()) and not line.startswith("graphrt: listening on "):
            printed.append(line)
        if not line:
            pytest.fail(f"{part!r} exited with {process.wait()} before it listened: {''.join(printed)}")
        url = line.removeprefix("graphrt: listening on ").strip()
        assert httpx.get(f"{url}health", timeout=30).status_code == 200, f"{part!r}: {url}health did not answer"
    finally:
        hang_guard.cancel()
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


SHELL_BLOCKS = [block for block in blocks() if block.language == "sh" or
                (block.language == "" and re.search(r"^\$ ", block.code, re.MULTILINE))]


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=str)
def test_shell_examples_run_as_written(block: Block, scratch: Path, openai_server: Any) -> None:
    if "readme-test: not run" in block.before:  # e.g. commands that need a cluster; the marker says why
        pytest.skip(re.findall(r"readme-test: not run([^>]*)-->", block.before)[-1].strip())
    for command in commands(block):
        for part in (piece.strip() for piece in _without_comment(command.line).split("&&")):
            if _is_install(part):
                _extras_exist(part)
                continue
            if part.endswith("-m pytest"):
                continue  # this very suite
            env = _env(openai_server)
            if _serves(part):
                _run_server_briefly(part, scratch, env)
                continue
            _script_llm(openai_server, part)
            result = subprocess.run(["bash", "-c", part], check=False, cwd=scratch, env=env, capture_output=True, text=True,
                                    timeout=120, stdin=subprocess.DEVNULL)
            # 1 is the exit code of the examples that show an error; 3 of a run that stops to ask a question.
            shows_error = any(line and not line.startswith((" ", "{", "}")) for line in command.expected)
            allowed = {0, 1} if shows_error else {0}
            if "--checkpoint" in part and "ask.yaml" in part:
                allowed = {3}
            extra = re.search(r"which is not installed \(no module [^)]*\): pip install 'graphrt\[(\w+)\]'",
                              result.stderr)
            if result.returncode not in allowed and extra and extra.group(1) in NEEDS:
                need(extra.group(1))  # graphrt's own line for an extra not installed here: skipped if it is not
            assert result.returncode in allowed, f"{block}: {part!r} exited {result.returncode}:\n{result.stderr}"
            _check_output(Command(part, command.expected), result)


# --- Python --------------------------------------------------------------------------------------


def test_python_examples_run_as_written_in_order(scratch: Path, openai_server: Any, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(scratch)
    monkeypatch.setenv("OPENAI_MODEL", EMBEDDED_MODEL)
    namespace: dict[str, Any] = {"__name__": "readme"}
    left_out: list[str] = []  # what the examples not run need: skipped for it once the others have run
    for block in of("python"):
        if "readme-test: not run" in block.before:  # e.g. code that needs a Ray cluster; the marker says why
            continue
        openai_server.reset()
        if "home.yaml" in block.code:
            openai_server.script(tool_calls(("Thermostat--set_target", {"celsius": 21})), text("Done: 21 degrees."))
        try:
            exec(compile(block.code, str(block), "exec"), namespace)  # noqa: S102 - the README's own code
        except ModuleNotFoundError as error:
            wanted = need_of_module(error.name or "")
            if wanted is None:
                pytest.fail(f"{block} failed: {type(error).__name__}: {error}")
            left_out.append(wanted)
            continue
        except Exception as error:  # noqa: BLE001
            pytest.fail(f"{block} failed: {type(error).__name__}: {error}")
        printed = capsys.readouterr().out
        for expected in re.findall(r"^print\(.*#\s*(\{'.*\})\s*$", block.code, re.MULTILINE):
            assert expected in printed, f"{block}: printed no {expected}:\n{printed}"
    assert namespace["results"]  # the last example's results
    need(*left_out)


def test_the_home_example_sets_the_thermostat_through_the_llm(scratch: Path, openai_server: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(scratch)
    namespace: dict[str, Any] = {}
    for block in of("python"):
        if "def greet" in block.code or "class Thermostat" in block.code:
            openai_server.script(tool_calls(("Thermostat--set_target", {"celsius": 21})), text("Done: 21 degrees."))
            exec(compile(block.code, str(block), "exec"), namespace)  # noqa: S102
    assert namespace["results"] == {"greeting": "Hello, Ada!", "reply": "Done: 21 degrees."}
    tool_message = next(m for m in openai_server.requests[-1]["messages"] if m["role"] == "tool")
    assert tool_message["content"] == "target set to 21"


# --- data blocks and files -----------------------------------------------------------------------


@pytest.mark.parametrize("block", of("yaml"), ids=str)
def test_yaml_examples_parse_and_whole_graphs_validate(block: Block) -> None:
    data = yaml.safe_load(block.code)
    assert isinstance(data, dict)
    if "version" in data and "nodes" in data:
        need_agents(data)  # an agent of an extra not installed here
        graphrt.Graph(data)


@pytest.mark.parametrize("block", of("toml"), ids=str)
def test_toml_examples_parse(block: Block) -> None:
    assert tomllib.loads(block.code)


def test_the_mermaid_picture_is_what_viz_draws() -> None:
    for block in of("mermaid"):
        file = re.findall(r"`graphrt viz (\S+)`", block.before)[-1]
        drawn = subprocess.run([str(VENV_BIN / "graphrt"), "viz", file], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout
        assert drawn.strip() == block.code.strip(), f"{block}: run `graphrt viz {file}` and paste its output"


def test_every_file_the_readme_names_exists() -> None:
    text_ = README.read_text(encoding="utf-8")
    linked = re.findall(r"\]\(((?!https?:|#)[^)\s]+)\)", text_)
    named = re.findall(r"(?<![\w/.])((?:graphs|bench|graphrt|agents|tests|docs)/[\w./-]+\.(?:yaml|py|json|png|md))", text_)
    missing = sorted({path for path in linked + named if not (ROOT / path).exists()})
    assert not missing, f"README.md names files that do not exist: {missing}"


def test_the_first_commands_are_install_and_run_then_the_ci_test_command() -> None:
    first, second = of("sh")[:2]
    assert first.code.strip().startswith("./install.sh && .venv/bin/graphrt run graphs/")
    assert second.code.strip() == ".venv/bin/python -m pytest"
    # .ci/run runs these two, read from README.md, in a fresh clone, before it runs anything else of graphrt's
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    steps = [line for line in ci.splitlines() if line.startswith((".venv/", "python3 ", "env ", "GRAPHRT_"))]
    assert steps[0] == "python3 .ci/readme_commands.py", steps
    spec = importlib.util.spec_from_file_location("readme_commands", ROOT / ".ci" / "readme_commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.readme_commands(README) == [first.code.strip(), second.code.strip()]


def _section(title: str) -> str:
    """The README's text under a `## ` heading, up to the next one."""
    text_ = README.read_text(encoding="utf-8")
    start = text_.index(f"\n## {title}")
    end = text_.find("\n## ", start + 1)
    return text_[start:end if end != -1 else None]


def test_the_batch_section_names_every_file_a_batch_writes_beside_its_output(scratch: Path) -> None:
    (scratch / "names.jsonl").write_text('{"name": "Ada"}\n{"name": "Alan"}\n')
    done = subprocess.run([str(VENV_BIN / "graphrt"), "batch", "graphs/hello.yaml", "names.jsonl", "-o",
                           "greetings.jsonl", "-q"], cwd=scratch, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = {path.name for path in scratch.iterdir()} - {"graphs", ".venv", "names.jsonl", "greetings.jsonl"}
    said = " ".join(_section("Batches: one graph over a dataset").split())  # words, across line ends
    assert written and all(f"`{name}`" in said for name in written), (written, said)
    for name in ("-wal", "-shm", "`OUTPUT.runs.db`"):  # SQLite's files while it runs, and the default's rule
        assert name in said


def test_the_mcp_example_says_the_embedded_model_calls_no_tool_there() -> None:
    said = " ".join(README.read_text(encoding="utf-8").split())
    assert ("On the embedded 135M model this example calls no tool: llama-cpp-python's server makes a tool call "
            "only when `tool_choice` names the tool") in said
    header = (ROOT / "graphs" / "mcp_files.yaml").read_text(encoding="utf-8")
    assert "it calls\n# no tool there" in header
