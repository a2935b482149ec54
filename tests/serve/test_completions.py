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


# ----- a streaming client that leaves; requests and replies the endpoint must not answer with a bare 500 -----

GATED_CHAT = CHAT.replace("echoChatAgent", "gatedChatAgent")


def test_a_streaming_client_that_leaves_detaches_and_the_run_keeps_every_event(serve, caplog):
    """Its watcher stayed on the run and raised at every later token: a traceback per token in the log, and
    the tokens missing from the run's event log."""
    import logging
    import threading

    import anyio

    from .conftest import sse_events, wait_for_status
    from ..waiting import wait_until

    gate = threading.Event()

    async def gated_chat(ctx: AgentContext) -> Any:
        ctx.stream_token("first ")
        await anyio.to_thread.run_sync(gate.wait, 60)
        for number in range(50):  # tokens after the client left
            ctx.stream_token(f"t{number} ")
        return "done"

    served = serve({"chat.yaml": GATED_CHAT}, agents=[AgentInfo(name="gatedChatAgent", func=gated_chat)])
    caplog.set_level(logging.WARNING)
    stream = _client(served, key="unused").chat.completions.create(
        model="chat", messages=[{"role": "user", "content": "hi"}], stream=True)
    run_id = stream.response.headers["x-graphrt-run"].rsplit("/", 1)[1]
    assert next(chunk for chunk in stream if chunk.choices[0].delta.content).choices[0].delta.content == "first "
    stream.close()  # the client leaves mid-reply
    wait_until(lambda: not served.server.server_state.tasks, "the server's answer to the stream ending")
    gate.set()
    with served.client() as client:
        assert wait_for_status(client, run_id)["status"] == "finished"
        with client.stream("GET", f"/runs/{run_id}/events") as response:
            tokens = [data["token"] for _, name, data in sse_events(response) if name == "TokenDelta"]
    assert tokens == ["first ", *(f"t{number} " for number in range(50))]
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []


def test_stream_options_that_are_not_an_object_are_a_400_in_openais_shape(served):
    client = _client(served)
    for options in (["include_usage"], "include_usage"):
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "hi"}], stream=True,
                                           stream_options=options)
        assert refused.value.body == {"message": "'stream_options' must be an object, such as "
                                                 "{\"include_usage\": true}",
                                      "type": "invalid_request_error", "param": "stream_options", "code": None}


async def odd_usage_chat(ctx: AgentContext) -> Any:
    return {"text": "counted oddly", "usage": {"prompt_tokens": "many", "completion_tokens": [2]}}


def test_a_reply_whose_usage_is_not_numbers_is_answered_without_its_counts(serve):
    served = serve({"chat.yaml": CHAT.replace("echoChatAgent", "oddUsageAgent")},
                   agents=[AgentInfo(name="oddUsageAgent", func=odd_usage_chat)])
    client = _client(served, key="unused")
    reply = client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "counted oddly"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (0, 0, 0)
    chunks = list(client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "hi"}],
                                                 stream=True, stream_options={"include_usage": True}))
    assert "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices) == "counted oddly"
    assert chunks[-1].usage.total_tokens == 0


def test_a_body_over_the_limit_is_a_413_in_openais_shape(serve):
    served = serve({"chat.yaml": CHAT}, agents=AGENTS, api_key="sk-test-key", max_body=1000)
    client = _client(served)
    for stream in (False, True):
        with pytest.raises(openai.APIStatusError) as refused:
            client.chat.completions.create(model="chat", messages=[{"role": "user", "content": "x" * 2000}],
                                           stream=stream)
        assert refused.value.status_code == 413
        assert refused.value.body == {"message": "the request body is over 1000 bytes",
                                      "type": "invalid_request_error", "param": None, "code": "request_too_large"}
    with pytest.raises(openai.AuthenticationError) as refused:
        _client(served, key="sk-wrong").chat.completions.create(model="chat", messages=[])
    assert refused.value.body == {"message": "missing or wrong API key (send 'Authorization: Bearer KEY')",
                                  "type": "invalid_request_error", "param": None, "code": "invalid_api_key"}


TWO_CALLS = """\
version: 0.5
nodes:
  messages:
    value: []
  draft:
    agent: openAIAgent
    inputs:
      messages: :messages
  reply:
    agent: openAIAgent
    inputs:
      prompt: ":draft.text"
    isResult: true
"""


