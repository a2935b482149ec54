"""The serve surface: a real `graphrt serve` process on a loopback port, attacked over raw HTTP.

Two servers, each on its own SQLite store, with OPENAI_API_KEY and an MCP server's env
planted: `open` (no key, the loopback default) and `keyed` (GRAPHRT_API_KEY). Every case
sends its requests (http.py: bytes as written) and is judged as the other surfaces are:

- **hang**: a request with no answer by its deadline, or /health silent after the case;
- **traceback**: a 500, a traceback on the server's stderr, or the server gone;
- **wrong**: an answer other than the ones the case allows (a 200 for a body over the limit,
  an answer that is not JSON, a run that did not end as its cancel said);
- **leak**: a planted secret (the OpenAI key, a URL's password given in inputs, an MCP
  server's env value) in any answer or on the server's stderr;
- **breach**: an answer with data without the key, for a foreign Host (DNS rebinding) or
  a foreign Origin (a cross-site POST that started a run), a file outside the folder read.

/health is asked after every case, and during the ones that hold connections open.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from .cases import ENV_SECRET, OUTSIDE, SECRET
from .http import Answer, exchange, read_held, request, send_and_hold
from .values import VALUES, dumps, h

URL_SECRET = "campaign-url-password-LEAK-7"
"""A password in a URL given as a run's input: answers and logs may say the URL, never this."""
KEY = "campaign-serve-key-0123456789"
SECRETS = (SECRET, ENV_SECRET, URL_SECRET)

GRAPHS = {
    "hello.yaml": "version: 0.5\nnodes:\n  name: {value: World}\n"
                  "  greeting: {agent: stringTemplateAgent, inputs: {name: ':name'},"
                  " params: {template: 'Hello, ${name}!'},"
                  " isResult: true}\n",
    "echo.yaml": "version: 0.5\nnodes:\n  text: {value: ''}\n"
                 "  copy: {agent: copyAgent, inputs: {text: ':text'}, isResult: true}\n",
    "target.yaml": "version: 0.5\nnodes:\n  name: {value: x}\n"
                   "  copy: {agent: copyAgent, inputs: {x: ':name'}, isResult: true}\n",
    "slow.yaml": "version: 0.5\nnodes:\n  s: {value: 1}\n"
                 "  wait: {agent: sleeperAgent, params: {duration: 120000}, inputs: {x: ':s'}, isResult: true}\n",
    "ask.yaml": "version: 0.5\nnodes:\n  name: {agent: textInputAgent, params: {message: 'Your name?'}}\n"
                "  greeting: {agent: copyAgent, inputs: {answer: ':name.text'}, isResult: true}\n",
    "openai.yaml": "version: 0.5\nnodes:\n  a: {agent: openAIAgent, inputs: {prompt: hi}, "
                   "params: {baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0}, isResult: true}\n",
    "fetch.yaml": "version: 0.5\nnodes:\n  url: {value: 'http://127.0.0.1:9/'}\n"
                  "  a: {agent: vanillaFetchAgent, inputs: {url: ':url'}, isResult: true}\n",
    "mcp.yaml": "version: 0.5\nnodes:\n  tools: {agent: mcpToolsListAgent, isResult: true}\n",
    "sub/inner.yaml": "version: 0.5\nnodes:\n  v: {value: inner}\n"
                      "  c: {agent: copyAgent, inputs: {x: ':v'}, isResult: true}\n",
}
OUTSIDE_GRAPH = ("version: 0.5\nnodes:\n  secret: {value: " + OUTSIDE + "}\n"
                 "  copy: {agent: copyAgent, inputs: {x: ':secret'}, isResult: true}\n")
TALKER = ("import os, sys\nprint('starting with token', os.environ.get('CAMPAIGN_TOKEN'), file=sys.stderr)\n"
          "print('and key', os.environ.get('OPENAI_KEY'), file=sys.stderr, flush=True)\nsys.exit(3)\n")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServeProcess:
    """`graphrt serve FOLDER/graphs` on a free port, its stderr in a file; `key` None: no API key."""

    def __init__(self, folder: Path, name: str, key: str | None, *extra: str) -> None:
        self.folder, self.name, self.key, self.extra = folder, name, key, extra
        self.stderr = folder / f"{name}-stderr.log"
        self.start()

    def start(self) -> None:
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items() if k != "GRAPHRT_API_KEY"}
        env.update({"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
                    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9",
                    "GROQ_BASE_URL": "http://127.0.0.1:9/openai/v1"})
        if self.key:
            env["GRAPHRT_API_KEY"] = self.key
        self.process = subprocess.Popen(
            [sys.executable, "-m", "graphrt", "serve", str(self.folder / "graphs"), "--port", str(self.port),
             "--checkpoint", str(self.folder / f"{self.name}.db"), "--mcp-config", str(self.folder / "mcp.json"),
             "--max-runs", "2", "--max-queue", "20", *self.extra],
            stdin=subprocess.DEVNULL, stdout=open(self.folder / f"{self.name}-stdout.log", "ab"),
            stderr=open(self.stderr, "ab"), env=env)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"graphrt serve exited: {self.stderr.read_text()[-800:]}")
            answer = exchange(self.port, request("GET", "/health", host=self.host), 2)
            if answer is not None and answer.status == 200:
                return
            time.sleep(0.2)
        raise RuntimeError(f"graphrt serve did not answer /health: {self.stderr.read_text()[-800:]}")

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def err_size(self) -> int:
        return self.stderr.stat().st_size

    def err_since(self, size: int) -> str:
        return self.stderr.read_bytes()[size:].decode(errors="replace")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@dataclass
