"""Stand-ins of the net agents' services, answering as their documented APIs answer, from a few documents.

The agents' mocks (their samples) and the tests serve them on 127.0.0.1
(graphrt_agents._loopback). Each checks the key as the service does and answers
its error shape when it is wrong; search finds the documents whose title and text
hold every word of the query. What each serves:

    browserless  POST /content?token=T {url}            the page's HTML
                 POST /scrape?token=T {url, elements}   {data: [{selector, results: [{text, html, ...}]}]}
    Brave        GET /res/v1/web/search?q=Q             {type: search, web: {results: [{title, url, description}]}}
                 (X-Subscription-Token)
    Google CSE   GET /customsearch/v1?key=K&cx=C&q=Q    {kind, items: [{title, link, snippet}]} (no items: none)
    serper.dev   POST /search {q} (X-API-KEY)           {searchParameters, organic: [{title, link, snippet}]}
    arXiv        GET /api/query?search_query=...        an Atom feed (opensearch totals, entries)
    Slack        POST /api/chat.postMessage (Bearer)    {ok, channel, ts, message} or {ok: false, error}
    Exa          POST /search {query, contents?}        {requestId, results: [{id, title, url, text?}]}
"""

from __future__ import annotations

import html
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable
from xml.sax.saxutils import escape, quoteattr

from .._loopback import Answer, Request, json_answer

__all__ = [
    "Document", "Paper", "SAMPLE_DOCUMENTS", "SAMPLE_PAPERS", "SAMPLE_KEY", "BrowserlessStandIn", "BraveStandIn",
    "GoogleSearchStandIn", "SerperStandIn", "ArxivStandIn", "SlackStandIn", "ExaStandIn",
]

SAMPLE_KEY = "sample-key"  # the key the samples' stand-ins accept (the mocks send it)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Document:
    """A web page of the stand-ins: title, URL and text (its HTML is made from them)."""

    title: str
    url: str
    text: str

    def html(self) -> str:
        return (f"<html><head><title>{html.escape(self.title)}</title></head>"
                f"<body><h1>{html.escape(self.title)}</h1><p>{html.escape(self.text)}</p></body></html>")

    def words(self) -> set[str]:
        return set(_WORD.findall(f"{self.title} {self.text}".casefold()))


def _search(documents: Iterable[Document], query: str) -> list[Document]:
    wanted = set(_WORD.findall(query.casefold()))
    return [document for document in documents if wanted and wanted <= document.words()]


SAMPLE_DOCUMENTS = (
    Document("GraphAI: asynchronous data flow for agents", "https://example.com/graphai",
             "GraphAI is an open source framework that runs graphs of agents as asynchronous data flows."),
    Document("Getting started with GraphAI", "https://example.com/graphai/docs",
             "Learn how to write a GraphAI graph in YAML and run it."),
    Document("Data flow programming", "https://example.com/dataflow",
             "Data flow programs are graphs whose nodes run when their inputs are ready."),
)


class _Keyed:
    """A stand-in that accepts one key (None: any)."""

    def __init__(self, key: str | None = SAMPLE_KEY) -> None:
        self.key = key
        self.requests: list[Request] = []
        self._lock = threading.Lock()

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def _key_ok(self, given: str | None) -> bool:
        return bool(given) and (self.key is None or given == self.key)


class BrowserlessStandIn(_Keyed):
    """browserless's /content and /scrape: pages by URL, rendered as the documents' HTML."""

    def __init__(self, documents: Iterable[Document] = SAMPLE_DOCUMENTS, key: str | None = SAMPLE_KEY) -> None:
        super().__init__(key)
        self.pages = {document.url: document for document in documents}

    def answer(self, request: Request) -> Answer:
        self._record(request)
        if not self._key_ok(dict(request.query).get("token")):
            return 401, {"Content-Type": "text/plain"}, b"Unauthorized"
        body = request.json()
        if request.method != "POST" or request.path not in ("/content", "/scrape") or not isinstance(body, dict):
            return 404, {"Content-Type": "text/plain"}, b"Not Found"
        page = self.pages.get(body.get("url"))
        if page is None:
            return 400, {"Content-Type": "text/plain"}, f"net::ERR_NAME_NOT_RESOLVED at {body.get('url')}".encode()
        if request.path == "/content":
            return 200, {"Content-Type": "text/html; charset=utf-8"}, page.html().encode()
        data = []
        for element in body.get("elements") or []:
            selector = element.get("selector") if isinstance(element, dict) else None
            text = {"body": f"{page.title}\n{page.text}", "h1": page.title, "p": page.text, "title": page.title}.get(selector)
            results = [] if text is None else [{"attributes": [], "height": 100, "html": html.escape(text), "left": 0,
                                                "text": text, "top": 0, "width": 800}]
            data.append({"selector": selector, "results": results})
        return json_answer(200, {"data": data})


