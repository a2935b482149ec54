"""Runs that survive their process: running a graph against a checkpoint store and resuming it.

    from graphrt.durable import arun_checkpointed, from_checkpoint
    results = await arun_checkpointed(graphrt.Graph("ask.yaml"), "runs.db", run_id="nightly")
    graph, record = from_checkpoint("runs.db", "nightly")   # the saved run's Graph, and its record

One module per job: `runs` (a run from its record to how it ended), `saved_run`
(`SavedRun`: every change of a saved run's status, for durable runs, graphrt serve and
batches alike), `saved_nodes` (what a saved run says of its nodes, for whoever shows it), `writer` (the run
observer that saves it as it goes), `resume` (finding
a saved run and continuing it), `fork` (a new run from a saved run's node, keeping what
does not depend on the change), `credentials` (what a checkpoint leaves out). Imports the engine
and graphrt.checkpoint; the engine never imports it (it runs a graph with
`Graph.start(restore=..., observers=[writer])`).
"""

from graphrt.durable.fork import Fork, afork, dependents, fork
from graphrt.durable.resume import afrom_checkpoint, aresume, find_run, from_checkpoint, resume
from graphrt.durable.runs import arun_checkpointed, run_checkpointed, save_new_run
from graphrt.durable.saved_run import SavedRun
from graphrt.durable.writer import CheckpointWriter

__all__ = ["CheckpointWriter", "Fork", "SavedRun", "afork", "afrom_checkpoint", "dependents", "fork", "aresume",
           "arun_checkpointed", "find_run", "from_checkpoint", "resume", "run_checkpointed", "save_new_run"]
