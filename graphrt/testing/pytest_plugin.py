"""graphrt's pytest plugin (entry point `pytest11`): the `cassette` fixture, for testing a graph that calls LLMs and
services offline and the same every time.

    def test_the_agent_answers(cassette):
        tape = cassette("tests/cassettes/answer.jsonl")   # replayed if it exists, else recorded there
        results = graphrt.run("graphs/answer.yaml", journal=tape)
        assert results["answer"]["text"] == "Gustave Eiffel's company"
        assert tape.tool_calls() == [("wikiAgent--search", {"query": "Eiffel Tower"})]

Record once with the services at hand (or again, with GRAPHRT_RECORD=1), commit the cassette, and CI replays
it with no network and no key; a graph that asks otherwise than its recording fails the test with a
JournalMismatch naming the node and the call, and a diff (graphrt/testing/cassette.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

import pytest

if TYPE_CHECKING:
    from graphrt.testing.cassette import Cassette

__all__ = ["cassette"]


@pytest.fixture
def cassette() -> Iterator[Callable[..., "Cassette"]]:
    """`cassette(path, record=None)`: a Cassette that replays the recording at `path`, or records the run there
    when there is none (or `record`, or GRAPHRT_RECORD=1); a recording is written when the test ends."""
    from graphrt.testing.cassette import Cassette

    opened: list[Cassette] = []

    def open_cassette(path: str | Path, record: bool | None = None) -> Cassette:
        tape = Cassette.for_test(path, record=record)
        opened.append(tape)
        return tape

    yield open_cassette
    for tape in opened:
        tape.close()
