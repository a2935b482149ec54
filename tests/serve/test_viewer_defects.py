"""Defects of the run viewer seen in a real browser (Debian's chromium, Playwright), each fixed and kept fixed.

Each test failed before its fix: a cancelled node left "running", a failed node
"waiting" after a restart, the second of two questions hidden by the first's
answer, tool arguments shown double-encoded, two edges' labels printed on top of
each other, a wrong API key taken without a word.
"""

from __future__ import annotations

from typing import Any

import httpx

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.observe.events import ToolCalled, ToolReturned

from .browser import browser, gate, open_page  # noqa: F401 - fixtures

HELD = """\
version: 0.5
nodes:
  topic:
    value: graphs
  slow:
    agent: heldAgent
    inputs:
      topic: :topic
    isResult: true
"""

BROKEN = """\
version: 0.5
nodes:
  topic:
    value: graphs
  broken:
    agent: brokenAgent
    inputs:
      topic: :topic
    isResult: true
"""

TWO_QUESTIONS = """\
version: 0.5
nodes:
  first:
    agent: textInputAgent
    params:
      message: What is your name?
  second:
    agent: textInputAgent
    inputs:
      after: :first
    params:
      message: Where do you live?
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :first.text
      place: :second.text
    params:
      template: ${name} from ${place}
    isResult: true
"""

TOOLS = """\
version: 0.5
nodes:
  clock:
    agent: clockAgent
    isResult: true
"""

TWO_EDGES = """\
version: 0.5
nodes:
  source:
    value:
      first: 1
      second: 2
  sum:
    agent: copyAgent
    inputs:
      left: :source.first
      right: :source.second
    isResult: true
"""


def _page(browser, served, path: str = "/"):
    return open_page(browser, served.url + path, width=1280, height=820)


def test_a_cancelled_run_shows_its_running_node_aborted(serve, browser, gate):
    from playwright.sync_api import expect

    async def held(ctx: AgentContext) -> Any:
        await gate.passage()
        return ctx.inputs

    served = serve({"held.yaml": HELD}, agents=[AgentInfo(name="heldAgent", func=held)])
    page, errors = _page(browser, served, "/#graph=held")
    page.get_by_role("button", name="Start run").click()
    slow = page.locator('[data-node="slow"]')
    expect(slow).to_have_attribute("data-state", "executing", timeout=10_000)

    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("#run-status")).to_have_text("cancelled", timeout=10_000)
    expect(slow).to_have_attribute("data-state", "abort")
    expect(page.locator('[data-activity="slow"] .state')).to_have_text("abort: cancelled")
    run_id = page.locator("#run-id").inner_text()
    with served.client() as client:
        assert client.get(f"/runs/{run_id}").json()["nodes"] == {"slow": "abort"}
    assert not errors, errors


def test_after_a_restart_a_failed_node_shows_failed_with_its_error(serve, browser):
    from playwright.sync_api import expect

    async def broken(ctx: AgentContext) -> Any:
        raise ValueError(f"no pages about {ctx.inputs['topic']}")

    agents = [AgentInfo(name="brokenAgent", func=broken)]
    first = serve({"broken.yaml": BROKEN}, agents=agents)
    with first.client() as client:
        run = client.post("/graphs/broken/runs?wait=true", json={}).json()
    assert run["status"] == "failed" and run["nodes"] == {"broken": "failed"}
    first.server.should_exit = True
    first.thread.join(15)

    second = serve({"broken.yaml": BROKEN}, agents=agents)  # the same checkpoint file
    page, errors = _page(browser, second, f"/#run={run['id']}")
    expect(page.locator("#run-status")).to_have_text("failed", timeout=10_000)
    expect(page.locator('[data-node="broken"]')).to_have_attribute("data-state", "failed")
    expect(page.locator('[data-activity="broken"] .state')).to_contain_text("no pages about graphs")
    with second.client() as client:
        assert client.get(f"/runs/{run['id']}").json()["nodes"] == {"broken": "failed"}
    assert not errors, errors


