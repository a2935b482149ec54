"""graphrt's own observers name every keyword a run passes to the hooks they override.

A hook that names them all binds a call's keywords without building a dict for
`**future` (observer.py); one that forgets a keyword, or a keyword added to
RunObserver later, makes every node of every observed run pay for that dict.
"""

import inspect

import pytest

from graphrt.durable.writer import CheckpointWriter
from graphrt.observe.events import EventObserver
from graphrt.observe.observer import HOOKS, RunObserver
from graphrt.observe.progress import RunProgress
from graphrt.serve.event_backpressure import EventBackpressure


def _keywords(function) -> list[str]:
    return [name for name, parameter in inspect.signature(function).parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY]


@pytest.mark.parametrize("observer", [RunProgress, EventObserver, CheckpointWriter, EventBackpressure])
def test_each_overridden_hook_names_the_keywords_of_run_observer(observer: type[RunObserver]) -> None:
    overridden = [name for name in HOOKS if getattr(observer, name) is not getattr(RunObserver, name)]
    assert overridden
    for name in overridden:
        assert _keywords(getattr(observer, name)) == _keywords(getattr(RunObserver, name)), name
        assert "future" in inspect.signature(getattr(observer, name)).parameters, name


class _States(RunObserver):
    """Notes each node hook's node and the state it carries."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    def _note(self, hook: str, node_id: str, state: str) -> None:
        self.seen.append((hook, node_id, state))

    def node_queued(self, *, node_id, state, **future):
        self._note("node_queued", node_id, state)

    def node_running(self, *, node_id, state, **future):
        self._note("node_running", node_id, state)

    def attempt_started(self, *, node_id, state, **future):
        self._note("attempt_started", node_id, state)

    def attempt_failed(self, *, node_id, state, **future):
        self._note("attempt_failed", node_id, state)

    def node_completed(self, *, node_id, state, **future):
        self._note("node_completed", node_id, state)

    def node_failed(self, *, node_id, state, **future):
        self._note("node_failed", node_id, state)

    def node_skipped(self, *, node_id, state, **future):
        self._note("node_skipped", node_id, state)


@pytest.mark.anyio
async def test_every_node_hook_carries_the_state_the_run_just_set() -> None:
    import graphrt
    from graphrt.authoring.agent_info import AgentInfo

    async def fail(ctx):
        raise ValueError("broken")

    observer = _States()
    graph = graphrt.Graph({"concurrency": 1, "nodes": {
        "a": {"value": 1}, "off": {"value": False},
        "copy": {"agent": "copyAgent", "inputs": {"v": ":a"}},
        "skipped": {"agent": "copyAgent", "inputs": {"v": ":copy"}, "if": ":off"},
        "fallback": {"agent": "copyAgent", "inputs": {"v": ":copy"}, "if": ":off", "defaultValue": "none"},
        "bad": {"agent": "failAgent", "inputs": {"v": ":copy"}, "retry": 1}}},
        agents=[AgentInfo(name="failAgent", func=fail)])
    run = graph.start(observers=[observer])
    with pytest.raises(graphrt.GraphError):
        await run
    assert observer.seen == [
        ("node_queued", "copy", "queued"), ("node_running", "copy", "executing"),
        ("attempt_started", "copy", "executing"), ("node_completed", "copy", "completed"),
        ("node_skipped", "skipped", "skipped"),
        ("node_queued", "fallback", "queued"), ("node_queued", "bad", "queued"),
        ("node_running", "fallback", "queued"),  # skipped with a defaultValue: it gives it without running
        ("node_completed", "fallback", "completed"),
        ("node_running", "bad", "executing"), ("attempt_started", "bad", "executing"),
        ("attempt_failed", "bad", "executing"),  # it runs again
        ("attempt_started", "bad", "executing"), ("node_failed", "bad", "failed"),
    ]
    assert {node_id: state for _, node_id, state in observer.seen} == run.states()