class BraveStandIn(_Keyed):
    """Brave's Web Search API."""

    def __init__(self, documents: Iterable[Document] = SAMPLE_DOCUMENTS, key: str | None = SAMPLE_KEY) -> None:
        super().__init__(key)
        self.documents = tuple(documents)

    def answer(self, request: Request) -> Answer:
        self._record(request)
        if request.path != "/res/v1/web/search":
            return json_answer(404, {"type": "ErrorResponse", "error": {"code": "NOT_FOUND", "status": 404}})
        if not self._key_ok(request.headers.get("x-subscription-token")):
            return json_answer(401, {"type": "ErrorResponse", "error": {
                "code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "The provided subscription token is invalid.",
                "status": 401}})
        query = dict(request.query)
        if not query.get("q"):
            return json_answer(422, {"type": "ErrorResponse", "error": {
                "code": "VALIDATION", "detail": "Unable to validate request parameter(s)", "status": 422}})
        count = int(query.get("count", 20)) if query.get("count", "20").isdigit() else 20
        found = _search(self.documents, query["q"])[:count]
        return json_answer(200, {"type": "search", "query": {"original": query["q"]}, "web": {"type": "search", "results": [
            {"type": "search_result", "title": document.title, "url": document.url, "description": document.text}
            for document in found]}})


class GoogleSearchStandIn(_Keyed):
    """Google's Custom Search JSON API (customsearch/v1) for one search engine (`cx`)."""

    def __init__(self, documents: Iterable[Document] = SAMPLE_DOCUMENTS, key: str | None = SAMPLE_KEY,
                 cx: str = "sample-cx") -> None:
        super().__init__(key)
        self.documents = tuple(documents)
        self.cx = cx

    def answer(self, request: Request) -> Answer:
        self._record(request)
        query = dict(request.query)
        if request.path != "/customsearch/v1":
            return json_answer(404, {"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}})
        if not self._key_ok(query.get("key")):
            return json_answer(400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                                               "status": "INVALID_ARGUMENT"}})
        if query.get("cx") != self.cx:
            return json_answer(400, {"error": {"code": 400, "message": "Request contains an invalid argument.",
                                               "status": "INVALID_ARGUMENT"}})
        found = _search(self.documents, query.get("q", ""))[:10]
        answer: dict[str, Any] = {"kind": "customsearch#search", "queries": {"request": [{"searchTerms": query.get("q")}]},
                                  "searchInformation": {"totalResults": str(len(found))}}
        if found:  # Google leaves `items` out when nothing matches
            answer["items"] = [{"kind": "customsearch#result", "title": document.title, "link": document.url,
                                "displayLink": document.url.split("/")[2], "snippet": document.text}
                               for document in found]
        return json_answer(200, answer)


class SerperStandIn(_Keyed):
    """serper.dev's Google search API (POST /search)."""

    def __init__(self, documents: Iterable[Document] = SAMPLE_DOCUMENTS, key: str | None = SAMPLE_KEY) -> None:
        super().__init__(key)
        self.documents = tuple(documents)

    def answer(self, request: Request) -> Answer:
        self._record(request)
        if not self._key_ok(request.headers.get("x-api-key")):
            return json_answer(403, {"message": "Unauthorized.", "statusCode": 403})
        body = request.json()
        if request.method != "POST" or request.path != "/search" or not isinstance(body, dict) or not body.get("q"):
            return json_answer(400, {"message": "Missing query parameter", "statusCode": 400})
        found = _search(self.documents, str(body["q"]))
        return json_answer(200, {
            "searchParameters": {"q": body["q"], "type": "search", "engine": "google"},
            "organic": [{"title": document.title, "link": document.url, "snippet": document.text, "position": number}
                        for number, document in enumerate(found, start=1)],
            "credits": 1})


