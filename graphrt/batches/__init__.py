"""Batches: one run of a graph per input row, over a dataset, resumable after a crash.

    graphrt batch graph.yaml questions.jsonl -o answers.jsonl        # the command (graphrt/cli/batch_command.py)
    outcomes = graphrt.batch("graph.yaml", "questions.jsonl", checkpoint="runs.db")   # Python (graphrt/api.py)

One module per job: `rows` (the input rows and their ids), `outcome` (what a row
came to, as its output line), `ledger` (each row's saved run in a checkpoint
store: what makes a batch resumable), `progress` (the counters a progress line
reads), `runner` (`Batch`: rows at a concurrency limit, in this process or as
whole runs on an executor such as Ray's).
"""

from graphrt.batches.ledger import Ledger
from graphrt.batches.outcome import FINISHED, FAILED, RowOutcome, error_record
from graphrt.batches.progress import BatchProgress
from graphrt.batches.rows import InputRow, count_rows, read_rows, rows_of
from graphrt.batches.runner import Batch
from graphrt.graphdata.spec import DEFAULT_CONCURRENCY  # rows at once, as a graph's nodes

__all__ = ["Batch", "BatchProgress", "FINISHED", "DEFAULT_CONCURRENCY", "FAILED", "InputRow", "Ledger", "RowOutcome",
           "count_rows", "error_record", "read_rows", "rows_of"]