def test_the_usage_answered_is_every_llm_call_of_the_run_with_its_cost(serve, openai_server, reply):
    openai_server.script(reply.text("a draft"), reply.text("the reply", usage={
        "prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25,
        "prompt_tokens_details": {"cached_tokens": 10}}))
    served = serve({"chat.yaml": TWO_CALLS}, api_key="sk-test-key",
                   config={"prices": {"openai": {"scripted-model": {"input": 1, "output": 2}}}})
    answer = _client(served).chat.completions.create(model="chat", messages=[{"role": "user", "content": "hi"}])
    assert answer.choices[0].message.content == "the reply"
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.usage.total_tokens) == (31, 12, 43)
    assert answer.usage.prompt_tokens_details.cached_tokens == 10
    assert answer.usage.model_extra["cost_usd"] == pytest.approx((31 * 1 + 12 * 2) / 1e6)
    with served.client(headers={"Authorization": "Bearer sk-test-key"}) as api:
        run_id = api.get("/runs").json()["runs"][0]["id"]
        usage = api.get(f"/runs/{run_id}").json()["usage"]
        nodes = api.get(f"/runs/{run_id}/nodes").json()["nodes"]
        node = api.get(f"/runs/{run_id}/nodes/reply").json()
    assert (usage["llm_calls"], usage["total_tokens"], usage["cached_tokens"]) == (2, 43, 10)
    assert nodes["draft"]["usage"]["total_tokens"] == 18
    assert node["usage"]["total_tokens"] == 25
    assert node["llm_calls"][0]["cached_tokens"] == 10 and node["llm_calls"][0]["provider"] == "openai"


def test_a_runs_budget_is_within_the_servers_and_a_run_it_stops_says_which(serve, openai_server, reply):
    openai_server.script(reply.text("a draft"), reply.text("the reply"))
    served = serve({"chat.yaml": TWO_CALLS}, api_key="sk-test-key", config={"budget": {"llm_calls": 5}})
    with served.client(headers={"Authorization": "Bearer sk-test-key"}) as api:
        refused = api.post("/graphs/chat/runs", json={"inputs": {"messages": []}, "budget": {"llm_calls": 0}})
        assert refused.status_code == 400
        assert refused.json()["error"] == "budget.llm_calls: must be a number above 0, got 0"
        answer = api.post("/graphs/chat/runs?wait=true", json={"inputs": {"messages": [{"role": "user",
                                                                                         "content": "hi"}]},
                                                               "budget": {"llm_calls": 9, "tokens": 30}})
    run = answer.json()
    assert run["status"] == "failed" and len(openai_server.requests) == 1
    assert run["budget"] == {"limit": "tokens", "allowed": 30, "spent": 18, "node": None, "at": "reply"}
    assert "budget exceeded: the run may spend 30 tokens and has spent 18" in run["error"]
    assert run["usage"]["llm_calls"] == 1


LEAKY_CHAT = CHAT.replace("    isResult: true\n", "    params:\n      apiKey: cfg-key-7d1e9a0b55c2f3\n    isResult: true\n"
                          ).replace("echoChatAgent", "quotingChatAgent")


def test_a_key_the_graph_holds_cut_across_streamed_tokens_reaches_no_client(serve):
    """The endpoint streamed each token as the agent gave it, and /runs/{id}/events redacted each alone: a key
    cut across two tokens reached the client whole."""
    from .conftest import sse_events, wait_for_status

    async def quoting_chat(ctx: AgentContext) -> Any:
        for piece in ["the key cfg-", "key-7d1e9a", "0b55c2f3 is", " here"]:
            ctx.stream_token(piece)
        return {"text": "quoted", "message": {"role": "assistant", "content": "quoted"}}

    served = serve({"chat.yaml": LEAKY_CHAT}, agents=[AgentInfo(name="quotingChatAgent", func=quoting_chat)])
    stream = _client(served, key="unused").chat.completions.create(
        model="chat", messages=[{"role": "user", "content": "hi"}], stream=True)
    run_id = stream.response.headers["x-graphrt-run"].rsplit("/", 1)[1]
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert streamed.startswith("the key REDACTED is here") and "7d1e9a" not in streamed
    with served.client() as client:
        assert wait_for_status(client, run_id)["status"] == "finished"
        with client.stream("GET", f"/runs/{run_id}/events") as response:
            tokens = [data["token"] for _, name, data in sse_events(response) if name == "TokenDelta"]
    assert "".join(tokens) == "the key REDACTED is here"
