"""The soak test of durable runs: `python -m bench.soak` (see run.py and server.py)."""
