"""mcpToolsListAgent and mcpToolsCallAgent against real MCP servers, over stdio and streamable HTTP."""

from __future__ import annotations

import time

import anyio
import pytest

import graphrt
from graphrt import ServiceError
from graphrt.observe.events import AgentProgress

pytestmark = pytest.mark.anyio


def list_and_call(name: str, arguments: dict, **list_params) -> dict:
    return {"version": 0.5, "nodes": {
        "list": {"agent": "mcpToolsListAgent", "params": list_params, "isResult": True},
        "call": {"agent": "mcpToolsCallAgent", "inputs": {"tools": {"name": name, "arguments": arguments}},
                 "isResult": True},
    }}


@pytest.fixture(params=["stdio", "http"])
def server(request, kit) -> dict:
    """The tool server's config entry, over each transport."""
    if request.param == "http":
        return {"url": request.getfixturevalue("http_server")}
    return kit.stdio()


async def test_list_and_call_with_graphais_names_and_results(server, kit):
    results = await graphrt.arun(list_and_call("tests--add", {"a": 2, "b": 3}), config=kit.config(tests=server))
    tools = {tool["name"]: tool for tool in results["list"]["tools"]}
    assert {"tests--echo", "tests--add", "tests--fail", "tests--count"} <= set(tools)
    assert tools["tests--add"]["description"] == "Adds two integers."
    assert tools["tests--add"]["inputSchema"]["required"] == ["a", "b"]
    assert tools["tests--add"]["inputSchema"]["properties"]["a"]["type"] == "integer"
    llm_tools = {tool["function"]["name"]: tool for tool in results["list"]["llmTools"]}
    assert llm_tools["tests--add"]["type"] == "function"
    assert llm_tools["tests--add"]["function"]["parameters"] == tools["tests--add"]["inputSchema"]
    assert results["call"]["response"]["content"] == [{"type": "text", "text": "5"}]
    assert "isError" not in results["call"]["response"]


async def test_a_tool_error_is_a_result_with_is_error_not_a_failed_node(kit):
    results = await graphrt.arun(list_and_call("tests--fail", {"reason": "disk full"}), config=kit.config(tests=kit.stdio()))
    response = results["call"]["response"]
    assert response["isError"] is True
    assert "disk full" in response["content"][0]["text"]


async def test_services_picks_the_servers_to_list(kit):
    config = kit.config(one=kit.stdio(), two=kit.stdio())
    graph = {"version": 0.5, "nodes": {
        "all": {"agent": "mcpToolsListAgent", "isResult": True},
        "two": {"agent": "mcpToolsListAgent", "params": {"services": ["two"]}, "isResult": True},
    }}
    results = await graphrt.arun(graph, config=config)
    servers = {tool["name"].split("--")[0] for tool in results["all"]["tools"]}
    assert servers == {"one", "two"}
    assert {tool["name"].split("--")[0] for tool in results["two"]["tools"]} == {"two"}


async def test_arguments_as_json_text_as_an_llm_sends_them(kit):
    graph = {"version": 0.5, "nodes": {"call": {"agent": "mcpToolsCallAgent", "isResult": True, "inputs": {
        "tools": {"name": "tests--echo", "arguments": '{"text": "hi"}'}}}}}
    results = await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))
    assert results["call"]["response"]["content"][0]["text"] == "echo: hi"


async def test_progress_notifications_become_progress_events(kit):
    graph = graphrt.Graph({"version": 0.5, "nodes": {"call": {"agent": "mcpToolsCallAgent", "isResult": True, "inputs": {
        "tools": {"name": "tests--count", "arguments": {"steps": 3}}}}}}, config=kit.config(tests=kit.stdio()))
    events = []
    results = await graph.arun(subscribe=[events.append])
    assert results["call"]["response"]["content"][0]["text"] == "counted to 3"
    progress = [event for event in events if isinstance(event, AgentProgress)]
    assert [event.message for event in progress] == ["step 1", "step 2", "step 3"]
    assert progress[-1].data == {"tool": "tests--count", "progress": 3.0, "total": 3.0}
    assert {event.node_id for event in progress} == {"call"}


async def test_an_unknown_server_names_the_configured_ones_and_the_node(kit):
    with pytest.raises(graphrt.GraphError) as caught:
        await graphrt.arun(list_and_call("nope--echo", {}), config=kit.config(tests=kit.stdio()))
    message = str(caught.value)
    assert "node 'call'" in message and "no MCP server 'nope'" in message and "configured: tests" in message


async def test_a_server_shows_its_input_schema_unchanged_over_http_with_headers(http_server, kit):
    config = kit.config(remote={"url": http_server, "headers": {"X-Test": "${MCP_TEST_HEADER:-yes}"}})
    results = await graphrt.arun(list_and_call("remote--echo", {"text": "over http"}), config=config)
    assert results["call"]["response"]["content"][0]["text"] == "echo: over http"
