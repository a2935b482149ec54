"""Node and run states, named once (graphrt/base/states.py): the values logs, stores and the API use as-is."""

from __future__ import annotations

import json

from graphrt.base.states import NodeState, RunStatus, ServedRunStatus, served_status, vocabulary


def test_node_states_are_graphais_values_and_an_asking_node_s_own() -> None:
    assert [state.value for state in NodeState] == [
        "waiting", "queued", "executing", "completed", "failed", "timed-out", "skipped", "abort", "interrupted"]
    assert NodeState.INTERRUPTED not in NodeState.ENDED and NodeState.ABORTED in NodeState.ENDED


def test_a_state_reads_as_its_value_in_text_and_json() -> None:
    assert f"{NodeState.TIMED_OUT}" == "timed-out"
    assert json.dumps({"status": RunStatus.STOPPED, "nodes": [NodeState.INTERRUPTED]}) == \
        '{"status": "stopped", "nodes": ["interrupted"]}'


def test_a_saved_status_read_back_as_text_equals_its_member() -> None:
    assert "interrupted" == RunStatus.INTERRUPTED and "running" in RunStatus.UNFINISHED
    assert "completed" not in RunStatus.UNFINISHED and RunStatus.ALL == {status.value for status in RunStatus}


def test_the_groups_of_a_status_are_not_statuses() -> None:
    assert [status.name for status in ServedRunStatus] == ["QUEUED", "RUNNING", "INTERRUPTED", "FINISHED", "FAILED",
                                                          "CANCELLED"]
    assert ServedRunStatus.SETTLED == ServedRunStatus.ENDED | {ServedRunStatus.INTERRUPTED}


def test_a_saved_run_is_shown_as_the_server_would_continue_it() -> None:
    assert {saved.value: served_status(saved).value for saved in RunStatus} == {
        "running": "queued", "interrupted": "interrupted", "stopped": "cancelled", "failed": "failed",
        "completed": "finished"}
    assert served_status("written by a newer graphrt") is ServedRunStatus.FAILED


def test_an_asking_node_has_a_state_of_its_own() -> None:
    assert NodeState.INTERRUPTED != NodeState.FAILED


def test_the_vocabulary_is_json_with_every_api_state() -> None:
    served = json.loads(json.dumps(vocabulary()))
    assert served["runStatus"] == {status.name: status.value for status in ServedRunStatus}
    assert served["nodeState"] == {state.name: state.value for state in NodeState}
    assert served["nodeEnded"] == ["abort", "completed", "failed", "skipped", "timed-out"]
    assert served["runEnded"] == ["cancelled", "failed", "finished"]
    assert served["runSettled"] == ["cancelled", "failed", "finished", "interrupted"]


def test_the_engine_re_exports_the_node_states() -> None:
    from graphrt.engine.node import NodeState as EngineNodeState

    assert EngineNodeState is NodeState
