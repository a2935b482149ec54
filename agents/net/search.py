"""GraphAI's web search agents: braveSearchAgent (@graphai/brave_search_agent 2.0.2), googleSearchAgent
(@graphai/google_search_agent 0.0.1, Google's Custom Search JSON API) and serperAgent (@graphai/serper_agent 0.0.1).

Brave and Google give `{items: [{title, link, snippet}]}`; serper gives serper.dev's
answer as it is. Each takes its key from `params.apiKey`, the agent's config or the
environment (BRAVE_SEARCH_API_TOKEN, GOOGLE_SEARCH_API_KEY, SERPER_API_KEY; GraphAI's
serperAgent reads only the environment), and its base URL from `params.baseURL` or
the config's `baseURL`.

Where graphrt differs: serperAgent without a key sends nothing and says so in its `{error}` (GraphAI sends the
request with an empty key); `params.debug` describes the request with the key shown as
REDACTED (GraphAI's Brave puts the key in the result; GraphAI's Google returns two
made-up results instead of searching, which no caller can tell from real ones).
"""

from __future__ import annotations

import json
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy
from graphrt.base.secrets import MASK

from .._http import request_url, response_json, response_text
from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url, credential, error_text, input_or_param, service_params
from ._calls import call
from .standins import SAMPLE_KEY, BraveStandIn, GoogleSearchStandIn, SerperStandIn

__all__ = ["AGENTS", "brave_search_agent", "google_search_agent", "serper_agent"]

BRAVE_URL = "https://api.search.brave.com"
GOOGLE_URL = "https://customsearch.googleapis.com"
SERPER_URL = "https://google.serper.dev"


def _query(ctx: AgentContext, agent: str) -> Any:
    query = ctx.inputs.get("query", UNDEFINED)
    if not is_truthy(query):
        raise AgentError(f"{agent}: query is required! set inputs: {{ query: 'your search query' }}",
                         field="inputs.query")
    return query


def _items(results: Any, link: str, snippet: str) -> list[dict[str, Any]]:
    """`results.map(item => ({title, link, snippet}))`; fields an item lacks are left out, as JSON leaves undefined."""
    if not isinstance(results, list):
        return []
    items = []
    for item in results:
        item = item if isinstance(item, dict) else {}
        items.append({"title": item.get("title", UNDEFINED), "link": item.get(link, UNDEFINED),
                      "snippet": item.get(snippet, UNDEFINED)})
    return items


async def brave_search_agent(ctx: AgentContext) -> Any:
    """Searches the web with Brave: `{items: [{title, link, snippet}]}` (each result's title, url, description).

    `inputs.search_args` (or `params.search_args`) are more of the API's query parameters (count, country, ...).

    Raises:
        AgentError: no query, or no key (BRAVE_SEARCH_API_TOKEN); "Brave Search HTTP error: N, <body>" for a non-2xx
            answer (with `params.supressError`: `{items: [], onError: {message, status, error}}`).
    """
    query = _query(ctx, "braveSearchAgent")
    search_args = input_or_param(ctx, "search_args")
    search_args = search_args if isinstance(search_args, dict) else {}
    token = credential(ctx, "BRAVE_SEARCH_API_TOKEN")
    if token is None:
        raise AgentError("Brave Search API token is required. Please set the BRAVE_SEARCH_API_TOKEN environment variable.")
    endpoint = f"{base_url(ctx, BRAVE_URL)}/res/v1/web/search"
    params = {**search_args, "q": query}
    headers = {"X-Subscription-Token": token, "Accept": "application/json"}
    if is_truthy(ctx.params.get("debug")):
        return {"url": endpoint, "method": "GET", "headers": {**headers, "X-Subscription-Token": MASK}, "params": params}
    supress = is_truthy(ctx.params.get("supressError"))
    try:
        response = await call(ctx, "braveSearchAgent", "GET", request_url(endpoint, params), headers)
        if not response.ok:
            error = response_text(response)
            if supress:
                return {"items": [], "onError": {"message": f"Brave Search HTTP error: {response.status}",
                                                 "status": response.status, "error": error}}
            raise AgentError(f"Brave Search HTTP error: {response.status}, {error}")
        web = response_json(response)
        results = web.get("web") if isinstance(web, dict) else None
        return {"items": _items(results.get("results") if isinstance(results, dict) else [], "url", "description")}
    except (AgentError, TypeError, ValueError) as error:
        if supress:
            return {"onError": {"message": str(error), "error": error_text(error)}}
        raise


