"""graphrt serve's JSON API against a real server: graphs, runs, events, answers, cancelling, limits, security."""

from __future__ import annotations

import json
import threading
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx

from graphrt.authoring.agent_info import AgentContext, AgentInfo
from graphrt.serve.security import key_matches

from .conftest import HELLO, SLOW_ASK, sse_events, wait_for_status

FAILING = """\
version: 0.5
nodes:
  text:
    value: "not json"
  parsed:
    agent: jsonParserAgent
    inputs:
      text: :text
    isResult: true
"""

FOREVER = """\
version: 0.5
nodes:
  wait:
    agent: foreverAgent
    isResult: true
"""


def test_graphs_are_listed_with_inputs_results_and_picture(serve):
    served = serve({"hello.yaml": HELLO, "team/ask.yaml": SLOW_ASK, "notes.json": '{"a": 1}'})
    with served.client() as client:
        graphs = {graph["name"]: graph for graph in client.get("/graphs").json()["graphs"]}
        assert set(graphs) == {"hello", "team/ask"}  # a JSON file that is not a graph is not served
        assert graphs["hello"]["inputs"] == {"name": {"default": "World"}}
        assert graphs["hello"]["results"] == ["greeting"]
        assert graphs["hello"]["mermaid"].startswith("flowchart TD")
        assert {node["id"] for node in graphs["team/ask"]["drawing"]["nodes"]} == {"topic", "slow", "name", "greeting"}
        assert client.get("/graphs/team/ask").json()["name"] == "team/ask"
        assert client.get("/graphs/nope").status_code == 404
        spec = client.get("/openapi.json").json()
        assert spec["openapi"].startswith("3.")
        assert {"/graphs", "/graphs/{name}/runs", "/runs/{run_id}", "/runs/{run_id}/events",
                "/runs/{run_id}/resume", "/runs/{run_id}/cancel"} <= set(spec["paths"])


def test_a_run_starts_at_once_and_waits_on_request(serve):
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        started = client.post("/graphs/hello/runs", json={"inputs": {"name": "Ada"}})
        assert started.status_code == 202
        assert started.headers["location"] == f"/runs/{started.json()['id']}"
        run = wait_for_status(client, started.json()["id"], ("finished",))
        assert run["results"] == {"greeting": "Hello, Ada!"}
        assert run["nodes"] == {"greeting": "completed"}
        waited = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": "Bo"}, "all_results": True})
        assert waited.status_code == 200
        assert waited.json()["status"] == "finished"
        assert waited.json()["results"] == {"name": "Bo", "greeting": "Hello, Bo!"}
        listed = client.get("/runs").json()["runs"]
        assert {run["id"] for run in listed} >= {started.json()["id"], waited.json()["id"]}


def test_bad_requests_get_clear_errors(serve):
    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        wrong_node = client.post("/graphs/hello/runs", json={"inputs": {"greeting": "x"}})
        assert wrong_node.status_code == 400
        assert "cannot inject a value: 'greeting' is a computed node" in wrong_node.json()["error"]
        assert "hello.yaml" in wrong_node.json()["error"]
        assert client.post("/graphs/hello/runs", content=b"{not json").status_code == 400
        assert client.post("/graphs/hello/runs", json={"inputs": [1]}).status_code == 400
        assert client.get("/runs/nosuchrun").status_code == 404
        assert client.post("/graphs/nope/runs", json={}).status_code == 404


def test_a_failed_run_shows_the_error_as_the_cli_prints_it(serve):
    served = serve({"bad.yaml": FAILING})
    with served.client() as client:
        run = client.post("/graphs/bad/runs?wait=1", json={}).json()
        assert run["status"] == "failed"
        assert run["error"].startswith("bad.yaml:5:")  # the file as served: no client learns the server's paths
        assert "node 'parsed'" in run["error"]
        assert run["nodes"]["parsed"] == "failed"
        failed = [data for _, name, data in _events(client, run["id"]) if name == "NodeFailed"]
        assert failed and str(served.folder) not in failed[0]["error"] and "bad.yaml:5:" in failed[0]["error"]
        wrong_node = client.post("/graphs/bad/runs", json={"inputs": {"parsed": 1}}).json()["error"]
        assert "bad.yaml" in wrong_node and str(served.folder) not in wrong_node


def _events(client, run_id):
    with client.stream("GET", f"/runs/{run_id}/events") as response:
        return list(sse_events(response))


