"""`pip install graphrt` with no extra: the commands a newcomer runs first answer in lines, never a traceback.

Each command runs as a child process in which every module an extra installs is hidden (`sys.modules[name] =
None`: import fails and `find_spec` finds nothing, as when the package is absent), so these run in any install.
A missing extra is one line naming it: `... is in graphrt[gemini], which is not installed ...: pip install
'graphrt[gemini]'`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from graphrt.base.extras import EXTRAS

HIDDEN = sorted({module.split(".")[0] for extra, modules in EXTRAS.items() if extra != "test" for module in modules})
"""The top-level modules of every extra (`google` hides `google.genai`)."""

GRAPHRT_WITHOUT_EXTRAS = [sys.executable, "-c", "import sys; sys.modules.update(dict.fromkeys(sys.argv[1].split(',')));"
                          " sys.argv[1:2] = []; from graphrt.cli import main; sys.exit(main())", ",".join(HIDDEN)]

GEMINI = """\
version: 0.5
nodes:
  answer:
    agent: geminiAgent
    inputs: {prompt: Hello}
    isResult: true
"""

TOOLS = """\
version: 0.5
nodes:
  chat:
    agent: toolsAgent
    inputs:
      llmAgent: openAIAgent
      tools: [geminiAgent, noSuchAgent]
      messages: [{role: user, content: Hello}]
    isResult: true
"""


def _graphrt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*GRAPHRT_WITHOUT_EXTRAS, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "gemini.yaml").write_text(GEMINI, encoding="utf-8")
    (tmp_path / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    return tmp_path


def test_the_child_sees_no_extra() -> None:
    done = subprocess.run([sys.executable, "-c", "import sys; sys.modules.update(dict.fromkeys(sys.argv[1].split(',')));"
                           " import importlib.util as u; print(u.find_spec('google'), u.find_spec('starlette'))",
                           ",".join(HIDDEN)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "None None"


def test_graphrt_agents_lists_the_agents_of_missing_extras_with_the_extra_each_needs(folder: Path) -> None:
    done = _graphrt("agents", cwd=folder)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    assert "pip install 'graphrt[gemini]'" in rows["geminiAgent"]
    assert "pip install 'graphrt[anthropic]'" in rows["anthropicAgent"]
    assert "pip install 'graphrt[tokens]'" in rows["tokenBoundStringsAgent"]
    assert "pip install 'graphrt[browser]'" in rows["puppeteerAgent"]  # it was "not available"
    assert "copyAgent" in rows and "graphrt[" not in rows["copyAgent"]


def test_graphrt_test_agents_skips_the_samples_of_missing_extras_and_says_why(folder: Path) -> None:
    done = _graphrt("test-agents", cwd=folder)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert ("skipped: agent 'geminiAgent' is in graphrt[gemini], which is not installed (no module google.genai): "
            "pip install 'graphrt[gemini]'") in done.stdout
    assert re.search(r"^test-agents: \d+ passed, 0 failed, \d+ agents skipped \(not installed\)$", done.stdout, re.M)


@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_graph_naming_an_agent_of_a_missing_extra_is_one_line(folder: Path, command: str) -> None:
    done = _graphrt(command, "gemini.yaml", cwd=folder)
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in output, output
    assert "gemini.yaml:4:5: node" in output  # located: the file, line and column of the node's agent
    assert ("agent 'geminiAgent' is in graphrt[gemini], which is not installed (no module google.genai): "
            "pip install 'graphrt[gemini]'") in output


def test_a_tool_of_a_missing_extra_is_named_by_tools_agent(folder: Path) -> None:
    done = _graphrt("run", "tools.yaml", cwd=folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "agent 'geminiAgent' is in graphrt[gemini], which is not installed" in done.stderr
    assert "ModuleNotFoundError" not in done.stderr


@pytest.mark.parametrize(("args", "extra"), [
    (("serve", ".", "--port", "0"), "serve"),
    (("mcp", "gemini.yaml"), "mcp"),
    (("mcp", "gemini.yaml", "--http", "0"), "mcp"),
])
def test_a_surface_of_a_missing_extra_is_one_line_naming_it(folder: Path, args: tuple[str, ...], extra: str) -> None:
    done = _graphrt(*args, cwd=folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'graphrt[{extra}]'" in lines[0], done.stderr


@pytest.mark.parametrize(("args", "extra"), [
    (("serve", ".", "--port", "0"), "serve"),
    (("mcp", "gemini.yaml", "--http", "0"), "mcp"),
])
def test_a_server_without_httptools_says_so_instead_of_serving_on_h11(folder: Path, args: tuple[str, ...],
                                                                      extra: str) -> None:
    """uvicorn came without httptools (graphrt[mcp] had no httptools): its h11 parser failed the wire and security
    tests (no 400 for a request without Host, a traceback for a NUL byte), so graphrt serves on httptools alone."""
    code = "import sys; sys.modules['httptools'] = None; from graphrt.cli import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=folder, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(
        f"needs graphrt[{extra}], which is not installed (no module httptools): pip install 'graphrt[{extra}]'")