async def google_search_agent(ctx: AgentContext) -> Any:
    """Searches one Programmable Search Engine (`params.cx`) with Google's Custom Search JSON API:
    `{items: [{title, link, snippet}]}`.

    Raises:
        AgentError: no query, no key (GOOGLE_SEARCH_API_KEY) or no `cx`; "Google Search HTTP error: ..." when
            the API refuses or cannot be reached (with `params.supressError`: `{items: [], onError: {message, error}}`).
    """
    query = _query(ctx, "googleSearchAgent")
    key = credential(ctx, "GOOGLE_SEARCH_API_KEY")
    if key is None:
        raise AgentError("Google Search API key is required. Please set the GOOGLE_SEARCH_API_KEY environment variable.")
    cx = ctx.params.get("cx")
    if not is_truthy(cx):
        raise AgentError("Google Search API cx is required.", field="params.cx")
    endpoint = f"{base_url(ctx, GOOGLE_URL)}/customsearch/v1"
    if is_truthy(ctx.params.get("debug")):
        return {"url": endpoint, "method": "GET", "params": {"cx": cx, "q": query, "key": MASK}}
    try:
        response = await call(ctx, "googleSearchAgent", "GET", request_url(endpoint, {"cx": cx, "q": query, "key": key}),
                              {"Accept": "application/json"})
        if not response.ok:
            try:
                problem = response_json(response).get("error", {}).get("message")
            except (ValueError, AttributeError):
                problem = None
            raise AgentError(f"{problem or response_text(response)[:500]} (HTTP {response.status})")
        found = response_json(response)
        return {"items": _items(found.get("items") if isinstance(found, dict) else [], "link", "snippet")}
    except (AgentError, TypeError, ValueError) as error:
        if is_truthy(ctx.params.get("supressError")):
            return {"items": [], "onError": {"message": str(error), "error": error_text(error)}}
        raise AgentError(f"Google Search HTTP error: {error_text(error)}") from error


async def serper_agent(ctx: AgentContext) -> Any:
    """Searches Google through serper.dev and returns its answer as it is (`searchParameters`, `organic`, ...).

    As in GraphAI, a failure is not raised but returned: `{error: message}` ("Request failed with status code 403",
    as axios words it, or why no answer came). Without a key nothing is sent (GraphAI sends an empty one).
    """
    key = credential(ctx, "SERPER_API_KEY")
    if key is None:  # GraphAI sends the request with an empty key, and returns serper.dev's refusal
        return {"error": "no serper.dev API key: set SERPER_API_KEY (or params.apiKey, or the config's apiKey)"}
    headers = {"X-API-KEY": key, "Content-Type": "application/json"}
    body = json.dumps({"q": ctx.inputs.get("query")}, ensure_ascii=False) if not is_null(ctx.inputs.get("query")) \
        else "{}"
    try:
        response = await call(ctx, "serperAgent", "POST", f"{base_url(ctx, SERPER_URL)}/search", headers, body)
        if not response.ok:
            return {"error": f"Request failed with status code {response.status}"}
        return response_json(response)
    except (AgentError, TypeError, ValueError) as error:
        return {"error": str(error)}


