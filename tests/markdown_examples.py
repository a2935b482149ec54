"""The code blocks of README.md and docs/ run as written: the helper tests/test_readme.py and tests/test_docs.py share.

A page's blocks run in its order, in one scratch folder that sees the repository's `graphs/` and `.venv`
(so a tutorial can write a file, run it from the shell, then read it from Python):

- `sh` blocks, and blocks of `$ command` lines (a transcript, the output after each command), run with the
  project's venv on PATH. A transcript must print its output: JSON by its values (a JSON object shown need only
  hold the keys it shows, and `"..."` stands for any value), other lines each somewhere in stdout or stderr.
  Install commands are not run (they would reinstall this very venv), but each extra they name must exist;
  `python -m pytest` is this very suite. `graphrt serve` keeps running, in the background, until the page ends:
  it must listen and answer `/health`, and listens on a free port, which replaces the page's `8000` in the
  commands and code after it (other tests may hold 8000).
- `python` blocks run in one namespace per page; a line `print(...)  # {...}` (or `# [...]`, or
  `# prints TEXT`) must print that.
- `yaml` blocks parse, and whole graphs validate; `json` and `toml` blocks parse; a `mermaid` block is what
  `graphrt viz FILE` draws for the file the text before it names.

Where an example needs an LLM, the scripted OpenAI-compatible server of tests/conftest.py answers (through
OPENAI_BASE_URL), with the replies an HTML comment before the block gives. The comments, each in the text
between a block and the one before it:

- `<!-- docs-test: not run (why) -->`: the block is not run (it needs a cluster, a key of yours, ...);
- `<!-- docs-test: llm [REPLY, ...] -->`: the scripted server's replies for the block, each
  `{"text": "...", "model": "..."}` or `{"tool_calls": [[NAME, ARGUMENTS], ...]}`;
- `<!-- docs-test: file PATH -->`: the block is written to PATH in the scratch folder (before it is parsed
  or run as its language says);
- `<!-- docs-test: exit N -->`: the block's commands may exit with N (a run that stops to ask: 3);
- `<!-- docs-test: invalid -->`: the graph is shown for its mistake, and validation must refuse it;
- `<!-- docs-test: needs EXTRA ... -->`: the block runs where those extras are installed (a tool of its graph
  needs one, and fails as the LLM's content without it); else it is left out, and the page skips for them.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from .conftest import NEEDS, need, need_agents, need_of_module, text, tool_calls

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
EMBEDDED_MODEL = "SmolLM2-135M-Instruct"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_MARKER = re.compile(r"<!--\s*docs-test:\s*(\w[\w-]*)\s*(.*?)\s*-->", re.DOTALL)
_EXPECTED_PRINT = re.compile(r"^print\(.*#\s*(?:prints\s+(.+?)|(\{.*\}|\[.*\]))\s*$", re.MULTILINE)


@dataclass
class Block:
    file: Path
    language: str
    code: str
    line: int
    before: str  # the page's text from the previous block to this one

    def __str__(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line} ({self.language or 'text'})"

    def marker(self, name: str) -> str | None:
        """The argument of the last `<!-- docs-test: NAME ... -->` before this block, or None."""
        found = [argument for key, argument in _MARKER.findall(self.before) if key == name]
        return found[-1] if found else None

    @property
    def is_shell(self) -> bool:
        return self.language == "sh" or (self.language in ("", "text", "console")
                                         and bool(re.search(r"^\$ ", self.code, re.MULTILINE)))


def blocks(file: Path) -> list[Block]:
    """Every fenced block of a Markdown file, in order."""
    text_ = file.read_text(encoding="utf-8")
    found, last_end = [], 0
    for match in _FENCE.finditer(text_):
        found.append(Block(file, match.group(1), match.group(2), text_[: match.start()].count("\n") + 1,
                           text_[last_end:match.start()]))
        last_end = match.end()
    return found


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


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
    """The line up to its comment: an unquoted `#` at the start of a word."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[:at].rstrip()
    return line


def _parts(line: str) -> list[str]:
    """A command line's commands joined by `&&` (a comment at its end left out)."""
    return [piece.strip() for piece in _without_comment(line).split("&&")]


def is_install(part: str) -> bool:
    return part.startswith(("./install.sh", "python3 -m venv")) or "pip install" in part


def extras_exist(part: str) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    known = set(pyproject["project"]["optional-dependencies"])
    for group in re.findall(r"(?:graphrt|\.)\[([\w,]+)\]", part):
        assert set(group.split(",")) <= known, f"{part!r} names an extra pyproject.toml does not have"
    if part.startswith("./install.sh"):
        assert (ROOT / "install.sh").stat().st_mode & 0o111, "install.sh is not executable"
        for extra in part.split()[1:2]:
            assert set(extra.split(",")) <= known, f"{part!r} names an extra pyproject.toml does not have"


