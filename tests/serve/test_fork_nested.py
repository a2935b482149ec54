"""Forking a run from a node inside a nestedAgent's or mapAgent's graph (POST /runs/{id}/fork, the CLI and
Python): the top-level node that holds it runs again, and inside it only what depends on the change runs.

An agent counts its calls by node key (`outer/inner`, `outer/2/inner`, as the node ledger writes them), so
each test says exactly which nodes the fork ran. The inner results come from the run's saved event log.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.durable import aresume, fork

from .browser import browser, open_finished_run  # noqa: F401 - fixture
from .conftest import wait_for_status

NESTED = """\
version: 0.5
nodes:
  topic:
    value: graphs
  outer:
    agent: nestedAgent
    inputs:
      topic: :topic
    graph:
      version: 0.5
      nodes:
        topic:
          value: ""
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
          isResult: true
        review:
          agent: countedAgent
          inputs:
            draft: :draft.facts
            outline: :outline.topic
          isResult: true
  after:
    agent: countedAgent
    inputs:
      review: :outer.review
    isResult: true
  aside:
    agent: countedAgent
    inputs:
      topic: :topic
    isResult: true
"""

MAPPED = """\
version: 0.5
nodes:
  rows:
    value: [a, b, c]
  each:
    agent: mapAgent
    inputs:
      rows: :rows
    graph:
      version: 0.5
      nodes:
        row:
          value: ""
        first:
          agent: countedAgent
          inputs:
            row: :row
        second:
          agent: countedAgent
          inputs:
            seen: :first.row
          isResult: true
    isResult: true
