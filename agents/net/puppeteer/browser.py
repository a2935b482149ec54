"""The browser puppeteerAgent drives: a Chromium installed on the machine, through Playwright, one per run.

No browser is ever downloaded (never `playwright install`): the agent launches the
Chromium of its config's `executablePath`, else of PUPPETEER_EXECUTABLE_PATH (the
variable Puppeteer reads), else `chromium` or `chromium-browser` on PATH, as Debian
installs it (`apt-get install chromium`). One browser serves a whole run: launched on
first use as a run service (ctx.services) and closed when the run ends. Each call
opens its page in a browser context of its own, so that calls share no cookies,
cache or storage, as GraphAI's agent, which launches a browser per call, shares none.
Called outside a run (no run services), a call launches a browser for itself.

A page is read as GraphAI's `page.goto(url, {waitUntil: "networkidle2"})` reads it:
once DOMContentLoaded has fired and no more than two requests have been in flight
for 500 ms (a page that keeps a connection open, a long poll, still settles), then
its HTML as the browser holds it, scripts run (`page.content()`).

The agent's config bounds a visit as the fetching agents' is bounded (graphrt_agents._http):
- `timeout`: seconds from the navigation to the HTML read (default 30, Puppeteer's
  navigation timeout); the launch has its own 30 s, as Puppeteer's does;
- `maxBytes`: the page's HTML, measured in the browser before it is sent over;
- `maxRedirects`: redirects of the page's own navigation, counted once it
  committed (Chromium follows them itself, and stops at 20 whatever is set).
Only http and https URLs are opened: a browser reads file: URLs, which graphrt's file
agents keep inside their base folder. Downloads are refused. `proxy` sends all of the
browser's traffic for the page through an HTTP proxy (the samples' stand-in uses it).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping
from urllib.parse import urlsplit

import anyio

from graphrt.authoring.services import RunServices, ServiceFailed
from graphrt.base.errors import AgentError, GraphError

from ..._http import LIMITS_CONFIG, Limits, shown_url

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, Request, Response

__all__ = ["BrowserUnavailable", "PageRefused", "PageTimeout", "Settings", "CONFIG", "browser_for", "read_page",
           "first_line"]

AGENT = "puppeteerAgent"
LAUNCH_TIMEOUT = 30.0  # seconds, Puppeteer's launch timeout
VISIT_TIMEOUT = 30.0  # seconds, Puppeteer's navigation timeout: the default of the config's `timeout`
CLOSE_TIMEOUT = 5.0  # seconds a page's context or the browser may take to close before it is left
QUIET = 0.5  # networkidle2: seconds with no more than BUSY requests in flight
BUSY = 2
CHROMIUM = ("chromium", "chromium-browser")
# Nothing but the page: no updates, sync, field trials or first-run work that would call Google's servers.
ARGS = ("--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-default-apps", "--disable-domain-reliability", "--no-pings", "--metrics-recording-only")
_PROXY_SCHEMES = ("http", "https", "socks4", "socks5")

# The page's HTML as page.content() writes it, or its size in bytes when that is over the limit (not sent over).
_HTML = """limit => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  const html = doctype + (document.documentElement ? document.documentElement.outerHTML : "");
  const size = new TextEncoder().encode(html).length;
  return size > limit ? size : html;
}"""

CONFIG: dict[str, Any] = {"type": "object", "properties": {
    "executablePath": {"type": "string", "description": "the Chromium to launch (default: PUPPETEER_EXECUTABLE_PATH, "
                                                        "else chromium or chromium-browser on PATH)"},
    "proxy": {"type": "string", "description": "an HTTP or SOCKS proxy for the browser's requests (http://host:port)"},
    **LIMITS_CONFIG,
    "timeout": {"type": "number", "description": "Seconds a page may take, from the navigation to its HTML "
                                                 "(default 30)"},
    "maxBytes": {"type": "integer", "description": "Largest page HTML read, in bytes (default 32 MiB)"},
    "maxRedirects": {"type": "integer", "description": "Redirects of the page's navigation (default 20, "
                                                      "Chromium's own limit)"},
}}
"""The agent's config (`config: {puppeteerAgent: {...}}`)."""


class BrowserUnavailable(AgentError):
    """Raised when there is no Chromium to drive, it does not start, or the run is not on asyncio."""


