"""Debian's chromium driven by Playwright, for the viewer's tests: the `browser` and `gate` fixtures.

Skipped when chromium or Playwright is missing (tests/conftest.py's `need`), unless GRAPHRT_REQUIRE_BROWSER=1
(or CI's GRAPHRT_REQUIRE_ALL=1): then it fails instead.
Playwright's own browser download is never used (`executable_path`).
"""

from __future__ import annotations

import threading

import anyio
import pytest

from ..conftest import need

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]


class Gate:
    """Holds an agent of the served run until the test opens it, so the page can be looked at mid-run.

    The server runs in a thread with its own event loop: the agent looks at a threading.Event.
    """

    def __init__(self) -> None:
        self._open = threading.Event()

    async def passage(self) -> None:
        while not self._open.is_set():
            await anyio.sleep(0.01)

    def open(self) -> None:
        self._open.set()


@pytest.fixture
def gate():
    opened = Gate()
    yield opened
    opened.open()  # a test that failed while a run was held lets the server stop


@pytest.fixture
def browser():
    need("browser", "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser, url: str, *, width: int = 1400, height: int = 1000):
    """A new page at `url`, and the list its script errors go to (a test ends asserting it is empty)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return page, errors


def open_finished_run(browser, served, run_id: str):
    """The viewer at a run that has finished, once the page says so."""
    from playwright.sync_api import expect

    page, errors = open_page(browser, f"{served.url}/#run={run_id}")
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    return page, errors
