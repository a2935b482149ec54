"""A run's MCP servers: started once, shared by nested graphs, closed when the run ends however it ends;
a server that cannot start, dies or hangs fails the node with an error naming the server and the node."""

from __future__ import annotations

import anyio
import pytest

import graphrt
from graphrt import ServiceError
from graphrt.observe.events import NodeCompleted, NodeStarted

pytestmark = pytest.mark.anyio


def call(tool: str, arguments: dict | None = None, after: str | None = None, **node) -> dict:
    inputs = {"tools": {"name": tool, "arguments": arguments or {}}, **({"after": after} if after else {})}
    return {"agent": "mcpToolsCallAgent", "inputs": inputs, "isResult": True, **node}


def text(result: dict) -> str:
    return result["response"]["content"][0]["text"]


async def test_one_server_process_serves_the_run_and_its_nested_graphs_then_stops(kit):
    graph = {"version": 0.5, "nodes": {
        "outer": call("tests--whoami"),
        "inner": {"agent": "nestedAgent", "inputs": {"after": ":outer"}, "isResult": True, "graph": {
            "version": 0.5, "nodes": {"again": call("tests--whoami")}}},
    }}
    results = await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))
    outer_pid, outer_calls = text(results["outer"]).split()
    inner_pid, inner_calls = text(results["inner"]["again"]).split()
    assert inner_pid == outer_pid and (outer_calls, inner_calls) == ("1", "2")
    assert not kit.alive(int(outer_pid))  # the SDK reaps the server before the run's services are closed


async def test_servers_stop_when_the_run_fails(kit):
    def broken(inputs, params):
        raise RuntimeError("later node fails")

    graph = {"version": 0.5, "nodes": {"who": call("tests--whoami"), "fail": {"agent": broken, "inputs": {"x": ":who"}}}}
    run = graphrt.Graph(graph, config=kit.config(tests=kit.stdio())).start()
    with pytest.raises(graphrt.GraphError, match="later node fails"):
        await run.wait()
    pid = int(text(run.results(all_results=True)["who"]).split()[0])
    assert not kit.alive(pid)


async def test_servers_stop_when_the_run_is_cancelled(kit):
    graph = graphrt.Graph({"version": 0.5, "nodes": {
        "who": call("tests--whoami"), "stuck": call("tests--hang", after=":who"),
    }}, config=kit.config(tests=kit.stdio()))
    pids: list[int] = []
    stuck = anyio.Event()

    def watch(event):
        if isinstance(event, NodeCompleted) and event.node_id == "who":
            pids.append(int(text(event.result).split()[0]))
        elif isinstance(event, NodeStarted) and event.node_id == "stuck":
            stuck.set()

    with anyio.fail_after(60):  # a guard against a hang, not a timing check
        async with anyio.create_task_group() as group:
            group.start_soon(graph.start(subscribe=[watch]).wait)
            await stuck.wait()  # the server is open, and a node calls its tool that never answers
            group.cancel_scope.cancel()
    assert pids and not kit.alive(pids[0])


async def test_a_command_that_does_not_exist(kit):
    config = kit.config(ghost={"command": "/nonexistent/mcp-server"})
    with pytest.raises(ServiceError) as caught:
        await graphrt.arun({"version": 0.5, "nodes": {"list": {"agent": "mcpToolsListAgent"}}}, config=config)
    message = str(caught.value)
    assert "node 'list'" in message and "MCP server 'ghost' failed to start" in message
    assert "/nonexistent/mcp-server" in message
    assert caught.value.service == "ghost"


async def test_a_server_that_exits_at_start_tells_what_it_wrote_to_stderr(kit):
    with pytest.raises(ServiceError) as caught:
        await graphrt.arun({"version": 0.5, "nodes": {"c": call("bad--echo")}}, config=kit.config(bad=kit.stdio("broken")))
    message = str(caught.value)
    assert "node 'c'" in message and "MCP server 'bad' failed to start" in message
    assert "missing setting TEST_TOKEN" in message


async def service_failure(graph: graphrt.Graph) -> ServiceError:
    """Runs a graph that fails; returns its error, which is the server's own, not the node's timeout.

    Given a node's time left as its own limit, the server's error comes first and says what went wrong.
    """
    with pytest.raises(ServiceError) as caught:
        await graph.arun()
    assert not isinstance(caught.value, graphrt.NodeTimeoutError)
    return caught.value


async def test_a_server_that_never_answers_fails_within_the_nodes_timeout(kit):
    graph = graphrt.Graph({"version": 0.5, "nodes": {"c": call("mute--echo", timeout=3000)}},
                          config=kit.config(mute=kit.stdio("silent")))
    error = await service_failure(graph)
    assert "node 'c'" in str(error) and "MCP server 'mute' did not start within" in str(error)


async def test_a_server_that_dies_mid_run(kit):
    graph = {"version": 0.5, "nodes": {"first": call("tests--echo", {"text": "x"}), "boom": call("tests--die", after=":first")}}
    run = graphrt.Graph(graph, config=kit.config(tests=kit.stdio())).start()
    with pytest.raises(ServiceError) as caught:
        await run.wait()
    message = str(caught.value)
    assert "node 'boom'" in message and "MCP server 'tests' closed the connection" in message
    assert "dying on purpose" in message
    assert text(run.results(all_results=True)["first"]) == "echo: x"


async def test_a_tool_that_hangs_fails_within_the_nodes_timeout(kit):
    graph = graphrt.Graph({"version": 0.5, "nodes": {
        "warm": call("tests--echo", {"text": "up"}), "c": call("tests--hang", after=":warm", timeout=2000),
    }}, config=kit.config(tests=kit.stdio()))
    error = await service_failure(graph)
    assert "node 'c'" in str(error) and "MCP server 'tests' did not answer tools/call 'hang'" in str(error)


async def test_the_servers_own_timeout(kit):
    with pytest.raises(ServiceError, match=r"MCP server 'tests' did not answer tools/call 'hang' within 1 s"):
        await graphrt.arun({"version": 0.5, "nodes": {"c": call("tests--hang")}},
                           config=kit.config(tests=kit.stdio(timeout=1)))  # startupTimeout is apart: 30 s


@pytest.mark.parametrize(("entry", "problem"), [
    ({"args": ["x"]}, "give either 'command' (stdio) or 'url' (streamable HTTP)"),
    ({"command": "x", "url": "http://127.0.0.1:1/mcp"}, "give either"),
    ({"url": "ftp://example"}, "'url' must be an http:// or https:// URL"),
    ({"command": "x", "timeout": -1}, "'timeout' must be a positive number"),
    ({"command": "x", "type": "sse"}, "transport 'sse' is not supported"),
    ({"command": "${GRAPHRT_SURELY_UNSET_VAR}"}, "environment variable GRAPHRT_SURELY_UNSET_VAR is not set"),
])
async def test_a_bad_server_entry_is_named(kit, entry, problem):
    with pytest.raises(graphrt.GraphError) as caught:
        await graphrt.arun({"version": 0.5, "nodes": {"c": call("s--echo")}}, config=kit.config(s=entry))
    assert "MCP server 's'" in str(caught.value) and problem in str(caught.value)


async def test_a_disabled_server_is_left_out(kit):
    results = await graphrt.arun({"version": 0.5, "nodes": {"list": {"agent": "mcpToolsListAgent", "isResult": True}}},
                                 config=kit.config(on=kit.stdio(), off={**kit.stdio(), "disabled": True}))
    assert {tool["name"].split("--")[0] for tool in results["list"]["tools"]} == {"on"}
