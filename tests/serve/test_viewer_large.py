"""A large graph in the viewer (Debian's chromium, Playwright): legible at first, zoom, pan, fit, find a node."""

from __future__ import annotations

import os
import re

from .browser import browser  # noqa: F401 - fixture


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
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(served.url + "/#graph=large")
    expect(page.locator("#drawing [data-node]")).to_have_count(501, timeout=15_000)
    svg = page.locator("#drawing svg")
    frame = svg.bounding_box()

    # First view: readable labels (not a scaled-down dot field).
    assert float(svg.get_attribute("data-scale")) >= 0.6
    label = page.locator('[data-node="n0_0"] text').first
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
