"""Checking graph files before they run: GraphAI's rules (validate), agents' schemas and the
GraphData JSON Schema (lint), and the graph drawn as Mermaid or DOT (viz).

Imports graphrt.base, graphrt.graphdata and graphrt.authoring.
"""
