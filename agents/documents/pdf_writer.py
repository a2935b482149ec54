"""The smallest PDF that holds lines of text in Helvetica at given sizes: the samples' and tests' documents.

Each page is a list of `(size, text)` lines written top down, 1.5 sizes apart, and
each text is drawn with the PDF's standard Helvetica (WinAnsi: Latin-1 text only).
"""

from __future__ import annotations

__all__ = ["text_pdf"]


def _escaped(text: str) -> bytes:
    return text.encode("latin-1").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(lines: list[tuple[float, str]]) -> bytes:
    y = 800.0
    drawn = []
    for size, text in lines:
        y -= size * 1.5
        drawn.append(b"BT /F1 %g Tf 72 %g Td (%s) Tj ET" % (size, y, _escaped(text)))
    return b"\n".join(drawn)


def text_pdf(pages: list[list[tuple[float, str]]]) -> bytes:
    """A PDF of `pages`, each a list of `(font size, line of text)`."""
    count = len(pages)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count)), count),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    for index, lines in enumerate(pages):
        stream = _content(lines)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 3 0 R >> >> "
                       b"/Contents %d 0 R >>" % (5 + 2 * index))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)