"""


def _counted() -> tuple[Counter, list[AgentInfo]]:
    calls: Counter = Counter()

    async def counted(ctx: AgentContext) -> Any:
        calls["/".join([*map(str, ctx.path), ctx.node_id])] += 1
        return dict(ctx.inputs)

    return calls, [AgentInfo(name="countedAgent", func=counted)]


def test_the_api_forks_from_a_node_inside_a_nested_graph_and_reruns_only_what_depends_on_it(serve):
    calls, agents = _counted()
    served = serve({"nested.yaml": NESTED}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/nested/runs?wait=true", json={}).json()
        assert parent["status"] == "finished" and set(calls.values()) == {1}, calls
        calls.clear()

        response = client.post(f"/runs/{parent['id']}/fork",
                               json={"from": "outer/research", "set": {"outer/research": {"topic": "trees"}}})
        assert response.status_code == 202, response.text
        done = wait_for_status(client, response.json()["id"])
        assert done["status"] == "finished", done
        assert done["results"]["after"] == {"review": {"draft": "trees", "outline": "graphs"}}
        assert calls == {"outer/draft": 1, "outer/review": 1, "after": 1}, calls  # not research, outline, aside
        assert done["parent"] == {"run_id": parent["id"], "node_id": "outer/research", "set": ["outer/research"]}

        calls.clear()
        again = client.post(f"/runs/{parent['id']}/fork", json={"from": "outer/outline"}).json()
        assert wait_for_status(client, again["id"])["status"] == "finished"
        assert calls == {"outer/outline": 1, "outer/review": 1, "after": 1}, calls

        missing = client.post(f"/runs/{parent['id']}/fork", json={"from": "outer/nowhere"})
        assert missing.status_code == 400 and "has no node 'nowhere'" in missing.json()["error"]
        flat = client.post(f"/runs/{parent['id']}/fork", json={"from": "aside/inner"})
        assert flat.status_code == 400 and "not a nestedAgent or mapAgent" in flat.json()["error"]
        earlier = client.post(f"/runs/{parent['id']}/fork", json={"from": "after", "iteration": 3})
        assert earlier.status_code == 400 and "keeps only a run's latest iteration, 0" in earlier.json()["error"]


def test_a_fork_from_one_map_row_reruns_that_row_s_dependents_only(serve):
    calls, agents = _counted()
    served = serve({"mapped.yaml": MAPPED}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/mapped/runs?wait=true", json={}).json()
        assert parent["status"] == "finished" and len(calls) == 6, calls
        calls.clear()
        response = client.post(f"/runs/{parent['id']}/fork", json={"from": "each/1/first", "set": {"each/1/first": {"row": "B"}}})
        assert response.status_code == 202, response.text
        done = wait_for_status(client, response.json()["id"])
        assert done["status"] == "finished", done
        assert calls == {"each/1/second": 1}, calls  # rows 0 and 2 keep theirs, row 1 keeps nothing else
        assert done["results"]["each"] == [{"second": {"seen": "a"}}, {"second": {"seen": "B"}}, {"second": {"seen": "c"}}]


def test_python_and_a_store_without_an_event_log_say_why_they_cannot_fork_inside(serve, tmp_path):
    calls, agents = _counted()
    served = serve({"nested.yaml": NESTED}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/nested/runs?wait=true", json={}).json()
    served.server.should_exit = True
    served.thread.join(15)
    calls.clear()
    forked = fork(served.checkpoint, parent["id"], node="outer/draft", agents=agents, as_started=True)
    assert forked.recomputed == ("outer", "after", "outer/draft", "outer/review")
    results = anyio.run(lambda: aresume(served.checkpoint, forked.run_id, agents=agents, as_started=True))
    assert results["after"] == {"review": {"draft": "graphs", "outline": "graphs"}}
    assert calls == {"outer/draft": 1, "outer/review": 1, "after": 1}, calls


def test_the_viewer_forks_from_a_node_inside_a_nested_graph(serve, browser):
    from playwright.sync_api import expect

    calls, agents = _counted()
    served = serve({"nested.yaml": NESTED}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/nested/runs?wait=true", json={}).json()
    calls.clear()
    page, errors = open_finished_run(browser, served, parent['id'])

    detail = page.locator("#node-detail")
    page.locator('#drawing [data-node="outer"]').click()
    detail.locator('[data-section="inner graph"] [data-node="outline"]').click()
    expect(detail.locator(".detail-key")).to_have_text("outer/outline")
    page.locator("#fork-value").fill('{"topic": "an outline"}')
    page.get_by_role("button", name="Fork").click()

    expect(page.locator("#run-parent")).to_contain_text(f"forked from {parent['id']} at outer/outline", timeout=10_000)
    expect(page.locator("#run-status")).to_have_text("finished", timeout=10_000)
    expect(page.locator("#results")).to_contain_text('"outline": "an outline"')
    assert calls == {"outer/review": 1, "after": 1}, calls
    assert not errors, errors


def test_a_fork_inside_a_nested_graph_keeps_that_graph_s_node_records_and_can_be_forked_inside_again(serve):
    calls, agents = _counted()
    served = serve({"nested.yaml": NESTED}, agents=agents)
    with served.client() as client:
        parent = client.post("/graphs/nested/runs?wait=true", json={}).json()
        calls.clear()
        forked = client.post(f"/runs/{parent['id']}/fork", json={"from": "outer/draft"}).json()
        assert wait_for_status(client, forked["id"])["status"] == "finished"
        assert calls == {"outer/draft": 1, "outer/review": 1, "after": 1}, calls

        # The nodes inside 'outer' that the fork kept are known as the ones that ran again are: completed, with
        # their results, marked as kept.
        kept = client.get(f"/runs/{forked['id']}/nodes/outer/research")
        assert kept.status_code == 200, kept.text
        assert (kept.json()["state"], kept.json()["result"]) == ("completed", {"topic": "graphs"})
        states = {key: node["state"] for key, node in client.get(f"/runs/{forked['id']}/nodes").json()["nodes"].items()}
        assert {key: states.get(key) for key in ("outer/research", "outer/outline", "outer/draft", "outer/review")} \
            == dict.fromkeys(("outer/research", "outer/outline", "outer/draft", "outer/review"), "completed"), states
        events = client.get(f"/runs/{forked['id']}/events").text
        kept_events = [json.loads(line[len("data: "):]) for line in events.splitlines() if line.startswith("data: ")
                       and '"NodeCompleted"' in line and '"kept": true' in line]
        assert sorted(event["node_id"] for event in kept_events) == ["outline", "research"]

        # The fork is a run like any other: it can be forked inside 'outer' too.
        calls.clear()
        again = client.post(f"/runs/{forked['id']}/fork", json={"from": "outer/outline"})
        assert again.status_code == 202, again.text
        assert wait_for_status(client, again.json()["id"])["status"] == "finished"
        assert calls == {"outer/outline": 1, "outer/review": 1, "after": 1}, calls


COPIED = """\
version: 0.5
nodes:
  topic:
    value: trees
  outer:
    agent: nestedAgent
    inputs:
      topic: :topic
    graph:
      version: 0.5
      nodes:
        topic:
          value: ""
        title:
          agent: copyAgent
          inputs:
            text: :topic
        subtitle:
          agent: copyAgent
          inputs:
            text: :topic
        page:
          agent: stringTemplateAgent
          inputs:
            title: :title.text
            subtitle: :subtitle.text
          params:
            template: ${title} / ${subtitle}
          isResult: true
    isResult: true
"""


def test_graphrt_fork_forks_a_served_fork_inside_its_nested_graph(serve, capsys, tmp_path):
    from graphrt.cli import main

    served = serve({"copied.yaml": COPIED})
    with served.client() as client:
        parent = client.post("/graphs/copied/runs?wait=true", json={}).json()
        forked = client.post(f"/runs/{parent['id']}/fork",
                             json={"from": "outer/title", "set": {"outer/title": {"text": "oaks"}}}).json()
        done = wait_for_status(client, forked["id"])
        assert done["results"] == {"outer": {"page": "oaks / trees"}}, done
    served.server.should_exit = True
    served.thread.join(15)

    # The fork's log holds what it kept inside 'outer' (subtitle) beside what it ran: a fork of it from inside works.
    trace = tmp_path / "trace.jsonl"
    code = main(["fork", "--run-id", forked["id"], "--from", "outer/title", "--set", 'outer/title={"text": "elms"}',
                 "--checkpoint", str(served.checkpoint), "--trace", str(trace)])
    out, err = capsys.readouterr()
    assert (code, json.loads(out)) == (0, {"outer": {"page": "elms / trees"}}), err
    assert f"forks {forked['id']} from 'outer/title'; computing again: outer, outer/page" in err
    started = [(tuple(event["path"]), event["node_id"]) for event in map(json.loads, trace.read_text().splitlines())
               if event["type"] == "NodeStarted"]
    assert started == [((), "outer"), (("outer",), "page")]  # subtitle kept its result: it did not run again
