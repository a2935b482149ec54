"""graphrt: run GraphAI graph files in Python.

    import graphrt
    graphrt.run("graphs/hello.yaml", inject={"name": "Ada"})
"""

from .api import aresume, arun, resume, run
from .authoring import agent
from .errors import (
    AgentError,
    CheckpointError,
    GraphAbortedError,
    GraphError,
    GraphInterrupted,
    Interrupt,
    GraphLoadError,
    GraphValidationError,
    Location,
    NodeTimeoutError,
    RegistrationError,
    ResolveError,
    ToolCallError,
    ValidationIssue,
)
from .events import Event
from .filters import AgentFilter
from .graph import Graph
from .jsvalue import UNDEFINED
from .plugins import as_agent
from .progress import Progress
from .registry import AgentContext, AgentInfo, Registry, Sample, default_registry
from .standard_filters import cache_filter, input_validation_filter, stream_filter
from .toolsets import tool, toolset

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
    "GraphInterrupted",
    "CheckpointError",
    "Interrupt",
    "RegistrationError",
    "ToolCallError",
    "Location",
]