class Ctx:
    """What a case has at hand: its server, the key (if any), and a finished run of hello."""

    server: ServeProcess
    finished: str = ""
    answers: list[Answer | None] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.server.port

    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.server.key}"} if self.server.key else {}

    def send(self, method: str, path: str, *, headers: dict[str, str] | None = None, body: bytes | str = b"",
             key: bool = True, host: str | None = None, deadline: float = 10.0, **options: Any) -> Answer | None:
        all_headers = {**(self.auth() if key else {}), **(headers or {})}
        if body and not any(k.lower() == "content-type" for k in all_headers):
            all_headers["Content-Type"] = "application/json"
        answer = exchange(self.port, request(method, path, host=host or self.server.host, headers=all_headers,
                                             body=body), deadline, **options)
        self.answers.append(answer)
        return answer

    def raw(self, data: bytes | list[bytes], deadline: float = 10.0, **options: Any) -> Answer | None:
        answer = exchange(self.port, data, deadline, **options)
        self.answers.append(answer)
        return answer

    def start(self, graph: str, inputs: dict[str, Any] | None = None, wait: bool = False) -> dict[str, Any]:
        answer = self.send("POST", f"/graphs/{graph}/runs" + ("?wait=true" if wait else ""),
                           body=json.dumps({"inputs": inputs or {}}), deadline=60)
        if answer is None or answer.status not in (200, 202):
            raise CampaignError(f"could not start {graph}: {answer and answer.status} {answer and answer.text[:200]}")
        return answer.json()

    def run(self, run_id: str) -> dict[str, Any]:
        answer = self.send("GET", f"/runs/{run_id}")
        if answer is None or answer.status != 200:
            raise CampaignError(f"GET /runs/{run_id}: {answer and answer.status}")
        return answer.json()

    def until(self, run_id: str, statuses: tuple[str, ...], deadline: float = 30.0) -> dict[str, Any] | None:
        """The run once its status is one of `statuses` (polled), None if not by the deadline."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            run = self.run(run_id)
            if run["status"] in statuses:
                return run
            time.sleep(0.1)
        return None

    def health(self, deadline: float = 10.0) -> Answer | None:
        return exchange(self.port, request("GET", "/health", host=self.server.host), deadline)


class CampaignError(Exception):
    """The campaign itself could not do what a case needs (not the server's fault)."""


Verdict = tuple[str, str | None, str | None]  # (end, detail, breach)


def judge(answers: list[Answer | None], allowed: set[int] | Callable[[int], bool], *,
          breach: Callable[[Answer], str | None] | None = None, check: Callable[[Answer], str | None] | None = None
          ) -> Verdict:
    """How a case's answers end it: hang (none), traceback (a 500, the server gone), wrong (a status not
    `allowed`, or `check` says why), else clean (all 4xx) or result; and a breach if `breach` finds one."""
    ok = allowed if callable(allowed) else (lambda status: status in allowed)
    found = next((why for answer in answers if answer is not None and breach for why in [breach(answer)] if why), None)
    for answer in answers:
        if answer is None:
            return "hang", "no answer by the deadline", found
        if answer.status == -2:
            return "traceback", "the server is gone", found
        if answer.status == 500:
            return "traceback", f"a 500: {answer.text[:300]}", found
    for answer in answers:
        if not ok(answer.status):
            return "wrong", f"status {answer.status}: {answer.text[:300]!r}", found
        why = check(answer) if check else None
        if why:
            return "wrong", why, found
    if answers and all(answer.status >= 400 or answer.status <= 0 for answer in answers):
        return "clean", f"{answers[-1].status}: {answers[-1].text[:160]}", found
    return "result", None, found


def strict_json(answer: Answer) -> str | None:
    """Why an answer that says it is JSON is not (NaN, Infinity, cut short), None if it is."""
    if "json" not in answer.headers.get("content-type", "") or answer.cut:
        return None  # a body the reset cut short: its status is the answer
    try:
        json.loads(answer.body, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except (ValueError, RecursionError) as error:
        return f"an answer that is not JSON ({str(error)[:80]}): {answer.text[:160]!r}"
    return None


def _data_without_key(answer: Answer) -> str | None:
    return f"answered {answer.status} without the key: {answer.text[:160]!r}" if 200 <= answer.status < 400 else None


def _data_for_foreign(answer: Answer) -> str | None:
    return f"answered {answer.status} a foreign page: {answer.text[:160]!r}" if 200 <= answer.status < 400 else None


def _outside_read(answer: Answer) -> str | None:
    for marker in (OUTSIDE, "root:x:0:0", "import os", "graphrt"):
        if marker in answer.text and (marker != "graphrt" or "site-packages" in answer.text):
            return f"a file outside the folder was read ({marker!r}): {answer.text[:160]!r}"
    return None


# ----- the cases -----


@dataclass
class Case:
    id: str
    server: str  # "open" or "keyed"
    attack: Callable[[Ctx], Verdict]
    deadline: float = 10.0


def _routes(run_id: str) -> list[tuple[str, str, str]]:
    """(method, path, body) of every route the API has, for a finished run."""
    return [("GET", "/graphs", ""), ("GET", "/graphs/hello", ""), ("POST", "/graphs/hello/runs", "{}"),
            ("POST", "/graphs/hello/runs?wait=true", "{}"), ("GET", "/runs", ""), ("GET", f"/runs/{run_id}", ""),
            ("GET", f"/runs/{run_id}/events", ""), ("GET", f"/runs/{run_id}/nodes", ""),
            ("GET", f"/runs/{run_id}/nodes/greeting", ""), ("GET", f"/runs/{run_id}/webhooks", ""),
            ("POST", f"/runs/{run_id}/fork", '{"from": "name"}'), ("POST", f"/runs/{run_id}/resume", '{"answer": 1}'),
            ("POST", f"/runs/{run_id}/cancel", ""), ("GET", "/openapi.json", ""),
            ("POST", "/v1/chat/completions", '{"model": "hello", "messages": [{"role": "user", "content": "hi"}]}'),
            ("GET", "/v1/models", ""), ("GET", "/mcp", ""), ("DELETE", "/mcp", ""),
            ("POST", "/mcp", _MCP_INIT), ("OPTIONS", "/runs", ""), ("GET", "/runs/nope", ""),
            ("GET", "/no/such/route", "")]


_MCP_INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "campaign", "version": "1"}}})
_MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}

_WRONG_KEYS: dict[str, Callable[[str], dict[str, str]]] = {
    "none": lambda key: {},
    "wrong": lambda key: {"Authorization": "Bearer wrong-key"},
    "empty-bearer": lambda key: {"Authorization": "Bearer "},
    "bearer-alone": lambda key: {"Authorization": "Bearer"},
    "one-short": lambda key: {"Authorization": f"Bearer {key[:-1]}"},
    "one-more": lambda key: {"Authorization": f"Bearer {key}x"},
    "upper-case": lambda key: {"Authorization": f"Bearer {key.upper()}"},
    "basic": lambda key: {"Authorization": "Basic " + base64.b64encode(f"x:{key}".encode()).decode()},
    "key-as-scheme": lambda key: {"Authorization": key},
    "x-api-key-wrong": lambda key: {"X-API-Key": "wrong"},
    "x-api-key-empty": lambda key: {"X-API-Key": ""},
    "cookie": lambda key: {"Cookie": f"api_key={key}"},
    "non-ascii": lambda key: {"Authorization": "Bearer ключ".encode().decode("latin-1")},
}


def auth_cases() -> Iterator[Case]:
    """Every route of the keyed server without the key (and with wrong ones): 401, and nothing said."""
    for how in _WRONG_KEYS:
        for number, (method, path, body) in enumerate(_routes("RUN")):
            def attack(ctx: Ctx, method=method, path=path, body=body, how=how) -> Verdict:
                path = path.replace("RUN", ctx.finished)
                answer = ctx.send(method, path.replace("?api_key", ""), body=body, key=False,
                                  headers={**_WRONG_KEYS[how](ctx.server.key),
                                           **(_MCP_ACCEPT if "/mcp" in path else {})})
                return judge([answer], {401}, breach=_data_without_key)
            yield Case(f"serve/auth/{how}/{method} {path}", "keyed", attack)
    for path in ("/runs?api_key=KEY", "/runs?token=KEY", "/graphs?key=KEY"):
        def attack(ctx: Ctx, path=path) -> Verdict:
            return judge([ctx.send("GET", path.replace("KEY", ctx.server.key), key=False)], {401},
                         breach=_data_without_key)
        yield Case(f"serve/auth/query/{path.split('?')[1].split('=')[0]}", "keyed", attack)
    for path, allowed in (("/", {200}), ("/health", {200}), ("/favicon.ico", {204}), ("/static/app.js", {200}),
                          ("/static/../runs", {401, 404}), ("/static/%2e%2e/runs", {401, 404}),
                          ("//runs", {401, 404}), ("/runs/", {401, 404}), ("/health/../runs", {401, 404}),
                          ("/%72uns", {401, 404}), ("/RUNS", {401, 404}), ("/runs;x", {401, 404}),
                          ("/runs%00", {401, 404, 400}), ("/health?/../runs", {200})):
        def attack(ctx: Ctx, path=path, allowed=allowed) -> Verdict:
            answer = ctx.raw(request("GET", path, host=ctx.server.host))
            leaked = lambda a: _data_without_key(a) if a.status in (200,) and '"runs"' in a.text else None  # noqa: E731
            return judge([answer], allowed, breach=leaked)
        yield Case(f"serve/auth/public/{path}", "keyed", attack)
    # With the key every route answers (the refusals above are the key's, not the routes' own)
    for method, path, body in _routes("RUN"):
        def attack(ctx: Ctx, method=method, path=path, body=body) -> Verdict:
            answer = ctx.send(method, path.replace("RUN", ctx.finished), body=body,
                              headers=_MCP_ACCEPT if "/mcp" in path else None, deadline=30)
            return judge([answer], lambda status: status != 401 and status < 500, check=strict_json)
        yield Case(f"serve/auth/with-key/{method} {path}", "keyed", attack)


