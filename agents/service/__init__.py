"""GraphAI's @graphai/service_agents: fetchAgent and wikipediaAgent, on httpx with bounded requests.

They share the Fetch API's rules and the request limits with vanillaFetchAgent
(graphrt_agents._http). fetchAgent parses XML as xml2js does (xml.py);
wikipediaAgent reads any MediaWiki site, and its samples read a stand-in wiki
(wiki_standin.py) that tests also serve on 127.0.0.1.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
