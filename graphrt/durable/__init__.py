"""Runs that survive their process: running a graph against a checkpoint store and resuming it.

    from graphrt.durable import arun_checkpointed, from_checkpoint
    results = await arun_checkpointed(graphrt.Graph("ask.yaml"), "runs.db", run_id="nightly")
    graph, record = from_checkpoint("runs.db", "nightly")   # the saved run's Graph, to subscribe to

Imports the engine and graphrt.checkpoint; the engine never imports it (it drives
`Graph.execute(restore=..., checkpointer=...)`).
"""

from graphrt.durable.runs import (
    CheckpointWriter,
    afrom_checkpoint,
    aresume,
    arun_checkpointed,
    from_checkpoint,
    resume,
    run_checkpointed,
)

__all__ = ["CheckpointWriter", "afrom_checkpoint", "aresume", "arun_checkpointed", "from_checkpoint", "resume",
           "run_checkpointed"]
