"""How graphrt loads a GGUF with llama-cpp-python: without llama.cpp's extra buffer types.

llama.cpp repacks weights into "extra buffer types" for the CPU it finds (AMX tiles on
recent Xeons, interleaved AVX layouts). Where the kernel or a sandbox does not grant
AMX, the first llama_decode then crashes the process (SIGSEGV), although the CPU lists
the feature. Without them the small embedded model runs everywhere, a little slower on
CPUs where repacking helps. llama-cpp-python's `Llama()` has no argument for
`use_extra_bufts`: it takes its model parameters from `llama_model_default_params`,
which this context manager wraps while a model loads.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["without_extra_buffer_types"]


@contextmanager
def without_extra_buffer_types() -> Iterator[None]:
    """Models loaded inside (`Llama(...)`, the llama-cpp-python server's app) skip llama.cpp's extra buffer types."""
    from llama_cpp import llama_cpp as bindings

    defaults = bindings.llama_model_default_params

    def params() -> Any:
        chosen = defaults()
        chosen.use_extra_bufts = False
        return chosen

    bindings.llama_model_default_params = params
    try:
        yield
    finally:
        bindings.llama_model_default_params = defaults