def test_answering_the_first_of_two_questions_leaves_the_second_asked(serve, browser):
    """The answer's POST returns after the next question is on the page: the question must stay."""
    from playwright.sync_api import expect

    served = serve({"two.yaml": TWO_QUESTIONS})
    page, errors = _page(browser, served, "/#graph=two")
    held: list[Any] = []

    def hold(route: Any) -> None:  # sends the answer on, and keeps its reply from the page until released
        held.append((route, route.fetch()))

    page.route("**/resume", hold)
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#question")).to_have_text("What is your name?", timeout=10_000)
    page.locator("#answer-input").fill("Ada")
    page.get_by_role("button", name="Answer").click()

    expect(page.locator("#question")).to_have_text("Where do you live?", timeout=10_000)
    assert len(held) == 1
    route, reply = held[0]
    route.fulfill(response=reply)
    expect(page.locator("#answer-note")).to_have_text("answer sent: Ada")
    expect(page.locator("#answer-form")).to_be_visible()
    expect(page.locator("#question")).to_have_text("Where do you live?")
    expect(page.locator("#answers")).to_contain_text("first Ada")

    page.unroute("**/resume")
    page.locator("#answer-input").fill("Paris")
    page.get_by_role("button", name="Answer").click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator("#results")).to_contain_text("Ada from Paris")
    expect(page.locator("#answer-form")).to_be_hidden()
    assert not errors, errors


def test_tool_call_arguments_sent_as_json_text_show_once_encoded(serve, browser):
    from playwright.sync_api import expect

    async def clock(ctx: AgentContext) -> Any:
        # OpenAI sends a tool call's arguments as JSON text; the event keeps them as sent.
        ctx.emit(ToolCalled, tool_call_id="call-1", name="time--now", arguments='{"timezone": "Europe/Paris"}')
        ctx.emit(ToolReturned, tool_call_id="call-1", name="time--now", content="12:00")
        return {"text": "It is noon."}

    served = serve({"clock.yaml": TOOLS}, agents=[AgentInfo(name="clockAgent", func=clock)])
    page, errors = _page(browser, served, "/#graph=clock")
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    tool = page.locator('[data-activity="clock"] .tool')
    expect(tool).to_contain_text('time--now {"timezone":"Europe/Paris"}')
    assert "\\" not in tool.inner_text()
    assert not errors, errors


def test_two_edges_between_the_same_nodes_keep_their_labels_apart(serve, browser):
    from playwright.sync_api import expect

    served = serve({"two_edges.yaml": TWO_EDGES})
    page, errors = _page(browser, served, "/#graph=two_edges")
    labels = page.locator('[data-edge="source>sum"] text')
    expect(labels).to_have_count(2, timeout=10_000)
    first, second = (labels.nth(index).bounding_box() for index in range(2))
    apart = (first["x"] + first["width"] <= second["x"] or second["x"] + second["width"] <= first["x"]
             or first["y"] + first["height"] <= second["y"] or second["y"] + second["height"] <= first["y"])
    assert apart, f"the labels overlap: {first} and {second}"
    assert sorted(labels.all_text_contents()) == ["first", "second"]
    assert not errors, errors


def test_a_wrong_api_key_is_refused_in_words(serve, browser):
    from playwright.sync_api import expect

    served = serve({"two_edges.yaml": TWO_EDGES}, api_key="the-right-key")
    page, errors = _page(browser, served)
    expect(page.locator("#key-form")).to_be_visible(timeout=10_000)
    page.locator("#key-input").fill("a-wrong-key")
    page.get_by_role("button", name="Use key").click()
    expect(page.locator("#key-error")).to_have_text("The server refused this key: check it and try again.")
    expect(page.locator("#key-form")).to_be_visible()

    page.locator("#key-input").fill("the-right-key")
    page.get_by_role("button", name="Use key").click()
    expect(page.locator("#key-form")).to_be_hidden()
    expect(page.locator("#graph-list")).to_contain_text("two_edges")
    assert not errors, errors
    assert httpx.get(served.url + "/graphs", timeout=10).status_code == 401
