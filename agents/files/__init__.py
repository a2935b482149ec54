"""GraphAI's @graphai/vanilla_node_agents: fileReadAgent, fileWriteAgent and pathUtilsAgent.

The file agents read and write only inside a base folder: the agent's config
`baseDir` (set by whoever runs the graph: `config: {fileReadAgent: {baseDir: ...}}`,
or `global` for both), or without one the node's `params.baseDir`. Every path is
walked from that folder's descriptor, so `..`, absolute paths and symlinks that
lead out of it are refused, also when they appear after the graph was checked
(confined.py). pathUtilsAgent only computes paths, as Node's `path` does.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
