"""What a run tells the world: the typed event stream (events) and its consumers: JSON Lines
traces with redaction (trace), the transaction log and OpenTelemetry spans.

Imports graphrt.base and graphrt.graphdata; the engine emits events, and nothing here imports the engine.
"""
