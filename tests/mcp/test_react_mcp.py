"""graphs/react.yaml with an MCP server's tools as its actions, the LLM scripted, the server real."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphrt

pytestmark = pytest.mark.anyio

REACT = Path(__file__).parents[2] / "graphs" / "react.yaml"


async def test_an_mcp_server_s_tools_are_react_actions_described_by_their_own_schemas(reply, openai_server, kit):
    openai_server.script(
        reply.text("Thought: add them.\nAction: add[2, 40]"),  # two arguments need a JSON object
        reply.text('Thought: as JSON.\nAction: add[{"a": 2, "b": 40}]'),
        reply.text("Thought: echo it.\nAction: echo[forty-two]"),
        reply.text("Thought: done.\nAction: finish[2 + 40 = 42]"),
    )
    graph = graphrt.Graph(REACT, config=kit.config(tests=kit.stdio()))
    results = await graph.arun(inject={"question": "What is 2 + 40?", "tools": ["tests--add", "tests--echo"],
                                       "examples": []})
    assert results == {"answer": "2 + 40 = 42", "status": "finished", "steps": 4, "model": "scripted-model"}
    system = openai_server.requests[0]["messages"][0]["content"]
    assert '- add[{"a": ..., "b": ...}]: Adds two integers. a (integer); b (integer).\n' in system
    assert "- echo[text]: Returns the text it is given. text (string).\n" in system
    observations = [request["messages"][-1]["content"] for request in openai_server.requests[1:]]
    assert observations == [
        'Observation: Error: add takes 2 arguments: write them as a JSON object, as in add[{"a": ..., "b": ...}]',
        "Observation: 42",
        "Observation: echo: forty-two",
    ]
