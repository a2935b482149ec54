"""textInputAgent: GraphAI's input agent, asking through the run (agents/input)."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphrt
from graphrt.durable import arun_checkpointed

pytestmark = pytest.mark.anyio


def _ask(params: dict | None = None, inputs: dict | None = None) -> dict:
    node = {"agent": "textInputAgent", "params": params or {}, "isResult": True}
    if inputs:
        node["inputs"] = inputs
    return {"version": 0.5, "nodes": {"hello": {"value": "Say hi"}, "input": node}}


async def _asked(graph: dict, tmp_path: Path) -> graphrt.GraphInterrupted:
    with pytest.raises(graphrt.GraphInterrupted) as caught:
        await arun_checkpointed(graphrt.Graph(graph), tmp_path / "runs.db", run_id="r1")
    return caught.value


async def test_it_asks_params_message(tmp_path: Path) -> None:
    asked = await _asked(_ask({"message": "Enter your message to AI."}), tmp_path)

    assert (asked.node_id, asked.question) == ("input", "Enter your message to AI.")


async def test_without_a_message_it_asks_graphai_s_default(tmp_path: Path) -> None:
    assert (await _asked(_ask(), tmp_path)).question == "Enter"


async def test_inputs_message_is_the_question_when_given(tmp_path: Path) -> None:
    assert (await _asked(_ask({"message": "static"}, {"message": ":hello"}), tmp_path)).question == "Say hi"


async def test_the_answer_comes_back_as_text_and_as_a_user_message(tmp_path: Path) -> None:
    await _asked(_ask(), tmp_path)

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", answer="hi there")

    assert results == {"input": {"text": "hi there", "message": {"role": "user", "content": "hi there"}}}


async def test_params_role_sets_the_message_role(tmp_path: Path) -> None:
    await _asked(_ask({"role": "system"}), tmp_path)

    results = await graphrt.aresume(tmp_path / "runs.db", "r1", answer="be brief")

    assert results["input"]["message"] == {"role": "system", "content": "be brief"}


async def test_required_asks_again_after_an_empty_answer(tmp_path: Path) -> None:
    await _asked(_ask({"required": True, "message": "Name?"}), tmp_path)

    with pytest.raises(graphrt.GraphInterrupted, match="Name?"):
        await graphrt.aresume(tmp_path / "runs.db", "r1", answer="")

    assert (await graphrt.aresume(tmp_path / "runs.db", "r1", answer="Ada"))["input"]["text"] == "Ada"


def test_it_is_a_built_in_agent() -> None:
    assert graphrt.default_registry()["textInputAgent"].category == ("input",)
