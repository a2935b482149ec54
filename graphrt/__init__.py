"""graphrt: run GraphAI graph files in Python.

    import graphrt
    graphrt.run("graphs/hello.yaml", inject={"name": "Ada"})
"""

from graphrt.api import aresume, arun, resume, run
from graphrt.authoring.filters import AgentFilter
from graphrt.authoring.functions import agent
from graphrt.authoring.plugins import as_agent, default_registry
from graphrt.authoring.progress import Progress
from graphrt.authoring.registry import AgentContext, AgentInfo, Registry, Sample
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
    ToolCallError,
    ValidationIssue,
)
from graphrt.base.jsvalue import UNDEFINED
from graphrt.engine.graph import Graph
from graphrt.observe.events import Event

__all__ = [
    "run",
    "arun",
    "resume",
    "aresume",
    "Graph",
    "AgentContext",
    "AgentInfo",
    "Sample",
    "Registry",
    "default_registry",
    "agent",
    "tool",
    "toolset",
    "as_agent",
    "Progress",
    "AgentFilter",
    "cache_filter",
    "input_validation_filter",
    "stream_filter",
    "Event",
    "UNDEFINED",
    "GraphError",
    "GraphLoadError",
    "GraphValidationError",
    "ValidationIssue",
    "ResolveError",
    "AgentError",
    "NodeTimeoutError",
    "GraphAbortedError",
    "RunTimeoutError",
    "GraphInterrupted",
    "CheckpointError",
    "Interrupt",
    "RegistrationError",
    "ToolCallError",
    "Location",
]
