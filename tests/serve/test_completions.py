"""The OpenAI-compatible endpoint (serve/completions.py), with the real `openai` SDK as the client."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from graphrt.authoring.agent_info import AgentContext, AgentInfo

from .conftest import HELLO

CHAT = """\
version: 0.5
nodes:
  messages:
    value: []
  reply:
    agent: echoChatAgent
    inputs:
      messages: :messages
    isResult: true
"""

BROKEN_CHAT = """\
version: 0.5
nodes:
  messages:
    value: []
  reply:
    agent: failingChatAgent
    inputs:
      messages: :messages
    isResult: true
"""


async def echo_chat(ctx: AgentContext) -> Any:
    said = ctx.inputs["messages"][-1]["content"]
    pieces = ["You ", "said: ", said]
    for piece in pieces:
        ctx.stream_token(piece)
    text = "".join(pieces)
    return {"text": text, "message": {"role": "assistant", "content": text},
            "usage": {"prompt_tokens": 3, "completion_tokens": 3}}


async def failing_chat(ctx: AgentContext) -> Any:
    raise ValueError("the model is out of order")


AGENTS = [AgentInfo(name="echoChatAgent", func=echo_chat), AgentInfo(name="failingChatAgent", func=failing_chat)]


@pytest.fixture
def served(serve):
    return serve({"chat.yaml": CHAT, "broken.yaml": BROKEN_CHAT, "hello.yaml": HELLO}, agents=AGENTS,
                 api_key="sk-test-key")


def _client(served, key: str = "sk-test-key") -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{served.url}/v1", api_key=key, max_retries=0, timeout=30)


def test_a_chat_graph_answers_as_a_model(served):
    client = _client(served)
    reply = client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "hello there"}])
    assert reply.choices[0].message.content == "You said: hello there"
    assert reply.choices[0].finish_reason == "stop" and reply.model == "chat"
    assert (reply.usage.prompt_tokens, reply.usage.total_tokens) == (3, 6)
    assert [model.id for model in client.models.list()] == ["broken", "chat"]  # hello takes no messages

    with served.client(headers={"Authorization": "Bearer sk-test-key"}) as api:
        runs = api.get("/runs").json()["runs"]
    assert runs[0]["graph"] == "chat" and runs[0]["status"] == "finished"  # a run like any other


def test_a_chat_graph_streams_its_tokens(served):
    stream = _client(served).chat.completions.create(
        model="chat", messages=[{"role": "user", "content": "stream it"}], stream=True,
        stream_options={"include_usage": True})
    chunks = list(stream)
    pieces = [chunk.choices[0].delta.content for chunk in chunks if chunk.choices and chunk.choices[0].delta.content]
    assert pieces == ["You ", "said: ", "stream it"]
    assert [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices][-1] == "stop"
    assert chunks[-1].usage.completion_tokens == 3


def test_a_failed_run_is_an_error_never_a_reply(served):
    client = _client(served)
    with pytest.raises(openai.InternalServerError, match="the model is out of order"):
        client.chat.completions.create(model="broken", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.APIError, match="the model is out of order"):
        list(client.chat.completions.create(model="broken", messages=[{"role": "user", "content": "hi"}],
                                            stream=True))


def test_bad_requests_get_openai_shaped_errors(served):
    client = _client(served)
    with pytest.raises(openai.NotFoundError, match="no graph named 'nope'"):
        client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.BadRequestError, match="takes no 'messages' input"):
        client.chat.completions.create(model="hello", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.AuthenticationError):
        _client(served, key="sk-wrong").chat.completions.create(model="chat", messages=[])
