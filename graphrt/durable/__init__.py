"""Runs that survive their process: running a graph against a checkpoint store and resuming it.

Imports the engine and graphrt.checkpoint.
"""
