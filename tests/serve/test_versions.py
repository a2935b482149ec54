"""A served folder that changes while the server runs: the catalog follows it, and each run keeps the graph
version it started with (serve/catalog.py, durable's graph_as_started)."""

from __future__ import annotations

from .conftest import ASK, HELLO, wait_for_status

EDITED_ASK = """\
version: 0.5
nodes:
  name:
    agent: textInputAgent
    params:
      message: Who are you, then?
  shout:
    agent: stringTemplateAgent
    inputs:
      name: :name.text
    params:
      template: GOODBYE, ${name}!!!
    isResult: true
"""

GREET = """\
version: 0.5
nodes:
  who:
    value: you
  greeting:
    agent: stringTemplateAgent
    inputs:
      who: :who
    params:
      template: Hi there, ${who}.
    isResult: true
"""


def test_the_catalog_follows_the_folder(serve):
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        (served.folder / "team").mkdir()
        (served.folder / "team" / "greet.yaml").write_text(GREET)  # a new file
        names = [graph["name"] for graph in client.get("/graphs").json()["graphs"]]
        assert sorted(names) == ["hello", "team/greet"]
        run = client.post("/graphs/team/greet/runs?wait=true", json={"inputs": {"who": "Ada"}}).json()
        assert run["results"] == {"greeting": "Hi there, Ada."}

        (served.folder / "hello.yaml").write_text(GREET)  # an edited file: its new inputs, and runs of it
        assert client.get("/graphs/hello").json()["inputs"] == {"who": {"default": "you"}}
        assert client.post("/graphs/hello/runs?wait=true", json={}).json()["results"] == {"greeting": "Hi there, you."}

        (served.folder / "broken.yaml").write_text("version: 0.5\nnodes:\n  a: [unclosed\n")  # a broken one
        listed = {graph["name"]: graph for graph in client.get("/graphs").json()["graphs"]}
        assert "error" in listed["broken"] and "error" not in listed["hello"]
        assert str(served.folder) not in listed["broken"]["error"]  # the file as served, not the server's path
        assert "broken.yaml" in listed["broken"]["error"]
        refused = client.post("/graphs/broken/runs", json={})
        assert refused.status_code == 400 and "cannot run" in refused.json()["error"]
        assert client.post("/graphs/team/greet/runs?wait=true", json={}).json()["status"] == "finished"

        (served.folder / "team" / "greet.yaml").unlink()  # a removed file
        assert client.get("/graphs/team/greet").status_code == 404
        assert client.post("/graphs/team/greet/runs", json={}).status_code == 404
        assert "team/greet" not in [graph["name"] for graph in client.get("/graphs").json()["graphs"]]
        assert any(run["graph"] == "team/greet" for run in client.get("/runs").json()["runs"])  # its runs stay


def test_a_run_resumes_with_the_graph_it_started_with_after_an_edit(serve, checkpoint):
    served = serve({"ask.yaml": ASK}, checkpoint=checkpoint)
    with served.client() as client:
        run = client.post("/graphs/ask/runs?wait=true", json={}).json()
        assert run["status"] == "interrupted" and run["question"] == "What is your name?"
        (served.folder / "ask.yaml").write_text(EDITED_ASK)
        done = client.post(f"/runs/{run['id']}/resume?wait=true", json={"answer": "Ada"}).json()
        assert done["status"] == "finished", done
        assert done["results"] == {"greeting": "Hello, Ada!"}
        new = client.post("/graphs/ask/runs?wait=true", json={}).json()  # a new run takes the edited file
        assert new["question"] == "Who are you, then?"


def test_a_run_keeps_its_version_across_a_restart_and_a_removed_file(serve, checkpoint, tmp_path):
    first = serve({"ask.yaml": ASK}, checkpoint=checkpoint)
    with first.client() as client:
        run_id = client.post("/graphs/ask/runs?wait=true", json={}).json()["id"]
    first.server.should_exit = True
    first.thread.join(15)
    (first.folder / "ask.yaml").unlink()
    (first.folder / "other.yaml").write_text(HELLO)

    second = serve({}, checkpoint=checkpoint)  # the same folder and checkpoint
    with second.client() as client:
        run = client.get(f"/runs/{run_id}").json()
        assert run["status"] == "interrupted" and run["graph"] == "ask"
        assert run["nodes"] == {"name": "interrupted", "greeting": "waiting"}  # the nodes of its own version
        done = client.post(f"/runs/{run_id}/resume?wait=true", json={"answer": "Bo"}).json()
        assert done["status"] == "finished", done
        assert done["results"] == {"greeting": "Hello, Bo!"}


def test_a_json_file_beside_a_graph_of_its_name_is_no_rival(serve):
    served = serve({"tools.yaml": HELLO, "tools.json": '{"mcpServers": {}}'})  # an MCP config beside its graph
    with served.client() as client:
        assert [graph["name"] for graph in client.get("/graphs").json()["graphs"]] == ["tools"]
        (served.folder / "tools.json").write_text('{"version": 0.5, "nodes": {"a": {"value": 1}}}')
        listed = client.get("/graphs").json()["graphs"]  # now two graphs named tools: listed with the error
        assert listed[0]["name"] == "tools" and "two graphs are named 'tools'" in listed[0]["error"]


def test_a_fork_takes_the_version_its_parent_started_with(serve, checkpoint):
    served = serve({"hello.yaml": HELLO}, checkpoint=checkpoint)
    with served.client() as client:
        parent = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": "Ada"}}).json()
        (served.folder / "hello.yaml").write_text(GREET)  # edited: other nodes, another template
        fork = client.post(f"/runs/{parent['id']}/fork", json={"from": "name", "set": {"name": "Bo"}})
        assert fork.status_code == 202, fork.json()
        assert wait_for_status(client, fork.json()["id"])["results"] == {"greeting": "Hello, Bo!"}
