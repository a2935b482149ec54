"""What one execution shares, read-only (RunContext), and what a resumed run takes as it goes (Carryover)."""

from __future__ import annotations

import pytest

from graphrt.authoring.registry import Registry
from graphrt.engine.context import Carryover, RunContext
from graphrt.engine.scheduler import Scheduler


def test_a_run_context_does_not_change_once_made() -> None:
    context = RunContext(Registry(), Scheduler(1), "r", config={"global": {}})
    with pytest.raises(AttributeError, match="does not change once made"):
        context.config = {}  # type: ignore[misc]
    with pytest.raises(AttributeError, match="does not change once made"):
        del context.run_id
    assert (context.run_id, context.config) == ("r", {"global": {}})


def test_a_run_context_holds_nothing_a_run_takes() -> None:
    context = RunContext(Registry(), Scheduler(1), "r")
    assert not hasattr(context, "answers") and not hasattr(context, "inner_results")


def test_a_carryover_gives_each_answer_until_it_is_taken_and_kept_results_once() -> None:
    saved_answers, saved_inner = {"ask": "yes"}, {"outer": {"x": 1}}
    carryover = Carryover(saved_answers, saved_inner)
    assert [carryover.answer("ask"), carryover.answer("ask")] == ["yes", "yes"]
    carryover.take_answer("ask")
    assert carryover.answer("ask") is None
    assert [carryover.take_inner_results("outer"), carryover.take_inner_results("outer")] == [{"x": 1}, None]
    assert (saved_answers, saved_inner) == ({"ask": "yes"}, {"outer": {"x": 1}})  # the saved state is not consumed