_FOREIGN_HOSTS = ["evil.example", "evil.example:PORT", "127.0.0.1.nip.io", "localhost.evil.example:PORT",
                  "127.0.0.1.evil.example", "[::2]:PORT", "10.0.0.1", "0.0.0.0:PORT", "EVIL.EXAMPLE",
                  "evil.example:PORT:PORT", "127.0.0.1:PORT.evil.example", "evil.example.", "[::ffff:7f00:1]x"]


def host_cases() -> Iterator[Case]:
    """DNS rebinding: a request naming a foreign Host is 421 on every route, with and without the key."""
    routes = [("GET", "/runs", ""), ("GET", "/graphs", ""), ("GET", "/runs/RUN", ""), ("GET", "/runs/RUN/events", ""),
              ("GET", "/", ""), ("GET", "/openapi.json", ""), ("GET", "/health", ""), ("POST", "/graphs/target/runs",
                                                                                       "{}"),
              ("POST", "/mcp", _MCP_INIT), ("GET", "/v1/models", ""), ("GET", "/static/app.js", ""),
              ("POST", "/runs/RUN/cancel", "")]
    for server in ("open", "keyed"):
        for host in _FOREIGN_HOSTS:
            for method, path, body in routes:
                def attack(ctx: Ctx, host=host, method=method, path=path, body=body) -> Verdict:
                    answer = ctx.send(method, path.replace("RUN", ctx.finished), body=body,
                                      host=host.replace("PORT", str(ctx.port)),
                                      headers=_MCP_ACCEPT if "/mcp" in path else None)
                    return judge([answer], {421, 400}, breach=_data_for_foreign)
                yield Case(f"serve/host/{server}/{host}/{method} {path}", server, attack)


_ORIGINS = ["https://evil.example", "null", "http://127.0.0.1.evil.example", "http://127.0.0.1:PORT.evil.example",
            "http://localhost:1", "http://127.0.0.1:PORT@evil.example", "file://", "chrome-extension://abc",
            "HTTP://EVIL.EXAMPLE", "http://[::2]:PORT", "http://127.0.0.1:PORT.", "http://127.0.0.1"]
_FORMS = [("text/plain", '{"inputs": {"name": "evil"}}'), ("application/x-www-form-urlencoded", ""),
          ("multipart/form-data; boundary=x", "--x--"), ("application/json", "{}"), ("text/plain", "")]


def origin_cases() -> Iterator[Case]:
    """Cross-site requests: a foreign page's POST (text/plain, an empty form) starts no run and reads nothing."""
    for origin in _ORIGINS:
        for content_type, body in _FORMS:
            def attack(ctx: Ctx, origin=origin, content_type=content_type, body=body) -> Verdict:
                before = _target_runs(ctx)
                answer = ctx.send("POST", "/graphs/target/runs", body=body, headers={
                    "Content-Type": content_type, "Origin": origin.replace("PORT", str(ctx.port))})
                started = _target_runs(ctx) - before
                verdict = judge([answer], {403}, breach=_data_for_foreign)
                breach = verdict[2] or (f"{started} run(s) of target started" if started else None)
                return verdict[0], verdict[1], breach
            yield Case(f"serve/origin/{origin}/POST target {content_type.split(';')[0]} {len(body)}", "open", attack)
        for method, path, body, ctype in (
                ("GET", "/runs", "", ""), ("GET", "/runs/RUN/events", "", ""), ("GET", "/runs/RUN/nodes/greeting", "",
                                                                                ""),
                ("POST", "/runs/SLOW/cancel", "", "text/plain"), ("POST", "/mcp", _MCP_INIT, "text/plain"),
                ("POST", "/v1/chat/completions", '{"model": "target", "messages": []}', "text/plain"),
                ("OPTIONS", "/graphs/target/runs", "", ""), ("POST", "/runs/RUN/fork", '{"from": "name"}',
                                                             "text/plain")):
            def attack(ctx: Ctx, origin=origin, method=method, path=path, body=body, ctype=ctype) -> Verdict:
                slow = ctx.start("slow")["id"] if "SLOW" in path else None
                headers = {"Origin": origin.replace("PORT", str(ctx.port)),
                           **({"Content-Type": ctype} if ctype else {})}
                if method == "OPTIONS":
                    headers["Access-Control-Request-Method"] = "POST"
                answer = ctx.send(method, path.replace("RUN", ctx.finished).replace("SLOW", slow or ""),
                                  body=body, headers=headers)
                verdict = judge([answer], {403}, breach=_data_for_foreign)
                if slow is not None:
                    status = ctx.run(slow)["status"]
                    ctx.send("POST", f"/runs/{slow}/cancel")
                    if status == "cancelled":
                        return verdict[0], verdict[1], "a foreign page cancelled a run"
                return verdict
            yield Case(f"serve/origin/{origin}/{method} {path}", "open", attack)


def _target_runs(ctx: Ctx) -> int:
    """How many runs of `target` the server holds (no case but a breach starts one)."""
    answer = exchange(ctx.port, request("GET", "/runs?limit=500", host=ctx.server.host, headers=ctx.auth()), 10)
    if answer is None or answer.status != 200:
        raise CampaignError("GET /runs did not answer")
    return sum(run["graph"] == "target" for run in answer.json()["runs"])


_GRAPH_NAMES = ["../outside", "..%2foutside", "%2e%2e/outside", "%2e%2e%2foutside", "....//outside", "/etc/passwd",
                "%2fetc%2fpasswd", "sub/../../outside", "sub/../hello", "link", "hello%00", "hello/../../outside",
                "..\\outside", "..%5coutside", "%c0%ae%c0%ae/outside", "hello.yaml", "outside", "~/outside", "sub",
                "sub/", ".", "..", "%252e%252e/outside", "n" * 20_000, "sub/inner",
                "\u202ehello".encode().decode("latin-1")]


