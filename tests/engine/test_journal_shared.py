"""A journal entry's request or result kept as what it adds to the call's before it (graphrt/engine/journal_shared.py):
rebuilt whole exactly, told apart from a changed one by its digest, and never rebuilt from a base that changed."""

from __future__ import annotations

import json

from graphrt.checkpoint.records import JournalEntry
from graphrt.engine.journal_shared import is_shared, rebuilt, same_request, shared, whole_requests


def _text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


FIRST = _text({"inputs": {"messages": [{"role": "user", "content": "hi"}], "a/b~c": [1, 2]}, "params": {"m": "x"}})
SECOND = _text({"inputs": {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
                           "a/b~c": [1, 2, 3]}, "params": {"m": "x"}})


def test_a_request_that_extends_the_one_before_keeps_what_it_adds_and_is_rebuilt_exactly() -> None:
    kept = shared(SECOND, 1, FIRST)
    assert is_shared(kept) and '"hi"' not in kept
    assert json.loads(kept)["shared"] == {"/inputs/messages": 1, "/inputs/a~1b~0c": 2}
    assert rebuilt(kept, {0: FIRST}.get) == SECOND
    assert same_request(kept, SECOND) and not same_request(kept, FIRST)


def test_one_that_shares_nothing_or_has_no_call_before_is_kept_whole() -> None:
    assert shared(FIRST, 0, None) == FIRST
    assert shared(FIRST, 1, _text({"inputs": {"messages": [{"role": "user", "content": "other"}]}})) == FIRST
    assert rebuilt(FIRST, lambda index: None) == FIRST and same_request(FIRST, FIRST)


def test_a_change_in_what_it_shares_is_a_different_request() -> None:
    kept = shared(SECOND, 1, FIRST)
    changed = SECOND.replace('"hi"', '"hello"')
    assert not same_request(kept, changed)


def test_it_is_not_rebuilt_from_a_base_that_is_gone_or_changed() -> None:
    kept = shared(SECOND, 1, FIRST)
    assert rebuilt(kept, lambda index: None) is None
    assert rebuilt(kept, {0: FIRST.replace('"hi"', '"hello"')}.get) is None
    entries = [JournalEntry("r", "a/llm", 1, "llm", "openAIAgent", kept)]  # its base not kept
    assert whole_requests(entries) == {("a/llm", 1): kept}


def test_whole_requests_rebuilds_a_chain_of_calls() -> None:
    third = _text({"inputs": {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"},
                                           {"role": "user", "content": "more"}], "a/b~c": [1, 2, 3]},
                   "params": {"m": "x"}})
    entries = [JournalEntry("r", "a/llm", 2, "llm", "x", shared(third, 2, SECOND)),
               JournalEntry("r", "a/llm", 0, "llm", "x", FIRST),
               JournalEntry("r", "a/llm", 1, "llm", "x", shared(SECOND, 1, FIRST))]
    assert whole_requests(entries) == {("a/llm", 0): FIRST, ("a/llm", 1): SECOND, ("a/llm", 2): third}


def test_a_resumed_journal_rebuilds_a_long_chain_without_recursing() -> None:
    """3,000 LLM calls on one path, each adding a message: the next call's base is rebuilt from the entries alone."""
    from graphrt.base.secrets import Redactor
    from graphrt.engine.journal import Journal, RunJournal

    class _Answers:
        answers: dict = {}

    entries, before = {}, None
    messages: list = []
    for index in range(3000):
        messages = [*messages, {"role": "user", "content": f"m{index}"}]
        whole = _text({"inputs": {"messages": messages}, "params": {}})
        entries["a/llm", index] = JournalEntry("r", "a/llm", index, "llm", "x", shared(whole, index, before))
        before = whole
    journal = RunJournal(Journal(()), "r", entries, _Answers(), Redactor())  # type: ignore[arg-type]
    assert journal._whole("a/llm", 2999, journal.asked) == before
