"""Forking a run from a node, in the API (POST /runs/{id}/fork) and in the viewer (Debian's chromium, Playwright).

An agent counts its calls per node, so each test says exactly which nodes the
fork ran: none that does not depend on the change.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from graphrt.authoring.agent_info import AgentContext, AgentInfo

from .browser import browser, open_finished_run  # noqa: F401 - fixture
from .conftest import wait_for_status

DIAMOND = """\
version: 0.5
nodes:
  topic:
    value: graphs
  research:
    agent: countedAgent
    inputs:
      topic: :topic
  outline:
    agent: countedAgent
    inputs:
      topic: :topic
  draft:
    agent: countedAgent
    inputs:
      facts: :research.topic
  review:
    agent: countedAgent
    inputs:
      draft: :draft.facts
      outline: :outline.topic
    isResult: true
"""


def _counted() -> tuple[Counter, list[AgentInfo]]:
    calls: Counter = Counter()

    async def counted(ctx: AgentContext) -> Any:
        calls[ctx.node_id] += 1
        return dict(ctx.inputs)

    return calls, [AgentInfo(name="countedAgent", func=counted)]


def test_the_api_forks_a_run_and_reruns_only_what_depends_on_the_change(serve):
    calls, agents = _counted()
    served = serve({"diamond.yaml": DIAMOND}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/diamond/runs?wait=true", json={}).json()
        assert parent["status"] == "finished" and set(calls.values()) == {1}
        calls.clear()

        response = client.post(f"/runs/{parent['id']}/fork", json={"from": "research", "set": {"research": {"topic": "trees"}}})
        assert response.status_code == 202
        fork = response.json()
        assert fork["parent"] == {"run_id": parent["id"], "node_id": "research", "set": ["research"]}
        done = wait_for_status(client, fork["id"])
        assert done["results"] == {"review": {"draft": "trees", "outline": "graphs"}}
        assert calls == {"draft": 1, "review": 1}
        assert done["nodes"] == {node: "completed" for node in ("research", "outline", "draft", "review")}
        assert done["parent"]["run_id"] == parent["id"]
        listed = {run["id"]: run for run in client.get("/runs").json()["runs"]}
        assert listed[fork["id"]]["parent"]["node_id"] == "research" and "parent" not in listed[parent["id"]]

        calls.clear()
        again = client.post(f"/runs/{parent['id']}/fork", json={"from": "topic", "set": {"topic": "rivers"}}).json()
        assert wait_for_status(client, again["id"])["results"]["review"] == {"draft": "rivers", "outline": "rivers"}
        assert calls == {"research": 1, "outline": 1, "draft": 1, "review": 1}
        assert client.get(f"/runs/{again['id']}").json()["inputs"] == {"topic": "rivers"}

        missing = client.post(f"/runs/{parent['id']}/fork", json={"from": "nowhere"})
        assert missing.status_code == 400 and "has no node 'nowhere'" in missing.json()["error"]
        assert client.post(f"/runs/{parent['id']}/fork", json={}).status_code == 400
        assert client.post("/runs/unknown/fork", json={"from": "draft"}).status_code == 404


def test_the_viewer_forks_from_a_clicked_node_and_shows_the_lineage(serve, browser):
    from playwright.sync_api import expect

    calls, agents = _counted()
    served = serve({"diamond.yaml": DIAMOND}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/diamond/runs?wait=true", json={}).json()
    calls.clear()
    page, errors = open_finished_run(browser, served, parent['id'])

    page.locator('[data-node="draft"]').click()
    page.locator("#fork-value").fill('{"facts": "new facts"}')
    page.get_by_role("button", name="Fork").click()

    expect(page.locator("#run-parent")).to_contain_text(f"forked from {parent['id']} at draft, with new draft",
                                                         timeout=10_000)
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator("#results")).to_contain_text('"draft": "new facts"')
    assert calls == {"review": 1}
    for node in ("research", "outline", "draft", "review"):
        expect(page.locator(f'[data-node="{node}"]')).to_have_attribute("data-state", "completed")
    expect(page.locator("#run-list")).to_contain_text("⑂")

    # The lineage links back to the parent run, at the node it was forked from.
    page.locator("#run-parent a").click()
    expect(page.locator("#run-id")).to_have_text(parent["id"])
    expect(page.locator("#node-detail .detail-key")).to_have_text("draft")
    assert not errors, errors
