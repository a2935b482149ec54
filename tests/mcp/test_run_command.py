"""`graphrt run FILE --mcp-config mcp.json`, with graphs/mcp_files.yaml as the README shows it."""

from __future__ import annotations

import json
from pathlib import Path

from graphrt.cli.main import main

GRAPHS = Path(__file__).parents[2] / "graphs"


def test_the_example_graph_reads_a_folder_through_the_file_server(reply, openai_server, tmp_path, monkeypatch, capsys):
    (tmp_path / "todo.txt").write_text("Water the plants on Tuesday.\n")
    monkeypatch.setenv("FILES_ROOT", str(tmp_path))
    openai_server.script(
        reply.tool_calls(("files--list_files", {})),
        reply.tool_calls(("files--read_file", {"path": "todo.txt"})),
        reply.text("Water the plants on Tuesday."),
    )
    code = main(["run", str(GRAPHS / "mcp_files.yaml"), "--mcp-config", str(GRAPHS / "mcp_files.json"), "-q"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == {
        "answer": "Water the plants on Tuesday.",
        "toolsUsed": ["files--list_files", "files--read_file"],
    }
    sent = [tool["function"]["name"] for tool in openai_server.requests[0]["tools"]]
    assert sent == ["files--list_files", "files--read_file", "files--search_files"]
    reads = [message["content"] for message in openai_server.requests[2]["messages"] if message["role"] == "tool"]
    assert reads == ["todo.txt", "Water the plants on Tuesday.\n"]


def test_a_bad_mcp_config_file_is_named(tmp_path, capsys):
    config = tmp_path / "mcp.json"
    config.write_text('{"mcpServers": {"files": {"args": []}}}')
    assert main(["run", str(GRAPHS / "hello.yaml"), "--mcp-config", str(config)]) == 1
    assert f"{config}: MCP server 'files': give either 'command' (stdio) or 'url'" in capsys.readouterr().err
    config.write_text("{not json")
    assert main(["run", str(GRAPHS / "hello.yaml"), "--mcp-config", str(config)]) == 1
    assert "the MCP config is not valid JSON" in capsys.readouterr().err
    assert main(["run", str(GRAPHS / "hello.yaml"), "--mcp-config", str(tmp_path / "none.json")]) == 1
    assert "cannot read the MCP config" in capsys.readouterr().err
