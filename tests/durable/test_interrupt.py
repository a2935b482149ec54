"""Human in the loop: an agent asks, the run stops with GraphInterrupted, resuming with an answer goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphrt
from graphrt.checkpoint import CheckpointStore, RunStatus
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio

ASK = {
    "version": 0.5,
    "nodes": {
        "first": {"agent": "recordAgent"},
        "name": {"agent": "askAgent", "params": {"question": "Your name?"}, "inputs": {"after": ":first"}},
        "greet": {"agent": "recordAgent", "inputs": {"who": ":name.answer"}, "isResult": True},
    },
}


async def test_an_interrupt_stops_the_run_with_the_node_and_its_question(recorder) -> None:
    with pytest.raises(graphrt.GraphInterrupted) as caught:
        await recorder.graph(ASK).arun()

    assert (caught.value.node_id, caught.value.question, caught.value.key) == ("name", "Your name?", "name")
    assert str(caught.value) == "node 'name': waiting for an answer: Your name?"


def test_graph_interrupted_is_a_graph_error_and_interrupt_is_not() -> None:
    assert issubclass(graphrt.GraphInterrupted, graphrt.GraphError)
    assert not issubclass(graphrt.Interrupt, graphrt.GraphError)


async def test_an_asking_node_is_not_retried(recorder) -> None:
    data = {"version": 0.5, "nodes": {"name": {"agent": "askAgent", "retry": 3}}}

    with pytest.raises(graphrt.GraphInterrupted):
        await recorder.graph(data).arun()

    assert recorder.calls == ["name"]


async def test_other_branches_finish_before_the_run_stops_on_a_question(recorder) -> None:
    data = {"version": 0.5, "nodes": {"name": {"agent": "askAgent"}, "other": {"agent": "recordAgent"},
                                      "later": {"agent": "recordAgent", "inputs": {"x": ":other"}}}}

    with pytest.raises(graphrt.GraphInterrupted):
        await recorder.graph(data).arun()

    assert sorted(recorder.calls) == ["later", "name", "other"]


async def test_an_interrupted_run_is_saved_with_its_question(recorder, store: CheckpointStore) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1")

    saved = await store.get_run("r1")

    assert (saved.status, saved.question) == (RunStatus.INTERRUPTED, "Your name?")
    assert saved.detail == {"node_id": "name", "key": "name", "question": "Your name?"}


async def test_a_question_is_saved_without_the_credentials_the_run_knows(recorder, store: CheckpointStore) -> None:
    key = "cfg-key-7d1e9a0b55c2f3"
    data = {"version": 0.5, "nodes": {"name": {"agent": "askAgent", "params": {
        "apiKey": key, "question": f"Is {key} the key to use?"}}}}

    with pytest.raises(graphrt.GraphInterrupted) as caught:
        await arun_checkpointed(recorder.graph(data), store, run_id="r1")
    saved = await store.get_run("r1")

    assert key in caught.value.question  # the person at hand is asked what the agent asked
    assert key not in saved.question and key not in str(saved.detail)
    assert saved.question.startswith("Is ") and saved.question.endswith(" the key to use?")


async def test_resuming_with_an_answer_runs_the_asking_node_again_with_it(recorder, store: CheckpointStore) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1")

    results = await graphrt.aresume(store, "r1", answer="Ada", agents=recorder.agents)

    assert results == {"greet": {"node": "greet", "who": "Ada"}}
    assert recorder.calls == ["first", "name", "name", "greet"]


async def test_resuming_without_an_answer_asks_the_same_question_without_running(recorder, store: CheckpointStore) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1")
    recorder.calls.clear()

    with pytest.raises(graphrt.GraphInterrupted, match="Your name?"):
        await graphrt.aresume(store, "r1", agents=recorder.agents)

    assert recorder.calls == []


async def test_a_question_asked_first_thing_can_be_answered(recorder, tmp_path: Path) -> None:
    data = {"version": 0.5, "nodes": {"name": {"agent": "askAgent", "isResult": True}}}
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(data), tmp_path / "runs.db", run_id="r1")

    assert await graphrt.aresume(tmp_path / "runs.db", "r1", answer="yes", agents=recorder.agents) == {
        "name": {"answer": "yes"}
    }


async def test_an_answer_is_used_once_so_a_loop_asks_again_in_its_next_iteration(recorder, tmp_path: Path) -> None:
    data = {
        "version": 0.5,
        "loop": {"count": 2},
        "nodes": {
            "answers": {"value": [], "update": ":push.array", "isResult": True},
            "ask": {"agent": "askAgent", "inputs": {"i": "@loop"}},
            "push": {"agent": "pushAgent", "inputs": {"array": ":answers", "item": ":ask.answer"}},
        },
    }
    db = tmp_path / "runs.db"
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(data), db, run_id="r1")
    with pytest.raises(graphrt.GraphInterrupted):
        await graphrt.aresume(db, "r1", answer="one", agents=recorder.agents)

    results = await graphrt.aresume(db, "r1", answer="two", agents=recorder.agents)

    assert results == {"answers": ["one", "two"]}
    assert recorder.calls == ["ask@0", "ask@0", "ask@1", "ask@1"]


async def test_a_question_in_a_nested_graph_is_answered_on_resume(recorder, tmp_path: Path) -> None:
    data = {
        "version": 0.5,
        "nodes": {
            "outer": {
                "agent": "nestedAgent",
                "graph": {"nodes": {"inner": {"agent": "askAgent", "params": {"question": "Inside?"}, "isResult": True}}},
                "isResult": True,
            }
        },
    }
    db = tmp_path / "runs.db"
    with pytest.raises(graphrt.GraphInterrupted) as caught:
        await arun_checkpointed(recorder.graph(data), db, run_id="r1")
    assert (caught.value.node_id, caught.value.nested, caught.value.key) == ("outer", ("inner",), "outer/inner")

    results = await graphrt.aresume(db, "r1", answer="yes", agents=recorder.agents)

    assert results == {"outer": {"inner": {"answer": "yes"}}}


async def test_a_question_in_a_map_row_is_keyed_by_the_row(recorder) -> None:
    data = {
        "version": 0.5,
        "nodes": {
            "rows": {"value": [1, 2]},
            "map": {"agent": "mapAgent", "inputs": {"rows": ":rows"},
                    "graph": {"nodes": {"ask": {"agent": "askAgent", "isResult": True}}}},
        },
    }

    with pytest.raises(graphrt.GraphInterrupted) as caught:
        await recorder.graph(data).arun()

    assert caught.value.key in ("map/0/ask", "map/1/ask")


async def test_a_new_run_cannot_take_an_answer(recorder, tmp_path: Path) -> None:
    with pytest.raises(graphrt.CheckpointError, match="run 'new' is not saved in .*, so it has no question to answer"):
        await arun_checkpointed(recorder.graph(ASK), tmp_path / "runs.db", run_id="new", answer="Ada")


async def test_ctx_ask_returns_the_answer_once_there_is_one() -> None:
    ctx = graphrt.AgentContext(inputs={}, params={}, node_id="n", answer="Ada")

    assert ctx.ask("Your name?") == "Ada"


def test_ctx_ask_without_an_answer_raises_interrupt() -> None:
    ctx = graphrt.AgentContext(inputs={}, params={}, node_id="n")

    with pytest.raises(graphrt.Interrupt, match="Your name?"):
        ctx.ask("Your name?")


async def test_an_answer_for_a_run_that_is_not_asking_is_refused(recorder, tmp_path: Path) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), tmp_path / "runs.db", run_id="r1")
    recorder.failing.add("greet")
    with pytest.raises(graphrt.AgentError):
        await graphrt.aresume(tmp_path / "runs.db", "r1", answer="Ada", agents=recorder.agents)

    with pytest.raises(graphrt.CheckpointError, match="run 'r1' is not waiting for an answer \\(it is failed\\)"):
        await graphrt.aresume(tmp_path / "runs.db", "r1", answer="Ada", agents=recorder.agents)


async def test_questions_of_map_rows_are_answered_in_turn_and_each_answer_is_kept(tmp_path: Path) -> None:
    async def ask(ctx):
        return ctx.ask(f"row {ctx.inputs['row']}?")

    agents = [graphrt.AgentInfo("askRowAgent", ask)]
    data = {"version": 0.5, "nodes": {
        "rows": {"value": [1, 2]},
        "map": {"agent": "mapAgent", "inputs": {"rows": ":rows"}, "isResult": True,
                "graph": {"nodes": {"ask": {"agent": "askRowAgent", "inputs": {"row": ":row"}, "isResult": True}}}},
    }}
    db = tmp_path / "runs.db"
    with pytest.raises(graphrt.GraphInterrupted, match="row 1"):
        await arun_checkpointed(graphrt.Graph(data, agents=agents), db, run_id="r1")
    with pytest.raises(graphrt.GraphInterrupted, match="row 2"):
        await graphrt.aresume(db, "r1", answer="A", agents=agents)

    assert await graphrt.aresume(db, "r1", answer="B", agents=agents) == {"map": [{"ask": "A"}, {"ask": "B"}]}
