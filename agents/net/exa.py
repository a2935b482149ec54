"""GraphAI's exaAgent (@graphai/exa_agent 0.0.2): Exa's search, with Exa's official SDK (exa-py, graphrt[exa]).

`query` and `search_args` come from params and inputs (inputs win); the key from the
agent's config or params `apiKey`, else EXASEARCH_API_KEY (exa-js's variable) or
EXA_API_KEY (exa-py's). As exa-js 1.8 does for GraphAI, a `search_args.text` makes the
call `searchAndContents` (the content options go in `contents`), else a plain
`search`; the body is sent as exa-js writes it, through the SDK's request
(`AsyncExa.async_request`), so GraphAI's camelCase options pass unchanged. The result
is a list of `{title, link, snippet}` (each result's title, url and text). Exa is
`https://api.exa.ai`, or `params.baseURL` / the config's `baseURL`.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_truthy, js_string

from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url, error_text
from .standins import SAMPLE_DOCUMENTS, SAMPLE_KEY, ExaStandIn

__all__ = ["AGENTS", "exa_agent", "search_body"]

EXA_URL = "https://api.exa.ai"
# exa-js's extractContentsOptions: the options that go in `contents` for searchAndContents
_CONTENT_OPTIONS = ("text", "highlights", "summary", "subpages", "subpageTarget", "extras", "livecrawl",
                    "livecrawlTimeout", "context")


def search_body(query: Any, search_args: Any) -> dict[str, Any]:
    """The /search body exa-js sends: `search(query, args)` or, with `args.text`, `searchAndContents(query, args)`."""
    args = dict(search_args) if isinstance(search_args, dict) else {}
    if not is_truthy(args.get("text")):
        return {"query": query, **args}
    contents = {key: args.pop(key) for key in _CONTENT_OPTIONS if key in args and args[key] is not UNDEFINED}
    return {"query": query, "contents": contents, **args}


def _key(ctx: AgentContext) -> str | None:
    for value in (ctx.params.get("apiKey"), (ctx.config or {}).get("apiKey"), os.environ.get("EXASEARCH_API_KEY"),
                  os.environ.get("EXA_API_KEY")):
        if is_truthy(value):
            return js_string(value)
    return None


async def exa_agent(ctx: AgentContext) -> Any:
    """Searches Exa for `query`: `[{title, link, snippet}]`.

    Raises:
        AgentError: no key, or Exa refused the search or could not be reached (with `params.supressError`:
            `{onError: {message, error}}` instead).
    """
    from exa_py import AsyncExa

    args = {**ctx.params, **ctx.inputs}
    try:
        key = _key(ctx)
        if key is None:
            raise AgentError("API key must be provided as an argument or as an environment variable (EXASEARCH_API_KEY)")
        timeout = (ctx.config or {}).get("timeout", 300)
        async with AsyncExa(api_key=key, api_base=base_url(ctx, EXA_URL),
                            timeout=timeout if isinstance(timeout, (int, float)) and timeout > 0 else 300) as exa:
            try:
                answer = await exa.async_request("/search", search_body(args.get("query"), args.get("search_args")))
            except ValueError as error:  # exa-py's "Request failed with status code N: <body>"
                raise AgentError(f"exaAgent: {error}") from error
            except Exception as error:  # noqa: BLE001 - httpx's transport errors and exa-py's timeout, named
                raise AgentError(f"exaAgent: Exa could not be reached: {type(error).__name__}: {error}") from error
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise AgentError(f"exaAgent: Exa's answer has no results: {js_string(answer)[:200]}")
        return [{"title": item.get("title", UNDEFINED), "link": item.get("url", UNDEFINED),
                 "snippet": item.get("text", UNDEFINED)} for item in results if isinstance(item, dict)]
    except AgentError as error:
        if is_truthy(ctx.params.get("supressError")):
            return {"onError": {"message": str(error), "error": error_text(error)}}
        raise


AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="exaAgent",
        outside=True,
        func=exa_agent,
        mock=stand_in_mock(exa_agent, ExaStandIn, SAMPLE_KEY),
        description="Exa Agent",
        inputs={"type": "object", "properties": {
            "query": {"type": "string", "description": "what to search for"},
            "search_args": {"type": "object", "description": "Exa's search options (numResults, includeDomains, ...); "
                                                             "text: true also fetches each page's text"}}},
        params={"type": "object", "properties": {
            "query": {"type": "string"}, "search_args": {"type": "object"},
            "apiKey": {"type": "string", "description": "Exa API key (else the config's, else EXASEARCH_API_KEY or "
                                                        "EXA_API_KEY)"},
            "baseURL": {"type": "string", "description": f"the API's address (default {EXA_URL})"},
            "supressError": {"type": "boolean", "description": "return a failure as {onError: {message, error}}"}}},
        output={"type": "array", "items": {"type": "object", "properties": {
            "title": {"type": "string"}, "link": {"type": "string"}, "snippet": {"type": "string"}}}},
        config=SERVICE_CONFIG,
        samples=(
            Sample(inputs={"query": "GraphAI", "search_args": {"numResults": 1, "text": True}}, params={},
                   result=[{"title": SAMPLE_DOCUMENTS[0].title, "link": SAMPLE_DOCUMENTS[0].url,
                            "snippet": SAMPLE_DOCUMENTS[0].text}],
                   description="searchAndContents: the pages' text is each snippet (a stand-in of Exa on 127.0.0.1)."),
            Sample(inputs={"query": "data flow programming"}, params={},
                   result=[{"title": SAMPLE_DOCUMENTS[2].title, "link": SAMPLE_DOCUMENTS[2].url}],
                   description="search: titles and URLs only."),
        ),
        category=("net",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/exa_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/exa_agent/src/exa_agent.ts",
        package="@graphai/exa_agent",
        license="MIT",
        environment_variables=("EXASEARCH_API_KEY",),
    ),
]
