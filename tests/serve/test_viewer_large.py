"""A large graph in the viewer (Debian's chromium, Playwright): legible at first, zoom, pan, fit, find a node;
at 5,000 nodes only what is in view is drawn, and text only where it can be read."""

from __future__ import annotations

import os
import re

from .browser import browser, open_page  # noqa: F401 - fixture


def layered_graph(layers: int, width: int) -> str:
    """`layers` layers of `width` copyAgent nodes, each reading the node above it and its neighbour."""
    lines = ["version: 0.5", "nodes:", "  seed:", "    value: 1"]
    for layer in range(layers):
        for index in range(width):
            lines += [f"  n{layer}_{index}:", "    agent: copyAgent", "    inputs:"]
            if layer == 0:
                lines.append("      x: :seed")
            else:
                lines += [f"      x: :n{layer - 1}_{index}", f"      y: :n{layer - 1}_{(index + 1) % width}"]
    return "\n".join(lines) + "\n"


def _box_inside(inner: dict, outer: dict) -> bool:
    return (inner["x"] >= outer["x"] - 1 and inner["y"] >= outer["y"] - 1
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1)


def test_a_500_node_graph_is_legible_zooms_pans_fits_and_finds_a_node(serve, browser):
    from playwright.sync_api import expect

    served = serve({"large.yaml": layered_graph(10, 50)})
    page, errors = open_page(browser, served.url + "/#graph=large", height=900)
    svg = page.locator("#drawing svg")
    expect(svg).to_have_attribute("data-nodes", "501", timeout=15_000)
    frame = svg.bounding_box()

    # First view: readable labels (not a scaled-down dot field).
    assert float(svg.get_attribute("data-scale")) >= 0.6
    label = page.locator('#drawing g.nodes [data-node] text').first
    assert label.bounding_box()["height"] >= 8

    # Fit: the whole graph in the panel.
    page.get_by_role("button", name="Fit").click()
    fitted = float(svg.get_attribute("data-scale"))
    assert fitted < 0.6
    assert _box_inside(page.locator("#drawing g.viewport").bounding_box(), frame)

    # Zoom in, then pan by dragging.
    page.get_by_role("button", name="+").click()
    assert float(svg.get_attribute("data-scale")) > fitted
    before = page.locator("#drawing g.viewport").get_attribute("transform")
    page.mouse.move(frame["x"] + 200, frame["y"] + 200)
    page.mouse.down()
    page.mouse.move(frame["x"] + 320, frame["y"] + 260, steps=5)
    page.mouse.up()
    assert page.locator("#drawing g.viewport").get_attribute("transform") != before

    # Find a node by name: the view centres on it, it is marked and its detail opens.
    page.locator("#find-node").fill("n9_49")
    page.locator("#find-node").press("Enter")
    found = page.locator('[data-node="n9_49"]')
    expect(found).to_have_class(re.compile(r"\bfound\b"))
    expect(found).to_have_class(re.compile(r"\bselected\b"))
    assert _box_inside(found.bounding_box(), frame)
    expect(page.locator("#find-note")).to_have_text("1 of 1")
    expect(page.locator("#node-detail")).to_contain_text("Start a run to see what this node does.")
    page.locator("#find-node").fill("nothing-like-this")
    page.locator("#find-node").press("Enter")
    expect(page.locator("#find-note")).to_have_text("no such node")
    assert not errors, errors
    shot = os.environ.get("GRAPHRT_VIEWER_SCREENSHOT_LARGE")
    if shot:
        page.locator("#find-node").fill("n4_20")
        page.locator("#find-node").press("Enter")
        page.screenshot(path=shot)


def _drawn(page) -> int:
    return page.locator("#drawing g.nodes [data-node]").count()


