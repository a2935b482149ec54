"""Forking a saved run from a node (graphrt/durable/fork.py): only what depends on the change runs again.

The recorder counts every agent call, so each test says exactly which nodes
the fork ran, on every checkpoint store.
"""

from __future__ import annotations

import pytest

import graphrt
from graphrt.checkpoint import CheckpointError, CheckpointStore, RunStatus
from graphrt.durable import afork, arun_checkpointed, dependents

pytestmark = pytest.mark.anyio

#   topic ─▶ research ─▶ draft ─▶ review
#     └────▶ outline ────────────▶ ┘
DIAMOND = {
    "version": 0.5,
    "nodes": {
        "topic": {"value": "graphs"},
        "research": {"agent": "recordAgent", "inputs": {"topic": ":topic"}},
        "outline": {"agent": "recordAgent", "inputs": {"topic": ":topic"}},
        "draft": {"agent": "recordAgent", "inputs": {"facts": ":research.topic"}},
        "review": {"agent": "recordAgent", "inputs": {"draft": ":draft.facts", "outline": ":outline.topic"},
                   "isResult": True},
    },
}


async def _ran(recorder, store: CheckpointStore) -> None:
    await arun_checkpointed(recorder.graph(DIAMOND), store, run_id="parent")
    assert sorted(recorder.calls) == ["draft", "outline", "research", "review"]
    recorder.calls.clear()


async def test_a_fork_from_a_node_reruns_it_and_what_depends_on_it_only(recorder, store: CheckpointStore) -> None:
    await _ran(recorder, store)

    forked = await afork(store, "parent", node="draft", agents=recorder.agents)
    results = await graphrt.aresume(store, forked.run_id, agents=recorder.agents)

    assert recorder.calls == ["draft", "review"]  # research and outline kept their results
    assert forked.recomputed == ("draft", "review")
    assert results == {"review": {"node": "review", "draft": "graphs", "outline": "graphs"}}
    saved = await store.get_run(forked.run_id)
    assert saved.parent == {"run_id": "parent", "node_id": "draft", "set": []}
    assert saved.status == RunStatus.FINISHED
    assert (await store.get_run("parent")).parent is None


async def test_a_fork_with_a_new_result_for_a_node_reruns_only_its_dependents(recorder, store) -> None:
    await _ran(recorder, store)

    forked = await afork(store, "parent", node="research", values={"research": {"topic": "trees"}},
                         agents=recorder.agents)
    results = await graphrt.aresume(store, forked.run_id, agents=recorder.agents)

    assert recorder.calls == ["draft", "review"]  # research not run: it was given its result
    assert results["review"]["draft"] == "trees"
    assert (await store.get_run(forked.run_id)).parent == {"run_id": "parent", "node_id": "research",
                                                          "set": ["research"]}


async def test_a_fork_with_a_new_static_value_reruns_every_node_that_reads_it(recorder, store) -> None:
    await _ran(recorder, store)

    forked = await afork(store, "parent", node="topic", values={"topic": "rivers"}, agents=recorder.agents)
    results = await graphrt.aresume(store, forked.run_id, agents=recorder.agents)

    assert sorted(recorder.calls) == ["draft", "outline", "research", "review"]
    assert results["review"] == {"node": "review", "draft": "rivers", "outline": "rivers"}
    assert (await store.get_run(forked.run_id)).injected == {"topic": "rivers"}


async def test_a_fork_of_a_fork_keeps_its_own_parent(recorder, store) -> None:
    await _ran(recorder, store)
    first = await afork(store, "parent", node="outline", agents=recorder.agents)
    await graphrt.aresume(store, first.run_id, agents=recorder.agents)
    recorder.calls.clear()

    second = await afork(store, first.run_id, node="review", agents=recorder.agents)
    await graphrt.aresume(store, second.run_id, agents=recorder.agents)

    assert recorder.calls == ["review"]
    assert (await store.get_run(second.run_id)).parent["run_id"] == first.run_id


async def test_a_failed_run_forked_before_its_failure_runs_the_rest(recorder, store) -> None:
    recorder.failing.add("draft")
    with pytest.raises(graphrt.AgentError):
        await arun_checkpointed(recorder.graph(DIAMOND), store, run_id="parent")
    recorder.failing.clear()
    ran_before = set(recorder.calls)
    recorder.calls.clear()

    forked = await afork(store, "parent", node="draft", agents=recorder.agents)
    await graphrt.aresume(store, forked.run_id, agents=recorder.agents)

    assert "research" in ran_before and "research" not in recorder.calls
    assert recorder.calls[0] == "draft" and "review" in recorder.calls


