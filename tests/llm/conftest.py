"""Fixtures for the LLM tests: a small wiki corpus, and runs that record their events.

The scripted OpenAI-compatible server (`openai_server`, `reply`) is in tests/conftest.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

import graphrt
from graphrt.observe.events import Event

CORPUS = Path(__file__).parent / "data" / "wiki_corpus.json"


@pytest.fixture
def wiki_corpus(monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small corpus file in the offline format, made the wiki agent's default."""
    monkeypatch.delenv("GRAPHRT_WIKI_BACKEND", raising=False)
    return CORPUS


@pytest.fixture
def events() -> list[Event]:
    """Every event of the runs made with `run_graph`, in order."""
    return []


@pytest.fixture
def run_graph(events: list[Event]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """Runs a graph dict (keyword arguments go to `graphrt.Graph`), recording its events in `events`."""

    async def run(graph: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        prepared = graphrt.Graph(graph, **kwargs)
        return await prepared.arun(subscribe=[events.append])

    return run