def test_at_5000_nodes_only_what_is_in_view_is_drawn_with_text_only_where_legible(serve, browser):
    from playwright.sync_api import expect

    served = serve({"huge.yaml": layered_graph(100, 50)})
    page, errors = open_page(browser, served.url + "/#graph=huge", height=900)
    svg = page.locator("#drawing svg")
    expect(svg).to_have_attribute("data-nodes", "5001", timeout=30_000)

    # The first view, legible: the nodes in and around it are drawn, with their names; not the other 4,000+.
    first = page.locator("#drawing g.nodes [data-node]").first
    expect(first).to_be_visible()
    assert 20 <= _drawn(page) <= 600, _drawn(page)
    assert page.locator('[data-node="n90_0"]').count() == 0
    assert first.locator("text").first.is_visible()

    # Fit: 5,001 nodes in view are a few paths, no group per node, and no text.
    page.get_by_role("button", name="Fit").click()
    expect(svg).to_have_attribute("data-detail", "far")
    assert _drawn(page) == 0 and page.locator("#drawing .overview path").count() <= 12
    assert page.locator("#drawing .overview path.far-nodes").first.is_visible()

    # Zoomed in a little from there: still too many to draw one by one, and too small for names.
    for _ in range(6):
        page.get_by_role("button", name="+").click()
    scale = float(svg.get_attribute("data-scale"))
    assert scale < 0.35 and "no-labels" in svg.get_attribute("class")

    # Find a node far down: the view goes there, it is drawn (and only its neighbourhood), marked and readable.
    page.locator("#find-node").fill("n97_30")
    page.locator("#find-node").press("Enter")
    found = page.locator('[data-node="n97_30"]')
    expect(found).to_have_class(re.compile(r"\bfound\b"))
    expect(found).to_have_class(re.compile(r"\bselected\b"))
    assert _box_inside(found.bounding_box(), svg.bounding_box())
    assert found.locator("text").first.is_visible()
    assert page.locator('[data-node="n0_0"]').count() == 0 and _drawn(page) <= 600

    # Panning brings the next nodes in: drawn as they come into view, and those left far behind are dropped.
    drawn_ids = 'Array.from(document.querySelectorAll("#drawing g.nodes [data-node]"), (g) => g.dataset.node)'
    before = set(page.evaluate(drawn_ids))
    frame = svg.bounding_box()
    for _ in range(3):
        page.mouse.move(frame["x"] + 400, frame["y"] + 100)
        page.mouse.down()
        page.mouse.move(frame["x"] + 400, frame["y"] + 700, steps=4)
        page.mouse.up()
    page.wait_for_function(f"{drawn_ids}.length > 0")
    after = set(page.evaluate(drawn_ids))
    assert after - before and before - after, (len(before), len(after))

    # A click on the far picture zooms to the node under it and opens it.
    page.get_by_role("button", name="Fit").click()
    expect(svg).to_have_attribute("data-detail", "far")
    frame = svg.bounding_box()
    page.mouse.click(frame["x"] + frame["width"] / 2, frame["y"] + 30)
    expect(svg).to_have_attribute("data-detail", "near")
    expect(page.locator("#drawing g.nodes .node.selected")).to_have_count(1)
    assert not errors, errors


def test_twenty_inputs_leave_the_run_in_sight(serve, browser):
    from playwright.sync_api import expect

    statics = "".join(f"  input{index}:\n    value: {index}\n" for index in range(20))
    graph = ("version: 0.5\nnodes:\n" + statics + "  total:\n    agent: copyAgent\n    inputs:\n"
             + "".join(f"      v{index}: :input{index}\n" for index in range(20)) + "    isResult: true\n")
    served = serve({"inputs.yaml": graph})
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(served.url + "/#graph=inputs")
    expect(page.locator("#input-fields input")).to_have_count(20, timeout=10_000)
    button = page.get_by_role("button", name="Start run").bounding_box()
    drawing = page.locator("#drawing svg").bounding_box()
    assert button["y"] + button["height"] <= 800 and drawing["y"] < 800 - 200, (button, drawing)
    page.get_by_role("button", name="Start run").click()
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
