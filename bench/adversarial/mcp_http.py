"""The mcp-http surface: a real `graphrt mcp --http PORT` process (with and without a key), attacked over raw HTTP.

The stdio surface's hostile tools/call requests (mcp.py) are sent in an initialized
session, and around them what only HTTP has: no key or a wrong one, a foreign Host
(DNS rebinding) and Origin (a page's text/plain POST), bodies over the limit or half
sent, bad session ids. Judged as serve.py judges; the liveness probe (asked after
every case, and while connections are held) is a tools/list in a fresh session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from .cases import ENV_SECRET, SECRET
from .http import Answer, exchange, read_held, request, send_and_hold
from .mcp import ECHO, LISTS, stdio_requests
from .serve import (TALKER, URL_SECRET, CampaignError, Case, Verdict, _bounded, _data_for_foreign, _data_without_key,
                    _free_port, judge, outcome_of)

KEY = "campaign-mcp-key-0123456789"
SECRETS = (SECRET, ENV_SECRET, URL_SECRET)
_INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "campaign", "version": "1"}}})
_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
FETCH = """\
version: 0.5
nodes:
  url: {value: 'http://127.0.0.1:9/'}
  a: {agent: vanillaFetchAgent, inputs: {url: ':url'}, isResult: true}
"""


class McpProcess:
    """`graphrt mcp FOLDER --http PORT --mcp-config CONFIG`, its stderr in a file; `key` None: no key."""

    def __init__(self, folder: Path, name: str, key: str | None) -> None:
        self.folder, self.name, self.key = folder, name, key
        self.stderr = folder / f"{name}-stderr.log"
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if k != "GRAPHRT_MCP_KEY"}
        env.update({"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
        if key:
            env["GRAPHRT_MCP_KEY"] = key
        self.process = subprocess.Popen(
            [sys.executable, "-m", "graphrt", "mcp", str(folder / "graphs"), "--http", str(self.port),
             "--mcp-config", str(folder / "mcp.json")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.stderr, "ab"), env=env)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"graphrt mcp --http exited: {self.stderr.read_text()[-800:]}")
            if self.probe(2) is not None:
                return
            time.sleep(0.2)
        raise RuntimeError(f"graphrt mcp --http did not answer: {self.stderr.read_text()[-800:]}")

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"} if self.key else {}

    def post(self, body: bytes | str, session: str | None = None, deadline: float = 10.0,
             headers: dict[str, str] | None = None, key: bool = True) -> Answer | None:
        all_headers = {**_ACCEPT, **(self.auth() if key else {}), **(headers or {})}
        if session:
            all_headers.update({"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
        return exchange(self.port, request("POST", "/mcp", host=self.host, headers=all_headers, body=body), deadline)

    def session(self, deadline: float = 10.0) -> tuple[str | None, list[Answer | None]]:
        """A new initialized session's id (None if there is none), and the answers that made it."""
        init = self.post(_INIT, deadline=deadline)
        session = init.headers.get("mcp-session-id") if init is not None else None
        answers = [init]
        if session:
            answers.append(self.post('{"jsonrpc": "2.0", "method": "notifications/initialized"}', session, deadline))
        return session, answers

    def probe(self, deadline: float = 10.0) -> Answer | None:
        """tools/list in a fresh session: the server is alive if this answers 200."""
        session, _ = self.session(deadline)
        if not session:
            return None
        answer = self.post('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', session, deadline)
        return answer if answer is not None and answer.status == 200 else None

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def messages(answer: Answer) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an answer (JSON, or the data lines of an event stream)."""
    text = answer.text
    if "event-stream" in answer.headers.get("content-type", ""):
        found = []
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                try:
                    found.append(json.loads(line[5:]))
                except ValueError:
                    found.append({"not-json": line[:200]})
        return found
    try:
        value = json.loads(text) if text.strip() else []
    except ValueError:
        return [{"not-json": text[:200]}]
    return value if isinstance(value, list) else [value]


def _rpc_verdict(answer: Answer | None, number: int) -> Verdict:
    """A tools/call's answer: a result, an error result or a JSON-RPC error with its id; anything else is wrong."""
    verdict = judge([answer], {200, 400, 413})
    if verdict[0] in ("hang", "traceback") or answer is None or answer.status != 200:
        return verdict
    found = [m for m in messages(answer) if m.get("id") == number or "not-json" in m]
    if not found:
        return "wrong", f"no answer with id {number}: {answer.text[:200]!r}", None
    message = found[-1]
    if "not-json" in message:
        return "wrong", f"an answer that is not JSON: {message['not-json']}", None
    if "error" in message or (message.get("result") or {}).get("isError"):
        return "clean", json.dumps(message)[:200], None
    return "result", None, None


