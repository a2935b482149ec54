"""Small Markdown writers the generated pages share."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["cell", "fenced", "json_block", "anchor"]


def cell(text: Any) -> str:
    """`text` as one cell of a Markdown table: on one line, with its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def fenced(text: str, language: str = "") -> str:
    """`text` in a fenced code block, with a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def json_block(value: Any) -> str:
    """A JSON value, indented, as a fenced block."""
    return fenced(json.dumps(value, indent=2, ensure_ascii=False, default=str), "json")


def anchor(text: str) -> str:
    """The id MkDocs' toc extension gives a heading of `text` (its default slugify: lower case, words joined by -)."""
    import re
    import unicodedata

    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)