def _matches(wanted: Any, got: Any) -> bool:
    """JSON shown against JSON printed: objects need only hold the keys shown; "..." stands for any value."""
    if wanted == "...":
        return True
    if isinstance(wanted, dict):
        return isinstance(got, dict) and all(key in got and _matches(value, got[key]) for key, value in wanted.items())
    if isinstance(wanted, list):
        return isinstance(got, list) and len(wanted) == len(got) and all(map(_matches, wanted, got))
    return wanted == got


def check_output(command: Command, result: subprocess.CompletedProcess[str]) -> None:
    expected = "\n".join(command.expected).strip()
    if not expected:
        return
    json_start = min((at for at in (expected.find("{"), expected.find("[")) if at >= 0), default=-1)
    if json_start >= 0 and (json_start == 0 or expected[json_start - 1] == "\n"):
        try:
            wanted = json.loads(expected[json_start:])
        except ValueError:
            wanted = None
        if wanted is not None:
            printed = result.stdout[result.stdout.find(expected[json_start]):]
            assert _matches(wanted, json.loads(printed)), f"{command.line}: stdout differs:\n{result.stdout}"
            expected = expected[:json_start].strip()
    printed = result.stdout + result.stderr
    for line in filter(None, expected.splitlines()):
        if "no LLM server configured" in line:
            continue  # the embedded model's notice: here the scripted server answers instead
        assert line in printed, f"{command.line}: printed no line {line!r}:\n{printed}"


def script_llm(server: Any, block: Block) -> None:
    """The scripted server's replies for a block, from its `llm` marker (none: it must not ask)."""
    server.reset()
    replies = block.marker("llm")
    for reply in json.loads(replies) if replies else []:
        if "tool_calls" in reply:
            server.script(tool_calls(*[tuple(call) for call in reply["tool_calls"]], content=reply.get("text")))
        else:
            server.script(text(reply["text"], model=reply.get("model", "scripted-model")))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Page:
    """One page's run: its scratch folder, environment, Python namespace and background servers."""

    folder: Path
    server: Any
    namespace: dict[str, Any] = field(default_factory=lambda: {"__name__": "docs_example"})
    port: int | None = None
    background: list[subprocess.Popen[str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # what the examples not run need: skipped for it at the end
    modules: list[Path] = field(default_factory=list)  # the Python files the page wrote

    def env(self) -> dict[str, str]:
        env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               "OPENAI_BASE_URL": self.server.url, "OPENAI_API_KEY": "sk-docs"}
        env.pop("OPENAI_MODEL", None)
        return env

    def with_port(self, code: str) -> str:
        """The page's `8000` replaced by the port its server listens on."""
        return code if self.port is None else re.sub(r"(?<=127\.0\.0\.1:)8000\b|(?<=localhost:)8000\b",
                                                      str(self.port), code)

    def close(self) -> None:
        for process in self.background:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)


