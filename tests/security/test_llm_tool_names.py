"""toolsAgent offers an LLM only MCP tools it can take: names LLM APIs accept, at most 128, descriptions capped.

The MCP server here lists tools named `../../etc/passwd`, 10,000 letters, with a NUL
and more, and 200 others with 5,000-character descriptions: OpenAI answers a 400 to
any request offering one of the first kind, or more than 128 tools.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import graphrt
from graphrt.authoring.tool_calls import LLM_TOOL_NAME, MAX_LLM_TOOLS, MAX_TOOL_DESCRIPTION

pytestmark = [pytest.mark.anyio, pytest.mark.needs("mcp")]

TOOL_SERVER = Path(__file__).parents[1] / "mcp" / "tool_server.py"
CONFIG = {"mcp": {"mcpServers": {"h": {"command": sys.executable, "args": [str(TOOL_SERVER), "hostile"]}}}}


async def test_the_llm_listing_holds_only_names_an_llm_takes() -> None:
    results = await graphrt.arun({"version": 0.5, "nodes": {"list": {"agent": "mcpToolsListAgent", "isResult": True}}},
                                 config=CONFIG)
    listed = results["list"]
    assert any(tool["name"] == "h--../../etc/passwd" for tool in listed["tools"])  # GraphAI's listing: all of them
    names = [tool["function"]["name"] for tool in listed["llmTools"]]
    assert len(names) == MAX_LLM_TOOLS and all(LLM_TOOL_NAME.fullmatch(name) for name in names)
    assert all(len(tool["function"]["description"]) <= MAX_TOOL_DESCRIPTION + 3 for tool in listed["llmTools"])


async def test_tools_agent_sends_the_llm_only_tools_it_takes(openai_server, reply) -> None:
    openai_server.script(reply.text("done"))
    graph = {"version": 0.5, "nodes": {"answer": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "messages": [{"role": "user", "content": "hi"}], "tools": ["h"]},
        "params": {"model": "m", "baseURL": openai_server.url, "apiKey": "k" * 20}}}}
    await graphrt.arun(graph, config=CONFIG)
    sent = openai_server.requests[-1]["tools"]
    assert len(sent) <= MAX_LLM_TOOLS and all(LLM_TOOL_NAME.fullmatch(tool["function"]["name"]) for tool in sent)


async def test_a_tool_granted_by_a_name_no_llm_takes_is_a_clear_error(openai_server, reply) -> None:
    graph = {"version": 0.5, "nodes": {"answer": {"agent": "toolsAgent", "isResult": True, "inputs": {
        "messages": [{"role": "user", "content": "hi"}], "tools": ["h--with space"]},
        "params": {"model": "m", "baseURL": openai_server.url, "apiKey": "k" * 20}}}}
    with pytest.raises(graphrt.GraphError, match="cannot be offered to an LLM: .*not a name LLM APIs take"):
        await graphrt.arun(graph, config=CONFIG)
