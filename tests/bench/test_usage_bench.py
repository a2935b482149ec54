"""The usage bench (bench/usage.py) runs ReAct runs to their budget and says what they spent, and runs pacing over
two processes sharing a PostgreSQL store (no timing here)."""

import anyio
import pytest

from bench.usage import budgets, pacing_processes


def test_react_runs_stop_at_their_budget_with_their_partial_results() -> None:
    figures = anyio.run(budgets, 2, 2000, 40)
    assert figures["stopped"] == figures["stopped_with_partial_results"] == 2
    assert figures["within_bound"] and 0 < figures["most_spent"] <= 2040


@pytest.mark.needs("postgres", "initdb")
def test_pacing_splits_its_runs_over_processes_that_share_a_store() -> None:
    # A limit no call waits for: what is checked is that both processes ran their runs through the store.
    figures = anyio.run(pacing_processes, 4, 2, 1_000_000, 20, 2, True)
    assert figures["processes"] == 2 and figures["store"] == "postgresql"
    assert figures["calls"] == 8 and figures["within_limit"]
