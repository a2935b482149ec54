"""The soak: many graphs with LLM calls against a faulty server; no run may be lost or wrong.

Each run is a small graph of three openAIAgent nodes (two in parallel, one
after both) and a copyAgent node, checkpointed to one SQLite file. A run that
fails (a node's retries ran out) is resumed from its checkpoint, up to
`max_resumes` times. At the end every run's results are compared with the
answers the server is known to give.

    lost     a run that did not complete, even after its resumes
    wrong    a run that completed with results other than the expected ones
    rework   an LLM prompt answered right more than once: a node that completed ran again
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

import graphrt
from graphrt.checkpoint import SQLiteStore
from graphrt.durable import arun_checkpointed

from .server import FaultyOpenAIServer, answer

__all__ = ["GRAPH", "SoakReport", "expected", "soak"]

GRAPH = """\
version: 0.5
nodes:
  topic:
    value: ""
  first:
    agent: openAIAgent
    inputs:
      prompt: :topic
    params: &llm
      model: soak
      timeout: {timeout}
      maxRetries: {retries}
      retryDelay: 0.01
  second:
    agent: openAIAgent
    inputs:
      prompt: ${{:topic}} again
    params: *llm
  third:
    agent: openAIAgent
    inputs:
      prompt: ${{:first.text}} + ${{:second.text}}
    params: *llm
  result:
    agent: copyAgent
    inputs:
      first: :first.text
      second: :second.text
      third: :third.text
    isResult: true
"""


def expected(topic: str) -> dict[str, Any]:
    """The results a run on `topic` must give."""
    first, second = answer(topic), answer(f"{topic} again")
    return {"result": {"first": first, "second": second, "third": answer(f"{first} + {second}")}}


@dataclass
class SoakReport:
    runs: int
    completed_first_time: int = 0
    completed_after_resume: int = 0
    resumes: int = 0
    lost: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    rework: int = 0
    requests: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    checkpoint_bytes: int = 0

    @property
    def ok(self) -> bool:
        return not self.lost and not self.wrong and not self.rework

    def lines(self) -> list[str]:
        faults = sum(self.faults.values())
        share = faults / self.requests if self.requests else 0.0
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(self.faults.items()))
        return [
            f"runs: {self.runs} in {self.seconds:.1f} s",
            f"LLM requests: {self.requests}, faults injected: {faults} ({share:.1%}): {kinds}",
            f"completed at once: {self.completed_first_time}, after resuming: {self.completed_after_resume} "
            f"({self.resumes} resumes)",
            f"lost runs: {len(self.lost)}, wrong runs: {len(self.wrong)}, completed nodes run again: {self.rework}",
            f"checkpoint file: {self.checkpoint_bytes / 1024:.0f} KiB",
            "result: " + ("OK" if self.ok else "FAILED"),
        ]


async def _one(index: int, graph_text: str, store: Any, report: SoakReport, max_resumes: int,
               limiter: anyio.CapacityLimiter) -> None:
    topic = f"topic {index}"
    run_id = f"soak-{index}"
    async with limiter:
        graph = graphrt.Graph(graph_text)
        results = None
        try:
            results = await arun_checkpointed(graph, store, run_id=run_id, inject={"topic": topic})
            report.completed_first_time += 1
        except graphrt.GraphError:
            for _ in range(max_resumes):
                report.resumes += 1
                try:
                    results = await graphrt.aresume(store, run_id)
                except graphrt.GraphError:
                    continue
                report.completed_after_resume += 1
                break
    if results is None:
        report.lost.append(run_id)
    elif results != expected(topic):
        report.wrong.append(run_id)


async def soak(
    runs: int = 1000,
    *,
    fault_rate: float = 0.1,
    seed: int = 7,
    concurrency: int = 32,
    timeout: float = 0.5,
    retries: int = 2,
    max_resumes: int = 3,
    checkpoint: Path,
) -> SoakReport:
    """Runs the soak against a fresh FaultyOpenAIServer; returns what happened.

    `timeout` is each LLM request's timeout (a slow fault answers after twice as
    long), `retries` the openAIAgent retries per node.
    """
    import os

    report = SoakReport(runs)
    graph_text = GRAPH.format(timeout=timeout, retries=retries)
    server = FaultyOpenAIServer(fault_rate, seed=seed, slow_seconds=timeout * 2).start()
    saved_env = {name: os.environ.get(name) for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = server.url, "sk-soak-not-a-real-key"
    store = SQLiteStore(checkpoint)
    started = time.perf_counter()
    try:
        limiter = anyio.CapacityLimiter(concurrency)
        async with anyio.create_task_group() as group:
            for index in range(runs):
                group.start_soon(_one, index, graph_text, store, report, max_resumes, limiter)
    finally:
        report.seconds = time.perf_counter() - started
        await store.close()
        server.close()
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    report.requests = sum(server.outcomes.values())
    report.faults = {kind: count for kind, count in server.outcomes.items() if kind != "ok"}
    report.rework = sum(count - 1 for count in server.answered.values() if count > 1)
    report.checkpoint_bytes = sum(path.stat().st_size for path in Path(checkpoint).parent.glob(Path(checkpoint).name + "*"))
    return report
