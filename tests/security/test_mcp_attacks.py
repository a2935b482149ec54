"""The MCP server and client under attack: no secret out, a clean answer to hostile arguments, no traceback.

`graphrt mcp` lists a graph's static values as defaults: a key written in the graph
is not one of them. A tool's error passes the one redaction policy (the
environment's keys, credentials in URLs) and quotes a huge argument in a few
hundred characters. Arguments nested past the limit, or holding a lone surrogate,
get an error result. A server that prints a banner on stdout costs no traceback.
A checkpoint of a run with MCP servers holds none of their env values, headers or
`--token` arguments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client

from graphrt.mcp.graph_tools import collect_graph_tools
from graphrt.mcp.server import GraphToolServer

pytestmark = [pytest.mark.anyio, pytest.mark.needs("mcp")]

TOOL_SERVER = Path(__file__).parents[1] / "mcp" / "tool_server.py"

KEYED = """\
version: 0.5
nodes:
  apiKey:
    value: sk-graph-written-0123456789abcdef
  endpoint:
    value: https://me:hunter2pass@api.example/v1
  name:
    value: World
  count:
    value: 1
  greeting:
    agent: stringTemplateAgent
    inputs:
      name: :name
    params:
      template: Hello, ${name}!
    isResult: true
"""

FETCH = """\
version: 0.5
nodes:
  path:
    value: x
  url:
    agent: stringTemplateAgent
    inputs:
      path: :path
    params:
      template: http://127.0.0.1:9/${path}
  got:
    agent: vanillaFetchAgent
    inputs:
      url: :url
    isResult: true
"""


def _server(tmp_path: Path, **graphs: str) -> GraphToolServer:
    for name, text in graphs.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    return GraphToolServer(collect_graph_tools([tmp_path]))


async def test_a_key_written_in_the_graph_is_not_listed(tmp_path: Path) -> None:
    async with Client(_server(tmp_path, keyed=KEYED).lowlevel) as client:
        listed = json.dumps([tool.model_dump() for tool in (await client.list_tools()).tools])
        called = await client.call_tool("keyed", {"name": "Ada"})
    assert "sk-graph-written" not in listed and "hunter2pass" not in listed
    assert "https://me:REDACTED@api.example/v1" in listed and '"World"' in listed
    assert called.structured_content == {"greeting": "Hello, Ada!"}


async def test_a_tools_error_hides_the_environments_keys(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-secret-0123456789abcdef")  # no sk-: only the environment says it is one
    async with Client(_server(tmp_path, fetch=FETCH).lowlevel) as client:
        result = await client.call_tool("fetch", {"path": "env-secret-0123456789abcdef"})
    text = result.content[0].text
    assert result.is_error and "node 'got'" in text and "fetch failed" in text
    assert "env-secret" not in text and "http://127.0.0.1:9/REDACTED" in text


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("arguments", "expected"), [
    ({"name": _nested(5_000)}, "nested more than 100 levels deep"),
    ({"name": "\ud800"}, "not Unicode"),
    ({"\udfff": 1}, "not Unicode"),
    ({"count": "x" * 1_000_000}, "is not of type 'integer'"),
    ({"nope": "y" * 1_000_000}, "invalid arguments"),
])
async def test_hostile_arguments_get_a_short_clean_error(tmp_path: Path, arguments: dict, expected: str) -> None:
    server = _server(tmp_path, keyed=KEYED)
    with anyio.fail_after(60):  # a guard against a hang, not a measure
        result = await server._call_tool("keyed", arguments, _no_progress)
    text = result.content[0].text
    assert result.is_error and expected in text and len(text) < 2_000


async def _no_progress(*_: object) -> None:
    return None


def _graphrt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphrt", *args], capture_output=True, text=True,
                          timeout=180)


def test_a_server_printing_a_banner_on_stdout_costs_no_traceback(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"t": {"command": sys.executable,
                                                       "args": [str(TOOL_SERVER), "banner"]}}}))
    graph = tmp_path / "call.yaml"
    graph.write_text("""\
version: 0.5
nodes:
  call:
    agent: mcpToolsCallAgent
    inputs:
      tools:
        name: t--echo
        arguments:
          text: hi
    isResult: true
""")
    for quiet in ((), ("-q",)):
        result = _graphrt("run", str(graph), "--mcp-config", str(config), *quiet)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["call"]["response"]["content"][0]["text"] == "echo: hi"
        assert "Traceback" not in result.stderr and "Failed to parse" not in result.stderr


def test_a_checkpoint_holds_no_mcp_server_secret(tmp_path: Path) -> None:
    import sqlite3

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "t": {"command": sys.executable, "args": [str(TOOL_SERVER), "tools", "--token", "ghp_argsecret0123456789"],
              "env": {"GH_PAT": "ghp_envsecret0123456789", "OPENAI_KEY": "sk-envkey-0123456789abcdef",
                      "PATH": os.environ.get("PATH", "")}},
        "h": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer hdrsecret0123456789",
                                                              "X-Team": "team-header-secret-42"}},
    }}))
    graph = tmp_path / "g.yaml"
    graph.write_text("""\
version: 0.5
nodes:
  url:
    value: x
  hello:
    agent: copyAgent
    inputs:
      url: https://me:fetchpw0123@files.example/data
    isResult: true
""")
    checkpoint = tmp_path / "runs.db"
    result = _graphrt("run", str(graph), "--mcp-config", str(config), "--checkpoint", str(checkpoint), "--run-id", "r")
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(checkpoint) as db:
        saved = json.dumps(db.execute("SELECT config, graph_text FROM graphrt_runs").fetchall())
    for secret in ("ghp_argsecret", "ghp_envsecret", "sk-envkey", "hdrsecret", "team-header-secret", "fetchpw0123"):
        assert secret not in saved, secret
    assert "--token" in saved and "GH_PAT" in saved  # what was configured is still there, without its values