async def test_forking_from_what_the_graph_lacks_is_a_clear_error(recorder, store) -> None:
    await _ran(recorder, store)
    with pytest.raises(CheckpointError, match="has no node 'nowhere'"):
        await afork(store, "parent", node="nowhere", agents=recorder.agents)
    with pytest.raises(CheckpointError, match="'topic' is a static node: give it a value"):
        await afork(store, "parent", node="topic", agents=recorder.agents)
    with pytest.raises(CheckpointError, match="no run 'missing'"):
        await afork(store, "missing", node="draft", agents=recorder.agents)


def test_dependents_follow_every_path_down() -> None:
    graph = graphrt.Graph(DIAMOND, agents=[graphrt.AgentInfo(name="recordAgent", func=lambda ctx: None)])
    assert dependents(graph.spec, {"topic"}) == {"research", "outline", "draft", "review"}
    assert dependents(graph.spec, {"research"}) == {"draft", "review"}
    assert dependents(graph.spec, {"review"}) == set()


CLI_GRAPH = """\
version: 0.5
nodes:
  topic:
    value: graphs
  title:
    agent: stringTemplateAgent
    inputs:
      topic: :topic
    params:
      template: All about ${topic}
  subtitle:
    agent: stringTemplateAgent
    inputs:
      topic: :topic
    params:
      template: and nothing else
  page:
    agent: stringTemplateAgent
    inputs:
      title: :title
      subtitle: :subtitle
    params:
      template: ${title}, ${subtitle}
    isResult: true
"""


def _started(trace) -> list[str]:
    import json

    return [event["node_id"] for event in map(json.loads, trace.read_text().splitlines())
            if event["type"] == "NodeStarted" and not event["path"]]


def test_graphrt_fork_runs_only_what_depends_on_the_set_value(tmp_path, capsys) -> None:
    import json

    from graphrt.cli import main

    graph, db, trace = tmp_path / "page.yaml", str(tmp_path / "runs.db"), tmp_path / "trace.jsonl"
    graph.write_text(CLI_GRAPH)
    assert main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"]) == 0
    capsys.readouterr()

    code = main(["fork", "--run-id", "first", "--from", "title", "--set", "title=Trees", "--checkpoint", db,
                 "--trace", str(trace)])

    out, err = capsys.readouterr()
    assert (code, json.loads(out)) == (0, {"page": "Trees, and nothing else"})
    assert _started(trace) == ["page"]  # title was given, subtitle does not read it
    assert "forks first from 'title'; computing again: page" in err

    code = main(["fork", "--run-id", "first", "--from", "topic", "--set", "topic=rivers", "--checkpoint", db,
                 "--trace", str(trace)])
    assert (code, json.loads(capsys.readouterr().out)) == (0, {"page": "All about rivers, and nothing else"})
    assert sorted(_started(trace)) == ["page", "subtitle", "title"]


def test_graphrt_fork_quiet_prints_the_results_alone(tmp_path, capsys) -> None:
    import json

    from graphrt.cli import main

    graph, db = tmp_path / "page.yaml", str(tmp_path / "runs.db")
    graph.write_text(CLI_GRAPH)
    main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"])
    capsys.readouterr()

    code = main(["fork", "--run-id", "first", "--from", "title", "--set", "title=Trees", "--checkpoint", db, "-q"])

    out, err = capsys.readouterr()
    assert (code, json.loads(out), err) == (0, {"page": "Trees, and nothing else"}, "")


def test_graphrt_fork_of_an_unknown_node_says_so(tmp_path, capsys) -> None:
    from graphrt.cli import main

    graph, db = tmp_path / "page.yaml", str(tmp_path / "runs.db")
    graph.write_text(CLI_GRAPH)
    main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"])
    capsys.readouterr()

    assert main(["fork", "--run-id", "first", "--from", "nowhere", "--checkpoint", db]) == 1
    assert capsys.readouterr().err == "graphrt: --from nowhere: the graph of run 'first' has no node 'nowhere' to fork from\n"


