"""GraphAI's GraphAI-constructor options: `bypassAgentIds` and `graphLoader` (bypass_agent_ids=, graph_loader=)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import graphrt

# GraphAI's tests/units/graph_data.ts, the graph of its bypass test.
GRAPH_DATA = {"version": 0.5, "nodes": {
    "echo": {"agent": "echoAgent", "params": {"message": "hello"}},
    "copyAgent": {"agent": "copyAgent", "inputs": {"text": ":echo.message"}},
    "copyAgent2": {"agent": "copyAgent", "inputs": {"text": ":copyAgent"}},
}}


async def answer_for_every_agent(ctx: graphrt.AgentContext, next: Any) -> Any:
    return {"message": "agentFilter"}


def test_bypassed_agents_need_no_agent_and_a_filter_answers_for_them() -> None:
    # GraphAI's test_agent_filter_bypass.ts: no agents at all, two bypassed ids, one filter.
    results = graphrt.run(GRAPH_DATA, all_results=True, agents=graphrt.Registry(),
                          bypass_agent_ids=["echoAgent", "copyAgent"], filters=[answer_for_every_agent])
    assert results == {
        "echo": {"message": "agentFilter"},
        "copyAgent": {"message": "agentFilter"},
        "copyAgent2": {"message": "agentFilter"},
    }


def test_without_a_filter_a_bypassed_agent_gives_null() -> None:
    graph = {"version": 0.5, "nodes": {"remote": {"agent": "remoteAgent", "isResult": True}}}
    assert graphrt.run(graph, bypass_agent_ids=["remoteAgent"]) == {"remote": None}


def test_an_agent_that_exists_wins_over_its_bypass() -> None:
    results = graphrt.run(GRAPH_DATA, all_results=True, bypass_agent_ids=["echoAgent"])
    assert results["echo"] == {"message": "hello"}


def test_without_the_bypass_the_agent_is_unknown() -> None:
    graph = {"version": 0.5, "nodes": {"remote": {"agent": "remoteAgent"}}}
    with pytest.raises(graphrt.GraphValidationError, match="remoteAgent"):
        graphrt.run(graph)


def test_nested_graphs_see_the_bypassed_agents() -> None:
    graph = {"version": 0.5, "nodes": {"outer": {"agent": "nestedAgent", "isResult": True, "graph": {"nodes": {
        "inner": {"agent": "remoteAgent", "isResult": True},
    }}}}}
    only_remote = graphrt.AgentFilter(answer_for_every_agent, agent_ids=["remoteAgent"])
    results = graphrt.run(graph, bypass_agent_ids=["remoteAgent"], filters=[only_remote])
    assert results == {"outer": {"inner": {"message": "agentFilter"}}}


# ----- graph_loader -----

# GraphAI's tests/units/test_graph.ts
LOADER_GRAPH = {"version": 0.5, "nodes": {
    "message": {"value": "Hello World"},
    "namedResult": {"agent": "nestedAgent", "console": True, "graphLoader": {"fileName": "fileName", "option": {"meta": 123}}},
}}
LOADED = {"version": 0.5, "nodes": {
    "message": {"value": "Hello World from loader"},
    "template": {"agent": "copyAgent", "params": {"namedKey": "text"}, "inputs": {"text": ":message"}, "isResult": True},
}}


def test_the_graph_loader_gets_file_name_and_option() -> None:
    asked = []

    def loader(file_name: str, option: Any) -> dict[str, Any]:
        asked.append((file_name, option))
        return LOADED

    results = graphrt.run(LOADER_GRAPH, all_results=True, graph_loader=loader)
    assert results == {"message": "Hello World", "namedResult": {"template": "Hello World from loader"}}
    assert asked == [("fileName", {"meta": 123})]


def test_an_async_loader_and_a_loader_that_gives_yaml_text() -> None:
    async def loader(file_name: str, option: Any) -> str:
        return "version: 0.5\nnodes:\n  out:\n    agent: copyAgent\n    inputs: {text: from text}\n    isResult: true\n"

    assert graphrt.run(LOADER_GRAPH, graph_loader=loader) == {}  # namedResult is not isResult
    assert graphrt.run(LOADER_GRAPH, all_results=True, graph_loader=loader)["namedResult"] == {"out": {"text": "from text"}}


# GraphAI's packages/samples/src/graphLoader: the loader reads the file, and `option.setting` names a
# settings file whose `data` becomes the nested graph's `data` node.
PARENT = """version: 0.5
nodes:
  inputs:
    value: "fromParent"
  fromParent:
    agent: "nestedAgent"
    graphLoader:
      fileName: "child.yaml"
    inputs:
      data: ":inputs"
  setting:
    agent: "nestedAgent"
    graphLoader:
      fileName: "child.yaml"
      option:
        setting: "setting.yaml"
