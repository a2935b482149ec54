"""What a saved run says of its nodes, read back by whoever shows a run it did not watch (graphrt serve)."""

from __future__ import annotations

import pytest

import graphrt
from graphrt.base.states import NodeState
from graphrt.checkpoint import CheckpointStore
from graphrt.checkpoint.guard import GuardedStore
from graphrt.durable import arun_checkpointed
from graphrt.durable.saved_nodes import SavedNode, saved_nodes

from .test_interrupt import ASK

pytestmark = pytest.mark.anyio


async def test_an_interrupted_run_says_which_nodes_completed_and_which_asks(recorder, store: CheckpointStore) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1")

    said = await saved_nodes(GuardedStore(store), await store.get_run("r1"))

    assert said.nodes == {"first": SavedNode(NodeState.COMPLETED, result={"node": "first"}),
                          "name": SavedNode(NodeState.INTERRUPTED, question="Your name?")}
    assert said.answers == []


async def test_a_resumed_run_that_failed_says_its_failed_node_and_the_answers(recorder, store: CheckpointStore) -> None:
    with pytest.raises(graphrt.GraphInterrupted):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1")
    recorder.failing.add("greet")
    with pytest.raises(graphrt.GraphError):
        await arun_checkpointed(recorder.graph(ASK), store, run_id="r1", answer="Ada")

    said = await saved_nodes(GuardedStore(store), await store.get_run("r1"))

    assert said.nodes["first"] == SavedNode(NodeState.COMPLETED, result={"node": "first"})
    assert said.nodes["name"] == SavedNode(NodeState.COMPLETED, result={"answer": "Ada"})
    assert said.nodes["greet"].state == NodeState.FAILED and "greet is broken" in said.nodes["greet"].error
    assert said.answers == [("name", "Ada")]
