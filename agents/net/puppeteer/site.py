"""The web site of puppeteerAgent's samples: a few pages of http://graphai.example, served on 127.0.0.1.

The samples' mock (`sample_mock`) serves the site on a free loopback port and gives
its address to the real agent as the config's `proxy`: the browser asks it for every
URL, so a sample opens its page by its own URL and nothing leaves 127.0.0.1 (any other
host is answered 502). One page is written by its script, from JSON it fetches, to show
that the agent reads what a browser shows, not what the server sent.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ..._loopback import Answer, Request, serving

__all__ = ["HOST", "PAGES", "Site", "sample_mock"]

HOST = "graphai.example"

_ARTICLE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Data flow for agents | GraphAI Notes</title>
<style>body { font-family: sans-serif; }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/articles">Articles</a> <a href="/about">About</a></nav>
<article>
<h1>Data flow for agents</h1>
<p>GraphAI runs a graph of agents as an asynchronous data flow: each node waits for the values it reads,
then its agent runs with them.</p>

 \t
<p>Nodes whose inputs are ready run at once, side by side, so a graph says what depends on what and the
runtime finds the concurrency.</p>
</article>
<footer>GraphAI Notes, 2025. <a href="/privacy">Privacy</a></footer>
</body>
</html>
"""

_SCRIPTED = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Pages written by scripts | GraphAI Notes</title></head>
<body>
<nav><a href="/">Home</a> <a href="/articles">Articles</a></nav>
<article id="article"><h1>Pages written by scripts</h1></article>
<script>
fetch("/articles/scripted.json").then(answer => answer.json()).then(paragraphs => {
  for (const text of paragraphs) {
    const paragraph = document.createElement("p");
    paragraph.textContent = text;
    document.getElementById("article").append(paragraph);
  }
});
</script>
</body>
</html>
"""

_SCRIPTED_JSON = """[
  "A page that a script writes has no article in the HTML its server sends: only a browser that runs the script \
sees it.",
  "puppeteerAgent opens the page in Chromium and waits until its network is almost idle before it reads the page."
]"""

PAGES: Mapping[str, tuple[str, str]] = {
    "/articles/dataflow": ("text/html; charset=utf-8", _ARTICLE),
    "/articles/scripted": ("text/html; charset=utf-8", _SCRIPTED),
    "/articles/scripted.json": ("application/json", _SCRIPTED_JSON),
}
"""The site's pages by path: content type and body."""


class Site:
    """A stand-in of http://graphai.example, asked as a proxy (or directly): its pages, 404 for other paths,
    502 for other hosts (the samples reach nothing else)."""

    def __init__(self, pages: Mapping[str, tuple[str, str]] = PAGES, host: str = HOST) -> None:
        self.pages = pages
        self.host = host

    def answer(self, request: Request) -> Answer:
        host = request.headers.get("host", "").split(":")[0]
        if host not in (self.host, "127.0.0.1"):
            return 502, {"Content-Type": "text/plain"}, f"this stand-in serves only {self.host}".encode()
        page = self.pages.get(request.path)
        if request.method != "GET" or page is None:
            return 404, {"Content-Type": "text/html"}, b"<html><head><title>Not Found</title></head></html>"
        content_type, body = page
        return 200, {"Content-Type": content_type}, body.encode()


def sample_mock(agent: Any) -> Any:
    """puppeteerAgent's mock: the real agent, with the samples' site served on 127.0.0.1 as its proxy."""

    async def mock(ctx: Any) -> Any:
        with serving(Site()) as proxy:
            return await agent(dataclasses.replace(ctx, config={**(ctx.config or {}), "proxy": proxy}))

    mock.__name__ = "puppeteer_agent_mock"
    return mock
