"""GraphAI's pdf2textAgent (@graphai/pdf2text_agent 0.2.1): `{text}` of the PDF in `inputs.buffer`.

Plain text (the default) is what GraphAI's unpdf gives with `mergePages`: the
pages' text joined by newlines, every run of white space then made one space.
`params.type: md` (or `markdown`) gives Markdown, as GraphAI's pdf2md does by its
main rule: the most used text size is the body's; on the page that holds the
largest text, lines well above the body's size are headings (`#` for the largest,
`##` for the rest), elsewhere each larger size is a level from `##` down to
`######`; lines further apart than the body's usual line distance start a new
paragraph. pdf2md's other passes (lists, code and quote blocks, tables of
contents, bold and italic, repeated headers and footers) are not done.

The buffer is the bytes a file agent read (fileReadAgent's `outputType: buffer`), or
a Node Buffer as JSON writes it (`{type: "Buffer", data: [...]}`), or base64 text.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError
from graphrt.base.jsvalue import UNDEFINED, is_truthy

from .pdf_writer import text_pdf

__all__ = ["AGENTS", "pdf2text_agent"]


def pdf_bytes(buffer: Any) -> bytes:
    """The bytes of `inputs.buffer`: bytes, a Buffer's JSON form, or base64 text.

    Raises:
        TypeError: anything else.
    """
    if isinstance(buffer, (bytes, bytearray, memoryview)):
        return bytes(buffer)
    if isinstance(buffer, dict) and buffer.get("type") == "Buffer" and isinstance(buffer.get("data"), list):
        try:
            return bytes(buffer["data"])
        except (TypeError, ValueError) as error:
            raise TypeError(f"pdf2textAgent: inputs.buffer's data must be bytes (0-255): {error}") from None
    if isinstance(buffer, str):
        try:
            return base64.b64decode(buffer, validate=True)
        except (binascii.Error, ValueError):
            raise TypeError("pdf2textAgent: inputs.buffer is text that is not base64") from None
    raise TypeError(f"pdf2textAgent: inputs.buffer must be the PDF's bytes (a Buffer), got {type(buffer).__name__}")


def _read(data: bytes, markdown: bool) -> str:
    """The text of the PDF `data`, plain or as Markdown; pypdf reads it lazily, so every failure is caught here."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")  # a file with an owner password only opens, as pdf.js opens it
        return _markdown(reader) if markdown else _plain(reader)
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError, NotImplementedError) as error:
        raise AgentError(f"pdf2textAgent: inputs.buffer is not a PDF that can be read: {type(error).__name__}: "
                            f"{error}") from error


def _plain(reader: Any) -> str:
    """unpdf's `extractText(pdf, {mergePages: true}).text`."""
    return re.sub(r"\s+", " ", "\n".join(page.extract_text() or "" for page in reader.pages))


@dataclass
class _Line:
    text: str
    height: float
    y: float
    page: int


def _lines(reader: Any) -> list[_Line]:
    """Every non-blank line of text, in reading order, with its text size and height on the page."""
    lines: list[_Line] = []
    for number, page in enumerate(reader.pages):
        pieces: list[tuple[str, float, float]] = []

        def visit(text: str, cm: list[float], tm: list[float], _font: Any, size: float) -> None:
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) or 1.0
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            pieces.append((text, round(float(size) * scale, 1), y))

        page.extract_text(visitor_text=visit)
        current: list[tuple[str, float, float]] = []
        for text, height, y in [*pieces, ("\n", 0.0, 0.0)]:
            for part_index, part in enumerate(text.split("\n")):
                if part_index:  # a line ended before this part
                    words = "".join(piece for piece, _, _ in current).strip()
                    if words:
                        shown = [(h, py) for piece, h, py in current if piece.strip()]
                        lines.append(_Line(words, max(h for h, _ in shown), shown[0][1], number))
                    current = []
                if part:
                    current.append((part, height, y))
    return lines


