"""pdf2textAgent on PDFs made here (pdf_writer.py) and read by pypdf: GraphAI's plain text and Markdown."""

from __future__ import annotations

import base64

import pytest

import graphrt

pytestmark = pytest.mark.needs("pdf")


def _agents():
    from graphrt_agents.documents.pdf2text import AGENTS

    return AGENTS


def _pdf(pages) -> bytes:
    from graphrt_agents.documents.pdf_writer import text_pdf

    return text_pdf(pages)


@pytest.fixture
def pdf2text():
    def run(buffer, **params):
        graph = {"version": 0.5, "nodes": {"src": {"value": {"buffer": buffer}},
                                           "out": {"agent": "pdf2textAgent", "inputs": {"buffer": ":src.buffer"},
                                                   "params": params, "isResult": True}}}
        return graphrt.run(graph)["out"]["text"]

    return run


def test_every_sample_gives_its_result() -> None:
    from graphrt.testing import sample_cases

    for case in sample_cases(*_agents()):
        case.check()


def test_plain_text_is_every_page_on_one_line(pdf2text) -> None:
    pdf = _pdf([[(12, "one  two"), (12, "three")], [(12, "four")]])
    assert pdf2text(pdf) == "one two three four"


def test_a_buffer_as_json_or_base64_reads_the_same(pdf2text) -> None:
    pdf = _pdf([[(12, "hello")]])
    assert pdf2text({"type": "Buffer", "data": list(pdf)}) == "hello"
    assert pdf2text(base64.b64encode(pdf).decode()) == "hello"


def test_markdown_headings_follow_text_sizes(pdf2text) -> None:
    pdf = _pdf([[(20, "Title"), (11, "Body one."), (11, "Body two.")],
                [(15, "Section"), (13, "Subsection"), (11, "Text.")]])
    assert pdf2text(pdf, type="markdown") == (
        "# Title\n\nBody one.\nBody two.\n\n## Section\n\n### Subsection\n\nText.\n")


def test_no_buffer_fails_with_graphais_message(pdf2text) -> None:
    with pytest.raises(graphrt.GraphError, match="pdf2textAgent required buffer"):
        graphrt.run({"version": 0.5, "nodes": {"out": {"agent": "pdf2textAgent", "isResult": True}}})


def test_bytes_that_are_not_a_pdf_fail_saying_so(pdf2text) -> None:
    with pytest.raises(graphrt.GraphError, match="pdf2textAgent: inputs.buffer is not a PDF that can be read"):
        pdf2text(b"hellopdf")


def test_a_buffer_of_another_kind_is_refused(pdf2text) -> None:
    with pytest.raises(graphrt.GraphError, match=r"inputs.buffer must be the PDF's bytes \(a Buffer\), got int"):
        pdf2text(5)
