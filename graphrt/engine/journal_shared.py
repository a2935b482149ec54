"""A journal entry's request and result as kept: whole, or as what they add to those of the call before.

A toolsAgent asks its LLM each round with the whole conversation so far, and the LLM agent's result holds it
again, its reply added: kept whole, a run of n rounds keeps its first messages 2n times, and its journal grows with
the square of its rounds. So the entry of a call harmless to make again (no side effects: an LLM's) keeps a request
or result whose lists begin with those of the previous call of its node path (index - 1) as how many items each
shares, the items that follow, and the digest of the whole:

    {"$graphrt": "shared", "digest": "<sha256 of the whole JSON>", "base": 4,
     "shared": {"/inputs/messages": 9, "/inputs/tools": 1}, "value": {"inputs": {"messages": [...2 new...], ...}}}

`shared` names each list by its JSON pointer (RFC 6901) and says how many of its first items are the base's; in
`value` that list holds the rest. The `$graphrt` key marks it (encode_value wraps any value that has one). A
request or result that shares nothing is kept whole (a tool call's, the first LLM call's); an entry of a call with
side effects always is. Whether a call asks the same is the digests' equality (a whole request: the texts'), which
needs no other entry. The whole is rebuilt from the base (checked against the digest) where it is read: a result
given back on resume or in a replay, a mismatch's diff, a served node's calls, a cassette's tool calls.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any, Callable, Iterable

from graphrt.checkpoint.records import JournalEntry

__all__ = ["digest", "is_shared", "rebuilt", "same_request", "shared", "whole_requests", "whole_results"]

_HEAD = '{"$graphrt":"shared","digest":"'
_MISSING = object()


def digest(text: str) -> str:
    """The digest of a whole request's or result's JSON text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_shared(kept: str | None) -> bool:
    """Whether a kept request or result is the shared form (see the top)."""
    return kept is not None and kept.startswith(_HEAD)


def same_request(kept: str | None, request: str | None) -> bool:
    """Whether the request `kept` in an entry is `request` (whole JSON text; None: JSON cannot hold it)."""
    if kept is None or request is None or not is_shared(kept):
        return kept == request
    return kept[len(_HEAD):len(_HEAD) + 64] == digest(request)


def shared(text: str | None, index: int, before: str | None) -> str | None:
    """`text` (a whole request's or result's JSON) as the entry of call `index` keeps it, given the whole one of
    the call before it on its path (`before`; None: none): shared where its lists begin with that one's, else whole."""
    if text is None or before is None:
        return text
    value, base = _parsed(text), _parsed(before)  # (this call's is the next one's base: parsed once)
    counts: dict[str, int] = {}
    cut = _cut(value, base, "", counts)
    if not counts:
        return text
    return json.dumps({"$graphrt": "shared", "digest": digest(text), "base": index - 1, "shared": counts,
                       "value": cut}, ensure_ascii=False, separators=(",", ":"))


def rebuilt(kept: str | None, whole_before: Callable[[int], str | None]) -> str | None:
    """The whole JSON a kept request or result stands for (itself when whole), given how to find the whole one of an
    earlier call of its path (`whole_before(index)`); None when it cannot be rebuilt: its base is gone, or changed
    since (the digest says so)."""
    if not is_shared(kept):
        return kept
    assert kept is not None
    form = json.loads(kept)
    base_text = whole_before(form["base"])
    if base_text is None:
        return None
    value = _grown(form["value"], json.loads(base_text), form["shared"])
    if value is _MISSING:
        return None
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if digest(text) == form["digest"] else None


def whole_requests(entries: Iterable[JournalEntry]) -> dict[tuple[str, int], str | None]:
    """Each entry's whole request by (path, index), rebuilt from the one before it on its path; its kept text where
    it cannot be rebuilt."""
    return _wholes(entries, lambda entry: entry.request)


def whole_results(entries: Iterable[JournalEntry]) -> dict[tuple[str, int], str | None]:
    """Each entry's whole result by (path, index), as `whole_requests`."""
    return _wholes(entries, lambda entry: entry.result)


def _wholes(entries: Iterable[JournalEntry], field: Callable[[JournalEntry], str | None],
            ) -> dict[tuple[str, int], str | None]:
    found: dict[tuple[str, int], str | None] = {}
    for entry in sorted(entries, key=lambda entry: (entry.path, entry.index)):
        kept = field(entry)
        whole = rebuilt(kept, lambda index: found.get((entry.path, index)))
        found[entry.path, entry.index] = kept if whole is None else whole
    return found


@lru_cache(maxsize=32)
def _parsed(text: str) -> Any:
    """A whole request's or result's value, parsed once for the calls that compare with it; never changed."""
    return json.loads(text)


def _cut(value: Any, base: Any, pointer: str, counts: dict[str, int]) -> Any:
    """`value` with each list that begins with the base's at the same place cut to what follows (noted in `counts`)."""
    if isinstance(value, dict) and isinstance(base, dict):
        return {key: _cut(item, base.get(key, _MISSING), f"{pointer}/{_escaped(key)}", counts)
                for key, item in value.items()}
    if isinstance(value, list) and isinstance(base, list) and pointer:
        count = 0
        for mine, theirs in zip(value, base):
            if mine != theirs:
                break
            count += 1
        if count:
            counts[pointer] = count
            return value[count:]
    return value


def _grown(value: Any, base: Any, counts: dict[str, int]) -> Any:
    """The shared `value` with each list's first items put back from `base`; _MISSING when `base` lacks one."""
    for pointer, count in counts.items():
        keys = [_unescaped(key) for key in pointer.split("/")[1:]]
        mine, theirs = value, base
        for key in keys[:-1]:
            if not isinstance(mine, dict) or not isinstance(theirs, dict) or key not in mine or key not in theirs:
                return _MISSING
            mine, theirs = mine[key], theirs[key]
        last = keys[-1]
        if not isinstance(mine, dict) or not isinstance(theirs, dict):
            return _MISSING
        head = theirs.get(last)
        if not isinstance(head, list) or len(head) < count or not isinstance(mine.get(last), list):
            return _MISSING
        mine[last] = head[:count] + mine[last]
    return value


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescaped(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")
