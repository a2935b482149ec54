"""MCP resources: graphrt's client lists and reads them, and mcpResourcesAgent and mcpResourceAgent give GraphAI's
results, against the real tool server (tool_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import base64

import pytest

import graphrt

pytestmark = [pytest.mark.anyio, pytest.mark.needs("mcp")]


@pytest.fixture(params=["stdio", "http"])
def server(request, kit) -> dict:
    """The tool server's config entry, over each transport."""
    if request.param == "http":
        return {"url": request.getfixturevalue("http_server")}
    return kit.stdio()


def read(service: str, uri: str) -> dict:
    return {"agent": "mcpResourceAgent", "inputs": {"serviceName": service, "params": {"uri": uri}}, "isResult": True}


async def test_resources_are_listed_by_server_as_mcp_spells_them(server, kit):
    graph = {"version": 0.5, "nodes": {"list": {"agent": "mcpResourcesAgent", "isResult": True}}}
    results = await graphrt.arun(graph, config=kit.config(tests=server))
    assert results["list"]["resources"] == {"tests": [
        {"name": "readme", "uri": "notes://readme", "description": "How to use the notes.", "mimeType": "text/plain"},
        {"name": "logo", "uri": "notes://logo", "description": "", "mimeType": "image/png"},
    ]}


async def test_a_text_resource_and_a_binary_one_are_read(server, kit):
    graph = {"version": 0.5, "nodes": {"text": read("tests", "notes://readme"), "blob": read("tests", "notes://logo")}}
    results = await graphrt.arun(graph, config=kit.config(tests=server))
    assert results["text"]["content"]["contents"] == [
        {"uri": "notes://readme", "mimeType": "text/plain", "text": "Read me first."}]
    (blob,) = results["blob"]["content"]["contents"]
    assert (blob["uri"], blob["mimeType"], base64.b64decode(blob["blob"])) == (
        "notes://logo", "image/png", b"\x89PNG\r\n\x1a\n")


async def test_a_templated_uri_is_read_and_params_may_come_from_params(kit):
    graph = {"version": 0.5, "nodes": {"note": {"agent": "mcpResourceAgent", "isResult": True, "params": {
        "serviceName": "tests", "params": {"uri": "notes://by-name/groceries"}}}}}
    results = await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))
    assert results["note"]["content"]["contents"][0]["text"] == "the note called groceries"


async def test_every_server_is_listed_and_one_without_resources_has_none(kit):
    graph = {"version": 0.5, "nodes": {"list": {"agent": "mcpResourcesAgent", "isResult": True}}}
    config = kit.config(one=kit.stdio(), plain=kit.stdio("toolsonly"))
    resources = (await graphrt.arun(graph, config=config))["list"]["resources"]
    assert list(resources) == ["one", "plain"]
    assert [entry["uri"] for entry in resources["one"]] == ["notes://readme", "notes://logo"]
    assert resources["plain"] == []


async def test_an_unknown_uri_is_the_servers_refusal_naming_it(kit):
    graph = {"version": 0.5, "nodes": {"read": read("tests", "notes://nowhere")}}
    with pytest.raises(graphrt.GraphError, match=r"MCP server 'tests' refused resources/read 'notes://nowhere'"):
        await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))


async def test_no_servers_fails_as_graphais_no_mcp_clients():
    graph = {"version": 0.5, "nodes": {"list": {"agent": "mcpResourcesAgent", "isResult": True}}}
    with pytest.raises(graphrt.GraphError, match=r"mcpResourcesAgent: no MCP servers are configured for this run "
                                                 r"\(GraphAI: no mcpClients\)"):
        await graphrt.arun(graph)


@pytest.mark.parametrize(("node", "message"), [
    ({"inputs": {"serviceName": "tests"}}, "mcpResourceAgent: no params"),
    ({"inputs": {"params": {"uri": "notes://readme"}}}, "mcpResourceAgent: no serviceName"),
    ({"inputs": {"serviceName": "tests", "params": {"url": "x"}}}, r"params must be resources/read's params, \{uri"),
])
async def test_graphais_assertions_on_the_read(kit, node, message):
    graph = {"version": 0.5, "nodes": {"read": {"agent": "mcpResourceAgent", "isResult": True, **node}}}
    with pytest.raises(graphrt.GraphError, match=message):
        await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))


async def test_an_unconfigured_server_is_named(kit):
    graph = {"version": 0.5, "nodes": {"read": read("other", "notes://readme")}}
    with pytest.raises(graphrt.GraphError, match=r"no MCP server 'other' is configured for this run \(configured: tests\)"):
        await graphrt.arun(graph, config=kit.config(tests=kit.stdio()))
