"""puppeteerAgent in a real Chromium (Debian's, driven by Playwright) on pages served on 127.0.0.1.

The tests that open a page need graphrt[browser] and chromium, and skip naming what is missing
(tests/conftest.py); those that fail before a browser is launched need only the extra.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import anyio
import pytest

import graphrt
from graphrt.authoring.agent_info import AgentContext
from graphrt.authoring.services import RunServices
from graphrt.testing import SampleCase, parametrize_samples
from graphrt_agents._loopback import Answer, Request, serving
from graphrt_agents.net.puppeteer import browser as browser_module
from graphrt_agents.net.puppeteer.settings import find_chromium
from graphrt_agents.net.puppeteer.agent import AGENTS, page_content, puppeteer_agent

from ...commands import GRAPHRT

pytestmark = pytest.mark.needs("browser")
chromium = pytest.mark.needs("chromium")

ARTICLE = ("<!DOCTYPE html><html><head><title>{title}</title></head><body>"
           "<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
           "<article><h1>{title}</h1><p>{text}</p>{more}</article>"
           "<footer>Footer text, not the article.</footer></body></html>")
TEXT = ("A page served on loopback for puppeteerAgent, with a paragraph long enough for Readability to take it "
        "as the article of the page: Readability scores each block of a page by its text, its commas and its "
        "class names, keeps the best with its siblings, and leaves the navigation and the footer out.")


def article(title: str = "Served on loopback", text: str = TEXT, more: str = "") -> str:
    return ARTICLE.format(title=title, text=text, more=more)


class Pages:
    """A site on 127.0.0.1: HTML by path, redirects, and requests held until the test lets them go."""

    def __init__(self, pages: dict[str, str], *, redirects: dict[str, str] | None = None,
                 held: tuple[str, ...] = (), together: tuple[str, ...] = ()) -> None:
        self.pages = pages
        self.redirects = redirects or {}
        self.held = held  # answered only once `release` is set
        self.release = threading.Event()
        self.arrived = {path: threading.Event() for path in held}
        self.together = threading.Barrier(len(together)) if together else None  # answered once all have come
        self.together_paths = together
        self.seen: list[str] = []

    def answer(self, request: Request) -> Answer:
        self.seen.append(request.path)
        if request.path in self.redirects:
            return 302, {"Location": self.redirects[request.path]}, b""
        if request.path in self.held:
            self.arrived[request.path].set()
            self.release.wait(60)
        if self.together is not None and request.path in self.together_paths:
            self.together.wait(60)
        if request.path not in self.pages:
            return 404, {"Content-Type": "text/plain"}, b"Not Found"
        kind = "application/json" if request.path.endswith(".json") else "text/html; charset=utf-8"
        return 200, {"Content-Type": kind}, self.pages[request.path].encode()


def run(inputs: dict, params: dict | None = None, config: dict | None = None, **options) -> dict:
    graph = {"version": 0.5, "nodes": {"src": {"value": inputs}, "out": {
        "agent": "puppeteerAgent", "inputs": {key: f":src.{key}" for key in inputs}, "params": params or {},
        "isResult": True}}}
    return graphrt.run(graph, config={"puppeteerAgent": config} if config else None, **options)["out"]


def failure(inputs: dict, params: dict | None = None, config: dict | None = None, **options) -> str:
    with pytest.raises(graphrt.GraphError) as failed:
        run(inputs, params, config, **options)
    return str(failed.value)


def said(message: str, field: str | None = None) -> str:
    """The whole error of the node `out` of `run`: `puppeteerAgent error: <message>`."""
    where = f"node 'out', field '{field}'" if field else "node 'out'"
    return f"{where}: puppeteerAgent error: {message} (agent puppeteerAgent)"


@pytest.fixture(autouse=True)
def no_browser_is_left_running():
    """Every browser a test's runs launched, and Playwright's driver, has ended once the runs returned."""
    yield
    assert _chromium_descendants() == []


# ----- samples -----


@chromium
@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


# ----- what the agent returns -----


def test_content_is_graphais_title_newline_and_collapsed_trimmed_text() -> None:
    # CRLF as LF, a run of two or more line breaks (each with its spaces and tabs) as one, JavaScript's trim()
    assert page_content("T", "\r\n  a\r\n\r\n \t\n  b\n c  \n") == "T\na\nb\n c"
    assert page_content(" T ", "\ufeff\u00a0x\u00a0\n") == " T \nx"  # the BOM and NBSP are JS white space
    assert page_content("T", "") == "T\n"


@chromium
def test_the_article_leaves_the_pages_navigation_and_footer_out() -> None:
    site = Pages({"/a": article()})
    with serving(site) as base:
        result = run({"url": f"{base}/a"})
    assert result == {"title": "Served on loopback", "content": f"Served on loopback\nServed on loopback{TEXT}"}


@chromium
def test_it_waits_while_more_than_two_requests_are_in_flight() -> None:
    # Three requests that the site answers only once all three have come: the page is read after they ended,
    # so their text is in it (read at DOMContentLoaded, it would not be).
    script = ("<script>Promise.all([1, 2, 3].map(n => fetch(`/part${n}.json`).then(r => r.json())))"
              ".then(parts => { const p = document.createElement('p'); p.textContent = parts.join(' ');"
              " document.querySelector('article').append(p); });</script>")
    parts = {f"/part{n}.json": f'"Part {n} of the text, written by the script once fetched."' for n in (1, 2, 3)}
    site = Pages({"/a": article(more=script), **parts}, together=tuple(parts))
    with serving(site) as base:
        result = run({"url": f"{base}/a"})
    assert result["content"].endswith(" ".join(f"Part {n} of the text, written by the script once fetched."
                                               for n in (1, 2, 3)))


@chromium
def test_a_connection_kept_open_does_not_hold_the_page() -> None:
    # networkidle2: two requests may stay in flight (a long poll); Playwright's networkidle would wait for ever
    site = Pages({"/a": article(more="<script>fetch('/poll')</script>")}, held=("/poll",))
    try:
        with serving(site) as base:
            result = run({"url": f"{base}/a"})
    finally:
        site.release.set()
    assert site.arrived["/poll"].is_set()
    assert result["content"] == f"Served on loopback\nServed on loopback{TEXT}"


@chromium
def test_a_page_without_an_article_has_no_title() -> None:
    # Readability's parse() is null: GraphAI's title is undefined and its content the newline alone
    site = Pages({"/empty": "<html><head><title>Nothing here</title></head><body></body></html>"})
    with serving(site) as base:
        assert run({"url": f"{base}/empty"}) == {"content": "\n"}


@chromium
def test_calls_of_a_run_share_one_browser_but_no_cookies(monkeypatch) -> None:
    launches = []
    launched = browser_module.launched

    def counting(executable: str):
        launches.append(executable)
        return launched(executable)

    monkeypatch.setattr(browser_module, "launched", counting)
    site = Pages({
        "/set": article("Setting a cookie", more="<script>document.cookie = 'visited=yes; path=/'</script>"),
        "/show": article("Showing the cookies", more="<script>const p = document.createElement('p');"
                         "p.textContent = 'Cookies: [' + document.cookie + ']';"
                         "document.querySelector('article').append(p)</script>"),
    })
    with serving(site) as base:
        graph = {"version": 0.5, "nodes": {
            "first": {"agent": "puppeteerAgent", "inputs": {"url": f"{base}/set"}},
            "second": {"agent": "puppeteerAgent", "inputs": {"url": f"{base}/show", "after": ":first.title"},
                       "isResult": True},
        }}
        result = graphrt.run(graph)["second"]
    assert len(launches) == 1
    assert result["content"].endswith("Cookies: []")


@chromium
def test_a_browser_that_was_closed_is_launched_again() -> None:
    site = Pages({"/a": article()})

    async def twice(base: str) -> list[dict]:
        async with RunServices() as services:
            ctx = AgentContext(inputs={"url": f"{base}/a"}, params={}, node_id="out", services=services)
            first = await puppeteer_agent(ctx)
            executable = find_chromium({})
            browser = await services.open(("puppeteerAgent", executable), lambda: browser_module.launched(executable))
            await browser.close()
            return [first, await puppeteer_agent(ctx)]

    with serving(site) as base:
        first, second = anyio.run(twice, base)
    assert first == second and second["title"] == "Served on loopback"


# ----- failures -----


def test_no_url_fails_before_a_browser_is_launched() -> None:
    message = "Error: inputs.url is required: the web page to open, e.g. https://example.com"
    assert failure({}, config={"executablePath": "/nonexistent/chromium"}) == said(message, "inputs.url")
    assert run({}, {"supressError": True}) == {"onError": {"message": "puppeteerAgent error", "error": message}}


@pytest.mark.parametrize(("url", "scheme"), [("file:///etc/passwd", "file:"), ("data:text/html,<p>hi</p>", "data:"),
                                             ("javascript:alert(1)", "javascript:"), ("chrome://version", "chrome:"),
                                             ("/relative/path", "'/relative/path'")])
def test_only_http_and_https_urls_are_opened(url: str, scheme: str) -> None:
    assert failure({"url": url}) == said(f"Error: only http and https URLs are opened, not {scheme}", "inputs.url")


@pytest.mark.parametrize(("config", "message"), [
    ({"timeout": 0}, "puppeteerAgent: config 'timeout' must be a positive number, got 0"),
    ({"maxRedirects": "3"}, "puppeteerAgent: config 'maxRedirects' must be a positive number, got '3'"),
    ({"proxy": "127.0.0.1:3128"}, "puppeteerAgent: config 'proxy' must be a proxy's URL (http://host:port), "
                                  "got '127.0.0.1:3128'"),
])
def test_a_config_it_cannot_use_is_said_before_a_browser_is_launched(config: dict, message: str) -> None:
    config = {**config, "executablePath": "/nonexistent/chromium"}
    assert failure({"url": "http://127.0.0.1/"}, config=config) == said(f"Error: {message}")


def test_a_missing_chromium_is_one_line_naming_what_to_install(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PUPPETEER_EXECUTABLE_PATH", raising=False)
    assert failure({"url": "http://127.0.0.1/"}) == said(
        "Error: no Chromium to drive (neither chromium nor chromium-browser is on PATH): apt-get install chromium, "
        "or set the agent's config executablePath")
    assert failure({"url": "http://127.0.0.1/"}, config={"executablePath": "/nonexistent/chromium"}) == said(
        "Error: config executablePath '/nonexistent/chromium' is not an executable file (a Chromium to launch)")
    monkeypatch.setenv("PUPPETEER_EXECUTABLE_PATH", str(tmp_path))  # a folder
    assert failure({"url": "http://127.0.0.1/"}) == said(
        f"Error: PUPPETEER_EXECUTABLE_PATH '{tmp_path}' is not an executable file (a Chromium to launch)")


def test_graphrt_run_says_the_missing_chromium_in_one_line(tmp_path: Path) -> None:
    graph = tmp_path / "page.yaml"
    graph.write_text("version: 0.5\nnodes:\n  page:\n    agent: puppeteerAgent\n"
                     "    inputs: {url: 'http://127.0.0.1/'}\n    isResult: true\n", encoding="utf-8")
    env = {**os.environ, "PATH": str(tmp_path)}
    env.pop("PUPPETEER_EXECUTABLE_PATH", None)
    done = subprocess.run([*GRAPHRT, "run", str(graph)], capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "apt-get install chromium, or set the agent's config executablePath" in done.stderr
    assert len([line for line in done.stderr.splitlines() if "puppeteerAgent error" in line]) == 1


def test_a_browser_that_does_not_start_is_one_line() -> None:
    not_chromium = shutil.which("false")
    message = failure({"url": "http://127.0.0.1/"}, config={"executablePath": not_chromium})
    assert message.startswith(f"node 'out': puppeteerAgent error: Error: Chromium at {not_chromium} did not start: "
                              "BrowserType.launch: ")
    assert message.endswith(" (agent puppeteerAgent)") and "\n" not in message


def test_a_run_on_trio_is_told_to_run_on_asyncio() -> None:
    message = failure({"url": "http://127.0.0.1/"}, config={"executablePath": shutil.which("true")}, backend="trio")
    assert message == said("Error: Playwright drives the browser on asyncio: run the graph on asyncio (graphrt's "
                           "default), not trio")


@chromium
def test_a_refused_connection_is_the_browsers_error() -> None:
    with serving(Pages({})) as base:
        pass  # the port is free again: nothing listens there
    assert failure({"url": f"{base}/a"}) == said(f"Error: Page.goto: net::ERR_CONNECTION_REFUSED at {base}/a")
    result = run({"url": f"{base}/a"}, {"supressError": True})
    assert result["onError"]["message"] == "puppeteerAgent error"
    assert "net::ERR_CONNECTION_REFUSED" in result["onError"]["error"]


# ----- limits -----


@chromium
def test_redirects_past_max_redirects_are_refused() -> None:
    site = Pages({"/end": article()}, redirects={"/r3": "/r2", "/r2": "/r1", "/r1": "/end"})
    with serving(site) as base:
        assert run({"url": f"{base}/r3"}, config={"maxRedirects": 3})["title"] == "Served on loopback"
        assert failure({"url": f"{base}/r3"}, config={"maxRedirects": 2}) == said(
            f"Error: {base}/r3 redirected more than 2 times (config maxRedirects)")


@chromium
def test_html_over_max_bytes_is_refused_before_it_is_read() -> None:
    site = Pages({"/big": article(text=TEXT * 10)})
    with serving(site) as base:
        assert run({"url": f"{base}/big"}, config={"maxBytes": 10_000})["title"] == "Served on loopback"
        message = failure({"url": f"{base}/big"}, config={"maxBytes": 2000})
        size = len(run({"url": f"{base}/big"}, config={"maxBytes": 10_000})["content"].encode())
    assert re.fullmatch(re.escape(said(f"Error: the page at {base}/big is SIZE bytes of HTML, over the limit of 2000 "
                                       "(config maxBytes)")).replace("SIZE", r"(\d+)"), message)
    assert int(re.search(r"is (\d+) bytes", message).group(1)) > size  # the HTML, more than its text


@chromium
def test_a_page_that_never_settles_times_out_and_its_browser_is_closed() -> None:
    site = Pages({"/slow": article()}, held=("/slow",))
    try:
        with serving(site) as base:
            message = failure({"url": f"{base}/slow"}, config={"timeout": 1})
    finally:
        site.release.set()
    assert site.arrived["/slow"].is_set()  # the page was asked for: the time ran out on it, not on the launch
    assert message == said(f"TimeoutError: {base}/slow did not settle within 1 s (config timeout)")
    assert _chromium_descendants() == []


@chromium
def test_a_node_timeout_cancels_the_visit_and_closes_the_browser() -> None:
    site = Pages({"/slow": article()}, held=("/slow",))
    try:
        with serving(site) as base:
            graph = {"version": 0.5, "nodes": {"out": {"agent": "puppeteerAgent", "inputs": {"url": f"{base}/slow"},
                                                       "timeout": 5000, "isResult": True}}}
            with pytest.raises(graphrt.NodeTimeoutError, match="timed out after 5000 ms"):
                graphrt.run(graph)
    finally:
        site.release.set()
    assert site.arrived["/slow"].is_set()  # cancelled while the page loaded
    assert _chromium_descendants() == []


@chromium
def test_a_node_timeout_while_the_browser_starts_leaves_no_process() -> None:
    # Playwright's driver takes most of a second to start: cancelled then, it was left running (caught by CI)
    graph = {"version": 0.5, "nodes": {"out": {"agent": "puppeteerAgent", "inputs": {"url": "http://127.0.0.1:9/"},
                                               "timeout": 20, "isResult": True}}}
    with pytest.raises(graphrt.NodeTimeoutError, match="timed out after 20 ms"):
        graphrt.run(graph)
    assert _chromium_descendants() == []


def _chromium_descendants() -> list[str]:
    """The command lines of this process's descendants that are a browser or Playwright's driver."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    ours, found = {os.getpid()}, []
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in ours and pid not in ours:
                ours.add(pid)
                changed = True
    for pid in ours - {os.getpid()}:
        try:
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "chromium" in command or "playwright" in command:
            found.append(command[:120])
    return found