_ITEMS_OUTPUT = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
    "title": {"type": "string", "description": "The title of the search result"},
    "link": {"type": "string", "description": "The URL of the search result"},
    "snippet": {"type": "string", "description": "A snippet of text from the search result"},
}}}}}
_GRAPHAI_ITEMS = [
    {"title": "GraphAI: asynchronous data flow for agents", "link": "https://example.com/graphai",
     "snippet": "GraphAI is an open source framework that runs graphs of agents as asynchronous data flows."},
    {"title": "Getting started with GraphAI", "link": "https://example.com/graphai/docs",
     "snippet": "Learn how to write a GraphAI graph in YAML and run it."},
]
_STAND_IN = "(a stand-in of the service, on 127.0.0.1, holding three pages)"
_SEARCH_ARGS = {"type": "object", "description": "more query parameters of the Brave Search API (count, country, "
                                                 "search_lang, ...), https://api-dashboard.search.brave.com/app/documentation/web-search/query"}

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="braveSearchAgent",
        outside=True,
        func=brave_search_agent,
        mock=stand_in_mock(brave_search_agent, BraveStandIn, SAMPLE_KEY),
        description="An agent that uses the Brave Search API. "
                    "https://api-dashboard.search.brave.com/app/documentation/web-search/get-started",
        inputs={"type": "object", "properties": {
            "query": {"type": "string", "description": "The search query to send to Brave Search"},
            "search_args": _SEARCH_ARGS}, "required": ["query"]},
        params={"type": "object", "properties": {
            **service_params("Brave Search API key (else the config's apiKey, else BRAVE_SEARCH_API_TOKEN)", BRAVE_URL),
            "debug": {"type": "boolean", "description": "return the request instead of sending it (the key REDACTED)"},
            "search_args": _SEARCH_ARGS}},
        output=_ITEMS_OUTPUT,
        config=SERVICE_CONFIG,
        samples=(
            Sample(inputs={"query": "GraphAI"}, params={}, result={"items": _GRAPHAI_ITEMS},
                   description=f"The web results' titles, URLs and descriptions {_STAND_IN}."),
            Sample(inputs={"query": "GraphAI YAML", "search_args": {"count": 1, "country": "JP"}}, params={},
                   result={"items": _GRAPHAI_ITEMS[1:]}),
            Sample(inputs={"query": "GraphAI tutorials"}, params={"debug": True}, result={
                "url": "https://api.search.brave.com/res/v1/web/search", "method": "GET",
                "headers": {"X-Subscription-Token": MASK, "Accept": "application/json"},
                "params": {"q": "GraphAI tutorials"}}, description="debug: the request, not sent."),
        ),
        category=("net",),
        author="kawamataryo",
        repository="https://github.com/receptron/graphai-agents",
        source="https://github.com/receptron/graphai-agents/tree/main/net/brave_search_agent/src/brave_search_agent.ts",
        package="@graphai/brave_search_agent",
        license="MIT",
        environment_variables=("BRAVE_SEARCH_API_TOKEN",),
    ),
    AgentInfo(
        name="googleSearchAgent",
        outside=True,
        func=google_search_agent,
        mock=stand_in_mock(google_search_agent, GoogleSearchStandIn, SAMPLE_KEY),
        description="Google Custom Search Agent",
        inputs={"type": "object", "properties": {
            "query": {"type": "string", "description": "The search query to send to Google Search"}},
            "required": ["query"]},
        params={"type": "object", "properties": {
            **service_params("Google Search API key (else the config's apiKey, else GOOGLE_SEARCH_API_KEY)", GOOGLE_URL),
            "cx": {"type": "string", "description": "The identifier of the Programmable Search Engine."},
            "debug": {"type": "boolean", "description": "return the request instead of sending it (the key REDACTED)"},
        }, "required": ["cx"]},
        output=_ITEMS_OUTPUT,
        config=SERVICE_CONFIG,
        samples=(
            Sample(inputs={"query": "GraphAI"}, params={"cx": "sample-cx"}, result={"items": _GRAPHAI_ITEMS},
                   description=f"The engine's results {_STAND_IN}."),
            Sample(inputs={"query": "GraphAI"}, params={"cx": "sample-cx", "debug": True}, result={
                "url": "https://customsearch.googleapis.com/customsearch/v1", "method": "GET",
                "params": {"cx": "sample-cx", "q": "GraphAI", "key": MASK}}, description="debug: the request, not sent."),
        ),
        category=("net",),
        author="Masashi Homma",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/google_search_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/google_search_agent/src/google_search_agent.ts",
        package="@graphai/google_search_agent",
        license="MIT",
        environment_variables=("GOOGLE_SEARCH_API_KEY",),
    ),
    AgentInfo(
        name="serperAgent",
        outside=True,
        func=serper_agent,
        mock=stand_in_mock(serper_agent, SerperStandIn, SAMPLE_KEY),
        description="serper agent",
        inputs={"type": "object", "properties": {"query": {"type": "string", "description": "what to search for"}},
                "required": ["query"]},
        params={"type": "object", "properties": {
            "apiKey": {"type": "string", "description": "serper.dev API key (else the config's apiKey, else SERPER_API_KEY)"},
            "baseURL": {"type": "string", "description": f"the service's address (default {SERPER_URL})"}}},
        output={"type": "object", "description": "serper.dev's answer (searchParameters, organic, knowledgeGraph, ...), "
                                                 "or {error: message}"},
        config=SERVICE_CONFIG,
        samples=(Sample(inputs={"query": "data flow programming"}, params={}, result={
            "searchParameters": {"q": "data flow programming", "type": "search", "engine": "google"},
            "organic": [{"title": "Data flow programming", "link": "https://example.com/dataflow", "position": 1,
                         "snippet": "Data flow programs are graphs whose nodes run when their inputs are ready."}],
            "credits": 1}, description=f"serper.dev's answer {_STAND_IN}."),),
        category=("net",),
        author="isamu arimoto",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/serper-agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/serper-agent/src/serper_agent.ts",
        package="@graphai/serper_agent",
        license="MIT",
        environment_variables=("SERPER_API_KEY",),
    ),
]
