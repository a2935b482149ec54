"""`graphrt mcp` over stdio answers every request, and no MCP server's env value reaches an error.

The SDK's stdio transport drops a line its model refuses (a lone surrogate, nesting past its
parser, an integer past Python's digit limit), and the client waited forever. graphrt's
transport (graphrt/mcp/stdio.py) answers such a tools/call with an error result saying
what is wrong. A configured server that prints its token on stderr and dies does not get
the token into the user's error.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcp_types as types

from graphrt.cli import main
from graphrt.mcp.stdio import refusal

pytestmark = pytest.mark.needs("mcp")

ECHO = "version: 0.5\nnodes:\n  text: {value: hello}\n  echo: {agent: copyAgent, inputs: {text: ':text'}, isResult: true}\n"


def _call(number: int, arguments_text: str) -> str:
    return ('{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": %s}}'
            % (number, arguments_text))


hostile_arguments = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3).map(
        lambda text: json.dumps({"text": text})),
    st.integers(101, 20_000).map(lambda depth: '{"text": ' + "[" * depth + "]" * depth + "}"),
    st.integers(4_301, 6_000).map(lambda digits: '{"text": ' + "9" * digits + "}"),
    st.text(max_size=20).map(lambda text: json.dumps({"text": text})),
)


@settings(max_examples=60, deadline=None)
@given(number=st.integers(0, 2 ** 31), arguments=hostile_arguments)
def test_a_request_the_sdk_refuses_is_answered_with_its_id(number: int, arguments: str) -> None:
    line = _call(number, arguments)
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:  # noqa: BLE001 - what the SDK refuses is what graphrt answers itself
        answer = refusal(line)
        assert answer is not None and answer["id"] == number
        assert answer["result"]["isError"] and answer["result"]["content"][0]["text"].startswith("echo: the arguments")
        json.dumps(answer, ensure_ascii=False).encode("utf-8")  # writable on the wire


def test_a_notification_the_sdk_refuses_gets_no_answer() -> None:
    assert refusal('{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": "\\ud800"}}') is None
    assert refusal("not json at all") is None


class _Stdio:
    """`graphrt mcp FOLDER` started and initialized; `ask(line)` is its answer, read within a deadline."""

    def __init__(self, folder: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "graphrt", "mcp", str(folder)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)
        self.buffer = b""
        self.ask('{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
                 '"capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}')
        self.process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')

    def ask(self, line: str | bytes) -> dict[str, Any]:
        data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()
        while b"\n" not in self.buffer:
            assert self.selector.select(120), "no answer (a guard against a hang, not a measure)"
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            assert chunk, self.process.stderr.read().decode(errors="replace")[-2000:]
            self.buffer += chunk
        answer, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(answer)

    def close(self) -> str:
        self.process.stdin.close()
        self.process.wait(60)
        return self.process.stderr.read().decode(errors="replace")


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"text": "\\ud800"}', "echo: the arguments holds text that is not Unicode (a lone surrogate, '\\ud800' at character 0)"),
    ('{"\\udfff": 1}', "echo: the arguments holds text that is not Unicode"),
    ('{"text": ' + "[" * 5000 + "]" * 5000 + "}", "echo: the arguments is nested more than 100 levels deep"),
    ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", "echo: the arguments is nested more than 100 levels deep"),
    ('{"text": ' + "9" * 5000 + "}", "echo: the arguments holds an integer of 5,000 digits, more than graphrt reads"),
])
def test_graphrt_mcp_over_stdio_answers_a_hostile_call_and_the_next(tmp_path: Path, arguments: str, expected: str) -> None:
    (tmp_path / "echo.yaml").write_text(ECHO)
    server = _Stdio(tmp_path)
    try:
        refused = server.ask(_call(1, arguments))
        fine = server.ask(_call(2, '{"text": "hi"}'))
    finally:
        stderr = server.close()
    assert refused["id"] == 1 and refused["result"]["isError"]
    assert refused["result"]["content"][0]["text"].startswith(expected)
    assert fine["id"] == 2 and fine["result"]["structuredContent"] == {"echo": {"text": "hi"}}
    assert "Traceback" not in stderr


def test_a_configured_servers_env_values_are_not_in_its_error(tmp_path: Path) -> None:
    script = "import os, sys\nprint('token', os.environ['CAMPAIGN_TOKEN'], os.environ['OTHER'], file=sys.stderr)\nsys.exit(3)\n"
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"s": {
        "command": sys.executable, "args": ["-c", script],
        "env": {"CAMPAIGN_TOKEN": "not-a-key-looking-value-42", "OTHER": "plain-words-value"}}}}))
    (tmp_path / "g.yaml").write_text("version: 0.5\nnodes:\n  tools: {agent: mcpToolsListAgent, isResult: true}\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", "-q", str(tmp_path / "g.yaml"), "--mcp-config", str(tmp_path / "mcp.json")])
    assert code == 1
    assert "MCP server 's' failed to start" in err.getvalue() and "its stderr: token REDACTED REDACTED" in err.getvalue()
    assert "not-a-key-looking" not in err.getvalue() and "plain-words" not in err.getvalue()


def test_a_config_entry_that_is_no_server_is_named_by_its_type_not_its_text(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"s": ["npx", "--token", "secret-value-42"]}}))
    (tmp_path / "g.yaml").write_text("version: 0.5\nnodes:\n  tools: {agent: mcpToolsListAgent, isResult: true}\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        main(["run", "-q", str(tmp_path / "g.yaml"), "--mcp-config", str(tmp_path / "mcp.json")])
    assert "expected an object with 'command' or 'url', got list" in err.getvalue()
    assert "secret-value-42" not in err.getvalue()