def _saved_runs(db: str) -> list[str]:
    import anyio

    from graphrt.checkpoint import open_store

    async def runs() -> list[str]:
        store = open_store(db)
        try:
            return sorted(record.run_id for record in await store.runs())
        finally:
            await store.close()

    return anyio.run(runs)


def test_graphrt_fork_setting_an_unknown_node_blames_set_and_names_the_node(tmp_path, capsys) -> None:
    from graphrt.cli import main

    graph, db = tmp_path / "page.yaml", str(tmp_path / "runs.db")
    graph.write_text(CLI_GRAPH)
    main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"])
    capsys.readouterr()

    assert main(["fork", "--run-id", "first", "--from", "title", "--set", "zz=1", "--checkpoint", db]) == 1
    assert capsys.readouterr() == ("", "graphrt: --set zz: a value is set for 'zz', but the graph of run 'first' has "
                                       "no such node\n")
    assert _saved_runs(db) == ["first"]


@pytest.mark.parametrize("value, said", [
    ("1e400", "the value of title holds 1e400, a number JSON cannot hold (give a finite number, or quote it as text)"),
    ("[" * 20_000 + "]" * 20_000, "the value of title is nested too deeply"),
])
def test_graphrt_fork_refuses_a_set_value_json_cannot_hold_as_run_i_does(tmp_path, capsys, value, said) -> None:
    from graphrt.cli import main

    graph, db = tmp_path / "page.yaml", str(tmp_path / "runs.db")
    graph.write_text(CLI_GRAPH)
    main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"])
    capsys.readouterr()

    with pytest.raises(SystemExit) as caught:
        main(["fork", "--run-id", "first", "--from", "title", "--set", f"title={value}", "--checkpoint", db])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"graphrt fork: error: argument --set: {said}"
    assert _saved_runs(db) == ["first"]  # no fork saved with a null in its place


def test_an_old_sqlite_file_gains_the_parent_column(tmp_path) -> None:
    import sqlite3

    import anyio

    from graphrt.checkpoint import SQLiteStore

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # the table as graphrt wrote it before forks
        db.execute("CREATE TABLE graphrt_runs (run_id TEXT PRIMARY KEY, graph_file TEXT, graph_text TEXT, "
                   "graph_hash TEXT NOT NULL, injected TEXT NOT NULL, config TEXT NOT NULL, all_results INTEGER NOT NULL, "
                   "status TEXT NOT NULL, detail TEXT NOT NULL, results TEXT, created_at REAL NOT NULL, "
                   "updated_at REAL NOT NULL)")
        db.execute("INSERT INTO graphrt_runs VALUES ('old', NULL, 'nodes: {}', 'h', '{}', '{}', 0, 'completed', '{}', "
                   "NULL, 1.0, 1.0)")

    async def read() -> tuple:
        store = SQLiteStore(path)
        try:
            return (await store.get_run("old")).parent, [record.run_id for record in await store.runs()]
        finally:
            await store.close()

    assert anyio.run(read) == (None, ["old"])


NESTED_CLI_GRAPH = """\
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
          isResult: true
    isResult: true
"""


def test_graphrt_fork_inside_a_nested_graph_needs_the_run_s_event_log_and_says_so(tmp_path, capsys) -> None:
    from graphrt.cli import main

    graph, db = tmp_path / "nested.yaml", str(tmp_path / "runs.db")
    graph.write_text(NESTED_CLI_GRAPH)
    assert main(["run", str(graph), "--checkpoint", db, "--run-id", "first", "-q"]) == 0
    capsys.readouterr()

    # graphrt run saves no event log, so what the inner nodes returned is not known (graphrt serve's runs have it):
    # it says so, not that 'outer' did not run.
    assert main(["fork", "--run-id", "first", "--from", "outer/title", "--checkpoint", db]) == 1
    assert capsys.readouterr().err == (
        "graphrt: cannot fork run 'first' from 'outer/title': the run saved no event log (only graphrt "
        "serve's runs keep one), so what the nodes inside its nested graphs returned is not known; fork from 'outer' "
        "to run it whole\n")
    assert main(["fork", "--run-id", "first", "--from", "outer", "--iteration", "2", "--checkpoint", db]) == 1
    assert "keeps only a run's latest iteration, 0, and the state of earlier ones was not saved" in \
        capsys.readouterr().err
    assert main(["fork", "--run-id", "first", "--from", "outer", "--iteration", "0", "--checkpoint", db]) == 0
