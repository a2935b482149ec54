"""The server's JSON answers: whole for any value, a lone surrogate an agent left in a result included."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

from graphrt.base.jsvalue import escape_lone_surrogates

__all__ = ["JSONAnswer"]


class JSONAnswer(JSONResponse):
    """A JSON answer that any value makes whole: a lone surrogate (which UTF-8 cannot carry) is written as
    its `\\udXXX` escape, as JavaScript's JSON.stringify writes it, instead of failing with a 500."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return escape_lone_surrogates(text).encode("utf-8")
