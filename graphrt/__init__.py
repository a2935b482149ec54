"""graphrt: run GraphAI graph files in Python.

    import graphrt
    graphrt.run("graphs/hello.yaml", inject={"name": "Ada"})
"""

from .api import arun, run
from .errors import (
    AgentError,
    GraphAbortedError,
    GraphError,
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
from .graph import Graph
from .jsvalue import UNDEFINED
from .registry import AgentContext, AgentInfo, Registry, Sample, default_registry

__all__ = [
    "run",
    "arun",
    "Graph",
    "AgentContext",
    "AgentInfo",
    "Sample",
    "Registry",
    "default_registry",
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
    "RegistrationError",
    "ToolCallError",
    "Location",
]