def traversal_cases() -> Iterator[Case]:
    """Graph names, static files, node keys and run ids that try to leave the folder: 404, nothing read."""
    for name in _GRAPH_NAMES:
        for method, path in (("GET", "/graphs/{n}"), ("POST", "/graphs/{n}/runs?wait=true")):
            def attack(ctx: Ctx, name=name, method=method, path=path) -> Verdict:
                answer = ctx.raw(request(method, path.replace("{n}", name), host=ctx.server.host,
                                         body="{}" if method == "POST" else b""), 30)
                served = {"sub/inner", "sub/../hello"}  # real graphs (or what a client may call one)
                allowed = {200, 202, 400, 404, 414, 431} if name in served else {400, 404, 405, 414, 431}
                return judge([answer], allowed, breach=_outside_read, check=strict_json)
            yield Case(f"serve/traversal/graph/{method}/{name[:40]}", "open", attack)
    for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                 "/static/..%2f..%2fapp.py",
                 "/static/app.js%00.txt", "/static/index.html", "/static/../app.py", "/static/%2e%2e%2fapp.py",
                 "/static/....//....//etc/passwd", "/static/", "/static/app.js/", "/static//etc/passwd",
                 "/static/..%5capp.py", "/static/" + "a" * 20_000, "/static/APP.JS"):
        def attack(ctx: Ctx, path=path) -> Verdict:
            allowed = {307, 400, 404, 414, 431} if path.endswith("/") else {400, 404, 414, 431}  # 307: to app.js
            return judge([ctx.raw(request("GET", path, host=ctx.server.host))], allowed, breach=_outside_read)
        yield Case(f"serve/traversal/static/{path[:60]}", "open", attack)
    for tail in ("nodes/../../../etc/passwd", "nodes/%2e%2e/%2e%2e/graphs", "nodes/" + "k" * 20_000, "nodes/%00",
                 "../graphs", "%2e%2e", "'; DROP TABLE runs; --", "x" * 20_000, "%00",
                 "\u0430".encode().decode("latin-1"),
                 "nodes/greeting/../name", "events/../nodes", "webhooks/../../graphs"):
        def attack(ctx: Ctx, tail=tail) -> Verdict:
            path = f"/runs/{ctx.finished}/{tail}" if tail.startswith(("nodes", "events",
                                                                      "webhooks")) else f"/runs/{tail}"
            answer = ctx.raw(request("GET", path.replace(" ", "%20"), host=ctx.server.host))
            return judge([answer], {400, 404, 414, 431}, breach=_outside_read, check=strict_json)
        yield Case(f"serve/traversal/run/{tail[:40]}", "open", attack)


