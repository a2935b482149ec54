"""Click a node, see everything: the viewer's node detail in a real browser (Debian's chromium, Playwright).

A node's resolved inputs and result (collapsible, long values cut with a way to
expand), its error with its place in the file, attempts, timings (running,
waiting for a person), streamed text and tool calls; the run's own inputs and
answers. Values are redacted exactly as the trace of the same events is.
"""

from __future__ import annotations

import os
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.base.secrets import MASK, Redactor
from graphrt.observe.events import ToolCalled, ToolReturned

from .browser import browser, open_page  # noqa: F401 - fixture

DEBUGGED = """\
version: 0.5
nodes:
  topic:
    value: graphs
  flaky:
    agent: flakyAgent
    retry: 2
    inputs:
      topic: :topic
      api_key: sk-live-abcdefghijklmnopqrstuvwx
  big:
    agent: bigAgent
    inputs:
      after: :flaky
  name:
    agent: textInputAgent
    inputs:
      after: :big
    params:
      message: What is your name?
  broken:
    agent: brokenAgent
    inputs:
      name: :name.text
    isResult: true
"""


def _agents() -> list[AgentInfo]:
    calls = {"flaky": 0}

    async def flaky(ctx: AgentContext) -> Any:
        calls["flaky"] += 1
        if calls["flaky"] == 1:
            raise ConnectionError("the first try loses its connection")
        ctx.emit(ToolCalled, tool_call_id="c1", name="wiki--search", arguments='{"query": "graphs"}')
        ctx.emit(ToolReturned, tool_call_id="c1", name="wiki--search", content="Graphs are drawings.")
        for token in ("Graphs ", "are ", "drawings."):
            ctx.stream_token(token)
        return {"text": "Graphs are drawings."}

    async def big(ctx: AgentContext) -> Any:
        return {"text": "x" * 2000, "items": list(range(100))}

    async def broken(ctx: AgentContext) -> Any:
        raise ValueError(f"cannot greet {ctx.inputs['name']}")

    return [AgentInfo(name="flakyAgent", func=flaky), AgentInfo(name="bigAgent", func=big),
            AgentInfo(name="brokenAgent", func=broken)]


def test_a_clicked_node_shows_its_inputs_result_error_attempts_and_timings(serve, browser):
    from playwright.sync_api import expect

    served = serve({"debugged.yaml": DEBUGGED}, agents=_agents())
    page, errors = open_page(browser, served.url + "/#graph=debugged")
    page.locator("#input-topic").fill("trees")
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#question")).to_have_text("What is your name?", timeout=10_000)
    page.locator("#answer-input").fill("Ada")
    page.get_by_role("button", name="Answer").click()
    expect(page.locator("#run-status")).to_have_text("failed", timeout=10_000)
    detail = page.locator("#node-detail")
    run_id = page.locator("#run-id").inner_text()

    # The run: what it was started with and what the person answered.
    expect(page.locator("#run-inputs")).to_contain_text('topic: "trees"')
    expect(page.locator("#answers")).to_contain_text("name Ada")

    # A node retried once: two attempts, the first one's error; its inputs, redacted; its tool call and text.
    page.locator('[data-node="flaky"]').click()
    expect(detail.locator(".detail-key")).to_have_text("flaky")
    expect(detail.locator('[data-section="attempts"] li')).to_have_count(2)
    expect(detail.locator('[data-section="attempts"] li').first).to_contain_text("the first try loses its connection")
    expect(detail.locator('[data-section="inputs"]')).to_contain_text('topic: "trees"')
    expect(detail.locator('[data-section="inputs"]')).to_contain_text(f'api_key: "{MASK}"')
    assert "sk-live" not in detail.inner_text()
    expect(detail.locator('[data-section="tool calls"]')).to_contain_text('query: "graphs"')
    expect(detail.locator('[data-section="tool calls"]')).to_contain_text("→ Graphs are drawings.")
    expect(detail.locator('[data-section="streamed"] pre')).to_have_text("Graphs are drawings.")
    expect(detail.locator('[data-section="timings"]')).to_contain_text("running")

    # The API's values are the trace's: one redaction for both.
    with served.client() as client:
        node = client.get(f"/runs/{run_id}/nodes/flaky").json()
    assert node["inputs"] == Redactor().value({"topic": "trees", "api_key": "sk-live-abcdefghijklmnopqrstuvwx"})
    assert [attempt["attempt"] for attempt in node["attempts"]] == [1, 2]

    # A large result: cut, with a way to see all of it.
    page.locator('[data-node="big"]').click()
    result = detail.locator('[data-section="result"]')
    expect(result).to_contain_text("show all 2,000 characters")
    expect(result).to_contain_text("show 60 more")
    assert "x" * 400 not in result.inner_text()
    result.get_by_role("button", name="show all 2,000 characters").click()
    assert "x" * 2000 in result.inner_text()
    result.get_by_role("button", name="show 60 more").click()
    expect(result).to_contain_text("99: 99")

    # The node that asked: the time it waited for the person.
    page.locator('[data-node="name"]').click()
    expect(detail.locator('[data-section="timings"]')).to_contain_text("waiting for a person")
    expect(detail.locator('[data-section="result"]')).to_contain_text('text: "Ada"')

    # The failed node: its error and where in the file.
    page.locator('[data-node="broken"]').click()
    expect(detail.locator('[data-section="error"]')).to_contain_text("cannot greet Ada")
    expect(detail.locator(".detail-location")).to_contain_text("debugged.yaml:")

    # A static node: its value in this run.
    page.locator('[data-node="topic"]').click()
    expect(detail).to_contain_text('"trees"')
    assert not errors, errors
    shot = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT_DETAIL")
    if shot:
        page.locator('[data-node="flaky"]').click()
        expect(detail.locator('[data-section="attempts"] li')).to_have_count(2)
        page.screenshot(path=shot, full_page=True)


ASKS_TWICE = """\
version: 0.5
nodes:
  draft:
    agent: openAIAgent
    inputs: {prompt: Draft it.}
  polish:
    agent: openAIAgent
    inputs: {prompt: ":draft.text"}
    isResult: true
"""


def test_the_run_and_a_clicked_node_say_what_they_spent(serve, browser, openai_server, reply):
    from playwright.sync_api import expect

    openai_server.script(reply.text("a draft"), reply.error(500), reply.text("polished"))
    served = serve({"asks.yaml": ASKS_TWICE}, config={"prices": {"openai": {"*": {"input": 100, "output": 100}}}})
    page, errors = open_page(browser, served.url + "/#graph=asks")
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator("#run-usage")).to_have_text("3 LLM calls (1 retried) · 36 tokens (some unknown) · $0.0036")
    page.locator('[data-node="draft"]').click()
    expect(page.locator('#node-detail [data-section="usage"] p')).to_have_text("1 LLM call · 18 tokens · $0.0018")
    assert not errors, errors
