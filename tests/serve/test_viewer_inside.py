"""Nested graphs and loops in the viewer (Debian's chromium, Playwright): a mapAgent's rows, a nestedAgent's
inner loop and a top-level loop's iterations, opened in place and stepped through."""

from __future__ import annotations

import os

from .browser import browser, open_finished_run  # noqa: F401 - fixture

MAPPED = """\
version: 0.5
nodes:
  items:
    value: [10, 20, 30]
  each:
    agent: mapAgent
    inputs:
      rows: :items
    graph:
      nodes:
        double:
          agent: copyAgent
          inputs:
            value: :row
          isResult: true
    isResult: true
"""

NESTED_LOOP = """\
version: 0.5
nodes:
  start:
    value: []
  inner:
    agent: nestedAgent
    inputs:
      seen: :start
    graph:
      loop:
        count: 3
      nodes:
        seen:
          value: []
          update: :push.array
        step:
          agent: copyAgent
          inputs:
            i: "@loop"
        push:
          agent: pushAgent
          inputs:
            array: :seen
            item: :step.i
          isResult: true
    isResult: true
"""

LOOPING = """\
version: 0.5
loop:
  count: 4
nodes:
  seen:
    value: []
    update: :push.array
  step:
    agent: copyAgent
    inputs:
      i: "@loop"
  push:
    agent: pushAgent
    inputs:
      array: :seen
      item: :step.i
    isResult: true
"""


def _run(served, graph: str) -> str:
    with served.client() as client:
        run = client.post(f"/graphs/{graph}/runs?wait=true", json={}).json()
    assert run["status"] == "finished", run
    return run["id"]


def test_a_map_node_opens_into_its_rows_and_an_inner_node_shows_its_detail(serve, browser):
    from playwright.sync_api import expect

    served = serve({"mapped.yaml": MAPPED})
    page, errors = open_finished_run(browser, served, _run(served, "mapped"))
    detail = page.locator("#node-detail")

    page.locator('#drawing [data-node="each"]').click()
    inside = detail.locator('[data-section="inner graph"]')
    expect(inside.locator("select.map-row option")).to_have_count(3)
    expect(inside.locator('[data-node="double"]')).to_have_attribute("data-state", "completed")
    inside.locator("select.map-row").select_option("2")
    inside.locator('[data-node="double"]').click()

    expect(detail.locator(".detail-key")).to_have_text("each/2/double")
    expect(detail.locator(".crumbs")).to_have_text("each › row 2 › double")
    expect(detail.locator('[data-section="result"]')).to_contain_text("value: 30")
    detail.get_by_role("button", name="row 2").click()  # back up to the map node, at the same row
    expect(detail.locator(".detail-key")).to_have_text("each")
    expect(detail.locator("select.map-row")).to_have_value("2")
    assert not errors, errors
    shot = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT_INSIDE")
    if shot:
        page.screenshot(path=shot, full_page=True)


def test_a_nested_graph_s_loop_is_stepped_through_in_place(serve, browser):
    from playwright.sync_api import expect

    served = serve({"nested_loop.yaml": NESTED_LOOP})
    page, errors = open_finished_run(browser, served, _run(served, "nested_loop"))
    detail = page.locator("#node-detail")

    page.locator('#drawing [data-node="inner"]').click()
    inside = detail.locator('[data-section="inner graph"]')
    expect(inside.locator(".stepper .step-label")).to_have_text("now (iteration 3 of 3)")
    inside.get_by_role("button", name="◀").click()
    expect(inside.locator(".stepper .step-label")).to_have_text("iteration 2 of 3")
    expect(inside.locator('[data-node="step"]')).to_have_attribute("data-state", "completed")

    inside.locator('[data-node="step"]').click()
    expect(detail.locator(".detail-key")).to_have_text("inner/step")
    expect(detail.locator(".stepper .step-label")).to_have_text("now (iteration 3 of 3)")
    expect(detail.locator('[data-section="result"]')).to_contain_text("i: 2")
    detail.get_by_role("button", name="◀").click()
    detail.get_by_role("button", name="◀").click()
    expect(detail.locator(".stepper .step-label")).to_have_text("iteration 1 of 3")
    expect(detail.locator('[data-section="result"]')).to_contain_text("i: 0")
    assert not errors, errors


def test_a_looping_graph_steps_through_its_iterations(serve, browser):
    from playwright.sync_api import expect

    served = serve({"looping.yaml": LOOPING})
    page, errors = open_finished_run(browser, served, _run(served, "looping"))

    bar = page.locator("#iteration-bar")
    expect(bar.locator(".step-label")).to_have_text("now (iteration 4 of 4)")
    bar.get_by_role("button", name="◀").click()
    expect(bar.locator(".step-label")).to_have_text("iteration 3 of 4")
    expect(page.locator('#drawing [data-node="push"]')).to_have_attribute("data-state", "completed")

    page.locator('#drawing [data-node="push"]').click()
    detail = page.locator("#node-detail")
    expect(detail.locator('[data-section="result"]')).to_contain_text("3: 3")
    detail.get_by_role("button", name="◀").click()
    expect(detail.locator(".stepper .step-label")).to_have_text("iteration 3 of 4")
    expect(detail.locator('[data-section="result"]')).not_to_contain_text("3: 3")
    expect(detail.locator('[data-section="result"]')).to_contain_text("2: 2")
    assert not errors, errors


NESTED_CHAIN = """\
version: 0.5
nodes:
  topic:
    value: graphs
  outer:
    agent: nestedAgent
    inputs:
      topic: :topic
    graph:
      nodes:
        topic:
          value: ""
        research:
          agent: copyAgent
          inputs:
            topic: :topic
        draft:
          agent: copyAgent
          inputs:
            facts: :research.topic
          isResult: true
  after:
    agent: copyAgent
    inputs:
      draft: :outer.draft
    isResult: true
"""