def call_cases() -> Iterator[Case]:
    """The stdio surface's tools/call lines, over HTTP in a session, with and without a key."""
    for server in ("open", "keyed"):
        for case_id, line in stdio_requests():
            def attack(ctx: Any, line=line) -> Verdict:
                session, answers = ctx.server.session()
                ctx.answers.extend(answers)
                if not session:
                    raise CampaignError(f"no session: {answers[0] and answers[0].status}")
                answer = ctx.server.post(line.replace(b'"id": ID', b'"id": 7'), session, deadline=40)
                ctx.answers.append(answer)
                return _rpc_verdict(answer, 7)
            yield Case(case_id.replace("mcp/stdio/", f"mcp-http/{server}/call/"), server, attack, 45)
        for name, arguments in (("fetch-url-password", {"url": f"http://campaign:{URL_SECRET}@127.0.0.1:9/x"}),
                                ("fetch-query-token", {"url": f"http://127.0.0.1:9/x?token={URL_SECRET}"}),
                                ("echo-openai-key", {"text": SECRET}), ("lists-servers", {})):
            tool = {"fetch-url-password": "fetch", "fetch-query-token": "fetch", "echo-openai-key": "echo"}.get(name,
                                                                                                                "lists")
            def attack(ctx: Any, tool=tool, arguments=arguments) -> Verdict:
                session, answers = ctx.server.session()
                ctx.answers.extend(answers)
                body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                   "params": {"name": tool, "arguments": arguments}})
                answer = ctx.server.post(body, session, deadline=40)
                ctx.answers.append(answer)
                return _rpc_verdict(answer, 9)
            yield Case(f"mcp-http/{server}/secrets/{name}", server, attack, 45)


