"""The run viewer page in a real browser: Debian's chromium, driven by Playwright.

Skipped when chromium or Playwright is missing, unless GRAPHRT_REQUIRE_BROWSER=1
(as .ci/run sets once it has installed chromium): then it fails instead.
Playwright's own browser download is never used (`executable_path`).
"""

from __future__ import annotations

import os
import re
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.observe.events import ToolCalled, ToolReturned

from .browser import browser, gate  # noqa: F401 - fixtures
from .conftest import SLOW_ASK


def test_a_run_goes_live_from_start_to_answer_to_results(serve, browser, gate):
    from playwright.sync_api import expect

    async def held(ctx: AgentContext) -> dict[str, Any]:
        await gate.passage()
        return ctx.inputs

    slow_ask = SLOW_ASK.replace("agent: sleeperAgent\n    params:\n      duration: 1200\n", "agent: heldAgent\n")
    served = serve({"slow_ask.yaml": slow_ask}, agents=[AgentInfo(name="heldAgent", func=held)])
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(served.url + "/")
    page.locator("#graph-list").get_by_text("slow_ask", exact=True).click()
    expect(page.locator("#graph-title")).to_have_text("slow_ask")
    page.locator("#input-topic").fill("browsers")
    page.get_by_role("button", name="Start run").click()

    slow = page.locator('[data-node="slow"]')
    expect(slow).to_have_attribute("data-state", "executing", timeout=10_000)
    expect(page.locator("#run-status")).to_have_text("running")
    gate.open()
    expect(slow).to_have_attribute("data-state", "completed", timeout=10_000)

    expect(page.locator("#answer-form")).to_be_visible(timeout=10_000)
    expect(page.locator("#question")).to_have_text("What is your name?")
    expect(page.locator('[data-node="name"]')).to_have_attribute("data-state", "interrupted")
    expect(page.locator('[data-activity="name"] .state')).to_have_text("interrupted: asks a question")  # from its event
    page.locator("#answer-input").fill("Ada")
    page.get_by_role("button", name="Answer").click()

    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator("#results")).to_contain_text('"greeting": "Hello, Ada! Welcome to browsers."')
    for node in ("slow", "name", "greeting"):
        expect(page.locator(f'[data-node="{node}"]')).to_have_attribute("data-state", "completed")
    expect(page.locator("#answer-form")).to_be_hidden()
    expect(page.locator("#run-list")).to_contain_text("finished")

    # Opened later from its link, the finished run shows the same.
    run_id = page.locator("#run-id").inner_text()
    page.goto(f"{served.url}/#run={run_id}")
    page.reload()
    expect(page.locator("#results")).to_contain_text("Hello, Ada!")
    expect(page.locator('[data-node="greeting"]')).to_have_attribute("data-state", "completed")

    assert not errors, errors
    assert all(re.match(re.escape(served.url), url) for url in requests), "the page loaded something from elsewhere"
    shots = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT")
    if shots:
        page.screenshot(path=shots, full_page=True)


CHAT = """\
version: 0.5
nodes:
  question:
    value: Who built the Eiffel Tower?
  research:
    agent: chattyAgent
    inputs:
      question: :question
  answer:
    agent: stringTemplateAgent
    inputs:
      text: :research.text
      question: :question
    params:
      template: "${question} ${text}"
    isResult: true
"""

TOKENS = ["The ", "tower ", "was ", "built ", "by ", "Gustave ", "Eiffel's ", "company."]


def test_tokens_stream_into_their_node_and_tool_calls_show(serve, browser, gate):
    from playwright.sync_api import expect

    async def chatty_agent(ctx: AgentContext) -> dict[str, Any]:
        """Calls a tool and streams its answer token by token, as an LLM agent reports them; held after three."""
        ctx.emit(ToolCalled, tool_call_id="call-1", name="wiki--search", arguments={"query": ctx.inputs["question"]})
        ctx.emit(ToolReturned, tool_call_id="call-1", name="wiki--search", content="Eiffel Tower: built 1887-1889")
        for index, token in enumerate(TOKENS):
            if index == 3:
                await gate.passage()
            ctx.stream_token(token)
        return {"text": "".join(TOKENS)}

    served = serve({"research.yaml": CHAT}, agents=[AgentInfo(name="chattyAgent", func=chatty_agent)])
    page = browser.new_page(viewport={"width": 1280, "height": 760})
    page.goto(served.url + "/#graph=research")
    expect(page.locator("#graph-title")).to_have_text("research")
    page.get_by_role("button", name="Start run").click()

    research = page.locator('[data-activity="research"]')
    expect(research.locator(".tool")).to_contain_text('wiki--search {"query":"Who built the Eiffel Tower?"}',
                                                      timeout=10_000)
    expect(research.locator(".tool")).to_contain_text("→ Eiffel Tower: built 1887-1889")
    expect(research.locator(".tokens")).to_contain_text("The tower was", timeout=10_000)
    expect(page.locator('[data-node="research"]')).to_have_attribute("data-state", "executing")  # still streaming
    expect(page.locator('[data-node="research"] text.tokens')).to_contain_text("tower was")  # the node's last words
    gate.open()

    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(research.locator(".tokens")).to_have_text("".join(TOKENS))
    expect(page.locator('[data-node="research"] text.agent')).to_have_text("chattyAgent")
    expect(page.locator("#results")).to_contain_text(
        "Who built the Eiffel Tower? The tower was built by Gustave Eiffel's company.")
    shot = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT_TOOLS")
    if shot:
        page.screenshot(path=shot, full_page=True)
