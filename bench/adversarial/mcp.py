"""The MCP surface: `graphrt mcp` over stdio sent hostile requests, and MCP servers whose env must stay unsaid.

Each request must get an answer with its id by the deadline (a result, an error
result or a JSON-RPC error); the server's stderr must hold no traceback; no answer
may quote an env value of a configured server. A request with no answer is a hang,
and the server is started again for the next one.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from .cases import ENV_SECRET, SECRET, Case
from .values import VALUES, dumps, h

ECHO = """\
version: 0.5
nodes:
  text: {value: hello}
  echo: {agent: copyAgent, inputs: {text: ':text'}, isResult: true}
"""
LISTS = """\
version: 0.5
nodes:
  tools: {agent: mcpToolsListAgent, isResult: true}
"""


def _server_script(folder: Path) -> Path:
    """An MCP server that tells its env on stderr and in its error, then fails: what a client may not repeat."""
    script = folder / "talker.py"
    script.write_text("import os, sys\n"
                      "print('starting with token', os.environ.get('CAMPAIGN_TOKEN'), file=sys.stderr)\n"
                      "print('and key', os.environ.get('OPENAI_KEY'), file=sys.stderr)\n"
                      "sys.exit(3)\n")
    return script


def stdio_requests() -> Iterator[tuple[str, bytes]]:
    """(case id, one raw request line) for tools/call on the echo graph."""
    def call(arguments_text: str, name: str = "echo") -> bytes:
        return ('{"jsonrpc": "2.0", "id": ID, "method": "tools/call", "params": {"name": ' + json.dumps(name)
                + ', "arguments": ' + arguments_text + '}}\n').encode()

    for value in VALUES:
        yield f"mcp/stdio/argument/{value}", call(dumps({"text": h(value)}))
        yield f"mcp/stdio/key/{value}", call(dumps({"text": "x", "nested": {"inner": h(value)}}))
    yield "mcp/stdio/argument/escaped-lone-surrogate", call('{"text": "\\ud800"}')
    yield "mcp/stdio/argument/escaped-lone-low-surrogate-key", call('{"\\udfff": 1}')
    yield "mcp/stdio/argument/invalid-utf8", call('{"text": "@"}').replace(b"@", b"\xed\xa0\x80")
    yield "mcp/stdio/argument/nested-5000", call('{"text": ' + "[" * 5000 + "]" * 5000 + "}")
    yield "mcp/stdio/argument/nested-100000", call('{"text": ' + "[" * 100000 + "]" * 100000 + "}")
    yield "mcp/stdio/argument/nested-objects-5000", call('{"text": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}")
    yield "mcp/stdio/argument/integer-5000-digits", call('{"text": ' + "9" * 5000 + "}")
    yield "mcp/stdio/argument/not-an-object", call('"just text"')
    yield "mcp/stdio/name/10000-characters", call('{"text": "x"}', "n" * 10_000)
    yield "mcp/stdio/name/surrogate", call('{"text": "x"}', "\ud800")
    yield "mcp/stdio/name/lists-servers", call("{}", "lists")


class StdioServer:
    """`graphrt mcp FOLDER --mcp-config CONFIG`, started, initialized, and read line by line."""

    def __init__(self, folder: Path, config: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "graphrt", "mcp", str(folder),
                                         "--mcp-config", str(config)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=open(folder / "stderr.log", "ab"), env=env)
        self.stderr = folder / "stderr.log"
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        self.next_id = 1
        self.send(b'{"jsonrpc": "2.0", "id": ID, "method": "initialize", "params": {"protocolVersion": "2025-06-18", '
                  b'"capabilities": {}, "clientInfo": {"name": "campaign", "version": "1"}}}\n')
        if self.answer(60) is None:
            raise RuntimeError(f"graphrt mcp did not start: {self.stderr.read_text()[-500:]}")
        self.process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        self.process.stdin.flush()

    def send(self, line: bytes) -> int:
        number = self.next_id
        self.next_id += 1
        self.process.stdin.write(line.replace(b'"id": ID', b'"id": %d' % number))
        self.process.stdin.flush()
        self.waiting = number
        return number

    def answer(self, deadline: float) -> dict[str, Any] | None:
        """The answer to the last request sent, or None if none came by the deadline (seconds)."""
        end = time.monotonic() + deadline
        while True:
            while b"\n" in self._buffer:
                line, self._buffer = self._buffer.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    return {"not-json": line[:300].decode(errors="replace")}
                if message.get("id") == self.waiting:
                    return message
            left = end - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def run_stdio(deadline: float, every: int = 1, wanted: set[str] | None = None) -> list[dict[str, Any]]:
    """Every stdio request against one server (started again after a hang or a death)."""
    folder = Path(tempfile.mkdtemp(prefix="graphrt-campaign-mcp-"))
    (folder / "echo.yaml").write_text(ECHO)
    (folder / "lists.yaml").write_text(LISTS)
    config = folder / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"talker": {
        "command": sys.executable, "args": [str(_server_script(folder))],
        "env": {"CAMPAIGN_TOKEN": ENV_SECRET, "OPENAI_KEY": SECRET}}}}))
    graphs = folder
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    outcomes = []
    server: StdioServer | None = None
    for number, (case_id, line) in enumerate(stdio_requests()):
        if number % every or (wanted is not None and case_id not in wanted):
            continue
        if server is None or server.process.poll() is not None:
            server = StdioServer(graphs, config, env)
        seen_err = server.stderr.stat().st_size
        server.send(line)
        message = server.answer(deadline)
        outcome: dict[str, Any] = {"id": case_id}
        text = json.dumps(message, ensure_ascii=False) if message is not None else ""
        err = server.stderr.read_bytes()[seen_err:].decode(errors="replace")
        if message is None:
            outcome["end"] = "hang"
            outcome["detail"] = f"no answer in {deadline} s; stderr: {err[-300:]}"
            server.close()
            server = None
        elif "Traceback (most recent call last)" in err:
            outcome["end"], outcome["detail"] = "traceback", err[-1500:]
        elif "not-json" in message:
            outcome["end"], outcome["detail"] = "wrong", f"an answer that is not JSON: {message['not-json']}"
        elif "error" in message or (message.get("result") or {}).get("isError"):
            outcome["end"], outcome["detail"] = "clean", text[:300]
        else:
            outcome["end"] = "result"
        leaked = [secret for secret in (SECRET, ENV_SECRET) if secret in text or secret in err]
        if leaked:
            outcome["leak"] = leaked
        outcomes.append(outcome)
    if server is not None:
        server.close()
    return outcomes


def env_cases() -> Iterator[Case]:
    """`graphrt run --mcp-config`: configured servers that fail while their env holds values no error may say."""
    script = "import os, sys\nprint('token', os.environ.get('CAMPAIGN_TOKEN'), file=sys.stderr)\nsys.exit(3)\n"
    servers = {
        "prints-env-and-dies": {"command": sys.executable, "args": ["-c", script]},
        "no-such-command": {"command": "/nonexistent/campaign-server"},
        "bad-timeout": {"command": sys.executable, "args": ["-c", script], "timeout": "soon"},
        "bad-env-entry": {"command": sys.executable, "args": ["-c", script], "envBad": 1},
        "url-with-token": {"url": f"http://127.0.0.1:9/mcp?token={ENV_SECRET}"},
        "header-token": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": ENV_SECRET}},
    }
    graphs = {
        "list": {"tools": {"agent": "mcpToolsListAgent", "isResult": True}},
        "call": {"call": {"agent": "mcpToolsCallAgent", "inputs": {"tools": {"name": "s--x", "arguments": {}}},
                          "isResult": True}},
    }
    for name, server in servers.items():
        entry = {**server, "env": {"CAMPAIGN_TOKEN": ENV_SECRET, "PATH": os.environ.get("PATH", "")}}
        if "url" in server:
            entry.pop("env")
        for graph_name, nodes in graphs.items():
            yield {"id": f"mcp/config/{name}/{graph_name}", "surface": "mcp",
                   "files": {"g.json": {"version": 0.5, "nodes": nodes}, "mcp.json": {"mcpServers": {"s": entry}}},
                   "argv": ["run", "{dir}/g.json", "--mcp-config", "{dir}/mcp.json", "--trace", "{dir}/trace.jsonl"],
                   "read_trace": True}