class PageRefused(AgentError):
    """Raised for a page puppeteerAgent does not read: not http(s), or past a limit of its config."""


class PageTimeout(PageRefused, TimeoutError):
    """Raised when a page did not settle within the config's timeout."""


def first_line(error: BaseException) -> str:
    """An error's message, as one line (Playwright's add a call log below)."""
    text = error.message if isinstance(error, GraphError) else str(error)
    return text.strip().split("\n", 1)[0]


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_chromium(config: Mapping[str, Any]) -> str:
    """The Chromium to launch: the config's `executablePath`, PUPPETEER_EXECUTABLE_PATH, or one on PATH.

    Raises:
        BrowserUnavailable: the one named is not an executable file, or none is installed.
    """
    for named, where in ((config.get("executablePath"), "config executablePath"),
                         (os.environ.get("PUPPETEER_EXECUTABLE_PATH") or None, "PUPPETEER_EXECUTABLE_PATH")):
        if named is None:
            continue
        if not isinstance(named, str) or not _executable(named):
            raise BrowserUnavailable(f"{where} {named!r} is not an executable file (a Chromium to launch)")
        return named
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserUnavailable("no Chromium to drive (neither chromium nor chromium-browser is on PATH): "
                             "apt-get install chromium, or set the agent's config executablePath")


def _proxy(config: Mapping[str, Any]) -> str | None:
    value = config.get("proxy")
    if value is None:
        return None
    if not isinstance(value, str) or urlsplit(value).scheme not in _PROXY_SCHEMES or not urlsplit(value).hostname:
        raise ValueError(f"{AGENT}: config 'proxy' must be a proxy's URL (http://host:port), got {value!r}")
    return value


@dataclass(frozen=True)
class Settings:
    """What a call's config says: the Chromium to launch, the proxy, the limits of a visit."""

    executable: str
    proxy: str | None
    limits: Limits

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> "Settings":
        """The settings of the agent's config (its `timeout` is 30 s unless it says otherwise).

        Raises:
            ValueError: a limit that is not a positive number, a proxy that is not a URL.
            BrowserUnavailable: no Chromium (find_chromium).
        """
        config = config or {}
        limits = Limits.from_config(config, AGENT)
        if "timeout" not in config:
            limits = replace(limits, timeout=VISIT_TIMEOUT)
        proxy = _proxy(config)
        return cls(find_chromium(config), proxy, limits)


def _on_asyncio() -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise BrowserUnavailable("Playwright drives the browser on asyncio: run the graph on asyncio "
                                 "(graphrt's default), not trio") from None


async def _closed(closing: Any) -> None:
    """Awaits a close (of a context, a browser, Playwright's driver), even in a cancelled task, for a while at most."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT):
        await closing()


@asynccontextmanager
async def launched(executable: str) -> AsyncIterator["Browser"]:
    """Chromium at `executable`, headless, driven by Playwright until the block ends.

    Raises:
        BrowserUnavailable: Playwright's driver or the browser did not start (the first line of why).
    """
    from playwright.async_api import async_playwright

    try:
        # Shielded: cancelled while its driver starts (a node's timeout, the run's end), Playwright keeps no handle
        # on the process it spawned, and nothing could stop it.
        with anyio.CancelScope(shield=True, deadline=anyio.current_time() + LAUNCH_TIMEOUT) as starting:
            playwright = await async_playwright().start()
    except Exception as error:  # noqa: BLE001 - any failure to start is the one line said
        raise BrowserUnavailable(f"Playwright's driver did not start: {first_line(error)}") from error
    if starting.cancelled_caught:
        raise BrowserUnavailable(f"Playwright's driver did not start within {LAUNCH_TIMEOUT:g} s")
    try:
        try:
            browser = await playwright.chromium.launch(executable_path=executable, args=list(ARGS),
                                                       timeout=LAUNCH_TIMEOUT * 1000)
        except Exception as error:  # noqa: BLE001 - playwright's Error, or its TimeoutError
            raise BrowserUnavailable(f"Chromium at {executable} did not start: {first_line(error)}") from error
        try:
            yield browser
        finally:
            await _closed(browser.close)
    finally:
        await _closed(playwright.stop)


async def _run_browser(services: RunServices, executable: str) -> "Browser":
    """The run's browser at `executable`, launched by its first caller; a new one if it crashed or was closed."""
    key = (AGENT, executable)
    for _ in range(2):
        try:
            browser = await services.open(key, lambda: launched(executable))
        except ServiceFailed as failed:
            raise BrowserUnavailable(first_line(failed.__cause__ or failed)) from failed
        if browser.is_connected():
            return browser
        services.forget(key)
    raise BrowserUnavailable(f"Chromium at {executable} closed as soon as it was launched")


