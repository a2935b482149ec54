"""What one execution of a graph shares between its run and every nested run.

`Graph.execute` builds one `RunContext` and hands it to the top `GraphRun`; a
graph agent's nested runs (nesting.py) get the same object. Nothing here
changes during the execution, so nothing has to be copied into a child run:
the registry, the one scheduler, config, events, filters, loader, executor and
services are the parent's by construction. `answers` is the mutable part,
shared on purpose: a resumed run's answers are keyed by node path and taken by
whichever run, parent or nested, asked the question. `observers` hear every
transition of every run of the execution (events, a live display's counters,
checkpointing: graphrt.observe.observer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from graphrt.authoring.registry import Registry
from graphrt.engine.scheduler import Scheduler
from graphrt.observe.emitter import Emitter
from graphrt.observe.observer import Observers

if TYPE_CHECKING:
    from graphrt.authoring.filters import AgentFilter
    from graphrt.authoring.services import RunServices
    from graphrt.engine.executor import Executor
    from graphrt.graphdata.loader import GraphLoader

__all__ = ["RunContext"]


class RunContext:
    """The run-wide settings of one graph execution, shared by its run and its nested runs.

    Attributes:
        registry: the agents every node, nested or not, can use.
        scheduler: the one scheduler whose limits bound every node of the execution.
        run_id: the execution's id, in events and checkpoints.
        config: per-agent config (`{"global": ..., agentId: ...}`) and run-wide settings.
        emitter: where agents' events go (tokens, tool calls, progress).
        observers: what hears each node's and iteration's transitions.
        filters: agent filters around every agent call.
        executor: where agent calls run; None: in this process.
        services: what the whole run shares, e.g. MCP connections (agents see `ctx.services`).
        graph_loader: loads `graphLoader` graphs; None reads files beside the graph file.
        answers: a person's answers to questions, by node path (see engine.node.answer_key).
        inner_results: of a fork from inside a nested graph, the results each nested graph keeps, by nested
            path ("outer", "outer/2"); taken by the first run of that graph (see GraphRun.child).
    """

    __slots__ = ("registry", "scheduler", "run_id", "config", "emitter", "observers", "filters", "executor",
                 "services", "graph_loader", "answers", "inner_results")

    # A plain class, not a dataclass: it is built once per execution, never compared or copied, and a
    # frozen dataclass's generated methods cost every command's start ~0.8 ms (`python -m bench startup`).
    def __init__(self, registry: Registry, scheduler: Scheduler, run_id: str, *,
                 config: Mapping[str, Any] | None = None, emitter: Emitter | None = None,
                 observers: Observers | None = None, filters: tuple[AgentFilter, ...] = (),
                 executor: Executor | None = None, services: RunServices | None = None,
                 graph_loader: GraphLoader | None = None, answers: dict[str, Any] | None = None,
                 inner_results: dict[str, dict[str, Any]] | None = None) -> None:
        self.registry = registry
        self.scheduler = scheduler
        self.run_id = run_id
        self.config: Mapping[str, Any] = {} if config is None else config
        self.emitter = Emitter() if emitter is None else emitter
        self.observers = Observers() if observers is None else observers
        self.filters = filters
        self.executor = executor
        self.services = services
        self.graph_loader = graph_loader
        self.answers: dict[str, Any] = {} if answers is None else answers
        self.inner_results: dict[str, dict[str, Any]] = {} if inner_results is None else inner_results
