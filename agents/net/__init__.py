"""GraphAI's net agents (receptron/graphai-agents' net/): browserlessAgent, braveSearchAgent, googleSearchAgent,
serperAgent, arxivAgent, notionAgent; slackAgent (slack_sdk, graphrt[slack]) and exaAgent (exa-py, graphrt[exa]).

Each calls its service's documented HTTP API, over httpx within the fetch limits of
graphrt_agents._http, or through the service's official Python SDK where there is a
well-kept one (Slack, Exa). Keys and base URLs come from params, the agent's config
or the environment (graphrt_agents._services). Their samples run a stand-in of the
service on 127.0.0.1 (standins.py), which tests use too; nothing reaches the service.
puppeteerAgent (the subpackage puppeteer/, graphrt[browser]) drives a browser: the machine's Chromium,
through Playwright.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