"""
CHILD = """version: 0.5
nodes:
  test:
    agent: "stringTemplateAgent"
    inputs:
      text: "this is a pen ${:data}"
    isResult: true
"""


def test_graphai_s_graph_loader_sample(tmp_path: Path) -> None:
    import yaml

    (tmp_path / "child.yaml").write_text(CHILD)
    (tmp_path / "setting.yaml").write_text('data: "hello"\n')
    (tmp_path / "parent.yaml").write_text(PARENT)

    def loader(file_name: str, option: Any) -> dict[str, Any]:
        graph = yaml.safe_load((tmp_path / file_name).read_text())
        if option and option.get("setting"):
            settings = yaml.safe_load((tmp_path / option["setting"]).read_text())
            graph["nodes"]["data"] = {"value": settings["data"]}
        return graph

    results = graphrt.run(tmp_path / "parent.yaml", all_results=True, graph_loader=loader)
    assert results == {
        "inputs": "fromParent",
        "fromParent": {"test": "this is a pen fromParent"},
        "setting": {"test": "this is a pen hello"},
    }


def test_nested_graphs_use_the_run_s_loader() -> None:
    graph = {"version": 0.5, "nodes": {"outer": {"agent": "nestedAgent", "isResult": True, "graph": {"nodes": {
        "inner": {"agent": "nestedAgent", "isResult": True, "graphLoader": {"fileName": "leaf"}},
    }}}}}
    leaf = {"version": 0.5, "nodes": {"leaf": {"agent": "copyAgent", "inputs": {"name": "leaf"}, "isResult": True}}}
    assert graphrt.run(graph, graph_loader=lambda name, option: leaf) == {"outer": {"inner": {"leaf": {"name": "leaf"}}}}


def test_a_failing_loader_fails_the_node_with_its_error() -> None:
    def loader(file_name: str, option: Any) -> Any:
        raise FileNotFoundError(file_name)

    with pytest.raises(graphrt.GraphLoadError, match="node 'namedResult', field 'graphLoader'.*FileNotFoundError"):
        graphrt.run(LOADER_GRAPH, graph_loader=loader)
    with pytest.raises(graphrt.GraphLoadError, match="gave a int, not a graph"):
        graphrt.run(LOADER_GRAPH, graph_loader=lambda name, option: 42)


def test_an_option_without_a_loader_is_an_error_not_ignored(tmp_path: Path) -> None:
    (tmp_path / "child.yaml").write_text(CHILD)
    (tmp_path / "parent.yaml").write_text(PARENT)
    with pytest.raises(graphrt.GraphLoadError, match="'option' needs a graph_loader"):
        graphrt.run(tmp_path / "parent.yaml")


def test_what_a_layer_derives_from_a_graph_is_kept_with_it_and_a_replaced_copy_starts_afresh() -> None:
    graph = graphrt.Graph({"version": 0.5, "nodes": {"a": {"agent": "copyAgent", "isResult": True}}},
                          config={"k": {"x": 1}})
    made: list[dict[str, Any]] = []

    def config_of(of: graphrt.Graph) -> dict[str, Any]:
        made.append(dict(of.config))
        return made[-1]

    assert graph.derived(config_of) is graph.derived(config_of) and made == [{"k": {"x": 1}}]
    changed = graph.replace(config={"k": {"x": 2}})
    assert changed.derived(config_of) == {"k": {"x": 2}} and graph.derived(config_of) == {"k": {"x": 1}}
    assert len(made) == 2
