"""GraphAI's wikipediaAgent (@graphai/service_agents): the best search hit's page, as text or as its summary.

GraphAI's agent calls the npm package `wikipedia`, which makes these MediaWiki
requests; so does this one, over httpx, and returns the same
`{content, ns, title, pageid}`:

    search   api.php?list=search&srprop=&srlimit=10&srsearch=QUERY   the first hit's ns, title, pageid
    page     api.php?prop=info|pageprops&inprop=url&titles=TITLE     the page (redirects followed)
    content  api.php?prop=extracts|revisions&explaintext=&pageids=N  `content`: its plain text, or with
    summary  rest_v1/page/summary/TITLE                              `params.summary`, its summary object

The wiki is `https://{lang}.wikipedia.org` (`params.lang`, "en" by default), or
any MediaWiki site: `params.baseURL` or the agent's config `baseURL` (`{lang}`
in it is replaced), under which the Action API is `/w/api.php` and the REST API
`/api/rest_v1/`. The config also bounds each request (graphrt_agents._http).

Where GraphAI differs: it returns nothing (undefined) whatever goes wrong,
after printing the error; here a query with no hit, or a hit whose page is gone,
returns nothing too, but a wiki that cannot be reached, answers an HTTP error or
answers garbage fails the node, saying so (a lost reply never looks like "no page").
GraphAI's `lang` sticks for later calls (the package keeps it globally); here
each call uses its own. The query and title are percent-encoded in full (the
package's encodeURI leaves `&`, `#`, `+` and `/` as they are and so mangles
queries and titles that hold them).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import quote, urlencode

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_truthy, js_string

from .._http import LIMITS_CONFIG, FetchFailed, Limits, response_json, send
from .wiki_standin import MediaWikiStandIn, WikiPage

if TYPE_CHECKING:
    import httpx  # imported when a request is sent

__all__ = ["AGENTS", "wikipedia_agent"]

DEFAULT_BASE_URL = "https://{lang}.wikipedia.org"
_LANG = re.compile(r"[a-z][a-z0-9-]{0,30}")
_USER_AGENT = "graphrt-wikipediaAgent/0.1 (https://github.com/receptron/graphai; GraphAI's wikipediaAgent)"


class WikipediaError(AgentError, RuntimeError):
    """Raised when the wiki cannot be reached or does not answer as MediaWiki does."""


class _Wiki:
    """One wiki's Action and REST APIs, read within the agent's limits."""

    def __init__(self, base: str, limits: Limits, transport: "httpx.AsyncBaseTransport | None") -> None:
        self.base = base.rstrip("/")
        self.limits = limits
        self.transport = transport

    async def _get(self, url: str) -> Any:
        try:
            response = await send("GET", url, {"User-Agent": _USER_AGENT, "Accept": "application/json"}, None,
                                  self.limits, transport=self.transport)
        except FetchFailed as error:
            default = self.base.endswith(".wikipedia.org")
            hint = (" (is there a network? To read another MediaWiki server, set params.baseURL or the config's "
                    "baseURL)") if default else ""
            raise WikipediaError(f"wikipediaAgent: cannot reach {self.base}{hint}: {error}") from error
        if response.status == 404 and "/api/rest_v1/" in url:
            return None
        if not response.ok:
            raise WikipediaError(f"wikipediaAgent: {self.base} answered HTTP {response.status} to {url.split('?')[0]}")
        try:
            data = response_json(response)
        except ValueError as error:
            raise WikipediaError(f"wikipediaAgent: {self.base} did not answer JSON: {error}") from error
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            problem = data["error"]
            raise WikipediaError(f"wikipediaAgent: {self.base} answered error {problem.get('code')!r}: {problem.get('info')}")
        return data

    async def query(self, **params: Any) -> dict[str, Any]:
        """An Action API query (`action=query&format=json&redirects=`, as the npm package asks)."""
        params = {**params, "format": "json", "redirects": "", "action": "query", "origin": "*"}
        data = await self._get(f"{self.base}/w/api.php?{urlencode(params, quote_via=quote)}")
        query = data.get("query") if isinstance(data, dict) else None
        if not isinstance(query, dict):
            raise WikipediaError(f"wikipediaAgent: {self.base}'s answer has no 'query': {js_string(data)[:200]}")
        return query

    async def summary(self, title: str) -> Any:
        return await self._get(f"{self.base}/api/rest_v1/page/summary/{quote(title.replace(' ', '_'), safe='')}")


def _only_page(query: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first page of a query's `pages`, as the npm package takes it (None when it is missing)."""
    pages = query.get("pages")
    page = next(iter(pages.values()), None) if isinstance(pages, dict) and pages else None
    return page if isinstance(page, dict) and "missing" not in page else None


def _base_url(ctx: AgentContext, lang: str) -> str:
    base = ctx.params.get("baseURL") or (ctx.config or {}).get("baseURL") or DEFAULT_BASE_URL
    return js_string(base).replace("{lang}", lang)


