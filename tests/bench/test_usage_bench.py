"""The usage bench (bench/usage.py) runs ReAct runs to their budget and says what they spent (no timing here)."""

import anyio

from bench.usage import budgets


def test_react_runs_stop_at_their_budget_with_their_partial_results() -> None:
    figures = anyio.run(budgets, 2, 2000, 40)
    assert figures["stopped"] == figures["stopped_with_partial_results"] == 2
    assert figures["within_bound"] and 0 < figures["most_spent"] <= 2040