def body_cases() -> Iterator[Case]:
    """Bodies over the limit (announced, sent, chunked), half sent, badly framed, and hostile JSON."""
    big = b'{"inputs": {"text": "' + b"x" * (2 << 20) + b'"}}'

    def chunked(data: bytes, size: int = 65536) -> bytes:
        return b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + size]), data[i:i + size])
                        for i in range(0, len(data), size)) + b"0\r\n\r\n"

    def head(ctx: Ctx, extra: str) -> bytes:
        return (f"POST /graphs/echo/runs HTTP/1.1\r\nHost: {ctx.server.host}\r\nConnection: close\r\n"
                f"Content-Type: application/json\r\n{extra}\r\n").encode()

    framed: dict[str, tuple[Callable[[Ctx], bytes | list[bytes]], set[int], dict[str, Any]]] = {
        "announced-over-limit": (lambda ctx: head(ctx, "Content-Length: 2000000\r\n"), {413}, {}),
        "sent-over-limit": (lambda ctx: head(ctx, f"Content-Length: {len(big)}\r\n") + big, {413, 0}, {}),
        "chunked-over-limit": (lambda ctx: head(ctx, "Transfer-Encoding: chunked\r\n") + chunked(big), {413, 0}, {}),
        "chunked-within": (lambda ctx: head(ctx,
                                            "Transfer-Encoding: chunked\r\n") + chunked(b'{"inputs": {"text": "ok"}}',
                                                                                        5),
                           {202}, {}),
        "chunked-bad-size": (lambda ctx: head(ctx, "Transfer-Encoding: chunked\r\n") + b"zz\r\nabc\r\n0\r\n\r\n",
                             {400, 0}, {}),
        "chunked-size-huge": (lambda ctx: head(ctx, "Transfer-Encoding: chunked\r\n") + b"ffffffffffffffffff\r\nabc",
                              {400, 413, 0}, {}),
        "chunked-no-end": (lambda ctx: head(ctx, "Transfer-Encoding: chunked\r\n") + b"5\r\nabcde\r\n", {408, 400, 0},
                           {"shut_write": True}),
        "length-and-chunked": (lambda ctx: head(ctx, "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n")
                               + b"2\r\n{}\r\n0\r\n\r\n", {400, 202, 0}, {}),
        "two-lengths": (lambda ctx: head(ctx, "Content-Length: 2\r\nContent-Length: 40\r\n") + b"{}", {400, 0}, {}),
        "negative-length": (lambda ctx: head(ctx, "Content-Length: -1\r\n") + b"{}", {400, 0}, {}),
        "length-not-a-number": (lambda ctx: head(ctx, "Content-Length: abc\r\n") + b"{}", {400, 0}, {}),
        "length-100-digits": (lambda ctx: head(ctx, "Content-Length: " + "9" * 100 + "\r\n") + b"{}", {400, 413, 0},
                              {}),
        "length-unicode-digits": (lambda ctx: head(ctx, "Content-Length: \u0663\r\n".encode().decode("latin-1"))
                                  + b"{}", {400, 0}, {}),
        "shorter-than-said-then-closed": (lambda ctx: head(ctx, "Content-Length: 100\r\n") + b'{"inputs":', {400, 0},
                                          {"shut_write": True}),
        "transfer-gzip": (lambda ctx: head(ctx, "Transfer-Encoding: gzip\r\n") + b"{}", {400, 501, 0}, {}),
        "expect-100-over-limit": (lambda ctx: head(ctx, "Content-Length: 5000000\r\nExpect: 100-continue\r\n"), {413},
                                  {}),
        "slow-body-within-limit": (lambda ctx: [head(ctx, "Content-Length: 26\r\n"), b'{"inputs": ',
                                                b'{"text": "ok"}}'],
                                   {202}, {"pause": 1.0}),
        "headers-64kb": (lambda ctx: head(ctx, "X-Big: " + "a" * 65536 + "\r\nContent-Length: 2\r\n") + b"{}",
                         {431, 0}, {}),  # a head over 64 KiB (cli/listen.py)
        "headers-2000": (lambda ctx: head(ctx, "".join(f"X-H{i}: v\r\n" for i in range(2000)) + "Content-Length: 2\r\n")
                         + b"{}", {400, 431, 202, 0}, {}),
        "header-nul": (lambda ctx: head(ctx, "X-A: a\x00b\r\nContent-Length: 2\r\n") + b"{}", {400, 0}, {}),
        "header-bare-lf": (lambda ctx: head(ctx, "X-A: a\nContent-Length: 2\r\n") + b"{}", {400, 202, 0}, {}),
        "request-line-garbage": (lambda ctx: b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 100, {400, 0},
                                 {}),
        "no-host": (lambda ctx: b"GET /runs\r\n\r\n", {200, 400, 0}, {}),  # no browser sends one: no rebinding
        "no-host-http-1.1": (lambda ctx: b"GET /runs HTTP/1.1\r\nConnection: close\r\n\r\n", {400}, {}),
        "absolute-form-foreign": (lambda ctx: f"GET http://evil.example/runs HTTP/1.1\r\nHost: evil.example\r\n"
                                  f"Connection: close\r\n\r\n".encode(), {421, 400}, {}),
        "absolute-form-own": (lambda ctx: f"GET http://{ctx.server.host}/health HTTP/1.1\r\nHost: {ctx.server.host}\r\n"
                              f"Connection: close\r\n\r\n".encode(), {200, 400, 404}, {}),
        "method-unknown": (lambda ctx: f"BREW /runs HTTP/1.1\r\nHost: {ctx.server.host}\r\n"
                                       f"Connection: close\r\n\r\n".encode(),
                           {400, 405, 404, 501, 0}, {}),
        "method-trace": (lambda ctx: f"TRACE /runs HTTP/1.1\r\nHost: {ctx.server.host}\r\n"
                                     f"Connection: close\r\n\r\n".encode(),
                         {405, 400, 404}, {}),
        "pipelined-health-50": (lambda ctx: f"GET /health HTTP/1.1\r\nHost: {ctx.server.host}\r\n\r\n".encode() * 49
                                + request("GET", "/health", host=ctx.server.host), {200}, {"keep_reading": True}),
    }
    for name, (make, allowed, options) in framed.items():
        def attack(ctx: Ctx, make=make, allowed=allowed, options=options, name=name) -> Verdict:
            answer = ctx.raw(make(ctx), 40, **options)
            check = None
            if name == "pipelined-health-50":
                check = lambda a: None if a.raw.count(b"HTTP/1.1 200") == 50 else (  # noqa: E731
                    f"{a.raw.count(b'HTTP/1.1 200')} answers to 50 pipelined requests")
            return judge([answer], allowed, breach=_data_for_foreign if "foreign" in name else None, check=check)
        yield Case(f"serve/body/{name}", "open", attack, 45)
    for held in ("half-body", "half-chunked", "half-headers"):
        def attack(ctx: Ctx, held=held) -> Verdict:
            """Sent part way and held: /health answers meanwhile; the held request gets 408 (or is closed): a
            body within the app's time limit, a head within 20 s of its first byte (cli/listen.py)."""
            data = {"half-body": head(ctx, "Content-Length: 1000\r\n") + b'{"inputs": {"text": "',
                    "half-chunked": head(ctx, "Transfer-Encoding: chunked\r\n") + b"10\r\n{\"inputs\": {}",
                    "half-headers": f"POST /graphs/echo/runs HTTP/1.1\r\nHost: {ctx.server.host}\r\n"
                                    f"X-A: ".encode()}[held]
            socks = [send_and_hold(ctx.port, data) for _ in range(20)]
            during = ctx.health()
            ctx.answers.append(during)
            answers = [read_held(sock, 40) for sock in socks]
            ctx.answers.extend(answers)
            return judge([during, *answers], {200, 408, 0})
        yield Case(f"serve/body/held-20/{held}", "open", attack, 50)
    json_bodies = {
        "nested-1000-lists": '{"inputs": {"text": ' + "[" * 1000 + "]" * 1000 + "}}",
        "nested-1000-objects": '{"inputs": {"text": ' + '{"a":' * 1000 + "1" + "}" * 1000 + "}}",
        "nested-100000": '{"inputs": {"text": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        "nested-whole-body-1000": "[" * 1000 + "]" * 1000,
        "lone-surrogate": '{"inputs": {"text": "\\ud800"}}',
        "lone-low-surrogate-key": '{"inputs": {"\\udfff": 1}}',
        "surrogate-pair": '{"inputs": {"text": "\\ud83d\\ude00"}}',
        "invalid-utf8": b'{"inputs": {"text": "\xed\xa0\x80"}}',
        "latin1-bytes": b'{"inputs": {"text": "caf\xe9"}}',
        "utf16-body": '{"inputs": {"text": "x"}}'.encode("utf-16"),
        "bom": b"\xef\xbb\xbf" + b'{"inputs": {"text": "x"}}',
        "integer-5000-digits": '{"inputs": {"text": ' + "9" * 5000 + "}}",
        "integer-4300-digits": '{"inputs": {"text": ' + "9" * 4300 + "}}",
        "negative-5000-digits": '{"inputs": {"text": -' + "9" * 5000 + "}}",
        "float-1e400": '{"inputs": {"text": 1e400}}',
        "float-5000-digits": '{"inputs": {"text": 0.' + "9" * 5000 + "}}",
        "exponent-huge": '{"inputs": {"text": 1e999999999999}}',
        "nan": '{"inputs": {"text": NaN}}',
        "infinity": '{"inputs": {"text": -Infinity}}',
        "duplicate-inputs": '{"inputs": {"text": 1}, "inputs": 5}',
        "inputs-list": '{"inputs": [1, 2]}',
        "inputs-string": '{"inputs": "text"}',
        "inputs-null": '{"inputs": null}',
        "body-list": "[]",
        "body-string": '"x"',
        "body-number": "1",
        "body-null": "null",
        "body-truncated": '{"inputs": {"text": "x"',
        "body-trailing": '{"inputs": {}} {"inputs": {}}',
        "unknown-input": '{"inputs": {"nope": 1}}',
        "computed-input": '{"inputs": {"copy": 1}}',
        "input-key-10000": '{"inputs": {"' + "k" * 10_000 + '": 1}}',
        "all-results-string": '{"inputs": {}, "all_results": "no"}',
        "webhook-loopback": '{"webhook": "http://127.0.0.1:9/hook"}',
        "webhook-password": '{"webhook": "http://u:' + URL_SECRET + '@127.0.0.1:9/hook"}',
        "webhook-file": '{"webhook": "file:///etc/passwd"}',
        "webhook-decimal-ip": '{"webhook": "http://2130706433:9/"}',
        "webhook-hex-ip": '{"webhook": "http://0x7f000001:9/"}',
        "webhook-short-ip": '{"webhook": "http://127.1:9/"}',
        "webhook-v6-mapped": '{"webhook": "http://[::ffff:127.0.0.1]:9/"}',
        "webhook-zero": '{"webhook": "http://0.0.0.0:9/"}',
        "webhook-not-a-string": '{"webhook": {"url": 1}}',
        "webhook-10000": '{"webhook": "http://' + "a" * 10_000 + '"}',
    }
    for name, body in json_bodies.items():
        def attack(ctx: Ctx, body=body, name=name) -> Verdict:
            answer = ctx.send("POST", "/graphs/echo/runs?wait=true", body=body, deadline=30)
            verdict = judge([answer], {200, 400, 413, 422}, check=strict_json)
            if verdict[0] == "result" and name.startswith("webhook"):
                return "wrong", f"a webhook no run may name was taken: {answer.text[:200]}", None
            if verdict[0] == "result" and answer.json().get("status") != "finished":
                return "wrong", f"the run did not finish: {answer.text[:300]}", None
            return verdict
        yield Case(f"serve/body/json/{name}", "open", attack, 35)


def value_cases() -> Iterator[Case]:
    """Each hostile value given as an input, copied through, and read back from every answer about the run."""
    for value in VALUES:
        def attack(ctx: Ctx, value=value) -> Verdict:
            text = dumps({"inputs": {"text": h(value)}})
            answer = ctx.send("POST", "/graphs/echo/runs?wait=true", body=text, deadline=50)
            if answer is None or answer.status != 200:
                return judge([answer], {400, 413}, check=strict_json)
            run = answer.json()
            if run.get("status") != "finished":
                return "wrong", f"the run did not finish: {answer.text[:300]}", None
            sent = json.loads(text)["inputs"]["text"]
            if run["results"] != {"copy": {"text": sent}}:
                return "wrong", f"results differ from what was sent: {answer.text[:200]!r}", None
            for path in (f"/runs/{run['id']}", f"/runs/{run['id']}/nodes", f"/runs/{run['id']}/nodes/copy",
                         f"/runs/{run['id']}/events", "/runs?limit=5"):
                ctx.send("GET", path, deadline=30)
            return judge(ctx.answers, {200}, check=strict_json)
        yield Case(f"serve/values/{value}", "open", attack, 60)


