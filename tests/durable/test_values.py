"""How checkpoints encode values (graphrt/checkpoint/values.py), and how saved rows become a RunSnapshot
(restore.py)."""

from __future__ import annotations

import math

import pytest

from graphrt.base.jsvalue import UNDEFINED
from graphrt.checkpoint.errors import Unsavable
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.restore import snapshot_from_rows
from graphrt.checkpoint.values import decode_value, encode_value


@pytest.mark.parametrize(
    "value",
    [
        None, True, 0, -7, 2**70, 1.5, "", "héllo", [], {},
        UNDEFINED, [UNDEFINED, None], {"a": UNDEFINED, "b": None},
        {"$graphrt": "undefined"}, {"$graphrt": "object", "value": 1},
        [[{"deep": [1, {"x": "y"}]}]],
    ],
)
def test_values_come_back_equal(value) -> None:
    assert decode_value(encode_value(value)) == value


def test_undefined_comes_back_as_undefined_itself() -> None:
    assert decode_value(encode_value({"a": UNDEFINED}))["a"] is UNDEFINED


@pytest.mark.parametrize("number", [math.inf, -math.inf])
def test_infinities_come_back(number) -> None:
    assert decode_value(encode_value(number)) == number


def test_nan_comes_back_as_nan() -> None:
    assert math.isnan(decode_value(encode_value(math.nan)))


def test_encoded_values_are_strict_json() -> None:
    import json

    json.loads(encode_value([math.nan, math.inf]), parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))


@pytest.mark.parametrize(
    ("value", "message"),
    [(b"raw", "a bytes is not a JSON value"), ({1: "a"}, "an object key is a int, not a string"),
     (object(), "a object is not a JSON value")],
)
def test_values_json_cannot_hold_are_refused(value, message) -> None:
    with pytest.raises(Unsavable, match=message):
        encode_value(value)


def test_a_tuple_is_saved_as_a_list() -> None:
    assert decode_value(encode_value((1, 2))) == [1, 2]


_RECORD = RunRecord("r1", None, "{}", "h", injected={"who": "Ada"})


def test_a_snapshot_holds_the_statics_and_the_completed_nodes_of_the_latest_iteration() -> None:
    rows = [Row("r1", 2, "iteration", "", encode_value({"n": 2})), Row("r1", 2, "node", "a", encode_value("A")),
            Row("r1", 2, "node", "b", encode_value(UNDEFINED))]

    snapshot = snapshot_from_rows(_RECORD, rows)

    assert (snapshot.iteration, snapshot.results, snapshot.completed) == (2, {"n": 2, "a": "A"}, ["a", "b"])
    assert snapshot.injected == {"who": "Ada"}


def test_a_snapshot_keeps_only_answers_whose_node_has_not_completed() -> None:
    rows = [Row("r1", 0, "iteration", "", "{}"), Row("r1", 0, "answer", "asked", '"yes"'),
            Row("r1", 0, "answer", "open/0/inner", '"no"'), Row("r1", 0, "node", "asked", "1")]

    assert snapshot_from_rows(_RECORD, rows).answers == {"open/0/inner": "no"}


def test_no_iteration_row_means_nothing_to_resume_from() -> None:
    assert snapshot_from_rows(_RECORD, [Row("r1", 0, "node", "a", "1")]) is None
