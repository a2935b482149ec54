"""GraphAI's arxivAgent (@graphai/arxiv_agent 1.0.0): papers from arXiv's export API, as npm arxiv-api-ts finds them.

`searchQueryParams` (inputs over params) is a list of `{include: [{name, prefix}], exclude: [...]}`;
each one's tags are joined by AND (and ANDNOT for `exclude`), the groups by OR, into
`search_query` (`prefix:name`, prefix `all` by default: ti, au, abs, co, jr, cat, rn).
`sortBy` (relevance, lastUpdatedDate, submittedDate), `sortOrder` (ascending,
descending), `start` (0) and `maxResults` (10) page it. The API is
`http://export.arxiv.org/api/query` or `params.baseURL` / the config's `baseURL` + `/api/query`.

The result is `{totalResults, startIndex, itemsPerPage, entries}`, each entry `{id,
title, summary, published, updated, authors, doi, comment, journalReference,
primaryCategory, categories, links}`. Where graphrt differs, it gives what
arxiv-api-ts means to give and does not: its XML parser drops namespace prefixes, so
the totals are always 0 and doi, comment, journalReference, primaryCategory and
categories always missing, and it ignores attributes, so each link is "" and the
categories nothing; here the totals are the feed's, `authors` is always a list of
`{name}` (arxiv-api-ts gives one object for one author), `primaryCategory` the
primary category's term, `categories` every category's term, and `links` the links'
`{href, rel, type, title}`. Text stays text (arxiv-api-ts turns a numeric title into
a number). An empty `searchQueryParams` is refused (arxiv-api-ts sends an empty
query). A tag's name is percent-encoded whole (arxiv-api-ts puts it in the URL as
it is, so a name with `&` or `#` breaks the query).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_null, is_truthy, js_string

from .._http import response_text
from .._loopback import stand_in_mock
from .._services import SERVICE_CONFIG, base_url
from ._calls import call
from .standins import SAMPLE_KEY, SAMPLE_PAPERS, ArxivStandIn

__all__ = ["AGENTS", "arxiv_agent", "search_query"]

ARXIV_URL = "http://export.arxiv.org"
PREFIXES = ("all", "ti", "au", "abs", "co", "jr", "cat", "rn")
SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")
SORT_ORDER = ("ascending", "descending")
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


def _tag(tag: Any) -> str:
    tag = tag if isinstance(tag, dict) else {}
    name, prefix = tag.get("name"), tag.get("prefix", "all")
    prefix = "all" if prefix is UNDEFINED else prefix
    if not isinstance(name, str) or not name.strip():
        raise ValueError("you must specify tag name")
    if prefix not in PREFIXES:
        raise ValueError(f"unsupported prefix: {js_string(prefix)}")
    return f"{prefix}:{quote(name, safe='')}"


def _tags(group: Any) -> str:
    include, exclude = group.get("include"), group.get("exclude", [])
    exclude = [] if exclude is UNDEFINED else exclude
    if not isinstance(include, list) or not isinstance(exclude, list):
        raise ValueError("include and exclude must be arrays")
    if not include:
        raise ValueError("include is a mandatory field")
    included = "+AND+".join(map(_tag, include))
    return included + ("+ANDNOT+" if exclude else "") + "+ANDNOT+".join(map(_tag, exclude))


def search_query(groups: Any) -> str:
    """arXiv's `search_query` of `searchQueryParams`, as arxiv-api-ts writes it.

    Raises:
        ValueError: arxiv-api-ts's messages for what it refuses.
    """
    if not isinstance(groups, list):
        raise ValueError("searchQueryParams must be an array")
    if not groups:  # arxiv-api-ts sends search_query= (nothing), which asks arXiv for nothing
        raise ValueError("searchQueryParams must hold at least one {include: [{name, prefix}]}")
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("include"), list):
            raise ValueError("include tags must be an array")
    return "+OR+".join(map(_tags, groups))


def _text(element: ElementTree.Element | None) -> Any:
    return UNDEFINED if element is None or element.text is None else element.text.strip()


def _entry(entry: ElementTree.Element) -> dict[str, Any]:
    primary = entry.find(f"{_ARXIV}primary_category")
    return {
        "id": _text(entry.find(f"{_ATOM}id")),
        "title": _text(entry.find(f"{_ATOM}title")),
        "summary": _text(entry.find(f"{_ATOM}summary")),
        "published": _text(entry.find(f"{_ATOM}published")),
        "updated": _text(entry.find(f"{_ATOM}updated")),
        "authors": [{"name": _text(author.find(f"{_ATOM}name"))} for author in entry.findall(f"{_ATOM}author")],
        "doi": _text(entry.find(f"{_ARXIV}doi")),
        "comment": _text(entry.find(f"{_ARXIV}comment")),
        "journalReference": _text(entry.find(f"{_ARXIV}journal_ref")),
        "primaryCategory": UNDEFINED if primary is None else primary.get("term", UNDEFINED),
        "categories": [category.get("term") for category in entry.findall(f"{_ATOM}category")],
        "links": [{key: link.get(key) for key in ("href", "rel", "type", "title") if link.get(key) is not None}
                  for link in entry.findall(f"{_ATOM}link")],
    }


def _count(feed: ElementTree.Element, name: str) -> int:
    text = _text(feed.find(f"{_OPENSEARCH}{name}"))
    return int(text) if isinstance(text, str) and text.isdigit() else 0


def _feed(text: str) -> dict[str, Any]:
    try:
        feed = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise AgentError(f"arxivAgent: arXiv did not answer an Atom feed: {error}") from error
    return {"totalResults": _count(feed, "totalResults"), "startIndex": _count(feed, "startIndex"),
            "itemsPerPage": _count(feed, "itemsPerPage"), "entries": [_entry(entry) for entry in feed.findall(f"{_ATOM}entry")]}


async def arxiv_agent(ctx: AgentContext) -> dict[str, Any]:
    """Searches arXiv: `{totalResults, startIndex, itemsPerPage, entries}` (see the module's docstring).

    Raises:
        ValueError: what arxiv-api-ts refuses (no include tags, an unknown prefix, sortBy or sortOrder).
        AgentError: arXiv answered an HTTP error or no feed; FetchFailed: it could not be reached.
    """
    args = {**ctx.params, **ctx.inputs}
    query = search_query(args.get("searchQueryParams"))
    sort_by, sort_order = args.get("sortBy"), args.get("sortOrder")
    if is_truthy(sort_by) and sort_by not in SORT_BY:
        raise ValueError(f"unsupported sort by option. should be one of: {' '.join(SORT_BY)}")
    if is_truthy(sort_order) and sort_order not in SORT_ORDER:
        raise ValueError(f"unsupported sort order option. should be one of: {' '.join(SORT_ORDER)}")
    start = 0 if is_null(args.get("start")) else args["start"]
    max_results = 10 if is_null(args.get("maxResults")) else args["maxResults"]
    url = (f"{base_url(ctx, ARXIV_URL)}/api/query?search_query={query}&start={js_string(start)}"
           f"&max_results={js_string(max_results)}" + (f"&sortBy={sort_by}" if is_truthy(sort_by) else "")
           + (f"&sortOrder={sort_order}" if is_truthy(sort_order) else ""))
    response = await call(ctx, "arxivAgent", "GET", url, {"Accept": "application/atom+xml"})
    if not response.ok:
        raise AgentError(f"arxivAgent: arXiv answered HTTP {response.status}: {response_text(response)[:300]}")
    return _feed(response_text(response))


_LLM_PAPER = SAMPLE_PAPERS[0]

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="arxivAgent",
        outside=True,
        func=arxiv_agent,
        mock=stand_in_mock(arxiv_agent, ArxivStandIn, SAMPLE_KEY),
        description="Arxiv Agent",
        inputs={"type": "object", "properties": {
            "searchQueryParams": {"type": "array", "description": "[{include: [{name, prefix}], exclude: [...]}]"}}},
        params={"type": "object", "properties": {
            "searchQueryParams": {"type": "array", "items": {"type": "object", "properties": {
                "include": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "prefix": {"type": "string", "enum": list(PREFIXES)}},
                    "required": ["name"]}},
                "exclude": {"type": "array", "items": {"type": "object"}}}, "required": ["include"]},
                "description": "groups of tags: a group's tags are ANDed (exclude: ANDNOT), the groups ORed"},
            "sortBy": {"type": "string", "enum": list(SORT_BY)},
            "sortOrder": {"type": "string", "enum": list(SORT_ORDER)},
            "start": {"type": "integer", "description": "the first result (0)"},
            "maxResults": {"type": "integer", "description": "how many results (10)"},
            "baseURL": {"type": "string", "description": f"the API's address (default {ARXIV_URL})"},
        }},
        output={"type": "object", "properties": {
            "totalResults": {"type": "integer"}, "startIndex": {"type": "integer"}, "itemsPerPage": {"type": "integer"},
            "entries": {"type": "array", "items": {"type": "object"}}}},
        config=SERVICE_CONFIG,
        samples=(Sample(
            inputs={},
            params={"searchQueryParams": [{"include": [{"name": "LLM"}]}], "sortBy": "lastUpdatedDate",
                    "sortOrder": "descending", "start": 0, "maxResults": 100},
            result={"totalResults": 1, "startIndex": 0, "itemsPerPage": 100, "entries": [{
                "id": f"http://arxiv.org/abs/{_LLM_PAPER.id}", "title": _LLM_PAPER.title, "summary": _LLM_PAPER.summary,
                "published": _LLM_PAPER.published, "updated": _LLM_PAPER.published,
                "authors": [{"name": name} for name in _LLM_PAPER.authors], "comment": _LLM_PAPER.comment,
                "primaryCategory": "cs.AI", "categories": ["cs.AI", "cs.CL"],
                "links": [{"href": f"http://arxiv.org/abs/{_LLM_PAPER.id}", "rel": "alternate", "type": "text/html"},
                          {"href": f"http://arxiv.org/pdf/{_LLM_PAPER.id}", "rel": "related", "type": "application/pdf",
                           "title": "pdf"}]}]},
            description="GraphAI's sample query, against a stand-in of arXiv on 127.0.0.1 holding two papers."),),
        category=("net",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai-agents/tree/main/net/arxiv_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/net/arxiv_agent/src/arxiv_agent.ts",
        package="@graphai/arxiv_agent",
        license="MIT",
    ),
]