@dataclass(frozen=True)
class Paper:
    """An arXiv entry of the stand-in."""

    id: str
    title: str
    summary: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    published: str = "2024-01-02T03:04:05Z"
    comment: str = ""
    doi: str = ""
    journal_ref: str = ""

    def field_words(self, prefix: str) -> set[str]:
        text = {"ti": self.title, "au": " ".join(self.authors), "abs": self.summary, "co": self.comment,
                "jr": self.journal_ref, "cat": " ".join(self.categories), "rn": ""}.get(prefix)
        if text is None:  # all
            text = " ".join((self.title, " ".join(self.authors), self.summary, self.comment))
        return set(_WORD.findall(text.casefold())) | ({*map(str.casefold, self.categories)} if prefix == "cat" else set())


SAMPLE_PAPERS = (
    Paper("2401.00001v1", "Large Language Models as Graph Agents", "We run LLM agents as nodes of data flow graphs.",
          ("Ada Lovelace", "Alan Turing"), ("cs.AI", "cs.CL"), comment="12 pages"),
    Paper("2401.00002v2", "Scheduling Data Flow Graphs", "A scheduler for asynchronous graphs of agents.",
          ("Grace Hopper",), ("cs.DC",), doi="10.1000/graphs.2"),
)


class ArxivStandIn:
    """arXiv's export API (`/api/query`): search_query terms joined by AND, OR and ANDNOT, paged and sorted."""

    def __init__(self, papers: Iterable[Paper] = SAMPLE_PAPERS) -> None:
        self.papers = tuple(papers)
        self.requests: list[Request] = []

    def _matches(self, paper: Paper, query: str) -> bool:
        tokens = re.split(r"\s+(AND|OR|ANDNOT)\s+", query.strip())
        result = self._term(paper, tokens[0])
        for operator, term in zip(tokens[1::2], tokens[2::2]):
            value = self._term(paper, term)
            result = (result and value) if operator == "AND" else (result or value) if operator == "OR" else (
                result and not value)
        return result

    def _term(self, paper: Paper, term: str) -> bool:
        prefix, _, name = term.partition(":")
        words = set(_WORD.findall(name.strip('"').casefold()))
        return bool(words) and words <= paper.field_words(prefix)

    def _entry(self, paper: Paper) -> str:
        authors = "".join(f"<author><name>{escape(name)}</name></author>" for name in paper.authors)
        extras = "".join(f'<arxiv:{tag} xmlns:arxiv="http://arxiv.org/schemas/atom">{escape(value)}</arxiv:{tag}>'
                         for tag, value in (("comment", paper.comment), ("doi", paper.doi),
                                            ("journal_ref", paper.journal_ref)) if value)
        categories = "".join(f'<category term={quoteattr(term)} scheme="http://arxiv.org/schemas/atom"/>'
                             for term in paper.categories)
        return (f"<entry><id>http://arxiv.org/abs/{paper.id}</id><updated>{paper.published}</updated>"
                f"<published>{paper.published}</published><title>{escape(paper.title)}</title>"
                f"<summary>  {escape(paper.summary)}\n</summary>{authors}{extras}"
                f'<link href="http://arxiv.org/abs/{paper.id}" rel="alternate" type="text/html"/>'
                f'<link title="pdf" href="http://arxiv.org/pdf/{paper.id}" rel="related" type="application/pdf"/>'
                f'<arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term={quoteattr(paper.categories[0])} '
                f'scheme="http://arxiv.org/schemas/atom"/>{categories}</entry>')

    def answer(self, request: Request) -> Answer:
        self.requests.append(request)
        if request.path != "/api/query":
            return 404, {"Content-Type": "text/plain"}, b"Not Found"
        query = dict(request.query)
        try:
            start, count = int(query.get("start", 0)), int(query.get("max_results", 10))
        except ValueError:
            return 400, {"Content-Type": "text/plain"}, b"start and max_results must be integers"
        found = [paper for paper in self.papers if self._matches(paper, query.get("search_query", ""))]
        if query.get("sortBy") in ("lastUpdatedDate", "submittedDate"):
            found.sort(key=lambda paper: paper.published, reverse=query.get("sortOrder") != "ascending")
        page = found[start:start + count]
        feed = ('<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                f"<title>arXiv Query: {escape(request.raw_query)}</title><id>http://arxiv.org/api/standin</id>"
                '<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
                f"{len(found)}</opensearch:totalResults>"
                '<opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
                f"{start}</opensearch:startIndex>"
                '<opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
                f"{count}</opensearch:itemsPerPage>{''.join(map(self._entry, page))}</feed>")
        return 200, {"Content-Type": "application/atom+xml; charset=utf-8"}, feed.encode()


