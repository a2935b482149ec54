"""Embeddings from the embedded model, for stringEmbeddingsAgent when no server is configured.

The embedded model's GGUF (SmolLM2-135M-Instruct, from `graphrt[local]`) is loaded
in this process by llama-cpp-python in embedding mode, once, and shared: each text's
token states are mean-pooled and scaled to length 1, so that dotProductAgent gives
cosine similarities, as with OpenAI's embeddings. It is a small chat model, not an
embedding model: its similarities rank related texts above unrelated ones, no more.

llama.cpp loads it without its extra buffer types (llama_params.py: their AMX
repacking crashes llama_decode where AMX is not granted).
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

import anyio

from .llama_params import without_extra_buffer_types
from .local_model import EmbeddedModelError, find_gguf

__all__ = ["LOCAL_EMBEDDING_MODEL", "local_embeddings"]

LOCAL_EMBEDDING_MODEL = "SmolLM2-135M-Instruct"
_N_CTX = 2048  # tokens per text; longer texts are cut (as OpenAI's API refuses them, this is kinder)
_INSTALL_HINT = (
    "no embeddings server is configured: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL or params.baseURL "
    "(any OpenAI-compatible server: Ollama, vLLM, llama.cpp), or install the embedded model with "
    "pip install 'graphrt[local]'"
)

_lock = threading.Lock()  # one llama context: one call at a time
_model: Any = None


def _load() -> Any:
    """The model in embedding mode; the caller holds `_lock`."""
    global _model
    if _model is None:
        gguf = find_gguf()
        try:
            import llama_cpp
        except ImportError:
            llama_cpp = None
        if gguf is None or llama_cpp is None:
            raise EmbeddedModelError(_INSTALL_HINT)
        with without_extra_buffer_types():
            _model = llama_cpp.Llama(model_path=str(gguf), embedding=True, n_ctx=_N_CTX, n_batch=_N_CTX,
                                     n_ubatch=_N_CTX, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN, verbose=False)
    return _model


@atexit.register
def _close() -> None:
    """Frees the model before the interpreter tears down the modules its finalizer needs."""
    global _model
    with _lock:
        if _model is not None:
            _model.close()
            _model = None


def _embed(texts: list[str]) -> tuple[list[list[float]], int]:
    with _lock:
        vectors, tokens = _load().embed(texts, normalize=True, truncate=True, return_count=True)
    return [list(map(float, vector)) for vector in vectors], tokens


async def local_embeddings(texts: list[str]) -> tuple[list[list[float]], int]:
    """One unit-length vector per text, and the number of tokens read, from the embedded model (in a thread).

    Raises:
        EmbeddedModelError: `graphrt[local]` is not installed.
    """
    return await anyio.to_thread.run_sync(_embed, texts)
