"""The agent model and how agents are written: AgentInfo, AgentContext and Registry
(registry), function agents and tool sets built from type hints and docstrings, agent filters,
tool-call arguments, and agents found in modules and installed packs (plugins).

Imports graphrt.base, graphrt.graphdata and graphrt.observe; never the engine.
"""
