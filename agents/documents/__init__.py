"""GraphAI's @graphai/pdf2text_agent: pdf2textAgent, a PDF's text, plain or as Markdown.

It reads PDFs with pypdf (graphrt[pdf]): pure Python, BSD-3-Clause, released
every few weeks, and it reads what pdf.js reads (fonts' encodings, compressed
streams, cross-reference streams) without a native library. PyMuPDF extracts more
but is AGPL; pdfminer.six and pdfplumber (MIT) are slower and give nothing more
that this agent needs; pypdfium2 needs a native build of PDFium.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AGENTS"]


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # this package's agents, imported on first use (see graphrt_agents.INDEX)
        from graphrt_agents import agents_under

        return agents_under(__name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