_LAST_IDS = ["", "-1", "abc", "9" * 5000, "1e9", "0x10", "1.5", "..1", "x.99999999999999999999", "99999999999999999999",
             "\u0661\u0662".encode().decode("latin-1"), "0", "1", "3", "999999999999999999", " 2", "2 ", "+2", "٣",
             "a" * 60_000]


def event_cases() -> Iterator[Case]:
    """Bad Last-Event-ID values (header and query) on a finished run's events: the stream, whole, or a refusal."""
    for value in _LAST_IDS:
        for where in ("header", "query"):
            def attack(ctx: Ctx, value=value, where=where) -> Verdict:
                from urllib.parse import quote

                path = f"/runs/{ctx.finished}/events"
                headers = {}
                if where == "header":
                    headers["Last-Event-ID"] = value
                else:
                    path += "?last_event_id=" + quote(value.encode("latin-1", errors="replace"))
                answer = ctx.send("GET", path, headers=headers, deadline=20)
                def check(a: Answer) -> str | None:
                    if a.status == 200 and not (a.text == "" or a.text.endswith("\n\n")):
                        return f"a stream cut short: {a.text[-120:]!r}"
                    return None
                return judge([answer], {200, 400, 414, 431}, check=check)
            yield Case(f"serve/events/{where}/{value[:30]!r}", "open", attack, 25)
    def attack(ctx: Ctx) -> Verdict:
        """More event streams than the server keeps (256): the rest get 503, /health answers throughout."""
        run_id = ctx.start("slow")["id"]
        socks = [send_and_hold(ctx.port, request("GET", f"/runs/{run_id}/events", host=ctx.server.host))
                 for _ in range(270)]
        during = ctx.health()
        answers = [read_held(sock, 3) for sock in socks[-20:]]  # the last ones: over the limit
        for sock in socks[:-20]:
            sock.close()
        ctx.send("POST", f"/runs/{run_id}/cancel")
        refused = sum(a is not None and a.status == 503 for a in answers)
        verdict = judge([during], {200})
        if verdict[0] != "result":
            return verdict
        return ("clean", f"{refused} of the last 20 refused", None) if refused else (
            "wrong", f"270 streams open and none refused: {[a and a.status for a in answers][:5]}", None)
    yield Case("serve/events/270-streams", "open", attack, 60)


def cancel_cases() -> Iterator[Case]:
    """Cancels racing each other, resumes and forks; a full queue; cancels of runs that ended or never were."""
    def race(ctx: Ctx, n: int, extra: str) -> Verdict:
        run_id = ctx.start("slow")["id"]
        def one(i: int) -> Answer | None:
            if extra == "resume" and i % 2:
                return exchange(ctx.port, request("POST", f"/runs/{run_id}/resume", host=ctx.server.host,
                                                  headers={**ctx.auth(), "Content-Type": "application/json"},
                                                  body='{"answer": 1}'), 20)
            if extra == "fork" and i % 2:
                return exchange(ctx.port, request("POST", f"/runs/{run_id}/fork", host=ctx.server.host,
                                                  headers={**ctx.auth(), "Content-Type": "application/json"},
                                                  body='{"from": "s"}'), 20)
            return exchange(ctx.port, request("POST", f"/runs/{run_id}/cancel", host=ctx.server.host,
                                              headers=ctx.auth()), 20)
        with ThreadPoolExecutor(n) as pool:
            answers = list(pool.map(one, range(n)))
        ctx.answers.extend(answers)
        verdict = judge(answers, {200, 202, 409, 400})
        if verdict[0] in ("hang", "traceback"):
            return verdict
        run = ctx.until(run_id, ("cancelled", "finished", "failed"), 20)
        if run is None or run["status"] != "cancelled":
            return "wrong", f"after {n} cancels the run is {run and run['status']}", None
        if not any(a.status == 200 for a in answers if a):
            return "wrong", "no cancel was answered 200", None
        return verdict
    for n in (2, 20):
        for extra in ("", "resume", "fork"):
            yield Case(f"serve/cancel/race-{n}{'-' + extra if extra else ''}", "open",
                       lambda ctx, n=n, extra=extra: race(ctx, n, extra), 40)

    def finished(ctx: Ctx) -> Verdict:
        return judge([ctx.send("POST", f"/runs/{ctx.finished}/cancel")], {409})
    yield Case("serve/cancel/finished-run", "open", finished)

    def unknown(ctx: Ctx) -> Verdict:
        return judge([ctx.send("POST", "/runs/no-such-run/cancel"), ctx.send("POST", "/runs/%00/cancel")], {404, 400})
    yield Case("serve/cancel/unknown-run", "open", unknown)

    def full_queue(ctx: Ctx) -> Verdict:
        """25 slow runs on 2 workers and a queue of 20: 22 taken, the rest 429; all cancelled, /health throughout."""
        with ThreadPoolExecutor(25) as pool:
            answers = list(pool.map(lambda _: exchange(ctx.port, request(
                "POST", "/graphs/slow/runs", host=ctx.server.host, headers={"Content-Type": "application/json"},
                body="{}"), 20), range(25)))
        ctx.answers.extend(answers)
        during = ctx.health()
        ids = [a.json()["id"] for a in answers if a and a.status == 202]
        with ThreadPoolExecutor(25) as pool:
            cancels = list(pool.map(lambda run_id: exchange(ctx.port, request(
                "POST", f"/runs/{run_id}/cancel", host=ctx.server.host), 20), ids))
        ctx.answers.extend(cancels)
        verdict = judge([*answers, during, *cancels], {200, 202, 429})
        if verdict[0] in ("hang", "traceback", "wrong"):
            return verdict
        left = [run_id for run_id in ids if ctx.until(run_id, ("cancelled",), 20) is None]
        if left:
            return "wrong", f"{len(left)} cancelled runs not cancelled", None
        if not any(a.status == 429 for a in answers if a):
            return "wrong", "25 runs on a queue of 20 and no 429", None
        return verdict
    yield Case("serve/cancel/full-queue", "open", full_queue, 60)

    def wait_and_leave(ctx: Ctx) -> Verdict:
        """A client that asks ?wait=true and leaves: the run goes on and can be cancelled."""
        sock = send_and_hold(ctx.port, request("POST", "/graphs/slow/runs?wait=true", host=ctx.server.host,
                                               headers={"Content-Type": "application/json"}, body="{}"))
        sock.close()
        listing = ctx.send("GET", "/runs?limit=3")
        ids = [run["id"] for run in listing.json()["runs"] if run["graph"] == "slow" and run["status"] in ("queued",
                                                                                                           "running")]
        for run_id in ids:
            ctx.send("POST", f"/runs/{run_id}/cancel")
        return judge(ctx.answers, {200, 409})
    yield Case("serve/cancel/wait-and-leave", "open", wait_and_leave, 30)


_ANSWERS = ["str_10mb", "nul", "surrogate", "digits_5000", "int_at_limit", "int_past_float", "billion", "deep_list",
            "wide_dict", "empty", "null", "minus_one", "float_max", "lines_1mb"]


