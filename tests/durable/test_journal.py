"""A checkpointed run's journal of outside calls (graphrt/engine/journal.py, graphrt/durable/journal.py): what a
resumed or retried run takes from it instead of calling again, what it does with a call that started and left no
result, and what it refuses.

A run "dies" here as a process would at SIGKILL, seen from its store: it is cancelled while a call is in flight, so
nothing after the call's start is written (tests/durable/test_journal_resume.py kills a real process). The LLM is
the scripted server of tests/conftest.py, reached through the real OpenAI SDK.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

import anyio
import pytest

import graphrt
from graphrt import AgentContext, AgentInfo
from graphrt.base.states import CallState
from graphrt.checkpoint import CheckpointStore
from graphrt.checkpoint.guard import GuardedStore
from graphrt.durable import arun_checkpointed
from graphrt.engine.journal import JournalMismatch, UncertainCall

pytestmark = pytest.mark.anyio

ACT = {"type": "function", "function": {"name": "act", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


class World:
    """Agents whose effects on the world are counted: `effectAgent--act` (a tool with side effects), `payAgent` (a
    node with side effects; `idempotent` says whether paying twice is harmless), `pickAgent` (what to pay)."""

    def __init__(self) -> None:
        self.effects: list[Any] = []
        self.pick = 1
        self.paying = threading.Event()  # payAgent has started and waits
        self.hold_pay = False

    async def act(self, ctx: AgentContext) -> Any:
        n = ctx.inputs["arg"]["n"]
        self.effects.append(n)
        return {"content": f"effect {n} done", "data": {"last": n}}

    async def pay(self, ctx: AgentContext) -> Any:
        self.effects.append(("pay", ctx.inputs["amount"], ctx.idempotency_key))
        if self.hold_pay:
            self.paying.set()
            await anyio.sleep_forever()
        return {"paid": ctx.inputs["amount"]}

    async def pick_amount(self, ctx: AgentContext) -> Any:
        return self.pick

    def agents(self, idempotent: bool = False) -> list[AgentInfo]:
        return [AgentInfo("effectAgent", self.act, tools=(ACT,), side_effects=True),
                AgentInfo("payAgent", self.pay, side_effects=True, idempotent=idempotent),
                AgentInfo("pickAgent", self.pick_amount)]


@pytest.fixture
def world() -> World:
    return World()


TOOLS = {"version": 0.5, "nodes": {"agent": {"agent": "toolsAgent", "isResult": True, "inputs": {
    "tools": ["effectAgent--act"], "userInput": {"text": "Do four effects."}}}}}

PAY = {"version": 0.5, "nodes": {
    "amount": {"value": 5},
    "pay": {"agent": "payAgent", "inputs": {"amount": ":amount"}, "isResult": True}}}


def acting_llm(reply: Any, asked: threading.Event | None = None, hold_at: int | None = None,
               first: int = 1) -> Callable[[dict[str, Any]], Any]:
    """An LLM that asks for effect n+1 (from `first`) while fewer than four are done, then answers; the request
    made with `hold_at` effects done is held (never answered), and sets `asked`."""

    def respond(body: dict[str, Any]) -> Any:
        done = sum(1 for message in body["messages"] if message.get("role") == "tool")
        answer = reply.tool_calls(("effectAgent--act", {"n": done + first})) if done < 4 else reply.text("all done")
        if done == hold_at and asked is not None:
            asked.set()
            return reply.held(answer)
        return answer

    return respond


async def killed_when(run: Callable[[], Any], reached: threading.Event) -> None:
    """Runs `run()` until `reached` is set (by another thread: the scripted server, an agent), then cancels it as
    SIGKILL would end its process: whatever was in flight leaves no result."""
    async with anyio.create_task_group() as group:

        async def go() -> None:
            try:
                await run()
            except graphrt.GraphError:
                pass

        group.start_soon(go)
        await anyio.to_thread.run_sync(reached.wait, 60)
        group.cancel_scope.cancel()


async def test_a_tools_agent_stopped_during_its_third_llm_call_resumes_from_there(
        store: CheckpointStore, openai_server: Any, reply: Any, world: World) -> None:
    asked = threading.Event()
    openai_server.respond(acting_llm(reply, asked, hold_at=2))
    graph = graphrt.Graph(TOOLS, agents=world.agents())

    await killed_when(lambda: arun_checkpointed(graph, store, run_id="r1"), asked)
    assert world.effects == [1, 2]

    openai_server.respond(acting_llm(reply))
    results = await graphrt.aresume(store, "r1", agents=world.agents())

    assert world.effects == [1, 2, 3, 4]
    assert len(openai_server.requests) == 3 + 3  # the resumed run asked its third call again, then two more
    assert results["agent"]["text"] == "all done"
    entries = await GuardedStore(store).get_calls("r1")
    assert [(entry.path, entry.index, entry.kind, entry.agent, entry.state) for entry in entries] == [
        ("agent/0/tool", index, "tool", "effectAgent", CallState.RETURNED) for index in range(4)] + [
        ("agent/llm", index, "llm", "openAIAgent", CallState.RETURNED) for index in range(5)]


async def test_parallel_tool_calls_are_told_apart_by_their_place_in_the_turn(tmp_path, openai_server, reply,
                                                                            world) -> None:
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1}), ("effectAgent--act", {"n": 2})),
                         reply.text("both done"))
    await arun_checkpointed(graphrt.Graph(TOOLS, agents=world.agents()), tmp_path / "runs.db", run_id="r1")

    from graphrt.checkpoint import open_store

    store = GuardedStore(open_store(tmp_path / "runs.db"))
    try:
        tools = [entry for entry in await store.get_calls("r1") if entry.kind == "tool"]
    finally:
        await store.close()
    assert [(entry.path, entry.index, json.loads(entry.request)["inputs"]["arg"]) for entry in tools] == [
        ("agent/0/tool", 0, {"n": 1}), ("agent/1/tool", 0, {"n": 2})]


async def test_a_retry_goes_on_from_the_calls_the_failed_attempt_made(tmp_path, openai_server, reply, world) -> None:
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})), reply.error(400, "bad request"),
                         reply.text("done after all"))
    graph = {"version": 0.5, "nodes": {"agent": {**TOOLS["nodes"]["agent"], "retry": 1}}}

    results = await arun_checkpointed(graphrt.Graph(graph, agents=world.agents()), tmp_path / "runs.db")

    assert world.effects == [1]  # the retry took the first turn and its tool call from the journal
    assert results["agent"]["text"] == "done after all"
    assert len(openai_server.requests) == 3


async def test_a_retry_for_repeat_until_asks_again(tmp_path) -> None:
    answers = iter([{"maybe": 1}, {"ok": True}])
    asked = []

    async def oracle(ctx: AgentContext) -> Any:
        asked.append(ctx.idempotency_key)
        return next(answers)

    graph = graphrt.Graph({"version": 0.5, "nodes": {"ask": {
        "agent": "oracleAgent", "repeatUntil": {"exists": ".ok"}, "retry": 2, "isResult": True}}},
        agents=[AgentInfo("oracleAgent", oracle, outside=True)])

    results = await arun_checkpointed(graph, tmp_path / "runs.db", run_id="r1")

    assert results == {"ask": {"ok": True}}
    assert len(asked) == 2 and asked[0] == asked[1]  # asked again, as the same call: its entry was void
    from graphrt.checkpoint import open_store

    store = GuardedStore(open_store(tmp_path / "runs.db"))
    try:
        assert [json.loads(entry.result) for entry in await store.get_calls("r1")] == [{"ok": True}]
    finally:
        await store.close()


async def _paid_and_stopped(world: World, store: Any, *, idempotent: bool = False) -> None:
    world.hold_pay = True
    graph = graphrt.Graph(PAY, agents=world.agents(idempotent))
    await killed_when(lambda: arun_checkpointed(graph, store, run_id="pay"), world.paying)
    world.hold_pay = False
    assert world.effects[0][:2] == ("pay", 5)


async def test_a_call_with_side_effects_left_uncertain_asks_whether_it_happened(store, world) -> None:
    await _paid_and_stopped(world, store)

    with pytest.raises(graphrt.GraphInterrupted) as asked:
        await graphrt.aresume(store, "pay", agents=world.agents())

    assert asked.value.key == "pay#0" and asked.value.node_id == "pay"
    assert asked.value.question.startswith("Did call 0 of pay (payAgent), asked ")
    assert asked.value.question.endswith(" happen before the run stopped? Its result was not kept. Answer 'no' to make "
                                         "it now, 'yes' if it happened, or {\"result\": ...} with what it returned.")
    assert len(world.effects) == 1  # asked, not paid again


@pytest.mark.parametrize("answer, result, paid", [
    ("no", {"paid": 5}, 2), ("yes", None, 1),
    ('{"result": {"paid": 5, "receipt": "r-1"}}', {"paid": 5, "receipt": "r-1"}, 1)])
async def test_the_answer_says_what_an_uncertain_call_gives(tmp_path, world, answer, result, paid) -> None:
    db = tmp_path / "runs.db"
    await _paid_and_stopped(world, db)
    with pytest.raises(graphrt.GraphInterrupted):
        await graphrt.aresume(db, "pay", agents=world.agents())

    results = await graphrt.aresume(db, "pay", answer=answer, agents=world.agents())

    assert results == {"pay": result}
    assert len(world.effects) == paid
    from graphrt.checkpoint import open_store

    store = GuardedStore(open_store(db))
    try:
        (entry,) = await store.get_calls("pay")
    finally:
        await store.close()
    assert (entry.state, json.loads(entry.result)) == (CallState.RETURNED, result)  # kept: not asked again


async def test_an_uncertain_call_fails_the_run_when_told_to(tmp_path, world) -> None:
    db = tmp_path / "runs.db"
    await _paid_and_stopped(world, db)
    graph = graphrt.Graph(PAY, agents=world.agents())

    with pytest.raises(UncertainCall) as failed:
        await arun_checkpointed(graph, db, run_id="pay", uncertain="fail")

    assert str(failed.value) == (
        "node 'pay': call 0 of pay (payAgent) started before the run stopped, and no result of it was kept: whether "
        "it happened is unknown, and its agent is not idempotent; resume with --uncertain ask to answer whether it did")
    assert (failed.value.path, failed.value.index) == ("pay", 0)
    assert len(world.effects) == 1


async def test_an_uncertain_call_of_an_idempotent_agent_is_made_again_with_the_same_key(tmp_path, world) -> None:
    db = tmp_path / "runs.db"
    await _paid_and_stopped(world, db, idempotent=True)

    results = await graphrt.aresume(db, "pay", agents=world.agents(idempotent=True))

    assert results == {"pay": {"paid": 5}}
    assert [effect[:2] for effect in world.effects] == [("pay", 5), ("pay", 5)]
    assert world.effects[0][2] == world.effects[1][2] and len(world.effects[0][2]) == 32  # the same idempotency key


NESTED_PAY = {"version": 0.5, "nodes": {"outer": {"agent": "nestedAgent", "isResult": True, "graph": {"nodes": {
    "amount": {"agent": "pickAgent"},
    "pay": {"agent": "payAgent", "inputs": {"amount": ":amount"}},
    "after": {"agent": "payAgent", "inputs": {"amount": ":pay.paid"}, "isResult": True}}}}}}


async def test_a_call_with_side_effects_that_asks_otherwise_on_resume_is_a_located_mismatch(tmp_path, world) -> None:
    db = tmp_path / "runs.db"
    calls = 0

    async def pay(ctx: AgentContext) -> Any:
        nonlocal calls
        calls += 1
        world.effects.append(("pay", ctx.inputs["amount"]))
        if calls == 2:
            world.paying.set()
            await anyio.sleep_forever()
        return {"paid": ctx.inputs["amount"]}

    agents = [AgentInfo("payAgent", pay, side_effects=True), AgentInfo("pickAgent", world.pick_amount)]
    graph = graphrt.Graph(NESTED_PAY, agents=agents)
    await killed_when(lambda: arun_checkpointed(graph, db, run_id="r1"), world.paying)
    assert world.effects == [("pay", 1), ("pay", 1)]

    world.pick = 2  # what the call depends on changed since
    with pytest.raises(JournalMismatch) as mismatch:
        await arun_checkpointed(graph, db, run_id="r1")

    assert str(mismatch.value).startswith(
        "node 'outer' > 'pay': call 0 of outer/pay (payAgent) asks what its journaled call in "
        f"{db} did not (the graph, or what the call depends on, changed since): its side effects happened as "
        "journaled; resume with --force (force=True) to make the call anew\n--- journaled\n+++ asked now\n")
    assert '-  "amount": 1\n+  "amount": 2' in mismatch.value.diff
    assert (mismatch.value.path, mismatch.value.index) == ("outer/pay", 0)
    assert len(world.effects) == 2  # nothing paid

    results = await arun_checkpointed(graph, db, run_id="r1", force=True)
    assert results == {"outer": {"after": {"paid": 2}}}
    assert world.effects[2:] == [("pay", 2), ("pay", 2)]


async def test_the_journal_holds_no_credential_the_run_knows(tmp_path, openai_server, reply, world,
                                                            openai_api_key) -> None:
    openai_server.script(reply.tool_calls(("effectAgent--act", {"n": 1})),
                         reply.text(f"your key is {openai_api_key}, and the token is tok-9f8e7d6c5b4a"))
    graph = {"version": 0.5, "nodes": {"agent": {**TOOLS["nodes"]["agent"],
                                                 "params": {"llmParams": {"apiKey": "tok-9f8e7d6c5b4a"}}}}}

    await arun_checkpointed(graphrt.Graph(graph, agents=world.agents()), tmp_path / "runs.db", run_id="r1")

    from graphrt.checkpoint import open_store

    store = GuardedStore(open_store(tmp_path / "runs.db"))
    try:
        entries = await store.get_calls("r1")
    finally:
        await store.close()
    kept = json.dumps([(entry.request, entry.result) for entry in entries])
    assert len(entries) == 3 and "REDACTED" in kept
    assert openai_api_key not in kept and "tok-9f8e7d6c5b4a" not in kept


async def test_an_llm_reply_waits_for_the_next_commit_and_a_side_effects_result_does_not(
        openai_server: Any, reply: Any, world: World) -> None:
    """What the journal lets a log hold (CallLog.queue's `hold`): an entry a crash may lose, since its call is made
    again (an LLM's); never the result of a call with side effects, which a crash would leave uncertain."""
    from graphrt.checkpoint.records import JournalEntry
    from graphrt.engine.journal import CallLog

    kept: list[tuple[str, str, bool | None]] = []

    class Log(CallLog):
        async def save(self, entry: JournalEntry) -> None:
            kept.append((entry.kind, entry.state, None))

        def queue(self, entry: JournalEntry, *, hold: bool = False) -> Any:
            kept.append((entry.kind, entry.state, hold))
            return _done()

    async def _done() -> None:
        return None

    openai_server.respond(acting_llm(reply))
    graph = graphrt.Graph(TOOLS, agents=world.agents())
    await graph.arun(journal=Log())

    assert world.effects == [1, 2, 3, 4]
    assert kept == [("llm", CallState.RETURNED, True), ("tool", CallState.STARTED, None),
                    ("tool", CallState.RETURNED, False)] * 4 + [("llm", CallState.RETURNED, True)]
