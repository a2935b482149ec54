"""A page's article, as Readability finds it: its title and its text (readability-lxml, graphrt[browser]).

GraphAI's agent parses the page with Mozilla's Readability (`new Readability(dom).parse()`)
and takes the article's `title` and `textContent`. readability-lxml is the Python port
of arc90's Readability, from which Mozilla's grew: it scores the page's blocks the same
way and keeps the best with its siblings, leaving navigation, footers, scripts and
styles out. Where the two can differ: the title is the document's <title> shortened
as Readability does it (a site's name after " | " or " - " dropped), without Mozilla's
preference for a page's og:title or JSON-LD headline, and Mozilla drops a heading that
repeats the title from the text. A page whose article has no text has no article
(Mozilla's `parse()` returns null), so GraphAI's result has no title.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphrt.base.jsvalue import js_trim

__all__ = ["Article", "read_article"]


@dataclass(frozen=True)
class Article:
    """Readability's article: its title and the text of its content (`textContent`)."""

    title: str
    text: str


def read_article(html: str, url: str) -> Article | None:
    """The article of a page's HTML (`url` is where it came from, for its links); None when it has no text."""
    import lxml.html
    from readability import Document

    document = Document(html, url=url)
    title = document.short_title()
    content = document.summary(html_partial=True)
    text = lxml.html.fromstring(content).text_content() if content.strip() else ""
    if not js_trim(text):
        return None
    return Article(title, text)
