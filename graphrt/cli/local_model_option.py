"""`--local-model FILE.gguf`, shared by the commands that run graphs: the GGUF the embedded model serves.

LLM agents start the embedded model when no server is configured; it serves the file that
GRAPHRT_LOCAL_MODEL names (graphrt_agents.llm.local_model reads it), so the option sets that variable
for this process and its children rather than reaching into the agent library, which graphrt never imports.
"""

from __future__ import annotations

import argparse
import os

__all__ = ["add_local_model_option", "apply_local_model", "LOCAL_MODEL_ENV"]

LOCAL_MODEL_ENV = "GRAPHRT_LOCAL_MODEL"


def add_local_model_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--local-model", metavar="FILE.gguf",
                        help="the GGUF model the embedded llama.cpp server runs when no LLM server is configured, "
                        f"with the chat template stored in it (default: ${LOCAL_MODEL_ENV}, else SmolLM2-135M-Instruct)")


def apply_local_model(args: argparse.Namespace) -> None:
    """Makes `--local-model` the embedded model's file, as GRAPHRT_LOCAL_MODEL would."""
    chosen = getattr(args, "local_model", None)
    if chosen:
        os.environ[LOCAL_MODEL_ENV] = os.path.abspath(os.path.expanduser(chosen))