def http_cases() -> Iterator[Case]:
    """What only HTTP has: keys, Host, Origin, bodies, sessions."""
    wrong_keys = {"none": {}, "wrong": {"Authorization": "Bearer wrong"},
                  "one-more": {"Authorization": f"Bearer {KEY}x"},
                  "lower-scheme": {"Authorization": f"bearer {KEY}x"}, "basic": {"Authorization": f"Basic {KEY}"},
                  "x-api-key": {"X-API-Key": KEY + "x"}, "empty": {"Authorization": ""}}
    for how, headers in wrong_keys.items():
        for method in ("POST", "GET", "DELETE"):
            def attack(ctx: Any, headers=headers, method=method) -> Verdict:
                answer = ctx.raw(request(method, "/mcp", host=ctx.server.host, headers={**_ACCEPT, **headers},
                                         body=_INIT if method == "POST" else b""))
                return judge([answer], {401}, breach=_data_without_key)
            yield Case(f"mcp-http/keyed/auth/{how}/{method}", "keyed", attack)
    hosts = ["evil.example", "evil.example:PORT", "127.0.0.1.nip.io:PORT", "127.0.0.1:PORT.evil.example", "[::2]:PORT",
             "localhost.evil.example"]
    for server in ("open", "keyed"):
        for host in hosts:
            def attack(ctx: Any, host=host) -> Verdict:
                answer = ctx.raw(request("POST", "/mcp", host=host.replace("PORT", str(ctx.server.port)),
                                         headers={**_ACCEPT, **ctx.server.auth()}, body=_INIT))
                return judge([answer], {400, 403, 421}, breach=_data_for_foreign)
            yield Case(f"mcp-http/{server}/host/{host}", server, attack)
        for origin in ("https://evil.example", "null", "http://127.0.0.1.evil.example", "http://localhost:1",
                       "http://127.0.0.1:PORT.evil.example"):
            for content_type in ("text/plain", "application/json", "application/x-www-form-urlencoded"):
                def attack(ctx: Any, origin=origin, content_type=content_type) -> Verdict:
                    answer = ctx.raw(request("POST", "/mcp", host=ctx.server.host, body=_INIT, headers={
                        **_ACCEPT, **ctx.server.auth(), "Content-Type": content_type,
                        "Origin": origin.replace("PORT", str(ctx.server.port))}))
                    return judge([answer], {400, 403, 415, 421}, breach=_data_for_foreign)
                yield Case(f"mcp-http/{server}/origin/{origin}/{content_type}", server, attack)
    head = lambda ctx, extra: (f"POST /mcp HTTP/1.1\r\nHost: {ctx.server.host}\r\nConnection: close\r\n"  # noqa: E731
                               f"Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                               f"{''.join(f'{k}: {v}' + chr(13) + chr(10) for k, v in ctx.server.auth().items())}"
                               f"{extra}\r\n").encode()
    big = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"x": "' + b"x" * (5 << 20) + b'"}}'
    chunked = lambda data: b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + 65536]), data[i:i + 65536])  # noqa: E731
                                    for i in range(0, len(data), 65536)) + b"0\r\n\r\n"
    bodies: dict[str, tuple[Callable[[Any], bytes], set[int], dict[str, Any]]] = {
        "announced-20mb": (lambda ctx: head(ctx, "Content-Length: 20000000\r\n"), {413, 400}, {}),
        "sent-5mb": (lambda ctx: head(ctx, f"Content-Length: {len(big)}\r\n") + big, {413, 400, 0}, {}),
        "chunked-5mb": (lambda ctx: head(ctx, "Transfer-Encoding: chunked\r\n") + chunked(big), {413, 400, 0}, {}),
        "cut-short-then-closed": (lambda ctx: head(ctx, "Content-Length: 100\r\n") + b'{"jsonrpc":', {400, 0},
                                  {"shut_write": True}),
        "not-json": (lambda ctx: head(ctx, "Content-Length: 5\r\n") + b"{{{{{", {400}, {}),
        "nested-5000": (lambda ctx: head(ctx, "Content-Length: 10000\r\n") + b"[" * 5000 + b"]" * 5000, {400, 200}, {}),
        "batch-empty": (lambda ctx: head(ctx, "Content-Length: 2\r\n") + b"[]", {400, 200}, {}),
        "invalid-utf8": (lambda ctx: head(ctx, "Content-Length: 8\r\n") + b'"\xed\xa0\x80xxxx', {400}, {}),
        "integer-5000-digits": (lambda ctx: head(ctx, "Content-Length: 5000\r\n") + b"9" * 5000, {400}, {}),
    }
    for server in ("open", "keyed"):
        for name, (make, allowed, options) in bodies.items():
            def attack(ctx: Any, make=make, allowed=allowed, options=options) -> Verdict:
                return judge([ctx.raw(make(ctx), 40, **options)], allowed)
            yield Case(f"mcp-http/{server}/body/{name}", server, attack, 45)
        def held(ctx: Any) -> Verdict:
            """20 bodies half sent and held: the server answers others meanwhile."""
            socks = [send_and_hold(ctx.server.port, head(ctx, "Content-Length: 1000\r\n") + b'{"jsonrpc": "2.0", ')
                     for _ in range(20)]
            during = ctx.server.probe(10)
            for sock in socks:
                sock.close()
            return ("result", None, None) if during is not None else ("hang", "no answer while 20 bodies are held",
                                                                      None)
        yield Case(f"mcp-http/{server}/body/held-20", server, held, 30)
        for name, session in (("unknown", "0" * 32), ("long", "a" * 10_000), ("surrogate", "\udc00"),
                              ("traversal", "../../etc/passwd"), ("empty", "")):
            def attack(ctx: Any, session=session) -> Verdict:
                answer = ctx.raw(request("POST", "/mcp", host=ctx.server.host, body='{"jsonrpc": "2.0", "id": 1, '
                                         '"method": "tools/list"}', headers={
                                             **_ACCEPT, **ctx.server.auth(), "Mcp-Session-Id": session.encode(
                                                 "utf-8", "surrogatepass").decode("latin-1")}))
                return judge([answer], {400, 404, 431})
            yield Case(f"mcp-http/{server}/session/{name}", server, attack)
        def after_delete(ctx: Any) -> Verdict:
            session, answers = ctx.server.session()
            ctx.answers.extend(answers)
            gone = ctx.raw(request("DELETE", "/mcp", host=ctx.server.host, headers={
                **_ACCEPT, **ctx.server.auth(), "Mcp-Session-Id": session or ""}))
            used = ctx.server.post('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', session)
            ctx.answers.append(used)
            return judge([gone, used], {200, 204, 404, 400})
        yield Case(f"mcp-http/{server}/session/after-delete", server, after_delete)


