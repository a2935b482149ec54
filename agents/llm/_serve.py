"""`python -m graphrt_agents.llm._serve`: the embedded model's OpenAI-compatible server (a child process).

It serves one GGUF with the chat template stored in the GGUF itself, on
127.0.0.1 only, one request at a time (a new request waits; it never cuts the
stream of the one before short), and exits when its parent closes its stdin (or dies).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading


def _exit_with_parent() -> None:
    """Blocks until stdin reaches EOF (the parent is gone), then ends the process."""
    try:
        while sys.stdin.buffer.read(1024):
            pass
    finally:
        os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="path of the GGUF file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", required=True, help="the model name the server reports")
    parser.add_argument("--n-ctx", type=int, default=4096)
    args = parser.parse_args()
    threading.Thread(target=_exit_with_parent, daemon=True).start()

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    model = ModelSettings(
        model=args.model,
        model_alias=args.alias,
        n_ctx=args.n_ctx,
        # None: the GGUF's own chat template (llama-cpp-python's built-in format when the template is one it
        # knows word for word, its fallback for a file with none); chatml-function-calling drops tool results.
        chat_format=None,
        verbose=False,
    )
    from graphrt_agents.llm.llama_params import without_extra_buffer_types

    # interrupt_requests: llama-cpp-python's default ends a streamed reply when another request arrives, and
    # the first client then sees a stream without finish_reason. Off, the second request waits its turn.
    server = ServerSettings(host="127.0.0.1", port=args.port, interrupt_requests=False)
    with without_extra_buffer_types():  # the app loads the model: without the buffers that can crash decoding
        app = create_app(server_settings=server, model_settings=[model])
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
