"""GraphAI's puppeteerAgent (@graphai/puppeteer_agent): a web page opened in a headless browser, its article read.

`inputs.url` opens in the machine's Chromium, driven by Playwright, one browser a run
(browser.py); the agent waits until the page's network is almost idle (Puppeteer's
networkidle2, page.py), reads the page's HTML with Readability (article.py) and returns
`{title, content}`: `content` is the title, a newline, and the article's text with
CRLF as LF and each run of blank or white-space lines as one newline, trimmed (the
title itself is not). A page with no article gives `{content: "\\n"}`, as GraphAI's
`article?.title` is undefined. Any failure is "puppeteerAgent error: <Name>: <why>",
or with `params.supressError` the result `{onError: {message: "puppeteerAgent error",
error}}`.

Where graphrt differs from GraphAI's:
- `onError.error` is the error as text ("Error: ..."), as graphrt's other agents give it
  (GraphAI puts the Error object there, which JSON writes as {});
- only http and https URLs are opened (Puppeteer also opens file: URLs, and so reads
  any file of the machine); no URL is an error before a browser is launched;
- the config's `timeout`, `maxBytes` and `maxRedirects` bound a visit (settings.py, page.py);
- networkidle2 counts the requests of the page and its frames together (Puppeteer
  waits for each frame to be almost idle), and Readability is readability-lxml, the
  Python port of the Readability that Mozilla's grew from (article.py says how they differ);
- the run must be on asyncio (graphrt's default), where Playwright's driver runs.
"""

from __future__ import annotations

from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, Sample
from graphrt.base.errors import AgentError, GraphError
from graphrt.base.jsvalue import UNDEFINED, is_truthy, js_trim
from graphrt.base.patterns import LazyPattern

from .article import read_article
from .browser import browser_for
from .page import read_page
from .settings import CONFIG, Settings, first_line, page_url
from .site import HOST, sample_mock

__all__ = ["AGENTS", "puppeteer_agent", "page_content"]

_BLANK_LINES = LazyPattern(r"(\n[ \t]*){2,}")


def page_content(title: str, text: str) -> str:
    """GraphAI's `content`: the title, a newline, and the text as
    `text.replace(/\\r\\n/g, "\\n").replace(/(\\n[ \\t]*){2,}/g, "\\n").trim()` (the title is not trimmed)."""
    text = _BLANK_LINES.sub("\n", text.replace("\r\n", "\n"))
    return f"{title}\n{js_trim(text)}"


def _error_text(error: BaseException) -> str:
    """`${error}` of a JavaScript error: `Name: message`, on one line."""
    name = next((kind.__name__ for kind in (TimeoutError, TypeError) if isinstance(error, kind)), "Error")
    return f"{name}: {first_line(error)}"


async def _open(ctx: AgentContext) -> dict[str, Any]:
    """What GraphAI's agent does inside its `try`: open, wait, read, return `{title, content}`."""
    url = page_url(ctx.inputs.get("url", UNDEFINED))
    settings = Settings.from_config(ctx.config)
    async with browser_for(ctx.services, settings.executable) as browser:
        html, address = await read_page(browser, url, settings)
    article = await anyio.to_thread.run_sync(read_article, html, address)
    if article is None:
        return {"content": "\n"}
    return {"title": article.title, "content": page_content(article.title, article.text)}


async def puppeteer_agent(ctx: AgentContext) -> dict[str, Any]:
    """Opens `inputs.url` in a headless Chromium and returns its article: `{title, content}`.

    Raises:
        AgentError: "puppeteerAgent error: ..." for any failure (no URL, no Chromium, a page that fails to load or
            goes past a limit); with `params.supressError` it is returned as `{onError: {message, error}}`.
    """
    try:
        return await _open(ctx)
    except Exception as error:  # noqa: BLE001 - GraphAI's agent catches everything the same way
        if is_truthy(ctx.params.get("supressError")):
            return {"onError": {"message": "puppeteerAgent error", "error": _error_text(error)}}
        field = error.field if isinstance(error, GraphError) else None
        raise AgentError(f"puppeteerAgent error: {_error_text(error)}", field=field) from error


_ARTICLE_TEXT = (
    "GraphAI runs a graph of agents as an asynchronous data flow: each node waits for the values it reads,\n"
    "then its agent runs with them.\n"
    "Nodes whose inputs are ready run at once, side by side, so a graph says what depends on what and the\n"
    "runtime finds the concurrency."
)
_SCRIPTED_TEXT = (
    "A page that a script writes has no article in the HTML its server sends: only a browser that runs the script "
    "sees it.puppeteerAgent opens the page in Chromium and waits until its network is almost idle before it reads "
    "the page."
)

AGENTS: list[AgentInfo] = [
    AgentInfo(
        name="puppeteerAgent",
        outside=True,  # loads a page from the web: journaled, so a replay needs neither the browser nor the site
        func=puppeteer_agent,
        mock=sample_mock(puppeteer_agent),
        description="Puppeteer Agent: opens a web page in a headless browser, waits until its network is almost "
                    "idle, and returns its article (Readability): {title, content}",
        inputs={"type": "object", "properties": {
            "url": {"type": "string", "description": "the web page to open (http or https)"},
        }, "required": ["url"]},
        params={"type": "object", "properties": {
            "supressError": {"type": "boolean", "description": "return a failure as {onError: {message, error}} "
                                                              "instead of failing the node"},
        }},
        output={"type": "object", "properties": {
            "title": {"type": "string", "description": "the article's title"},
            "content": {"type": "string", "description": "the title, a newline, and the article's text"},
            "onError": {"type": "object", "properties": {"message": {"type": "string"}, "error": {"type": "string"}}},
        }},
        config=CONFIG,
        tools=({
            "type": "function",
            "function": {
                "name": "puppeteerAgent--openUrl",
                "description": "open web url",
                "parameters": {"type": "object", "properties": {
                    "url": {"type": "string", "description": "web site url"},
                }, "required": ["url"]},
            },
        },),
        samples=(
            Sample(inputs={"url": f"http://{HOST}/articles/dataflow"}, params={},
                   result={"title": "Data flow for agents",
                           "content": f"Data flow for agents\nData flow for agents\n{_ARTICLE_TEXT}"},
                   description="A page's article, without its navigation and footer (the page is served on "
                               "127.0.0.1)."),
            Sample(inputs={"url": f"http://{HOST}/articles/scripted"}, params={},
                   result={"title": "Pages written by scripts",
                           "content": f"Pages written by scripts\nPages written by scripts{_SCRIPTED_TEXT}"},
                   description="An article its script writes: what the browser shows, not what the server sent."),
            Sample(inputs={"url": "file:///etc/passwd"}, params={"supressError": True},
                   result={"onError": {"message": "puppeteerAgent error",
                                       "error": "Error: only http and https URLs are opened, not file:"}},
                   description="supressError: the failure as a value; a file: URL is never opened."),
        ),
        category=("net",),
        author="Receptron team",
        repository="https://github.com/receptron/mulmocast-app",
        source="https://github.com/receptron/graphai-agents/tree/main/net/puppeteer_agent/src/puppeteer_agent.ts",
        package="@graphai/puppeteer_agent",
        license="MIT",
        environment_variables=("PUPPETEER_EXECUTABLE_PATH",),
    ),
]
