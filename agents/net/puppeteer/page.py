"""A page as GraphAI's puppeteerAgent reads it: opened, waited for until its network is almost idle, its HTML.

`page.goto(url, {waitUntil: "networkidle2"})`: once DOMContentLoaded has fired, the
page is read when no more than two requests have been in flight for 500 ms (a page
that keeps a connection open, a long poll, still settles), and its HTML is what the
browser holds then, its scripts run (`page.content()`). Within the config's limits
(settings.py): the `timeout` from the navigation to the HTML read; `maxRedirects` of
the page's navigation, counted once it committed (Chromium follows them itself, and
stops at 20 whatever is set); `maxBytes` of HTML, measured in the browser before it
is sent over. Downloads are refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from ..._http import Limits, shown_url
from .browser import closed
from .settings import PageRefused, PageTimeout, Settings

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, Request, Response

__all__ = ["read_page"]

QUIET = 0.5  # networkidle2: seconds with no more than BUSY requests in flight
BUSY = 2

# The page's HTML as page.content() writes it, or its size in bytes when that is over the limit (not sent over).
_HTML = """limit => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  const html = doctype + (document.documentElement ? document.documentElement.outerHTML : "");
  const size = new TextEncoder().encode(html).length;
  return size > limit ? size : html;
}"""


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
    """The page's HTML once it settled (networkidle2), if its redirects and its size are within `limits`."""
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
        await closed(context.close)
