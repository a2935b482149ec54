"""Nothing in a graph file runs as code: YAML is loaded safely, and text stays text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import graphrt
from graphrt.base.errors import GraphLoadError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "tagged",
    [
        "!!python/object/apply:os.system ['touch pwned']",
        "!!python/name:os.system",
        "!!python/object/new:subprocess.Popen [['touch', 'pwned']]",
        "!!python/module:os",
    ],
)
def test_python_tags_in_yaml_are_refused(tagged: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)

    with pytest.raises(GraphLoadError, match="could not determine a constructor for the tag"):
        graphrt.Graph(f"version: 0.5\nnodes:\n  a:\n    value: {tagged}\n")

    assert not (tmp_path / "pwned").exists()


def test_code_in_a_template_stays_text(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code = "__import__('os').system('touch pwned')"
    graph = {"version": 0.5, "nodes": {
        "code": {"value": code},
        "text": {"agent": "stringTemplateAgent", "inputs": {"c": ":code"}, "params": {"template": "${c} ${:code}"},
                 "isResult": True},
    }}

    assert graphrt.run(graph) == {"text": f"{code} ${{:code}}"}
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("reference", [":a.__class__", ":a.__class__.__name__", ":a.__dict__", ":a.keys.__call__()",
                                       ":a.__init__()", ":a.upper()"])
def test_a_reference_reads_data_never_python_attributes(reference: str) -> None:
    graph = {"version": 0.5, "nodes": {
        "a": {"value": {"x": "text"}},
        "b": {"agent": "copyAgent", "inputs": {"v": reference, "k": "kept"}, "isResult": True},
    }}

    assert graphrt.run(graph) == {"b": {"k": "kept"}}


_FORBIDDEN_CALLS = {"eval", "exec", "__import__", "execfile"}
_FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill", "cloudpickle"}
_UNSAFE_YAML = {"unsafe_load", "full_load", "unsafe_load_all", "full_load_all"}


def _python_files() -> list[Path]:
    files = sorted(path for folder in ("graphrt", "agents") for path in (ROOT / folder).rglob("*.py"))
    assert ROOT / "graphrt" / "graphdata" / "loader.py" in files  # the scan reads the code, or it would find nothing
    return files


def test_no_module_of_graphrt_or_its_agents_evaluates_code_or_unpickles() -> None:
    found = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FORBIDDEN_CALLS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.func.id}()")
            if isinstance(node, ast.Attribute) and node.attr in _UNSAFE_YAML:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: yaml.{node.attr}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: import {name}" for name in names
                          if name.split(".")[0] in _FORBIDDEN_MODULES]
    assert found == []


def test_every_yaml_load_names_a_safe_loader() -> None:
    unsafe, checked = [], 0
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("load", "load_all")
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "yaml"):
                checked += 1
                loader = next((kw.value for kw in node.keywords if kw.arg == "Loader"), None)
                name = ast.unparse(loader) if loader is not None else "no Loader"
                if "Safe" not in name and name not in ("_GraphLoader",):
                    unsafe.append(f"{path.relative_to(ROOT)}:{node.lineno}: yaml.{node.func.attr}(Loader={name})")
    assert checked and unsafe == []  # the graph loader's own yaml.load is among those checked


def test_the_graph_loaders_construct_plain_data_only() -> None:
    from yaml.constructor import FullConstructor, SafeConstructor

    from graphrt.graphdata import full_yaml, positions

    loaders = [value for module in (full_yaml, positions) for name, value in vars(module).items()
               if isinstance(value, type) and name.endswith("Loader")] + [positions._position_loader()]
    assert loaders
    assert all(issubclass(cls, SafeConstructor) and not issubclass(cls, FullConstructor) for cls in loaders)