def _start_server(page: Page, part: str) -> None:
    """`graphrt serve ...` in the background until the page ends, on a free port; it must listen and answer."""
    need("serve")
    page.port = _free_port()
    part = re.sub(r"--port \d+", "", part) + f" --port {page.port}"
    process = subprocess.Popen(["bash", "-c", f"exec {part}"], cwd=page.folder, env=page.env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    page.background.append(process)
    hang_guard = threading.Timer(60, process.kill)  # a server that neither starts nor exits ends the wait below
    hang_guard.start()
    printed: list[str] = []
    try:
        while (line := process.stdout.readline()) and not line.startswith("graphrt: listening on "):
            printed.append(line)
    finally:
        hang_guard.cancel()
    if not line:
        pytest.fail(f"{part!r} exited with {process.wait()} before it listened: {''.join(printed)}")
    threading.Thread(target=process.stdout.read, daemon=True).start()  # its log, read so that it never blocks
    url = line.removeprefix("graphrt: listening on ").strip()
    assert httpx.get(f"{url}health", timeout=30).status_code == 200, f"{part!r}: {url}health did not answer"


def run_shell(page: Page, block: Block) -> None:
    allowed_exit = block.marker("exit")
    for command in commands(block):
        for part in _parts(command.line):
            if is_install(part):
                extras_exist(part)
                continue
            if part.endswith("-m pytest"):
                continue  # this very suite
            if part.startswith("graphrt serve"):
                _start_server(page, part)
                continue
            part = page.with_port(part)
            result = subprocess.run(["bash", "-c", part], check=False, cwd=page.folder, env=page.env(),
                                    capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
            # 1 is the exit code of the examples that show an error
            shows_error = any(line and not line.startswith((" ", "{", "}", "[", "]")) for line in command.expected)
            allowed = {0, 1} if shows_error else {0}
            if allowed_exit:
                allowed = {int(code) for code in allowed_exit.split()}
            extra = re.search(r"which is not installed \(no module [^)]*\): pip install 'graphrt\[(\w+)\]'",
                              result.stderr)
            if result.returncode not in allowed and extra and extra.group(1) in NEEDS:
                need(extra.group(1))  # graphrt's own line for an extra not installed here: skipped if it is not
            assert result.returncode in allowed, f"{block}: {part!r} exited {result.returncode}:\n{result.stderr}"
            check_output(Command(part, command.expected), result)


def run_python(page: Page, block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    try:
        exec(compile(page.with_port(block.code), str(block), "exec"), page.namespace)  # noqa: S102 - the page's own
    except ModuleNotFoundError as error:
        wanted = need_of_module(error.name or "")
        if wanted is None:
            pytest.fail(f"{block} failed: {type(error).__name__}: {error}")
        page.left_out.append(wanted)
        return
    except Exception as error:  # noqa: BLE001
        pytest.fail(f"{block} failed: {type(error).__name__}: {error}")
    printed = capsys.readouterr().out
    for prose, literal in _EXPECTED_PRINT.findall(block.code):
        expected = (prose or literal).strip()
        assert expected in printed, f"{block}: printed no {expected}:\n{printed}"


def _page_agents(page: "Page") -> list[Any]:
    """The agents of the Python files the page wrote, which its graphs may use (as `--agents` gives them)."""
    from graphrt.authoring.agent_like import module_agents

    return [info for path in page.modules for info in module_agents(str(path))]


def check_data(block: Block, page: "Page") -> None:
    folder = page.folder
    if block.language == "yaml":
        data = yaml.safe_load(block.code)
        assert isinstance(data, dict), f"{block}: not a YAML mapping"
        if "version" in data and "nodes" in data:
            need_agents(data)  # an agent of an extra not installed here
            import graphrt

            agents = _page_agents(page) or None
            if block.marker("invalid") is not None:  # a graph shown for its mistake: it must be refused
                with pytest.raises(graphrt.GraphValidationError):
                    graphrt.Graph(data, agents=agents)
            else:
                graphrt.Graph(data, agents=agents)
    elif block.language == "json":
        json.loads(block.code)
    elif block.language == "toml":
        assert tomllib.loads(block.code)
    elif block.language == "mermaid":
        file = re.findall(r"`graphrt viz (\S+)`", block.before)[-1]
        drawn = subprocess.run([str(VENV_BIN / "graphrt"), "viz", file], cwd=folder, capture_output=True, text=True,
                               check=True).stdout
        assert drawn.strip() == block.code.strip(), f"{block}: run `graphrt viz {file}` and paste its output"


def run_page(file: Path, folder: Path, server: Any, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> int:
    """Every block of a page, in order; the number of blocks run (or checked). Skips at the end for what the
    blocks that could not run need, once the others have run."""
    (folder / "graphs").symlink_to(ROOT / "graphs")
    (folder / ".venv").symlink_to(VENV_BIN.parent)
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))  # the page's Python files import as modules, as `--agents` finds them
    monkeypatch.setenv("OPENAI_MODEL", EMBEDDED_MODEL)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs")
    page = Page(folder, server)
    ran = 0
    try:
        for block in blocks(file):
            if block.marker("not") is not None and block.marker("not").startswith("run"):
                continue
            target = block.marker("file")
            if target:
                (folder / target).parent.mkdir(parents=True, exist_ok=True)
                (folder / target).write_text(block.code, encoding="utf-8")
                if target.endswith(".py"):
                    page.modules.append(folder / target)
            wanted = (block.marker("needs") or "").split()
            if any(NEEDS[name].absent() for name in wanted):
                page.left_out += [name for name in wanted if NEEDS[name].absent()]
                continue
            script_llm(server, block)
            if block.is_shell:
                run_shell(page, block)
            elif block.language == "python":
                run_python(page, block, capsys)
            elif block.language in ("yaml", "json", "toml", "mermaid"):
                check_data(block, page)
            else:
                continue
            ran += 1
    finally:
        page.close()
        for name, module in list(sys.modules.items()):  # the page's modules: another page may use the same names
            if str(getattr(module, "__file__", None) or "").startswith(str(folder)):
                del sys.modules[name]
    need(*page.left_out)
    return ran


def named_files(file: Path, generated: frozenset[str] = frozenset()) -> list[str]:
    """The repository's files a page names (relative links, and paths such as `graphs/hello.yaml`) that do not exist;
    `generated`: the pages docsite/ makes as the site builds, by their path under docs/."""
    text_ = file.read_text(encoding="utf-8")

    def exists(link: str) -> bool:
        target = (file.parent / link).resolve()
        if target.exists():
            return True
        return target.is_relative_to(ROOT / "docs") and str(target.relative_to(ROOT / "docs")) in generated

    linked = [link for link in re.findall(r"\]\(((?!https?:|#|mailto:)[^)\s#]+)", text_) if not exists(link)]
    named = re.findall(r"(?<![\w/.])((?:graphs|bench|graphrt|agents|tests|docsite|examples)/[\w./-]+"
                       r"\.(?:yaml|py|json|png|md))", text_)
    return sorted(set(linked) |
                  {path for path in named if not (ROOT / path).exists()})
