"""A stand-in MediaWiki server: the subset of the Action and REST APIs that wikipediaAgent uses, over given pages.

wikipediaAgent's mock (its samples run it) reads from it through an in-process
httpx transport, and tests serve it on 127.0.0.1 so that the real agent reads
it over HTTP. It answers what a MediaWiki site answers to these requests:

    GET /w/api.php?action=query&list=search&srsearch=Q&srlimit=N&srprop=     search hits: {ns, title, pageid}
    GET /w/api.php?action=query&prop=info|pageprops&titles=T                    a page's info (or `missing`)
    GET /w/api.php?action=query&prop=extracts|revisions&explaintext=&pageids=N  a page's plain text
    GET /api/rest_v1/page/summary/T                                             a page's summary object

Search finds the pages whose title and text hold every word of the query, those with more of
them in the title first.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

if TYPE_CHECKING:
    import httpx

__all__ = ["WikiPage", "MediaWikiStandIn"]

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class WikiPage:
    """A page of the stand-in: title, id, plain text, and the summary's one-line description."""

    title: str
    pageid: int
    text: str
    description: str = ""
    revid: int = 1

    def words(self) -> set[str]:
        return set(_WORD.findall(f"{self.title} {self.text}".casefold()))


class MediaWikiStandIn:
    """Answers MediaWiki API requests from a fixed set of pages (see the module's docstring)."""

    def __init__(self, pages: Iterable[WikiPage], lang: str = "en") -> None:
        self.pages = list(pages)
        self.lang = lang
        self.requests: list[str] = []  # every path and query received, for tests to read

    def answer(self, method: str, target: str) -> tuple[int, Any]:
        """(status, JSON) for a request line's method and target (`/w/api.php?...`)."""
        self.requests.append(target)
        parts = urlsplit(target)
        if method != "GET":
            return 405, {"error": {"code": "badmethod", "info": "only GET is served"}}
        if parts.path == "/w/api.php":
            return 200, self._action(dict(parse_qsl(parts.query, keep_blank_values=True)))
        if parts.path.startswith("/api/rest_v1/page/summary/"):
            return self._summary(unquote(parts.path.removeprefix("/api/rest_v1/page/summary/")))
        return 404, {"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found", "title": "Not found."}

    def transport(self) -> "httpx.MockTransport":
        """An httpx transport that answers every request from this stand-in, in process."""
        import httpx

        def handle(request: httpx.Request) -> httpx.Response:
            target = request.url.raw_path.decode("ascii")
            status, data = self.answer(request.method, target)
            return httpx.Response(status, json=data)

        return httpx.MockTransport(handle)

    # --- the Action API ---

    def _action(self, query: dict[str, str]) -> dict[str, Any]:
        if query.get("action") != "query" or query.get("format") != "json":
            return {"error": {"code": "badparams", "info": "the stand-in serves action=query&format=json only"}}
        if query.get("list") == "search":
            return self._search(query.get("srsearch", ""), int(query.get("srlimit") or 10))
        if "titles" in query:
            return {"batchcomplete": "", "query": {"pages": self._info(query["titles"])}}
        if "pageids" in query:
            return {"batchcomplete": "", "query": {"pages": self._extract(query["pageids"])}}
        return {"error": {"code": "badparams", "info": "no list, titles or pageids"}}

    def _search(self, text: str, limit: int) -> dict[str, Any]:
        words = set(_WORD.findall(text.casefold()))
        if not words:
            return {"error": {"code": "nosrsearch", "info": 'The "srsearch" parameter must be set.'}}
        found = [page for page in self.pages if words <= page.words()]
        found.sort(key=lambda page: -len(words & set(_WORD.findall(page.title.casefold()))))
        hits = [{"ns": 0, "title": page.title, "pageid": page.pageid} for page in found[:limit]]
        return {"batchcomplete": "", "query": {"searchinfo": {"totalhits": len(found)}, "search": hits}}

    def _page(self, title: str) -> WikiPage | None:
        wanted = title.replace("_", " ")
        return next((page for page in self.pages if page.title == wanted), None)

    def _info(self, title: str) -> dict[str, Any]:
        page = self._page(title)
        if page is None:
            return {"-1": {"ns": 0, "title": title, "missing": ""}}
        return {str(page.pageid): {
            "pageid": page.pageid, "ns": 0, "title": page.title, "contentmodel": "wikitext",
            "pagelanguage": self.lang, "pagelanguagehtmlcode": self.lang, "pagelanguagedir": "ltr",
            "lastrevid": page.revid, "length": len(page.text.encode()), "fullurl": self._url(page),
            "editurl": f"{self._url(page)}?action=edit", "canonicalurl": self._url(page),
        }}

    def _extract(self, pageid: str) -> dict[str, Any]:
        page = next((page for page in self.pages if str(page.pageid) == pageid), None)
        if page is None:
            return {pageid: {"pageid": int(pageid) if pageid.isdigit() else 0, "missing": ""}}
        return {str(page.pageid): {"pageid": page.pageid, "ns": 0, "title": page.title,
                                   "revisions": [{"revid": page.revid, "parentid": page.revid - 1}],
                                   "extract": page.text}}

    # --- the REST API ---

    def _summary(self, title: str) -> tuple[int, Any]:
        page = self._page(title)
        if page is None:
            return 404, {"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found", "title": "Not found.",
                         "detail": "Page or revision not found."}
        lead = page.text.split("\n", 1)[0]
        return 200, {"type": "standard", "title": page.title, "displaytitle": page.title, "pageid": page.pageid,
                     "lang": self.lang, "dir": "ltr", "revision": str(page.revid), "description": page.description,
                     "content_urls": {"desktop": {"page": self._url(page)}}, "extract": lead,
                     "extract_html": f"<p>{html.escape(lead)}</p>"}

    def _url(self, page: WikiPage) -> str:
        return f"https://{self.lang}.wikipedia.org/wiki/{page.title.replace(' ', '_')}"