def test_a_nested_graph_and_a_map_open_in_the_main_picture_with_their_states_and_rows(serve, browser):
    from playwright.sync_api import expect

    served = serve({"chain.yaml": NESTED_CHAIN, "mapped.yaml": MAPPED})
    page, errors = open_finished_run(browser, served, _run(served, "chain"))
    detail = page.locator("#node-detail")
    drawing = page.locator("#drawing")

    # The nestedAgent node opens into its graph in the main picture: its nodes with their states, in a box.
    drawing.locator('[data-node="outer"]').click()
    detail.get_by_role("button", name="Open in the picture").click()
    expect(drawing.locator('[data-group="outer"]')).to_contain_text("outer (nestedAgent)")
    expect(drawing.locator('[data-node="outer/research"]')).to_have_attribute("data-state", "completed")
    expect(drawing.locator('[data-node="outer/draft"]')).to_have_attribute("data-state", "completed")
    assert drawing.locator('[data-node="outer"]').count() == 0
    assert drawing.locator('[data-edge="outer/draft>after"]').count() == 1  # the edge out leaves from the node it reads
    assert drawing.locator('[data-edge="topic>outer/topic"]').count() == 1
    drawing.locator('[data-node="outer/draft"]').click()  # an inner node selects its detail
    expect(detail.locator(".detail-key")).to_have_text("outer/draft")
    detail.get_by_role("button", name="outer").click()
    detail.get_by_role("button", name="Close in the picture").click()
    expect(drawing.locator('[data-node="outer"]')).to_be_visible()
    assert drawing.locator('[data-node="outer/draft"]').count() == 0

    # A mapAgent node opens at one row; the row is chosen beside the zoom buttons.
    page.goto(f"{served.url}/#run={_run(served, 'mapped')}")
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    drawing.locator('[data-node="each"]').click()
    detail.get_by_role("button", name="Open in the picture").click()
    expect(drawing.locator('[data-node="each/0/double"]')).to_have_attribute("data-state", "completed")
    page.locator('#picture-rows select[data-node="each"]').select_option("2")
    expect(drawing.locator('[data-node="each/2/double"]')).to_have_attribute("data-state", "completed")
    expect(drawing.locator('[data-group="each"]')).to_contain_text("row 2")
    drawing.locator('[data-node="each/2/double"]').click()
    expect(detail.locator('[data-section="result"]')).to_contain_text("value: 30")
    assert not errors, errors
    shot = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT_OPENED")
    if shot:
        page.goto(f"{served.url}/#run={_run(served, 'chain')}")
        expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
        drawing.locator('[data-node="outer"]').click()
        detail.get_by_role("button", name="Open in the picture").click()
        drawing.locator('[data-node="outer/research"]').click()
        page.screenshot(path=shot)


def test_a_node_clicked_while_another_node_loads_shows_its_own_detail(serve, browser):
    """The detail of the node clicked last, whatever answers first: with one node's detail still on its way,
    clicking another showed neither (the one request loop kept asking for the first node)."""
    from playwright.sync_api import expect

    served = serve({"chain.yaml": NESTED_CHAIN})
    page, errors = open_finished_run(browser, served, _run(served, "chain"))
    held = []

    def hold_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)  # the first detail asked for waits until the test lets it go

    page.route("**/runs/*/nodes/outer", hold_first)
    with page.expect_request("**/runs/*/nodes/outer"):
        page.locator('#drawing [data-node="outer"]').click()
    page.locator('#drawing [data-node="after"]').click()  # while outer's detail is on its way
    for _ in range(1000):
        if held:
            break
        page.evaluate("0")  # lets Playwright hand the held request to hold_first
    held[0].continue_()
    expect(page.locator("#node-detail .detail-key")).to_have_text("after")
    expect(page.locator('#node-detail [data-section="result"]')).to_be_visible()
    assert not errors, errors


def test_a_map_of_more_rows_than_a_page_of_nodes_shows_its_last_rows(serve, browser, monkeypatch):
    """GET /runs/{id}/nodes answers a page at a time: the viewer reads every page (a row past the first
    1,000 nodes has its state), and says when nodes past the most the server keeps were left out."""
    from playwright.sync_api import expect

    from graphrt.serve import node_ledger

    served = serve({"mapped.yaml": MAPPED})
    with served.client() as client:
        run_id = client.post("/graphs/mapped/runs?wait=true", json={"inputs": {"items": list(range(1200))}}).json()["id"]
    pages: list[str] = []
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: pages.append(request.url))
    page.goto(f"{served.url}/#run={run_id}")
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    drawing = page.locator("#drawing")
    drawing.locator('[data-node="each"]').click()
    page.locator("#node-detail").get_by_role("button", name="Open in the picture").click()
    page.locator('#picture-rows select[data-node="each"]').select_option("1150")
    expect(drawing.locator('[data-node="each/1150/double"]')).to_have_attribute("data-state", "completed")
    assert any("/nodes?offset=1000&limit=1000" in url for url in pages), pages
    expect(page.locator("#nodes-left-out")).to_be_hidden()

    monkeypatch.setattr(node_ledger, "_MAX_NODES", 100)
    with served.client() as client:
        capped = client.post("/graphs/mapped/runs?wait=true", json={"inputs": {"items": list(range(150))}}).json()
    page.goto(f"{served.url}/#run={capped['id']}")
    expect(page.locator("#nodes-left-out")).to_contain_text(
        "Not every node is shown: this run has more nodes than the 100 the server keeps for a run")
    assert not errors, errors