@dataclass
class SlackStandIn:
    """Slack's Web API, chat.postMessage alone: a bot token (None: any), the channels it may post in, the messages
    posted."""

    token: str | None = SAMPLE_KEY
    channels: dict[str, str] = field(default_factory=lambda: {"#general": "C0000000001", "#graphai": "C0000000002"})
    posted: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def answer(self, request: Request) -> Answer:
        self.requests.append(request)
        if request.path != "/api/chat.postMessage":
            return json_answer(404, {"ok": False, "error": "unknown_method"})
        given = request.headers.get("authorization", "")
        if not given.startswith("Bearer ") or given == "Bearer " or (self.token is not None
                                                                      and given != f"Bearer {self.token}"):
            return json_answer(200, {"ok": False, "error": "invalid_auth"})  # Slack answers errors with 200
        body = request.json()
        if not isinstance(body, dict):
            return json_answer(200, {"ok": False, "error": "invalid_arguments"})
        channel = self.channels.get(str(body.get("channel")), str(body.get("channel"))
                                    if str(body.get("channel")) in self.channels.values() else None)
        if channel is None:
            return json_answer(200, {"ok": False, "error": "channel_not_found"})
        if not body.get("text"):
            return json_answer(200, {"ok": False, "error": "no_text"})
        ts = f"1700000000.{len(self.posted) + 1:06d}"
        message = {"type": "message", "text": body["text"], "user": "U0000000BOT", "ts": ts}
        self.posted.append({"channel": channel, **message})
        return json_answer(200, {"ok": True, "channel": channel, "ts": ts, "message": message})


class ExaStandIn(_Keyed):
    """Exa's /search: results with their text when `contents.text` asks for it."""

    def __init__(self, documents: Iterable[Document] = SAMPLE_DOCUMENTS, key: str | None = SAMPLE_KEY) -> None:
        super().__init__(key)
        self.documents = tuple(documents)

    def answer(self, request: Request) -> Answer:
        self._record(request)
        if not self._key_ok(request.headers.get("x-api-key")):
            return json_answer(401, {"requestId": "r0", "error": "Invalid API key", "tag": "INVALID_API_KEY"})
        body = request.json()
        if request.method != "POST" or request.path != "/search" or not isinstance(body, dict) or not body.get("query"):
            return json_answer(400, {"requestId": "r0", "error": "query is required", "tag": "INVALID_REQUEST_BODY"})
        limit = body.get("numResults") if isinstance(body.get("numResults"), int) else 10
        contents = body.get("contents") if isinstance(body.get("contents"), dict) else {}
        results = []
        for number, document in enumerate(_search(self.documents, str(body["query"]))[:limit]):
            result: dict[str, Any] = {"id": document.url, "title": document.title, "url": document.url,
                                      "publishedDate": "2024-01-02T00:00:00.000Z", "author": None}
            if contents.get("text"):
                result["text"] = document.text
            results.append(result)
        return json_answer(200, {"requestId": f"r{len(self.requests)}", "resolvedSearchType": "neural",
                                 "results": results, "costDollars": {"total": 0.005}})
