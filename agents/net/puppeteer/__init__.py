"""GraphAI's puppeteerAgent (@graphai/puppeteer_agent): a web page in a headless Chromium, its article by Readability.

Playwright drives a Chromium installed on the machine (never one of Playwright's
downloads), and readability-lxml reads the article: both come with graphrt[browser].
`agent` is the agent and what it returns, `settings` what a call asks for (its URL, its
config's Chromium, proxy and limits), `browser` the browser a run shares, `page` how a
page is opened and read within the limits, `article` Readability's part, `site` the
pages its samples open, served on 127.0.0.1.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
