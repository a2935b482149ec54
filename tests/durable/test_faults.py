"""Faults: agent exceptions, timeouts, cancellation, and LLM 429s, 5xx, timeouts and garbage replies.

The LLM faults come from bench/soak's FaultyOpenAIServer (told what to do with
`force`) and from the scripted server of tests/llm.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import graphrt
from bench.soak.server import FAULTS, FaultyOpenAIServer, answer
from graphrt.checkpoint import RunStatus, SQLiteStore
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch):
    # A slow reply comes long after the client's timeout, and a healthy one well within it, however loaded the machine.
    with FaultyOpenAIServer(fault_rate=0.0, slow_seconds=600) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fault-test-key-0123456789")
        yield server


def _llm_chain(retries: int = 1) -> dict:
    params = {"model": "m", "timeout": 2, "maxRetries": retries, "retryDelay": 0.001}
    return {"version": 0.5, "nodes": {
        "topic": {"value": "tea"},
        "first": {"agent": "openAIAgent", "inputs": {"prompt": ":topic"}, "params": params},
        "second": {"agent": "openAIAgent", "inputs": {"prompt": ":first.text"}, "params": params, "isResult": True},
    }}


@pytest.mark.parametrize("fault", FAULTS)
async def test_an_llm_fault_is_retried_within_the_node_and_the_run_completes(faulty, fault: str) -> None:
    faulty.force(fault)

    results = await graphrt.Graph(_llm_chain()).arun()

    assert results["second"]["text"] == answer(answer("tea"))


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("rate_limit", "HTTP 429: slow down"),
        ("server_error", "HTTP 503: upstream failed"),
        ("slow", "timed out"),
        ("not_json", "the reply is not a chat completion: '<html><body>Bad gateway</body></html>'"),
        ("no_choices", "the reply is not a chat completion: \"ChatCompletion(id='chatcmpl-1', choices=None"),
        ("cut_short", "the reply is not valid JSON (Unterminated string"),
        ("disconnect", "could not connect (Server disconnected without sending a response.)"),
    ],
)
async def test_an_llm_fault_past_the_retries_fails_the_node_with_what_went_wrong(faulty, fault: str, message: str) -> None:
    faulty.force(fault)

    with pytest.raises(graphrt.AgentError, match="openAIAgent: " + faulty.url.replace(".", r"\.") + " ") as caught:
        await graphrt.Graph(_llm_chain(retries=0)).arun()

    assert caught.value.node_id == "first"
    assert message in str(caught.value)


async def test_after_llm_faults_fail_a_run_resume_asks_only_the_failed_node_again(faulty, tmp_path: Path) -> None:
    faulty.force("ok", "server_error", "server_error")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(graphrt.Graph(_llm_chain()), tmp_path / "runs.db", run_id="r1")

    results = await graphrt.aresume(tmp_path / "runs.db", "r1")

    assert results["second"]["text"] == answer(answer("tea"))
    assert dict(faulty.answered) == {"tea": 1, answer("tea"): 1}


async def test_a_saved_llm_result_is_not_requested_again_on_resume(openai_server, reply, tmp_path: Path) -> None:
    openai_server.script(reply.text("first answer"), reply.error(400, "bad request"))
    with pytest.raises(graphrt.AgentError, match="HTTP 400: bad request"):
        await arun_checkpointed(graphrt.Graph(_llm_chain()), tmp_path / "runs.db", run_id="r1")
    openai_server.script(reply.text("second answer"))

    results = await graphrt.aresume(tmp_path / "runs.db", "r1")

    assert results["second"]["text"] == "second answer"
    assert [request["messages"][-1]["content"] for request in openai_server.requests] == [
        "tea", "first answer", "first answer"]


async def test_a_node_that_times_out_is_saved_as_failed_and_runs_again_on_resume(recorder, tmp_path: Path) -> None:
    calls = []

    async def stuck_once(ctx):
        calls.append(ctx.node_id)
        if len(calls) == 1:
            await anyio.sleep_forever()
        return "done"

    agents = [*recorder.agents, graphrt.AgentInfo("stuckOnceAgent", stuck_once)]
    data = {"version": 0.5, "nodes": {"first": {"agent": "recordAgent"},
                                      "slow": {"agent": "stuckOnceAgent", "inputs": {"x": ":first"}, "timeout": 50,
                                               "isResult": True}}}
    with pytest.raises(graphrt.NodeTimeoutError, match="timed out after 50 ms"):
        await arun_checkpointed(graphrt.Graph(data, agents=agents), tmp_path / "runs.db", run_id="r1")
    assert (await SQLiteStore(tmp_path / "runs.db").get_run("r1")).status == RunStatus.FAILED

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", agents=agents)

    assert (results, calls, recorder.calls) == ({"slow": "done"}, ["slow", "slow"], ["first"])


async def test_a_cancelled_run_is_saved_as_stopped_and_resumes(recorder, tmp_path: Path) -> None:
    with anyio.CancelScope() as scope:
        async def cancel(ctx):
            scope.cancel()
            await anyio.sleep_forever()

        agents = [*recorder.agents, graphrt.AgentInfo("cancelAgent", cancel)]
        data = {"version": 0.5, "nodes": {"first": {"agent": "recordAgent"},
                                          "stop": {"agent": "cancelAgent", "inputs": {"x": ":first"}}}}
        await arun_checkpointed(graphrt.Graph(data, agents=agents), tmp_path / "runs.db", run_id="r1")
    assert (await SQLiteStore(tmp_path / "runs.db").get_run("r1")).status == RunStatus.CANCELLED

    done = [*recorder.agents, graphrt.AgentInfo("cancelAgent", lambda ctx: "resumed")]
    results = await graphrt.aresume(tmp_path / "runs.db", "r1", agents=done, all_results=True)

    assert (results["stop"], recorder.calls) == ("resumed", ["first"])


async def test_an_exception_in_a_sync_agent_fails_its_node_and_resume_runs_it_again(recorder, tmp_path: Path) -> None:
    state = {"broken": True}

    def flaky(ctx):
        if state["broken"]:
            raise ConnectionError("database went away")
        return "ok"

    agents = [*recorder.agents, graphrt.AgentInfo("flakyAgent", flaky)]
    data = {"version": 0.5, "nodes": {"first": {"agent": "recordAgent"},
                                      "flaky": {"agent": "flakyAgent", "inputs": {"x": ":first"}, "isResult": True}}}
    with pytest.raises(graphrt.AgentError, match="ConnectionError: database went away"):
        await arun_checkpointed(graphrt.Graph(data, agents=agents), tmp_path / "runs.db", run_id="r1")
    state["broken"] = False

    assert await graphrt.aresume(tmp_path / "runs.db", "r1", agents=agents) == {"flaky": "ok"}
    assert recorder.calls == ["first"]
