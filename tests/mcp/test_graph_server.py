"""`graphrt mcp`: graph files as MCP tools, reached with the SDK's own client over stdio and streamable HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

pytestmark = pytest.mark.anyio

GRAPHS = Path(__file__).parents[2] / "graphs"
GRAPHRT = [sys.executable, "-c", "import sys; from graphrt.cli.main import main; sys.exit(main())"]

GREET = """\
# Greets someone by name, in a language.
version: 0.5
metadata:
  inputs:
    name:
      type: string
      description: who to greet
nodes:
  name: {}
  language:
    value: en
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name
      language: :language
    params:
      template: "[${language}] Hello, ${name}!"
    isResult: true
"""

BROKEN = """\
version: 0.5
nodes:
  text:
    value: not json
  parsed:
    agent: jsonParserAgent
    inputs:
      text: :text
    isResult: true
"""


@pytest.fixture
def graph_dir(tmp_path: Path) -> Path:
    (tmp_path / "greet.yaml").write_text(GREET)
    (tmp_path / "broken.yaml").write_text(BROKEN)
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {}}))  # not a graph: left out
    return tmp_path


def stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=GRAPHRT[0], args=[*GRAPHRT[1:], "mcp", *args])


async def test_each_graph_is_a_tool_with_its_inputs_as_the_schema(graph_dir):
    async with Client(stdio(str(graph_dir))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(tools) == ["broken", "greet"]
    greet = tools["greet"]
    assert greet.description == "Greets someone by name, in a language."
    assert greet.input_schema == {
        "type": "object",
        "properties": {"name": {"type": "string", "description": "who to greet"}, "language": {"type": "string", "default": "en"}},
        "required": ["name"],
        "additionalProperties": False,
    }


async def test_a_call_runs_the_graph_with_progress_notifications(graph_dir):
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with Client(stdio(str(graph_dir / "greet.yaml"))) as client:
        result = await client.call_tool("greet", {"name": "Ada", "language": "fr"}, progress_callback=on_progress)
    assert result.is_error is False
    assert result.content[0].text == "[fr] Hello, Ada!"
    assert result.structured_content == {"greeting": "[fr] Hello, Ada!"}
    assert progress == [(1.0, "node 'greeting' completed")]


async def test_bad_arguments_and_failed_runs_are_tool_errors_naming_the_problem(graph_dir):
    async with Client(stdio(str(graph_dir))) as client:
        missing = await client.call_tool("greet", {"language": "fr"})
        extra = await client.call_tool("greet", {"name": "Ada", "colour": "red"})
        failed = await client.call_tool("broken", {})
        unknown = await client.call_tool("nope", {})
    assert missing.is_error and missing.content[0].text == "greet: invalid arguments: name: a required value is missing"
    assert extra.is_error and "colour: unexpected" in extra.content[0].text
    assert failed.is_error and "node 'parsed'" in failed.content[0].text and "broken.yaml" in failed.content[0].text
    assert str(graph_dir) not in failed.content[0].text  # the file by name, not by the server's path
    assert unknown.is_error and "unknown tool 'nope'" in unknown.content[0].text


async def test_a_credential_the_graph_file_holds_is_not_in_an_answer(tmp_path):
    key = "cfg-key-7d1e9a0b55c2f3"
    (tmp_path / "leaky.yaml").write_text(f"""\
version: 0.5
nodes:
  said:
    agent: stringTemplateAgent
    params: {{apiKey: {key}, template: "the key is {key}"}}
    isResult: true
