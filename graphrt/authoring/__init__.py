"""The agent model and how agents are written.

Lowest first (each module imports only those before it): `progress` (what a generator
agent yields), `agent_info` (AgentInfo, AgentContext, the NestingHandle protocol graph
agents run graphs through), `function_schema` and `functions` (agents from type hints and docstrings), `toolsets`,
`agent_like` (any agent-like object or module as AgentInfos), `packs` (an agent's pack and
the extra it needs), `registry` (Registry, and AgentIndex: agents by name, imported on first use), `plugins` (entry-point packs and the
default registry); beside them agent filters, tool-call arguments and run services.

Imports graphrt.base, graphrt.graphdata, graphrt.observe and graphrt.checkpoint; never the engine.
"""
