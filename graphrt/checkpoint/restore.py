"""The RunSnapshot a saved run's rows describe: the state a run is resumed from.

A store returns the rows of a run's latest iteration (`get_rows`); they become one snapshot:
that iteration's static values, the results of the nodes that completed in it, the answers
not used yet, and what a fork from inside a nested graph keeps of it (`inner`).
"""

from __future__ import annotations

from typing import Any, Iterable

from graphrt.base.jsvalue import UNDEFINED
from graphrt.checkpoint.errors import damaged
from graphrt.checkpoint.records import Row, RunRecord
from graphrt.checkpoint.snapshot import RunSnapshot
from graphrt.checkpoint.values import decode_value

__all__ = ["answer_node", "snapshot_from_rows"]

_ROW_KINDS = ("iteration", "node", "answer", "inner", "usage")


def answer_node(key: str) -> str:
    """The top-level node an answer key belongs to (`outer/0/inner` -> `outer`)."""
    return key.split("/", 1)[0]


def snapshot_from_rows(record: RunRecord, rows: Iterable[Row]) -> RunSnapshot | None:
    """The RunSnapshot the rows of a run's latest iteration describe; None if nothing was saved.

    Answers whose node has completed since are left out: they were used.
    """
    iteration: int | None = None
    statics: dict[str, Any] | None = None
    results: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    inner: dict[str, dict[str, Any]] = {}
    usage: dict[str, Any] | None = None
    for row in rows:
        what = f"run {record.run_id!r}, iteration {row.iteration!r}, {row.kind!r} row {row.key!r}"
        if not isinstance(row.iteration, int) or not isinstance(row.key, str) or row.kind not in _ROW_KINDS:
            raise damaged(what, "not a row graphrt writes")
        if iteration is None or row.iteration > iteration:
            iteration, statics, results, answers, inner, usage = row.iteration, None, {}, {}, {}, None
        if row.iteration < iteration:
            continue
        if row.kind == "iteration":
            statics = decode_value(row.value, what) if row.value is not None else None
            if statics is not None and not isinstance(statics, dict):
                raise damaged(what, f"the static values are a {type(statics).__name__}, not an object")
        elif row.kind == "node":
            results.pop(row.key, None)
            results[row.key] = decode_value(row.value, what) if row.value is not None else UNDEFINED
        elif row.kind == "answer":
            answers[row.key] = decode_value(row.value, what) if row.value is not None else None
        elif row.kind == "inner":
            kept = decode_value(row.value, what) if row.value is not None else {}
            if not isinstance(kept, dict):
                raise damaged(what, f"the kept results are a {type(kept).__name__}, not an object")
            inner[row.key] = kept
        elif row.kind == "usage":  # the latest says what the run spent (an earlier one, less)
            spent = decode_value(row.value, what) if row.value is not None else None
            usage = spent if isinstance(spent, dict) else None
    if iteration is None or statics is None:
        return None
    completed = list(results)
    values = dict(statics)
    values.update((node_id, value) for node_id, value in results.items() if value is not UNDEFINED)
    pending = {key: answer for key, answer in answers.items() if answer_node(key) not in results}
    return RunSnapshot(record.run_id, iteration, values, completed, dict(record.injected), pending, inner, usage)
