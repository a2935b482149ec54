"""`graphrt serve` answers MCP at /mcp, behind its API key; API runs and MCP calls share the MCP servers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

pytestmark = [pytest.mark.anyio, pytest.mark.needs("serve", "mcp")]

GRAPHS = Path(__file__).parents[2] / "graphs"
GRAPHRT = [sys.executable, "-c", "import sys; from graphrt.cli.main import main; sys.exit(main())"]


async def test_the_served_graphs_are_mcp_tools_at_slash_mcp(tmp_path, kit):
    (tmp_path / "graphs").mkdir()
    (tmp_path / "graphs" / "hello.yaml").write_text((GRAPHS / "hello.yaml").read_text())
    (tmp_path / "graphs" / "who.yaml").write_text(json.dumps({"version": 0.5, "nodes": {"who": {
        "agent": "mcpToolsCallAgent", "inputs": {"tools": {"name": "tests--whoami", "arguments": {}}}, "isResult": True}}}))
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"tests": kit.stdio()}}))
    port = kit.free_port()
    process = subprocess.Popen([*GRAPHRT, "serve", str(tmp_path / "graphs"), "--port", str(port), "--api-key", "s3cret",
                                "--checkpoint", str(tmp_path / "runs.db"), "--mcp-config", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        kit.wait_for_http(f"{base}/health", process)
        assert httpx.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 401
        http_client = create_mcp_http_client(headers={"Authorization": "Bearer s3cret"})
        async with http_client, Client(streamable_http_client(f"{base}/mcp", http_client=http_client)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            hello = await client.call_tool("hello", {"name": "Ada"})
            who = await client.call_tool("who", {})
        assert sorted(tools) == ["hello", "who"]
        assert tools["hello"].input_schema["properties"]["name"] == {"type": "string", "default": "World"}
        assert hello.content[0].text == "Hello, Ada!"
        mcp_pid = who.structured_content["who"]["response"]["content"][0]["text"].split()[0]

        headers = {"Authorization": "Bearer s3cret"}
        # ?wait=true answers once the run has ended.
        run = httpx.post(f"{base}/graphs/who/runs", json={}, headers=headers, params={"wait": "true"}, timeout=60).json()
        assert run["status"] == "finished", run
        api_pid = run["results"]["who"]["response"]["content"][0]["text"].split()[0]
        assert api_pid == mcp_pid  # one MCP server process for the whole graphrt serve process
    finally:
        process.terminate()
        process.wait(15)