def test_events_stream_live_and_replay_after_last_event_id(serve):
    served = serve({"ask.yaml": SLOW_ASK})
    with served.client() as client:
        run_id = client.post("/graphs/ask/runs", json={"inputs": {"topic": "SSE"}}).json()["id"]
        seen = []
        with client.stream("GET", f"/runs/{run_id}/events") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for event_id, name, data in sse_events(response):
                seen.append((event_id, name, data))
                if name == "RunStatus" and data["status"] == "interrupted":
                    break
        names = [name for _, name, _ in seen]
        assert names.index("NodeStarted") < names.index("NodeCompleted")
        assert seen[-1][2]["question"] == "What is your name?"
        assert seen[-1][2]["nodes"] == {"slow": "completed", "name": "interrupted", "greeting": "waiting"}

        # A client that comes back with the id of an event it saw gets what followed it, and the stream ends with the run.
        middle = seen[len(seen) // 2][0]
        assert client.post(f"/runs/{run_id}/resume", json={"answer": "Ada"}).status_code == 202
        with client.stream("GET", f"/runs/{run_id}/events", headers={"Last-Event-ID": middle}) as response:
            replayed = list(sse_events(response))
        assert [event_id for event_id, _, _ in replayed][: len(seen) - len(seen) // 2 - 1] == \
            [event_id for event_id, _, _ in seen[len(seen) // 2 + 1:]]
        assert replayed[-1][1] == "RunStatus" and replayed[-1][2]["status"] == "finished"
        assert replayed[-1][2]["results"] == {"greeting": "Hello, Ada! Welcome to SSE."}
        ids = [int(event_id.rsplit(".", 1)[-1]) for event_id, _, _ in replayed]
        assert ids == sorted(ids) and len(ids) == len(set(ids))


def test_an_interrupted_run_takes_an_answer_once(serve):
    served = serve({"ask.yaml": SLOW_ASK})
    with served.client() as client:
        run = client.post("/graphs/ask/runs?wait=true", json={}).json()
        assert run["status"] == "interrupted" and run["question"] == "What is your name?"
        assert client.post(f"/runs/{run['id']}/resume", json={}).status_code == 400
        assert client.post(f"/runs/{run['id']}/resume", json={"answer": None}).status_code == 400  # was 409
        done = client.post(f"/runs/{run['id']}/resume?wait=true", json={"answer": "Ada"}).json()
        assert done["results"] == {"greeting": "Hello, Ada! Welcome to graphs."}
        again = client.post(f"/runs/{run['id']}/resume", json={"answer": "Bo"})
        assert again.status_code == 409


def test_cancel_stops_the_running_agent(serve):
    started, cancelled = threading.Event(), threading.Event()

    async def forever(ctx: AgentContext) -> Any:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()

    served = serve({"forever.yaml": FOREVER}, agents=[AgentInfo(name="foreverAgent", func=forever)])
    with served.client() as client:
        run_id = client.post("/graphs/forever/runs", json={}).json()["id"]
        assert started.wait(30), "the agent did not start"  # a guard against a hang, not a timing check
        response = client.post(f"/runs/{run_id}/cancel")
        assert response.status_code == 200
        assert response.json()["status"] == "cancelled"
        assert response.json()["nodes"] == {"wait": "abort"}  # not left executing
        assert cancelled.wait(30), "the agent was not cancelled"  # a guard against a hang
        assert client.get(f"/runs/{run_id}").json()["nodes"] == {"wait": "abort"}
        assert client.post(f"/runs/{run_id}/cancel").status_code == 409
        saved = anyio.run(served.service.store.get_run, run_id)  # a SQLite store: usable from this thread
        assert saved.status == "cancelled"  # not resumed by the next server


def test_a_full_queue_answers_429_with_retry_after(serve):
    async def forever(ctx: AgentContext) -> Any:
        await anyio.sleep_forever()

    served = serve({"forever.yaml": FOREVER}, agents=[AgentInfo(name="foreverAgent", func=forever)],
                   max_runs=1, max_queue=1)
    with served.client() as client:
        first = client.post("/graphs/forever/runs", json={}).json()["id"]
        wait_for_status(client, first, ("running",))
        second = client.post("/graphs/forever/runs", json={})
        assert second.status_code == 202 and second.json()["status"] == "queued"
        refused = client.post("/graphs/forever/runs", json={})
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) >= 1
        # A cancelled queued run leaves the queue: its slot is free again once the worker passes it by.
        assert client.post(f"/runs/{second.json()['id']}/cancel").json()["status"] == "cancelled"
        client.post(f"/runs/{first}/cancel")
        assert client.post("/graphs/forever/runs", json={}).status_code == 202
        assert client.get("/health").json()["max_runs"] == 1


def test_request_bodies_have_a_size_limit(serve):
    served = serve({"hello.yaml": HELLO}, max_body=1000)
    with served.client() as client:
        big = client.post("/graphs/hello/runs", json={"inputs": {"name": "x" * 2000}})
        assert big.status_code == 413

        def chunks():  # no Content-Length: the limit holds while the body streams in
            for _ in range(10):
                yield b" " * 500

        assert client.post("/graphs/hello/runs", content=chunks()).status_code == 413
        assert client.post("/graphs/hello/runs", json={"inputs": {"name": "small"}}).status_code == 202


def test_the_api_key_is_required_on_every_api_request(serve):
    served = serve({"hello.yaml": HELLO}, api_key="s3cret-key-value")
    with served.client() as client:
        for method, path in [("GET", "/graphs"), ("GET", "/runs"), ("GET", "/openapi.json"),
                             ("POST", "/graphs/hello/runs"), ("GET", "/runs/x/events")]:
            assert client.request(method, path).status_code == 401, path
            assert client.request(method, path, headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert client.get("/graphs", headers={"Authorization": "Bearer s3cret-key-value"}).status_code == 200
        assert client.get("/graphs", headers={"X-API-Key": "s3cret-key-value"}).status_code == 200
        assert client.get("/").status_code == 200  # the page itself holds no data; it asks for the key
        assert client.get("/static/app.js").status_code == 200


def test_key_comparison():
    assert key_matches("abc", "abc")
    assert not key_matches("abd", "abc")
    assert not key_matches("", "abc")
    assert not key_matches(None, "abc")


def test_no_request_reads_files_outside_the_served_folder(serve, tmp_path):
    (tmp_path / "secret.yaml").write_text(HELLO.replace("World", "outside"), encoding="utf-8")
    served = serve({"hello.yaml": HELLO})
    (served.folder / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    with served.client() as client:
        for path in ["/graphs/../secret/runs", "/graphs/%2e%2e/secret/runs", "/graphs//etc/passwd/runs",
                     f"/graphs/{tmp_path}/secret/runs"]:
            response = client.post(path, json={})
            assert response.status_code == 404, path
        for path in ["/static/../app.py", "/static/%2e%2e%2fapp.py", "/static/index.html.bak", "/static/..%2F..%2Fetc%2Fpasswd"]:
            assert client.get(path).status_code == 404, path
    # A symlink that leads out of the folder is not served, even after a restart.
    from graphrt.engine.graph import make_registry
    from graphrt.serve import GraphCatalog

    assert "link" not in GraphCatalog([served.folder], make_registry(None)).graphs


def test_secrets_are_redacted_in_events_results_and_errors(serve, monkeypatch):
    secret = "sk-live-0123456789abcdefghij"
    monkeypatch.setenv("SERVICE_API_KEY", secret)
    served = serve({"hello.yaml": HELLO, "bad.yaml": FAILING})
    with served.client() as client:
        run = client.post("/graphs/hello/runs?wait=true", json={"inputs": {"name": secret}}).json()
        assert secret not in str(run) and "REDACTED" in run["results"]["greeting"]
        with client.stream("GET", f"/runs/{run['id']}/events") as response:
            text = "".join(response.iter_text())
        assert secret not in text and "REDACTED" in text
        failed = client.post("/graphs/bad/runs?wait=true", json={"inputs": {"text": f"{{{secret}"}}).json()
        assert failed["status"] == "failed" and secret not in failed["error"]
        assert secret not in client.get(f"/runs/{failed['id']}").text


LEAKY = """\
version: 0.5
nodes:
  said:
    agent: stringTemplateAgent
    params: {apiKey: cfg-key-7d1e9a0b55c2f3, template: "the key is cfg-key-7d1e9a0b55c2f3"}
    isResult: true
  parsed:
    agent: jsonParserAgent
    params: {apiKey: cfg-key-7d1e9a0b55c2f3}
    inputs: {text: ":said"}
    isResult: true
"""


def test_a_credential_the_graph_file_holds_is_hidden_in_what_the_server_answers(serve):
    """The graph's params give an agent its key; an agent that echoes it (into a result, an error, an event)
    must not hand it to the server's clients, as graphrt run's output does not."""
    key = "cfg-key-7d1e9a0b55c2f3"
    served = serve({"leaky.yaml": LEAKY})
    with served.client() as client:
        assert key not in client.get("/graphs").text
        run = client.post("/graphs/leaky/runs?wait=true", json={}).json()
        with client.stream("GET", f"/runs/{run['id']}/events") as response:
            events = "".join(response.iter_text())
        again = client.get(f"/runs/{run['id']}").text
        nodes = client.get(f"/runs/{run['id']}/nodes").text
    assert run["status"] == "failed" and "node 'parsed'" in run["error"]
    assert "REDACTED" in events
    for answer in (str(run), events, again, nodes):
        assert key not in answer


class _Echo:
    """An extension as graphrt.mcp mounts one: routes that use the service, and a lifespan."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def routes(self, service):
        from starlette.responses import JSONResponse
        from starlette.routing import Mount, Route

        async def graphs(request):
            return JSONResponse(sorted(service.catalog.graphs))

        return [Mount("/echo", routes=[Route("/graphs", graphs)])]

    @asynccontextmanager
    async def lifespan(self, service):
        self.events.append(f"started with {service.settings.max_runs} slots")
        yield
        self.events.append("stopped")


def test_an_extension_mounts_routes_behind_the_guard_and_runs_with_the_server(serve):
    echo = _Echo()
    served = serve({"hello.yaml": HELLO}, extensions=[echo], api_key="k3y-value")
    with served.client() as client:
        assert client.get("/echo/graphs").status_code == 401
        assert client.get("/echo/graphs", headers={"Authorization": "Bearer k3y-value"}).json() == ["hello"]
    assert echo.events == ["started with 8 slots"]
    served.server.should_exit = True
    served.thread.join(15)
    assert echo.events == ["started with 8 slots", "stopped"]


def test_node_events_carry_the_state_they_leave_the_node_in(serve):
    served = serve({"ask.yaml": SLOW_ASK})
    with served.client() as client:
        run_id = client.post("/graphs/ask/runs", json={}).json()["id"]
        states: dict[str, list[str]] = {}
        with client.stream("GET", f"/runs/{run_id}/events") as response:
            for _, name, data in sse_events(response):
                if "state" in data:
                    states.setdefault(data["node_id"], []).append(f"{name}:{data['state']}")
                if name == "RunStatus" and data["status"] == "interrupted":
                    break
        assert states == {"slow": ["NodeQueued:queued", "NodeStarted:executing", "NodeCompleted:completed"],
                          "name": ["NodeQueued:queued", "NodeStarted:executing", "NodeInterrupted:interrupted"]}


def test_the_page_and_the_openapi_document_take_the_servers_states(serve):
    from graphrt.base.states import NodeState, RunStatus, vocabulary

    served = serve({"hello.yaml": HELLO})
    with served.client() as client:
        page = client.get("/").text
        spec = client.get("/openapi.json").json()["components"]["schemas"]
    embedded = page.split('<script id="vocabulary" type="application/json">')[1].split("</script>")[0]
    assert json.loads(embedded) == vocabulary()
    assert spec["Run"]["properties"]["status"]["enum"] == [status.value for status in RunStatus]
    assert spec["Run"]["properties"]["nodes"]["additionalProperties"]["enum"] == [state.value for state in NodeState]


def test_the_openapi_document_describes_every_event_a_stream_sends(serve):
    import jsonschema

    from graphrt.observe.events import NodeAborted, NodeInterrupted

    started = threading.Event()

    async def forever(ctx: AgentContext) -> Any:
        started.set()
        await anyio.sleep_forever()

    served = serve({"ask.yaml": SLOW_ASK, "forever.yaml": FOREVER}, agents=[AgentInfo(name="foreverAgent", func=forever)])
    with served.client() as client:
        spec = client.get("/openapi.json").json()
        schemas = spec["components"]["schemas"]
        records = []
        asking = client.post("/graphs/ask/runs", json={}).json()["id"]
        with client.stream("GET", f"/runs/{asking}/events") as response:  # it stays open while the run asks
            for _, _, data in sse_events(response):
                records.append(data)
                if data["type"] == "RunStatus" and data["status"] == "interrupted":
                    break
        waiting = client.post("/graphs/forever/runs", json={}).json()["id"]
        assert started.wait(30), "the agent did not start"  # a guard against a hang
        client.post(f"/runs/{waiting}/cancel")
        with client.stream("GET", f"/runs/{waiting}/events") as response:  # it ends with the run
            records += [data for _, _, data in sse_events(response)]
    described = spec["paths"]["/runs/{run_id}/events"]["get"]["description"]
    assert {"NodeInterrupted", "NodeAborted"} <= {record["type"] for record in records}
    for record in records:
        jsonschema.validate(record, schemas[f"{record['type']}Event"])
        assert record["type"] in described and record["type"] in schemas["Event"]["discriminator"]["mapping"]
    assert {NodeInterrupted.__name__, NodeAborted.__name__} <= {ref["$ref"].rsplit("/", 1)[1][:-len("Event")]
                                                              for ref in schemas["Event"]["oneOf"]}
