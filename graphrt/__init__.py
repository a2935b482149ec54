"""graphrt: run GraphAI graph files in Python.

    import graphrt
    graphrt.run("graphs/hello.yaml", inject={"name": "Ada"})
    graphrt.batch("graphs/hello.yaml", [{"name": "Ada"}, {"name": "Alan"}])   # one run per row

Names are imported on first use (PEP 562), so that `import graphrt`, and the
`graphrt` command, start at once. `_EXPORTS` is the one list of the public
names, each with the module that defines it; `__all__` is made from it, and the
imports for type checkers and editors repeat it (tests/test_public_api.py checks
that they agree).
"""

import typing as _typing
from importlib import import_module as _import_module
from importlib.util import find_spec as _find_spec

_EXPORTS = {
    "abatch": "graphrt.api",
    "aresume": "graphrt.api",
    "batch": "graphrt.api",
    "arun": "graphrt.api",
    "resume": "graphrt.api",
    "run": "graphrt.api",
    "AgentFilter": "graphrt.authoring.filters",
    "agent": "graphrt.authoring.functions",
    "as_agent": "graphrt.authoring.agent_like",
    "default_registry": "graphrt.authoring.plugins",
    "Progress": "graphrt.authoring.progress",
    "AgentContext": "graphrt.authoring.agent_info",
    "AgentInfo": "graphrt.authoring.agent_info",
    "Registry": "graphrt.authoring.registry",
    "Sample": "graphrt.authoring.agent_info",
    "cache_filter": "graphrt.authoring.standard_filters",
    "input_validation_filter": "graphrt.authoring.standard_filters",
    "stream_filter": "graphrt.authoring.standard_filters",
    "tool": "graphrt.authoring.toolsets",
    "toolset": "graphrt.authoring.toolsets",
    "AgentError": "graphrt.base.errors",
    "CheckpointError": "graphrt.base.errors",
    "GraphAbortedError": "graphrt.base.errors",
    "GraphError": "graphrt.base.errors",
    "GraphInterrupted": "graphrt.base.errors",
    "GraphLoadError": "graphrt.base.errors",
    "GraphValidationError": "graphrt.base.errors",
    "Interrupt": "graphrt.base.errors",
    "Location": "graphrt.base.errors",
    "NodeTimeoutError": "graphrt.base.errors",
    "RegistrationError": "graphrt.base.errors",
    "ResolveError": "graphrt.base.errors",
    "RunTimeoutError": "graphrt.base.errors",
    "ServiceError": "graphrt.base.errors",
    "ToolCallError": "graphrt.base.errors",
    "ValidationIssue": "graphrt.base.errors",
    "UNDEFINED": "graphrt.base.jsvalue",
    "Graph": "graphrt.engine.graph",
    "GraphOptions": "graphrt.engine.options",
    "RunOptions": "graphrt.engine.options",
    "Run": "graphrt.engine.run",
    "Event": "graphrt.observe.events",
}

if _typing.TYPE_CHECKING:  # what the names are, for type checkers and editors
    from graphrt.api import abatch, aresume, arun, batch, resume, run
    from graphrt.authoring.filters import AgentFilter
    from graphrt.authoring.functions import agent
    from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
    from graphrt.authoring.agent_like import as_agent
    from graphrt.authoring.plugins import default_registry
    from graphrt.authoring.progress import Progress
    from graphrt.authoring.registry import Registry
    from graphrt.authoring.standard_filters import (
        cache_filter,
        input_validation_filter,
        stream_filter,
    )
    from graphrt.authoring.toolsets import tool, toolset
    from graphrt.base.errors import (
        AgentError,
        CheckpointError,
        GraphAbortedError,
        GraphError,
        GraphInterrupted,
        GraphLoadError,
        GraphValidationError,
        Interrupt,
        Location,
        NodeTimeoutError,
        RegistrationError,
        ResolveError,
        RunTimeoutError,
        ServiceError,
        ToolCallError,
        ValidationIssue,
    )
    from graphrt.base.jsvalue import UNDEFINED
    from graphrt.engine.graph import Graph
    from graphrt.engine.options import GraphOptions, RunOptions
    from graphrt.engine.run import Run
    from graphrt.observe.events import Event

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> _typing.Any:
    module = _EXPORTS.get(name)
    if module is None:
        if _find_spec(f"graphrt.{name}") is not None:  # a subpackage: graphrt.checkpoint, ...
            return _import_module(f"graphrt.{name}")
        raise AttributeError(f"module 'graphrt' has no attribute {name!r}")
    value = getattr(_import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
