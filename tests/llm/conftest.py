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


@pytest.fixture(scope="session")
def _anthropic_server() -> Any:
    from .scripted_providers import anthropic_server

    server = anthropic_server()
    yield server
    server.close()


@pytest.fixture
def anthropic_api(_anthropic_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted Anthropic server, emptied, and the environment pointing the SDK at it."""
    _anthropic_server.reset()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", _anthropic_server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    monkeypatch.delenv("ANTHROPIC_MODEL", raising=False)
    return _anthropic_server


@pytest.fixture(scope="session")
def _gemini_server() -> Any:
    from .scripted_providers import gemini_server

    server = gemini_server()
    yield server
    server.close()


@pytest.fixture
def gemini_api(_gemini_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted Gemini server, emptied, and the environment pointing the SDK at it."""
    _gemini_server.reset()
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", _gemini_server.url)
    monkeypatch.setenv("GOOGLE_GENAI_API_KEY", "AIza-test-secret")
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GEMINI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return _gemini_server


@pytest.fixture(scope="session")
def _embeddings_server() -> Any:
    from .scripted_providers import embeddings_server

    server = embeddings_server()
    yield server
    server.close()


@pytest.fixture
def embeddings_api(_embeddings_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted embeddings server, emptied, and OPENAI_BASE_URL pointing at its /v1."""
    _embeddings_server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", _embeddings_server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-embed-secret")
    return _embeddings_server


@pytest.fixture(scope="session")
def _azure_server() -> Any:
    from .scripted_providers import azure_server

    server = azure_server()
    yield server
    server.close()


@pytest.fixture
def azure_api(_azure_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted Azure OpenAI resource, emptied; the environment names no server, and an OpenAI key that must
    never reach Azure."""
    _azure_server.reset()
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_VERSION", "AZURE_OPENAI_ENDPOINT",
                 "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "GRAPHRT_AZURE_AD_TOKEN_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-not-for-azure")
    return _azure_server


@pytest.fixture(scope="session")
def _media_server() -> Any:
    from .scripted_providers import media_server

    server = media_server()
    yield server
    server.close()


@pytest.fixture
def media_api(_media_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The scripted images and audio server, emptied, and OPENAI_BASE_URL and OPENAI_API_KEY pointing the SDK at it."""
    _media_server.reset()
    monkeypatch.setenv("OPENAI_BASE_URL", _media_server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-media-secret")
    for name in ("OPENAI_MODEL", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    return _media_server