def _markdown(reader: Any) -> str:
    """The document as Markdown, by pdf2md's headline rule (see the module's docstring)."""
    lines = _lines(reader)
    if not lines:
        return ""
    body = Counter(line.height for line in lines).most_common(1)[0][0]
    largest = max(line.height for line in lines)
    gaps = Counter(round(above.y - below.y, 1) for above, below in zip(lines, lines[1:])
                   if above.page == below.page and above.height == below.height == body and above.y > below.y)
    distance = gaps.most_common(1)[0][0] if gaps else body * 1.2
    title_pages = {line.page for line in lines if line.height == largest}
    second_level = body + (largest - body) / 4

    def on_title_page(line: _Line) -> bool:
        return line.page in title_pages and line.height > second_level

    sizes = sorted({line.height for line in lines if line.height > body and not on_title_page(line)}, reverse=True)
    blocks: list[list[str]] = []
    previous: _Line | None = None
    for line in lines:
        level = 0
        if on_title_page(line):
            level = 1 if line.height == largest else 2
        elif line.height > body:
            level = min(sizes.index(line.height) + 2, 6)
        if level:
            blocks.append([f"{'#' * level} {line.text}"])
            previous = None
            continue
        new_paragraph = (previous is None or previous.page != line.page
                         or previous.y - line.y > distance * 1.5 or previous.y < line.y)
        if new_paragraph:
            blocks.append([line.text])
        else:
            blocks[-1].append(line.text)
        previous = line
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"


def pdf2text_agent(ctx: AgentContext) -> dict[str, str]:
    """`{text}`: the PDF's text, plain (one line) by default, Markdown with `params.type` `md` or `markdown`.

    Raises:
        ValueError: "pdf2textAgent required buffer" (GraphAI's) when there is none.
        TypeError: a buffer that is not bytes, a Buffer's JSON form or base64 text.
        AgentError: the bytes are not a PDF that can be read (pypdf's error is the cause).
    """
    buffer = ctx.inputs.get("buffer", UNDEFINED)
    if not is_truthy(buffer):
        raise ValueError("pdf2textAgent required buffer")
    return {"text": _read(pdf_bytes(buffer), ctx.params.get("type") in ("md", "markdown"))}


_SAMPLE_PDF = text_pdf([[(24, "GraphAI"), (12, "GraphAI runs graphs of agents."), (12, "Each node waits for its inputs.")],
                        [(16, "Agents"), (12, "An agent is a function.")]])

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="pdf2textAgent",
        func=pdf2text_agent,
        description="Pdf2text Agent",
        inputs={"type": "object", "properties": {"buffer": {
            "description": "the PDF's bytes (a Buffer, as fileReadAgent reads it with outputType buffer), or base64"}},
            "required": ["buffer"]},
        params={"type": "object", "properties": {"type": {
            "type": "string", "enum": ["text", "md", "markdown"],
            "description": "md or markdown: Markdown with headings; anything else: the text on one line"}}},
        output={"type": "object", "properties": {"text": {"type": "string"}}},
        samples=(  # GraphAI's one sample is not a PDF (Buffer.from("hellopdf")) and expects {test: "hello"}
            Sample(inputs={"buffer": _SAMPLE_PDF}, params={},
                   result={"text": "GraphAI GraphAI runs graphs of agents. Each node waits for its inputs. Agents An agent "
                                   "is a function."},
                   description="A two-page PDF's text on one line, as unpdf's mergePages gives it."),
            Sample(inputs={"buffer": _SAMPLE_PDF}, params={"type": "md"},
                   result={"text": "# GraphAI\n\nGraphAI runs graphs of agents.\nEach node waits for its inputs.\n\n"
                                   "## Agents\n\nAn agent is a function.\n"},
                   description="As Markdown: the larger text sizes are headings."),
        ),
        category=("documents",),
        author="Receptron team",
        repository="https://github.com/receptron/graphai-agents/tree/main/documents/pdf2text_agent",
        source="https://github.com/receptron/graphai-agents/tree/main/documents/pdf2text_agent/src/pdf2text_agent.ts",
        package="@graphai/pdf2text_agent",
        license="MIT",
    ),
]