async def _wikipedia(ctx: AgentContext, transport: "httpx.AsyncBaseTransport | None" = None) -> Any:
    params = ctx.params
    lang = js_string(params.get("lang")).lower() if is_truthy(params.get("lang")) else "en"
    if not _LANG.fullmatch(lang):
        raise ValueError(f"wikipediaAgent: params.lang must be a language code like 'en' or 'ja', got {lang!r}")
    query = ctx.inputs.get("query", UNDEFINED)
    wiki = _Wiki(_base_url(ctx, lang), Limits.from_config(ctx.config, "wikipediaAgent"), transport)

    found = await wiki.query(list="search", srprop="", srlimit=10, srsearch=js_string(query))
    hits = found.get("search")
    if not isinstance(hits, list) or not hits or not isinstance(hits[0], dict):
        return UNDEFINED  # no page matches: GraphAI's result too
    hit = hits[0]
    page = _only_page(await wiki.query(prop="info|pageprops", inprop="url", ppprop="disambiguation",
                                       titles=js_string(hit.get("title"))))
    if page is None:
        return UNDEFINED
    if is_truthy(params.get("summary")):
        content = await wiki.summary(js_string(page.get("title")))
        if content is None:
            return UNDEFINED
    else:
        text = _only_page(await wiki.query(prop="extracts|revisions", explaintext="", rvprop="ids",
                                           pageids=js_string(page.get("pageid"))))
        if text is None:
            return UNDEFINED
        content = text.get("extract", UNDEFINED)
    return {"content": content, **hit}


async def wikipedia_agent(ctx: AgentContext) -> Any:
    """Searches the wiki for `inputs.query` and returns the first hit's page: `{content, ns, title, pageid}`.

    `content` is the page's plain text, or with `params.summary` its summary
    object (the REST API's). Nothing (undefined) when no page matches.

    Raises:
        WikipediaError: the wiki cannot be reached (with no network, it says so), or answers an error or garbage.
        ValueError: `params.lang` is not a language code.
    """
    return await _wikipedia(ctx)


# The pages of the samples' stand-in wiki (their text shortened): the mock reads them, the samples show them.
_TURING = WikiPage(
    "Alan Turing", 1208,
    "Alan Mathison Turing (23 June 1912 – 7 June 1954) was an English mathematician, computer scientist, "
    "logician, cryptanalyst, philosopher and theoretical biologist.\n\n\n== Early life and education ==\n"
    "Turing was born in Maida Vale, London.",
    description="English computer scientist (1912–1954)")
_SAMPLE_WIKI = (_TURING,)


async def _wikipedia_mock(ctx: AgentContext) -> Any:
    """wikipediaAgent reading a stand-in wiki in process (wiki_standin.py) that holds the samples' pages."""
    return await _wikipedia(ctx, transport=MediaWikiStandIn(_SAMPLE_WIKI, lang="en").transport())


_SAMPLES = (
    Sample(
        inputs={"query": "alan turing"},
        params={"lang": "en"},
        result={"content": _TURING.text, "ns": 0, "title": "Alan Turing", "pageid": 1208},
        description="The page text of the first hit (a wiki holding one page, its text shortened here).",
    ),
    Sample(
        inputs={"query": "turing cryptanalyst"},
        params={"summary": True},
        result={
            "content": {
                "type": "standard", "title": "Alan Turing", "displaytitle": "Alan Turing", "pageid": 1208, "lang": "en",
                "dir": "ltr", "revision": "1", "description": "English computer scientist (1912–1954)",
                "content_urls": {"desktop": {"page": "https://en.wikipedia.org/wiki/Alan_Turing"}},
                "extract": _TURING.text.split("\n", 1)[0],
                "extract_html": f"<p>{_TURING.text.split(chr(10), 1)[0]}</p>",
            },
            "ns": 0, "title": "Alan Turing", "pageid": 1208,
        },
        description="With summary: the REST API's summary object of the first hit.",
    ),
)

wikipedia_agent_info = AgentInfo(
    name="wikipediaAgent",
    outside=True,
    func=wikipedia_agent,
    mock=_wikipedia_mock,
    description="Retrieves data from wikipedia",
    inputs={"type": "object", "properties": {"query": {"type": "string", "description": "what to search for"}},
            "required": ["query"]},
    params={
        "type": "object",
        "properties": {
            "lang": {"type": "string", "description": "The Wikipedia's language code (en by default)"},
            "summary": {"type": "boolean", "description": "Return the page's summary object instead of its text"},
            "baseURL": {"type": "string", "description": "Another MediaWiki site, e.g. http://127.0.0.1:8080 ({lang} "
                                                         "is replaced); default https://{lang}.wikipedia.org"},
        },
    },
    output={
        "type": "object",
        "properties": {"content": {"description": "the page's plain text, or its summary object"},
                       "ns": {"type": "integer"}, "title": {"type": "string"}, "pageid": {"type": "integer"}},
    },
    config={"type": "object", "properties": {
        "baseURL": {"type": "string", "description": "The MediaWiki site to read, when params.baseURL is not set"},
        **LIMITS_CONFIG,
    }},
    samples=_SAMPLES,
    category=("service",),
    author="Receptron",
    repository="https://github.com/receptron/graphai",
    source="https://github.com/receptron/graphai/blob/main/agents/service_agents/src/wikipedia_agent.ts",
    package="@graphai/service_agents",
    license="MIT",
)

AGENTS: list[AgentInfo] = [wikipedia_agent_info]
