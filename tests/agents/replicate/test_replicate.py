"""replicateAgent through Replicate's official client against a stand-in of its predictions API on 127.0.0.1."""

from __future__ import annotations

import pytest

import graphrt
from graphrt_agents._loopback import serving
from graphrt_agents.replicate.standin import SAMPLE_TOKEN, ReplicateStandIn

pytestmark = pytest.mark.needs("replicate")


@pytest.fixture(autouse=True)
def no_token(monkeypatch):
    monkeypatch.delenv("REPLICATE_API_TOKEN", raising=False)


def run(inputs: dict, params: dict):
    graph = {"version": 0.5, "nodes": {"src": {"value": inputs}, "out": {
        "agent": "replicateAgent", "inputs": {key: f":src.{key}" for key in inputs}, "params": params, "isResult": True}}}
    return graphrt.run(graph)["out"]


def test_samples() -> None:
    from graphrt_agents.replicate.agent import AGENTS
    from graphrt.testing import sample_cases

    for case in sample_cases(*AGENTS):
        case.check()


def test_the_prediction_is_created_with_the_prompt_and_its_tokens_joined(monkeypatch) -> None:
    monkeypatch.setenv("REPLICATE_API_TOKEN", SAMPLE_TOKEN)
    stand_in = ReplicateStandIn()
    with serving(stand_in) as base:
        result = run({"prompt": "hi there"}, {"model": "meta/meta-llama-3-8b-instruct", "baseURL": base})
    assert result["text"] == "You said: hi there" and result["usage"] == {}
    assert result["choices"] == [{"message": {"role": "assistant", "content": "You said: hi there"}}]
    request = stand_in.requests[0]
    assert (request.method, request.path, request.json()) == (
        "POST", "/v1/models/meta/meta-llama-3-8b-instruct/predictions", {"input": {"prompt": "hi there"}})
    assert request.headers["authorization"] == f"Bearer {SAMPLE_TOKEN}"


def test_mergeable_prompts_of_inputs_and_params_are_joined() -> None:
    stand_in = ReplicateStandIn()
    with serving(stand_in) as base:
        run({"mergeablePrompts": ["a", "", "b"]}, {"model": "meta/meta-llama-3-8b-instruct", "baseURL": base,
                                                   "apiKey": SAMPLE_TOKEN, "mergeablePrompts": "c", "prompt": "ignored"})
    assert stand_in.requests[0].json() == {"input": {"prompt": "a\nb\nc"}}


def test_a_failed_model_and_an_unknown_one_say_so() -> None:
    def broken(_input):
        raise RuntimeError("out of memory")

    with serving(ReplicateStandIn({"me/broken": broken})) as base:
        with pytest.raises(graphrt.GraphError, match="replicateAgent: the model me/broken failed: RuntimeError: out of memory"):
            run({"prompt": "x"}, {"model": "me/broken", "baseURL": base, "apiKey": SAMPLE_TOKEN})
        with pytest.raises(graphrt.GraphError, match="replicateAgent: Replicate refused the prediction: Not found"):
            run({"prompt": "x"}, {"model": "me/none", "baseURL": base, "apiKey": SAMPLE_TOKEN})


def test_no_token_and_no_model_are_said_before_any_request() -> None:
    with pytest.raises(graphrt.GraphError, match="replicateAgent: no API token: set REPLICATE_API_TOKEN"):
        run({"prompt": "x"}, {"model": "a/b"})
    with pytest.raises(graphrt.GraphError, match="params.model must name a model"):
        run({"prompt": "x"}, {"apiKey": SAMPLE_TOKEN})
