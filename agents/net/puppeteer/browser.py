"""The browser puppeteerAgent drives: Chromium through Playwright, one for a whole run.

The browser is launched on a run's first call as a run service (ctx.services) and
closed when the run ends, whether it completed, failed or was cancelled; a browser
that crashed or was closed is launched again. Each call opens its page in a browser
context of its own (page.py), so that calls share no cookies, cache or storage, as
GraphAI's agent, which launches a browser per call, shares none. Called outside a run
(no run services), a call launches a browser for itself. Launching has its own 30 s,
as Puppeteer's has. Playwright's driver runs on asyncio, so the run must too.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, AsyncIterator

import anyio

from graphrt.authoring.services import RunServices, ServiceFailed

from .settings import AGENT, BrowserUnavailable, first_line

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["browser_for", "closed", "launched"]

LAUNCH_TIMEOUT = 30.0  # seconds, Puppeteer's launch timeout
CLOSE_TIMEOUT = 5.0  # seconds a page's context or the browser may take to close before it is left
# Nothing but the page: no updates, sync, field trials or first-run work that would call Google's servers.
ARGS = ("--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-default-apps", "--disable-domain-reliability", "--no-pings", "--metrics-recording-only")


def _on_asyncio() -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise BrowserUnavailable("Playwright drives the browser on asyncio: run the graph on asyncio "
                                 "(graphrt's default), not trio") from None


async def closed(closing: Any) -> None:
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
            await closed(browser.close)
    finally:
        await closed(playwright.stop)


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
