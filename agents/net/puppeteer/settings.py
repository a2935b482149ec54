"""What a puppeteerAgent call asks for: the page's URL, and from its config the Chromium, the proxy, the limits.

No browser is ever downloaded (never `playwright install`): the agent launches the
Chromium of its config's `executablePath`, else of PUPPETEER_EXECUTABLE_PATH (the
variable Puppeteer reads), else `chromium` or `chromium-browser` on PATH, as Debian
installs it (`apt-get install chromium`); without one, the error says what to install.

Only http and https URLs are opened: a browser reads file: URLs, which graphrt's file
agents keep inside their base folder. The config bounds a visit as the fetching
agents' config bounds a request (graphrt_agents._http; page.py applies them):
`timeout` (seconds from the navigation to the HTML read, 30 by default: Puppeteer's
navigation timeout), `maxBytes` (the page's HTML), `maxRedirects` (of the page's
navigation). `proxy` sends the browser's requests through a proxy (the samples'
stand-in is one).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, replace
from typing import Any, Mapping
from urllib.parse import urlsplit

from graphrt.base.errors import AgentError, GraphError

from ..._http import LIMITS_CONFIG, Limits

__all__ = ["AGENT", "CONFIG", "BrowserUnavailable", "PageRefused", "PageTimeout", "Settings", "find_chromium",
           "first_line", "page_url"]

AGENT = "puppeteerAgent"
VISIT_TIMEOUT = 30.0  # seconds, Puppeteer's navigation timeout: the default of the config's `timeout`
CHROMIUM = ("chromium", "chromium-browser")
_PROXY_SCHEMES = ("http", "https", "socks4", "socks5")

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