class _Ctx:
    def __init__(self, server: McpProcess) -> None:
        self.server = server
        self.answers: list[Answer | None] = []

    def raw(self, data: bytes, deadline: float = 10.0, **options: Any) -> Answer | None:
        answer = exchange(self.server.port, data, deadline, **options)
        self.answers.append(answer)
        return answer


def all_cases() -> list[Case]:
    return [*http_cases(), *call_cases()]


def run_mcp_http(deadline: float, every: int = 1, wanted: set[str] | None = None,
                 log: Callable[[dict[str, Any]], None] = lambda outcome: None) -> list[dict[str, Any]]:
    folder = Path(tempfile.mkdtemp(prefix="graphrt-campaign-mcp-http-"))
    (folder / "graphs").mkdir()
    (folder / "graphs" / "echo.yaml").write_text(ECHO)
    (folder / "graphs" / "lists.yaml").write_text(LISTS)
    (folder / "graphs" / "fetch.yaml").write_text(FETCH)
    (folder / "talker.py").write_text(TALKER)
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": {"talker": {
        "command": sys.executable, "args": [str(folder / "talker.py")],
        "env": {"CAMPAIGN_TOKEN": ENV_SECRET, "OPENAI_KEY": SECRET}}}}))
    servers: dict[str, McpProcess] = {}
    outcomes = []
    try:
        for number, case in enumerate(all_cases()):
            if number % every or (wanted is not None and case.id not in wanted):
                continue
            server = servers.get(case.server)
            if server is None or not server.alive():
                if server is not None:
                    server.close()
                server = servers[case.server] = McpProcess(folder, case.server, KEY if case.server == "keyed" else None)
            ctx = _Ctx(server)
            seen_err = server.stderr.stat().st_size
            started = time.monotonic()
            try:
                verdict = _bounded(case, ctx)  # type: ignore[arg-type]
            except CampaignError as error:
                verdict = "campaign-error", str(error)[:500], None
            finished_at = time.monotonic()
            alive = server.probe(10)
            outcome = outcome_of(case.id, finished_at - started, verdict, died=not server.alive(),
                             answered=alive is not None, silent="tools/list",
                             err=server.stderr.read_bytes()[seen_err:].decode(errors="replace"),
                             answers=ctx.answers, secrets=SECRETS)
            outcomes.append(outcome)
            log(outcome)
            if alive is None or outcome["end"] == "hang":
                server.close()
    finally:
        for server in servers.values():
            server.close()
    return outcomes
