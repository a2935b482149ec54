"""MCP over this process's stdin and stdout, where every request gets an answer.

The SDK's stdio transport drops a line its JSON-RPC model refuses: a lone surrogate
(`"\\ud800"`, which pydantic's JSON parser rejects), nesting past its parser's depth,
a request of the wrong shape. The client then waits forever for the answer. Here
the transport answers such a request itself, saying what is wrong in graphrt.base.limits'
words: `tools/call` with an error result (`isError`, as a failed run is), any other
request with a JSON-RPC error. A line that is no request (a notification, not JSON)
goes on to the SDK, which skips it, as JSON-RPC says.

As the SDK's transport does, fd 0 is pointed at the null device while serving, so a
child process reads nothing of the client's requests.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import anyio

from graphrt.base.errors import InputLimitError
from graphrt.base.limits import MAX_DEPTH, check_value, cut, shown

__all__ = ["checked_stdio", "refusal"]

_INVALID_REQUEST = -32600
_INVALID_PARAMS = -32602
_PARSE_ERROR = -32700


def refusal(line: str) -> dict[str, Any] | None:
    """The answer to a request line the SDK refused (as JSON-RPC data), or None if the line is no request."""
    unread = None  # what Python's parser could not read: then the id and method are read from the top level alone
    try:
        message = json.loads(line, parse_int=_integer)
    except RecursionError:
        message, unread = _top_level(line), f"is nested more than {MAX_DEPTH} levels deep"
    except InputLimitError as error:  # from _integer: its text says what was too long
        message, unread = _top_level(line), str(error)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None  # a notification (or an id JSON-RPC does not allow): nothing to answer
    if isinstance(request_id, str):
        try:
            request_id.encode("utf-8")
        except UnicodeEncodeError:
            return None  # an id that cannot be written back
    params = message.get("params")
    what = "the arguments" if message.get("method") == "tools/call" else "the params"
    try:
        if unread:
            raise InputLimitError(f"{what} {unread}")
        check_value(params, what)
        check_value(message.get("method"), "the method")
    except InputLimitError as error:
        reason, code = str(error), _INVALID_PARAMS
    else:
        reason, code = "not a request of the MCP protocol's shape", _INVALID_REQUEST
    if message.get("method") == "tools/call" and code == _INVALID_PARAMS:
        name = params.get("name") if isinstance(params, dict) else None
        text = f"{name}: {reason}" if isinstance(name, str) and _is_text(name) else reason
        return {"jsonrpc": "2.0", "id": request_id,
                "result": {"content": [{"type": "text", "text": cut(text)}], "isError": True}}
    method = message.get("method")
    what = f"{shown(method)}: " if isinstance(method, str) and _is_text(method) else ""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": cut(what + reason)}}


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past sys.get_int_max_str_digits()
        digits = len(text.lstrip("-"))
        raise InputLimitError(f"holds an integer of {digits:,} digits, more than graphrt reads "
                              f"({sys.get_int_max_str_digits():,})") from None


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_COLON = re.compile(r"\s*:\s*")


def _top_level(line: str) -> dict[str, Any]:
    """`id`, `method` and `params.name` of a JSON-RPC line too deep to parse, read by one scan of its brackets."""
    found: dict[str, Any] = {}
    depth = 0
    decoder = json.JSONDecoder()
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in "{[":
            depth += 1
        elif text in "}]":
            depth -= 1
        elif depth in (1, 2) and text in ('"id"', '"method"', '"name"'):
            colon = _COLON.match(line, token.end())
            if colon is None:
                continue
            try:
                value, _ = decoder.raw_decode(line, colon.end())
            except (ValueError, RecursionError):
                continue
            if isinstance(value, (int, str)) and not isinstance(value, bool):
                if depth == 1 and text != '"name"':
                    found.setdefault(text.strip('"'), value)
                elif depth == 2 and text == '"name"':
                    found.setdefault("params", {"name": value})
    return found


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _CheckedLines:
    """The lines of stdin the SDK can read; each request it cannot is answered on `answers` instead."""

    def __init__(self, lines: Any, answers: Any) -> None:
        self._lines = lines
        self._answers = answers

    def __aiter__(self) -> AsyncIterator[str]:
        return self._read()

    async def _read(self) -> AsyncIterator[str]:
        import mcp_types as types

        async for line in self._lines:
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception:  # noqa: BLE001 - any refusal of the SDK's model: answered here if it is a request
                answer = refusal(line)
                if answer is not None:
                    await self._answers.send(answer)
                    continue
            yield line


@asynccontextmanager
async def checked_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio streams (read, write), with every request line answered (see the module's docstring)."""
    import mcp_types as types
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    private = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # Never closed: a worker thread may still be blocked reading it when serving ends.
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(private, "rb", closefd=False), encoding="utf-8",
                                             errors="replace"))
    answers_in, answers_out = anyio.create_memory_object_stream[dict](16)
    try:
        async with stdio_server(stdin=_CheckedLines(stdin, answers_in)) as (read_stream, write_stream):

            async def answer() -> None:
                async with answers_out:
                    async for answer in answers_out:
                        message = types.jsonrpc_message_adapter.validate_python(answer)
                        try:
                            await write_stream.send(SessionMessage(message))
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            return

            async with anyio.create_task_group() as group:
                group.start_soon(answer)
                yield read_stream, write_stream
                group.cancel_scope.cancel()
    finally:
        os.dup2(private, 0)
