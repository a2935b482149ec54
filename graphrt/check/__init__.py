"""Checking graph files before they run: `validate` runs GraphAI's rules (rules) and graphrt's own
checks (lint: nested graphs and unused results, with the GraphData JSON Schema in graphdata_schema and
each node against its agent's schemas in agent_schemas); and the graph drawn as Mermaid or DOT (viz).

Imports graphrt.base, graphrt.graphdata and graphrt.authoring.
"""
