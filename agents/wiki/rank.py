"""Ranking for the offline wiki: which titles a search that finds no page should suggest.

BM25 over word stems. A stem is a word cut to its first five letters ("commanded"
and "Commander" both become "comma"), a crude but language-free stemmer that is
good enough to match a query's words against a page's title and lead.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = ["stems", "Bm25Index"]

_WORD = re.compile(r"\w+")
_STEM_LENGTH = 5
STOPWORDS = frozenset(
    "a an and are as at be been but by de did do does for from had has have he her his how in into is it its la le "
    "many much of on or she that the their them they this to was were what when where which who whom whose why with "
    "long high far old".split()
)
"""Words that say nothing about the topic; "how long", "how high" and "how old" ask for a number, not about length."""


def stems(text: str) -> list[str]:
    """The stems of the words of `text` that are not stopwords, in order."""
    words = (word.casefold() for word in _WORD.findall(text))
    return [word[:_STEM_LENGTH] for word in words if word not in STOPWORDS]


class Bm25Index:
    """Okapi BM25 over a fixed set of documents, each a list of stems."""

    def __init__(self, documents: Mapping[str, list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.counts = {key: Counter(words) for key, words in documents.items()}
        self.lengths = {key: len(words) for key, words in documents.items()}
        self.average = sum(self.lengths.values()) / (len(self.lengths) or 1)
        frequency: Counter[str] = Counter()
        self.postings: dict[str, list[str]] = {}
        for key, counts in self.counts.items():
            frequency.update(counts.keys())
            for stem in counts:
                self.postings.setdefault(stem, []).append(key)
        total = len(self.counts)
        self.idf = {stem: math.log(1 + (total - df + 0.5) / (df + 0.5)) for stem, df in frequency.items()}
        self._unseen = math.log(1 + (total + 0.5) / 0.5)

    def weight(self, stem: str) -> float:
        """How much a stem tells documents apart (rare stems weigh more)."""
        return self.idf.get(stem, self._unseen)

    def score(self, key: str, query: Iterable[str]) -> float:
        counts, length = self.counts[key], self.lengths[key]
        total = 0.0
        for stem in query:
            tf = counts.get(stem, 0)
            if tf:
                norm = tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / (self.average or 1)))
                total += self.weight(stem) * norm
        return total

    def top(self, query: Iterable[str], limit: int = 5) -> list[tuple[str, float]]:
        """The best `limit` documents for the query with their scores, best first (only documents sharing a stem)."""
        query = list(query)
        keys = {key for stem in set(query) for key in self.postings.get(stem, ())}
        scored = sorted(((key, self.score(key, query)) for key in keys), key=lambda item: (-item[1], item[0]))
        return scored[:limit]