@asynccontextmanager
async def browser_for(services: RunServices | None, executable: str) -> AsyncIterator["Browser"]:
    """The run's browser (launched on first use, closed with the run), or, outside a run, one for this call.

    Raises:
        BrowserUnavailable: not on asyncio, or the browser does not start.
    """
    _on_asyncio()
    if services is not None and services.is_open:
        yield await _run_browser(services, executable)
        return
    async with launched(executable) as browser:
        yield browser


def page_url(url: Any) -> str:
    """The URL to open: a string, http or https.

    Raises:
        PageRefused: no URL, or another scheme (file:, data:, chrome:, ...).
    """
    if not isinstance(url, str) or not url.strip():
        raise PageRefused("inputs.url is required: the web page to open, e.g. https://example.com", field="inputs.url")
    scheme = urlsplit(url.strip()).scheme.lower()
    if scheme not in ("http", "https"):
        raise PageRefused(f"only http and https URLs are opened, not {f'{scheme}:' if scheme else repr(url)}",
                          field="inputs.url")
    return url.strip()


class _Traffic:
    """The requests a page has in flight, its frames' included, to wait until its network is almost idle."""

    def __init__(self, page: "Page") -> None:
        self._inflight: set[Request] = set()
        self._changed = anyio.Event()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, request: "Request") -> None:
        self._inflight.add(request)
        self._signal()

    def _ended(self, request: "Request") -> None:
        self._inflight.discard(request)
        self._signal()

    def _signal(self) -> None:
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    async def almost_idle(self) -> None:
        """Returns once no more than BUSY requests have been in flight for QUIET seconds (networkidle2)."""
        while True:
            while len(self._inflight) > BUSY:
                await self._changed.wait()
            with anyio.move_on_after(QUIET) as quiet:
                while len(self._inflight) <= BUSY:
                    await self._changed.wait()
            if quiet.cancelled_caught:
                return


def _redirects(response: "Response | None") -> int:
    """How many redirects the navigation that gave `response` followed."""
    count, request = 0, response.request if response is not None else None
    while request is not None and request.redirected_from is not None:
        count, request = count + 1, request.redirected_from
    return count


async def _visit(page: "Page", url: str, limits: Limits) -> str:
    traffic = _Traffic(page)
    response = await page.goto(url, wait_until="domcontentloaded", timeout=0)  # the caller's deadline bounds it
    if _redirects(response) > limits.max_redirects:
        raise PageRefused(f"{shown_url(url)} redirected more than {limits.max_redirects} times (config maxRedirects)")
    await traffic.almost_idle()
    html = await page.evaluate(_HTML, limits.max_bytes)
    if not isinstance(html, str):
        raise PageRefused(f"the page at {shown_url(page.url)} is {html} bytes of HTML, over the limit of "
                          f"{limits.max_bytes} (config maxBytes)")
    return html


async def read_page(browser: "Browser", url: str, settings: Settings) -> tuple[str, str]:
    """Opens `url` in a context of its own; the page's HTML once its network is almost idle, and its final URL.

    Raises:
        PageTimeout: it did not settle within the config's timeout.
        PageRefused: too many redirects, too much HTML.
        playwright's Error: the navigation failed (net::ERR_CONNECTION_REFUSED at ..., a download, ...).
    """
    proxy = {"server": settings.proxy} if settings.proxy else None
    context = await browser.new_context(accept_downloads=False, proxy=proxy)
    try:
        page = await context.new_page()
        try:
            with anyio.fail_after(settings.limits.timeout):
                html = await _visit(page, url, settings.limits)
        except TimeoutError:
            raise PageTimeout(f"{shown_url(url)} did not settle within {settings.limits.timeout:g} s "
                              "(config timeout)") from None
        return html, page.url
    finally:
        await _closed(context.close)
