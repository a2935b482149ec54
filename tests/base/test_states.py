"""Node and run states, named once (graphrt/base/states.py): the values logs, stores and the API use as-is."""

from __future__ import annotations

import json

import pytest

from graphrt.base.states import NodeState, RunStatus, vocabulary


def test_node_states_are_graphais_values_and_an_asking_node_s_own() -> None:
    assert [state.value for state in NodeState] == [
        "waiting", "queued", "executing", "completed", "failed", "timed-out", "skipped", "abort", "interrupted"]
    assert NodeState.INTERRUPTED not in NodeState.ENDED and NodeState.ABORT in NodeState.ENDED


def test_a_state_reads_as_its_value_in_text_and_json() -> None:
    assert f"{NodeState.TIMED_OUT}" == "timed-out"
    assert json.dumps({"status": RunStatus.CANCELLED, "nodes": [NodeState.INTERRUPTED]}) == \
        '{"status": "cancelled", "nodes": ["interrupted"]}'


def test_a_run_has_one_vocabulary_with_the_api_s_names() -> None:
    assert [status.value for status in RunStatus] == ["queued", "running", "interrupted", "finished", "failed",
                                                      "cancelled"]
    assert RunStatus.ALL == {status.value for status in RunStatus}


def test_a_saved_status_read_back_as_text_equals_its_member() -> None:
    assert "interrupted" == RunStatus.INTERRUPTED and "running" in RunStatus.RESUMABLE
    assert "finished" not in RunStatus.RESUMABLE and "cancelled" in RunStatus.RESUMABLE  # a resume continues it


def test_the_groups_of_a_status_are_not_statuses() -> None:
    assert RunStatus.ENDED == {"finished", "failed", "cancelled"}
    assert RunStatus.SETTLED == RunStatus.ENDED | {RunStatus.INTERRUPTED}


def test_an_older_graphrt_s_spellings_read_as_today_s_statuses() -> None:
    assert RunStatus.read("completed") is RunStatus.FINISHED and RunStatus.read("stopped") is RunStatus.CANCELLED
    assert RunStatus.read("running") is RunStatus.RUNNING
    assert RunStatus.spellings(RunStatus.ENDED) == ("cancelled", "completed", "failed", "finished", "stopped")
    with pytest.raises(ValueError):
        RunStatus.read("written by a newer graphrt")


def test_an_asking_node_has_a_state_of_its_own() -> None:
    assert NodeState.INTERRUPTED != NodeState.FAILED


def test_the_vocabulary_is_json_with_every_api_state() -> None:
    served = json.loads(json.dumps(vocabulary()))
    assert served["runStatus"] == {status.name: status.value for status in RunStatus}
    assert served["nodeState"] == {state.name: state.value for state in NodeState}
    assert served["nodeEnded"] == ["abort", "completed", "failed", "skipped", "timed-out"]
    assert served["runEnded"] == ["cancelled", "failed", "finished"]
    assert served["runSettled"] == ["cancelled", "failed", "finished", "interrupted"]


def test_the_engine_re_exports_the_node_states() -> None:
    from graphrt.engine.node import NodeState as EngineNodeState

    assert EngineNodeState is NodeState
