"""What a row of a batch came to: its results, or its located error; and how it is written as a JSONL line.

    {"row": 1, "status": "finished", "results": {"answer": "Gustave Eiffel"}}
    {"row": 2, "status": "failed", "error": {"message": "graph.yaml:14:5: node 'ask', ...", "type": "AgentError",
     "node": "ask", "file": "graph.yaml", "line": 14, "column": 5}}
    {"row": 3, "status": "finished", "results": {...}, "usage": {"llm_calls": 2, "total_tokens": 812, ...}}

A row's status is a run's (base/states.RunStatus: `finished` or `failed`). A row that
finished in an earlier run of the batch is written the same way
(its results are read from its saved run): the output of a batch resumed after
a crash is the output of one that never stopped.

A line hides the credentials the batch's run knows (its redactor's, the CLI's
`run_redactor`: its environment's, config's and graph's), in its results as a
run's data, in its error's text as errors are hidden. The outcomes themselves
(`graphrt.batch()`'s) are data and keep what the runs returned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from graphrt.base.errors import GraphError, GraphInterrupted
from graphrt.base.jsvalue import escape_lone_surrogates, to_json_compatible
from graphrt.base.secrets import Redactor
from graphrt.base.states import RunStatus
from graphrt.base.usage import Usage

__all__ = ["FINISHED", "FAILED", "RowOutcome", "error_record"]

FINISHED = RunStatus.FINISHED
FAILED = RunStatus.FAILED


@dataclass
class RowOutcome:
    """One row's end: `finished` with its results, or `failed` with its error (a GraphError, located).

    `before` is True when the row had finished in an earlier run of the batch, so it did not run now.
    """

    id: str | int
    index: int
    status: RunStatus
    results: dict[str, Any] | None = None
    error: GraphError | None = None
    before: bool = False
    seconds: float = 0.0  # how long the row ran now (0 for a row done before)
    usage: Usage | None = None  # what the row's run spent, wherever it ran (None: it did not run in this batch)

    @property
    def ok(self) -> bool:
        return self.status == FINISHED

    def record(self, redactor: Redactor | None = None) -> dict[str, Any]:
        """The row as its output line holds it, but for its results' credentials (`json_line` hides them): without
        credentials in the error's text (those `redactor` knows, by default the environment's, and any it finds)."""
        line: dict[str, Any] = {"row": self.id, "status": self.status.value}
        if self.ok:
            line["results"] = self.results
        elif self.error is not None:
            line["error"] = error_record(self.error, redactor)
        if self.usage is not None and self.usage:
            line["usage"] = self.usage.to_dict()
        return line

    def json_line(self, redactor: Redactor | None = None) -> str:
        """The row as one line of JSON (no newline), whatever its results hold, without the credentials `redactor`
        knows (the run's; by default the environment's)."""
        redactor = redactor or Redactor()
        try:
            record = to_json_compatible(self.record(redactor))
            text = _line(record)
            if redactor.mentions(text):  # the usual line holds none: one search of it for each known credential
                text = _line(redactor.data(record))
        except (TypeError, ValueError, RecursionError) as error:
            problem = GraphError(f"the row's results cannot be written as JSON: {type(error).__name__}: "
                                 f"{str(error).split(';')[0]}")
            text = json.dumps({"row": self.id, "status": FAILED.value, "error": error_record(problem, redactor)},
                              ensure_ascii=False)
        return escape_lone_surrogates(text)


def _line(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(", ", ": "))


def error_record(error: GraphError, redactor: Redactor | None = None) -> dict[str, Any]:
    """A row's error as data: its one-line message (without credentials: those `redactor` knows, by default the
    environment's, and any it finds), its type, and where it happened."""
    redactor = redactor or Redactor()
    record: dict[str, Any] = {"message": redactor.text(str(error)), "type": type(error).__name__}
    if error.node_id is not None:
        record["node"] = error.node_id
    if error.field:
        record["field"] = error.field
    location = error.location
    if location is not None:
        record.update({key: value for key, value in
                       (("file", location.file), ("line", location.line), ("column", location.column))
                       if value is not None})
    if isinstance(error, GraphInterrupted):
        record["question"] = redactor.text(error.question)
    return record