def resume_cases() -> Iterator[Case]:
    """An asking run resumed with hostile answers, twice at once, after it ended, and with bodies that are not one."""
    def asked(ctx: Ctx) -> str:
        run_id = ctx.start("ask")["id"]
        if ctx.until(run_id, ("interrupted",), 30) is None:
            raise CampaignError("ask did not ask")
        return run_id

    for value in _ANSWERS:
        def attack(ctx: Ctx, value=value) -> Verdict:
            run_id = asked(ctx)
            text = dumps({"answer": h(value)})
            answer = ctx.send("POST", f"/runs/{run_id}/resume?wait=true", body=text, deadline=40)
            verdict = judge([answer], {200, 400, 413}, check=strict_json)
            if verdict[0] != "result":
                ctx.send("POST", f"/runs/{run_id}/cancel")
                return verdict
            run = answer.json()
            if run["status"] not in ("finished", "failed"):
                return "wrong", f"resumed, the run is {run['status']}", None
            return verdict
        yield Case(f"serve/resume/answer/{value}", "open", attack, 50)
    for name, body in (("no-answer", "{}"), ("empty-body", ""), ("list", "[]"), ("answer-null", '{"answer": null}'),
                       ("nested-1000", '{"answer": ' + "[" * 1000 + "]" * 1000 + "}"), ("surrogate",
                                                                                        '{"answer": "\\udc00"}'),
                       ("5000-digits", '{"answer": ' + "9" * 5000 + "}")):
        def attack(ctx: Ctx, body=body) -> Verdict:
            run_id = asked(ctx)
            answer = ctx.send("POST", f"/runs/{run_id}/resume", body=body)
            after = ctx.run(run_id)
            ctx.send("POST", f"/runs/{run_id}/cancel")
            if after["status"] != "interrupted":
                return "wrong", f"a refused answer left the run {after['status']}", None
            return judge([answer], {400, 413})
        yield Case(f"serve/resume/body/{name}", "open", attack, 40)

    def twice(ctx: Ctx) -> Verdict:
        run_id = asked(ctx)
        with ThreadPoolExecutor(10) as pool:
            answers = list(pool.map(lambda i: exchange(ctx.port, request(
                "POST", f"/runs/{run_id}/resume", host=ctx.server.host, headers={"Content-Type": "application/json"},
                body=json.dumps({"answer": f"answer {i}"})), 20), range(10)))
        ctx.answers.extend(answers)
        verdict = judge(answers, {202, 409, 429})
        if verdict[0] in ("hang", "traceback", "wrong"):
            return verdict
        taken = [a for a in answers if a.status == 202]
        run = ctx.until(run_id, ("finished", "failed"), 20)
        if len(taken) != 1:
            return "wrong", f"{len(taken)} of 10 resumes at once were taken", None
        if run is None or len(run.get("answers", [])) != 1:
            return "wrong", f"the run holds answers {run and run.get('answers')}", None
        return verdict
    yield Case("serve/resume/ten-at-once", "open", twice, 40)

    def ended(ctx: Ctx) -> Verdict:
        return judge([ctx.send("POST", f"/runs/{ctx.finished}/resume", body='{"answer": "x"}'),
                      ctx.send("POST", "/runs/no-such/resume", body='{"answer": "x"}')], {409, 404})
    yield Case("serve/resume/ended-or-unknown", "open", ended)

    def cancelled(ctx: Ctx) -> Verdict:
        run_id = asked(ctx)
        ctx.send("POST", f"/runs/{run_id}/cancel")
        return judge([ctx.send("POST", f"/runs/{run_id}/resume", body='{"answer": "x"}')], {409})
    yield Case("serve/resume/after-cancel", "open", cancelled, 40)


def secret_cases() -> Iterator[Case]:
    """Runs that fail where the planted secrets are (the OpenAI key, a URL's password, an MCP server's env):
    every answer about them is read, and the server's stderr, for the secrets."""
    def every_answer(ctx: Ctx, run_id: str) -> None:
        for path in (f"/runs/{run_id}", f"/runs/{run_id}/nodes", f"/runs/{run_id}/events", "/runs?limit=10",
                     f"/runs/{run_id}/webhooks"):
            ctx.send("GET", path, deadline=30)
        nodes = ctx.answers[-4]
        if nodes is not None and nodes.status == 200:
            for node in nodes.json()["nodes"]:
                ctx.send("GET",
                         f"/runs/{run_id}/nodes/{node['key'] if isinstance(node, dict) and 'key' in node else node}")

    runs = {
        "openai-key": ("openai", {}),
        "fetch-url-password": ("fetch", {"url": f"http://campaign:{URL_SECRET}@127.0.0.1:9/x"}),
        "fetch-query-token": ("fetch", {"url": f"http://127.0.0.1:9/x?token={URL_SECRET}"}),
        "echo-url-password": ("echo", {"text": f"see http://campaign:{URL_SECRET}@127.0.0.1:9/x"}),
        "echo-openai-key": ("echo", {"text": SECRET}),
        "mcp-env": ("mcp", {}),
    }
    for server in ("open", "keyed"):
        for name, (graph, inputs) in runs.items():
            def attack(ctx: Ctx, graph=graph, inputs=inputs) -> Verdict:
                run = ctx.start(graph, inputs, wait=True)
                every_answer(ctx, run["id"])
                fork = ctx.send("POST", f"/runs/{run['id']}/fork",
                                body=json.dumps({"from": next(iter(inputs or {"a": 1}))}))
                return judge(ctx.answers, lambda status: status < 500, check=strict_json)
            yield Case(f"serve/secrets/{server}/{name}", server, attack, 60)
        for name, (method, path, body) in {
                "completion-model-key": ("POST", "/v1/chat/completions", json.dumps({"model": SECRET, "messages": []})),
                "graph-named-key": ("GET", f"/graphs/{SECRET}", ""),
                "run-named-password": ("GET", f"/runs/http:%2F%2Fu:{URL_SECRET}@x", ""),
                "input-named-key": ("POST", "/graphs/echo/runs", json.dumps({"inputs": {SECRET: 1}})),
                "input-url-password": ("POST", "/graphs/echo/runs",
                                       json.dumps({"inputs": {f"http://u:{URL_SECRET}@h": 1}})),
                "fork-from-key": ("POST", "/runs/RUN/fork", json.dumps({"from": SECRET})),
                "node-key": ("GET", f"/runs/RUN/nodes/{SECRET}", ""),
                "webhook-password": ("POST", "/graphs/echo/runs",
                                     json.dumps({"webhook": f"http://u:{URL_SECRET}@127.0.0.1/"})),
                "openapi": ("GET", "/openapi.json", ""),
                "graphs": ("GET", "/graphs", ""),
                "graph-mcp": ("GET", "/graphs/mcp", ""),
                "health": ("GET", "/health", ""),
        }.items():
            def attack(ctx: Ctx, method=method, path=path, body=body) -> Verdict:
                return judge([ctx.send(method, path.replace("RUN", ctx.finished), body=body, deadline=30)],
                             lambda status: status < 500, check=strict_json)
            yield Case(f"serve/secrets/{server}/{name}", server, attack, 35)

    def mcp_call(ctx: Ctx) -> Verdict:
        """The MCP endpoint of graphrt serve: the mcp graph called as a tool; its error quotes no env value."""
        init = ctx.send("POST", "/mcp", body=_MCP_INIT, headers=_MCP_ACCEPT, deadline=30)
        session = init.headers.get("mcp-session-id") if init else None
        if not session:
            return judge([init], {200})
        headers = {**_MCP_ACCEPT, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
        ctx.send("POST", "/mcp", body='{"jsonrpc": "2.0", "method": "notifications/initialized"}', headers=headers)
        ctx.send("POST", "/mcp", body='{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}', headers=headers,
                 deadline=30)
        ctx.send("POST", "/mcp", body='{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "mcp", '
                 '"arguments": {}}}', headers=headers, deadline=40)
        return judge(ctx.answers, {200, 202})
    yield Case("serve/secrets/open/mcp-endpoint-call", "open", mcp_call, 60)


def mcp_cases() -> Iterator[Case]:
    """graphrt serve's /mcp: a tools/call cancelled by its client, by notifications/cancelled with the call's
    connection still open, or by leaving; the run it started is cancelled within 3 s either way."""
    for how in ("notification", "leaving"):
        def attack(ctx: Ctx, how=how) -> Verdict:
            init = ctx.send("POST", "/mcp", body=_MCP_INIT, headers=_MCP_ACCEPT, deadline=30)
            session = init.headers.get("mcp-session-id") if init else None
            if not session:
                return judge([init], {200})
            headers = {**_MCP_ACCEPT, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18",
                       "Content-Type": "application/json"}
            ctx.send("POST", "/mcp", body='{"jsonrpc": "2.0", "method": "notifications/initialized"}', headers=headers)
            before = {run["id"] for run in ctx.send("GET", "/runs?limit=500").json()["runs"]}
            call = send_and_hold(ctx.port, request("POST", "/mcp", host=ctx.server.host, headers={**ctx.auth(),
                                                                                                  **headers},
                                                   body='{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
                                                        '"params": {"name": "slow", "arguments": {}}}'))
            end, run_id = time.monotonic() + 20, None
            while run_id is None and time.monotonic() < end:
                runs = ctx.send("GET", "/runs?limit=5").json()["runs"]
                run_id = next((r["id"] for r in runs if r["id"] not in before and r["status"] == "running"), None)
                time.sleep(0.05)
            if run_id is None:
                call.close()
                raise CampaignError("the tool call started no run")
            if how == "notification":
                ctx.send("POST", "/mcp", headers=headers,
                         body='{"jsonrpc": "2.0", "method": "notifications/cancelled", '
                         '"params": {"requestId": 7, "reason": "campaign"}}')
            else:
                call.close()
            run = ctx.until(run_id, ("cancelled", "finished", "failed"), 3)
            call.close()
            if run is None:
                ctx.send("POST", f"/runs/{run_id}/cancel")
                return "wrong", f"the call was cancelled ({how}) and its run still runs 3 s later", None
            return judge(ctx.answers, {200, 202}) if run["status"] == "cancelled" else (
                "wrong", f"the cancelled call's run is {run['status']}", None)
        yield Case(f"serve/mcp/cancel-by-{how}", "open", attack, 40)


def all_cases() -> list[Case]:
    groups = [auth_cases, host_cases, origin_cases, traversal_cases, body_cases, value_cases, event_cases,
              cancel_cases, resume_cases, secret_cases, mcp_cases]
    return [case for group in groups for case in group()]


def _prepare(folder: Path) -> None:
    graphs = folder / "graphs"
    for name, text in GRAPHS.items():
        (graphs / name).parent.mkdir(parents=True, exist_ok=True)
        (graphs / name).write_text(text)
    (folder / "outside.yaml").write_text(OUTSIDE_GRAPH)
    (graphs / "link.yaml").symlink_to(folder / "outside.yaml")
    (folder / "talker.py").write_text(TALKER)
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": {"talker": {
        "command": sys.executable, "args": [str(folder / "talker.py")],
        "env": {"CAMPAIGN_TOKEN": ENV_SECRET, "OPENAI_KEY": SECRET}}}}))