""")
    async with Client(stdio(str(tmp_path / "leaky.yaml"))) as client:
        result = await client.call_tool("leaky", {})
    assert result.is_error is False
    assert result.structured_content == {"said": "the key is REDACTED"}
    assert key not in result.content[0].text


async def test_an_invalid_graph_is_not_offered_as_a_tool(graph_dir):
    (graph_dir / "invalid.yaml").write_text("version: 0.5\nnodes:\n  a:\n    agent: noSuchAgent\n")
    errors = graph_dir / "stderr.txt"
    with errors.open("w") as errlog:
        from mcp.client.stdio import stdio_client

        async with Client(stdio_client(stdio(str(graph_dir)), errlog=errlog)) as client:  # was: a tool that fails
            tools = {tool.name for tool in (await client.list_tools()).tools}
    assert tools == {"broken", "greet"}
    assert "not served (invalid): invalid:" in errors.read_text() and "noSuchAgent" in errors.read_text()


async def test_graphs_that_use_mcp_servers_share_them_for_the_servers_life(tmp_path, kit):
    (tmp_path / "who.yaml").write_text(json.dumps({"version": 0.5, "nodes": {"who": {
        "agent": "mcpToolsCallAgent", "inputs": {"tools": {"name": "tests--whoami", "arguments": {}}}, "isResult": True}}}))
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"tests": kit.stdio()}}))
    async with Client(stdio(str(tmp_path / "who.yaml"), "--mcp-config", str(config))) as client:
        first = await client.call_tool("who", {})
        second = await client.call_tool("who", {})
    pid_one, calls_one = first.structured_content["who"]["response"]["content"][0]["text"].split()
    pid_two, calls_two = second.structured_content["who"]["response"]["content"][0]["text"].split()
    assert pid_one == pid_two and (calls_one, calls_two) == ("1", "2")


@pytest.mark.needs("mcp")  # the whole extra: --http serves with uvicorn and httptools
async def test_streamable_http_with_a_key(graph_dir, kit):
    port = kit.free_port()
    process = subprocess.Popen([*GRAPHRT, "mcp", str(graph_dir), "--http", str(port), "--key", "k3y"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        kit.wait_for_http(url, process)
        refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401
        http_client = create_mcp_http_client(headers={"Authorization": "Bearer k3y"})
        async with http_client, Client(streamable_http_client(url, http_client=http_client)) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            result = await client.call_tool("greet", {"name": "Bo"})
        assert names == ["broken", "greet"]
        assert result.content[0].text == "[en] Hello, Bo!"
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.needs("mcp")
def test_beyond_loopback_a_key_is_needed(graph_dir, monkeypatch, capsys):
    from graphrt.cli.main import main

    monkeypatch.delenv("GRAPHRT_MCP_KEY", raising=False)
    assert main(["mcp", str(graph_dir), "--http", "9", "--host", "0.0.0.0"]) == 2
    assert "needs a key" in capsys.readouterr().err


def test_a_missing_path_is_a_clear_error(tmp_path, capsys):
    from graphrt.cli.main import main

    assert main(["mcp", str(tmp_path / "nothing")]) == 1
    assert "nothing: no such file or folder" in capsys.readouterr().err


async def test_an_agents_progress_quoting_a_key_the_graph_holds_reaches_the_client_without_it(tmp_path):
    """Progress notifications passed an agent's message as it was: a key it quoted reached the client."""
    from graphrt.authoring.agent_info import AgentContext, AgentInfo
    from graphrt.authoring.plugins import make_registry
    from graphrt.mcp.graph_tools import collect_graph_tools
    from graphrt.mcp.server import GraphToolServer

    key = "cfg-key-7d1e9a0b55c2f3"

    def chatty(ctx: AgentContext) -> str:
        ctx.progress(f"calling the service with {ctx.params['apiKey']}")
        return "done"

    (tmp_path / "chatty.yaml").write_text(f"""\
version: 0.5
nodes:
  said:
    agent: chattyAgent
    params: {{apiKey: {key}}}
    isResult: true
""")
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    server = GraphToolServer(collect_graph_tools([tmp_path]), agents=make_registry([AgentInfo(name="chattyAgent",
                                                                                              func=chatty)]))
    async with Client(server.lowlevel) as client:
        result = await client.call_tool("chatty", {}, progress_callback=on_progress)
    assert result.is_error is False
    assert progress == ["node 'said': calling the service with REDACTED", "node 'said' completed"]
