"""The MCP servers of a run, in the `mcpServers` shape that MCP clients share.

    {"mcpServers": {
        "files": {"command": "python", "args": ["-m", "graphrt.mcp.file_server", "notes"], "env": {...}},
        "search": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer ${SEARCH_KEY}"}}
    }}

`command`/`args`/`env`/`cwd` start a server over stdio; `url` (with `headers`) reaches one over
streamable HTTP. Also read: `disabled` (the server is left out), `timeout` (seconds for each
request, default 60) and `startupTimeout` (seconds to start and initialize, default 30). `${VAR}` and `${VAR:-default}` in strings are
taken from the environment, as Claude Code reads `.mcp.json`, so keys stay out of the file.
A relative command is looked up beside the running Python first (a virtualenv's `python` and
scripts work without activating it), then on PATH. GraphAI's bare `{name: {command, args}}`
mapping (its `mcpConfig`) is read the same way.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from graphrt.base.errors import GraphError, InputLimitError
from graphrt.base.limits import read_file, shown

__all__ = ["McpConfigError", "ServerConfig", "parse_servers", "load_config_file", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 30.0
_MAX_CONFIG = 16 * 1024 * 1024  # bytes of an mcp.json: more is not a config (or is /dev/zero)
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http",
               "streamableHttp": "http"}


class McpConfigError(GraphError):
    """The MCP server configuration is not usable; the message names the server and the key."""


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server: how to start or reach it."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT

    @property
    def transport(self) -> str:
        return "http" if self.url is not None else "stdio"

    def describe(self) -> str:
        """Where the server is, for error messages (never the env or headers: they may hold keys)."""
        return self.url if self.url is not None else " ".join([self.command or "", *self.args]).strip()


def _expand(value: str, where: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is not None:
            return default
        raise McpConfigError(f"{where}: environment variable {name} is not set (write ${{{name}:-default}} for a default)")

    return _VARIABLE.sub(replace, value)


def _string(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise McpConfigError(f"{where}: '{key}' must be a non-empty string, got {json.dumps(value)}")
    return _expand(value, f"{where}, '{key}'")


def _strings(entry: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, (str, int, float)) for item in value):
        raise McpConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(_expand(str(item), f"{where}, '{key}'") for item in value)


def _string_map(entry: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(item, (str, int, float)) for item in value.values()):
        raise McpConfigError(f"{where}: '{key}' must be an object of strings")
    return {str(name): _expand(str(item), f"{where}, '{key}.{name}'") for name, item in value.items()}


def _seconds(entry: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise McpConfigError(f"{where}: '{key}' must be a positive number of seconds, got {shown(value)}")
    return float(value)


def resolve_command(command: str) -> str:
    """A relative command beside the running Python (its virtualenv) first, then on PATH; else as given."""
    if os.sep in command:
        return command
    beside = Path(sys.executable).parent / command
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(command) or command


def _server(name: str, entry: Any, origin: str) -> ServerConfig | None:
    where = f"{origin}: MCP server '{name}'"
    if "--" in name or not name:
        raise McpConfigError(f"{where}: a server name cannot be empty or contain '--' (tool names are server--tool)")
    if not isinstance(entry, dict):
        # Its type, never its text: what was meant as a server's entry may hold its token.
        raise McpConfigError(f"{where}: expected an object with 'command' or 'url', got {type(entry).__name__}")
    if entry.get("disabled") is True:
        return None
    kind = entry.get("type", entry.get("transport"))
    if kind is not None and kind not in _TRANSPORTS:
        raise McpConfigError(f"{where}: transport {kind!r} is not supported (use stdio with 'command', "
                             f"or streamable HTTP with 'url')")
    timeout = _seconds(entry, "timeout", DEFAULT_TIMEOUT, where)
    startup_timeout = _seconds(entry, "startupTimeout", DEFAULT_STARTUP_TIMEOUT, where)
    command, url = _string(entry, "command", where), _string(entry, "url", where)
    if (command is None) == (url is None):
        raise McpConfigError(f"{where}: give either 'command' (stdio) or 'url' (streamable HTTP)")
    if url is not None:
        if not url.startswith(("http://", "https://")):
            raise McpConfigError(f"{where}: 'url' must be an http:// or https:// URL")
        return ServerConfig(name, url=url, headers=_string_map(entry, "headers", where), timeout=timeout,
                            startup_timeout=startup_timeout)
    return ServerConfig(name, command=resolve_command(command), args=_strings(entry, "args", where),
                        env=_string_map(entry, "env", where), cwd=_string(entry, "cwd", where), timeout=timeout,
                        startup_timeout=startup_timeout)


def parse_servers(config: Any, origin: str = "config 'mcp'") -> dict[str, ServerConfig]:
    """The servers of `{"mcpServers": {...}}` (or of a bare `{name: {...}}` mapping), by name.

    Raises:
        McpConfigError: the configuration is malformed; the message names the server and key.
    """
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise McpConfigError(f"{origin}: expected an object with 'mcpServers', got {type(config).__name__}")
    servers = config.get("mcpServers", config)
    if not isinstance(servers, dict):
        raise McpConfigError(f"{origin}: 'mcpServers' must be an object of servers by name")
    parsed = {name: _server(str(name), entry, origin) for name, entry in servers.items()}
    return {name: server for name, server in parsed.items() if server is not None}


def load_config_file(path: str | Path) -> dict[str, Any]:
    """Reads an `mcp.json` file and checks it; returns its content, to be passed as `config["mcp"]`.

    Raises:
        McpConfigError: the file cannot be read, is not JSON, or describes a server wrongly.
    """
    try:
        data = json.loads(read_file(path, max_bytes=_MAX_CONFIG).decode("utf-8"))
    except OSError as error:
        raise McpConfigError(f"{path}: cannot read the MCP config: {error.strerror or error}") from error
    except InputLimitError as error:
        raise McpConfigError(f"{path}: cannot read the MCP config: {error}") from None
    except RecursionError:
        raise McpConfigError(f"{path}: the MCP config is nested too deeply") from None
    except ValueError as error:
        raise McpConfigError(f"{path}: the MCP config is not valid JSON: {error}") from error
    parse_servers(data, str(path))
    return data