def run_serve(deadline: float, every: int = 1, wanted: set[str] | None = None,
              log: Callable[[dict[str, Any]], None] = lambda outcome: None) -> list[dict[str, Any]]:
    """Every serve case against its server (started again when it is gone or /health is silent)."""
    folder = Path(tempfile.mkdtemp(prefix="graphrt-campaign-serve-"))
    _prepare(folder)
    servers: dict[str, ServeProcess] = {}
    finished: dict[str, str] = {}
    outcomes: list[dict[str, Any]] = []
    try:
        for number, case in enumerate(all_cases()):
            if number % every or (wanted is not None and case.id not in wanted):
                continue
            server = servers.get(case.server)
            if server is None or not server.alive():
                if server is not None:
                    server.close()
                server = servers[case.server] = ServeProcess(folder, case.server,
                                                             KEY if case.server == "keyed" else None)
                finished[case.server] = Ctx(server).start("hello", wait=True)["id"]
            ctx = Ctx(server, finished[case.server])
            seen_err = server.err_size()
            started = time.monotonic()
            try:
                verdict = _bounded(case, ctx)
            except CampaignError as error:
                verdict = "campaign-error", str(error)[:500], None
            finished_at = time.monotonic()
            health = ctx.health(10)
            outcome = outcome_of(case.id, finished_at - started, verdict, died=not server.alive(),
                             answered=health is not None, silent="/health", err=server.err_since(seen_err),
                             answers=ctx.answers, secrets=SECRETS)
            outcomes.append(outcome)
            log(outcome)
            if health is None or outcome["end"] == "hang":
                server.close()  # the next case gets a fresh server
    finally:
        for server in servers.values():
            server.close()
    return outcomes


def outcome_of(case_id: str, seconds: float, verdict: Verdict, *, died: bool, answered: bool, silent: str, err: str,
           answers: list[Answer | None], secrets: tuple[str, ...]) -> dict[str, Any]:
    """A case's outcome: its verdict, unless the server died, stopped answering (`silent`: what it did not answer)
    or logged a traceback meanwhile; and any planted secret in what it said (its answers and its stderr)."""
    end, detail, breach = verdict
    outcome: dict[str, Any] = {"id": case_id, "seconds": round(seconds, 2)}
    if died:
        end, detail = "traceback", f"the server died: {err[-800:]}"
    elif not answered:
        end, detail = "hang", f"{silent} did not answer after the case ({detail})"
    if "Traceback (most recent call last)" in err and end != "traceback":
        end, detail = "traceback", err[-1500:]
    outcome["end"] = end
    if detail:
        outcome["detail"] = detail
    if breach:
        outcome["breach"] = breach
    said = "".join(answer.raw.decode(errors="replace") for answer in answers if answer is not None) + err
    leaked = [secret for secret in secrets if secret in said]
    if leaked:
        outcome["leak"] = leaked
        outcome["leak_context"] = [said[max(0, said.find(s) - 200):said.find(s) + 60] for s in leaked][:2]
    return outcome


def _bounded(case: Case, ctx: Ctx) -> Verdict:
    """The case's verdict, or a hang if the case as a whole takes past its deadline (each request has its own too)."""
    result: list[Any] = []

    def go() -> None:
        try:
            result.append(case.attack(ctx))
        except BaseException as error:  # noqa: BLE001 - said as the campaign's own failure
            result.append(error)

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(case.deadline * 2 + 10)
    if not result:
        return "hang", f"the case did not end in {case.deadline * 2 + 10:g} s", None
    if isinstance(result[0], CampaignError):
        raise result[0]
    if isinstance(result[0], BaseException):
        raise CampaignError(f"{type(result[0]).__name__}: {result[0]}"[:500])
    return result[0]
