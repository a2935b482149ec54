"""The catalog builds a served graph's Graph once, and again only when its file changes."""

from __future__ import annotations

import os
from pathlib import Path

from graphrt.engine.graph import make_registry
from graphrt.serve import GraphCatalog

GRAPH = "version: 0.5\nnodes:\n  a:\n    value: {v}\n  b:\n    agent: copyAgent\n    inputs:\n      v: \":a\"\n    isResult: true\n"


def _catalog(folder: Path) -> GraphCatalog:
    return GraphCatalog([folder], make_registry(None))


def test_an_unchanged_file_is_built_once_and_an_edited_one_again(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(GRAPH.format(v=1))
    catalog = _catalog(tmp_path)
    served = catalog.graphs["g"]

    first = served.build(catalog.registry, catalog.executor, catalog.services)
    assert served.build(catalog.registry, catalog.executor, catalog.services) is first

    before = path.stat().st_mtime_ns
    path.write_text(GRAPH.format(v=22))  # another size
    os.utime(path, ns=(before + 1_000_000, before + 1_000_000))
    edited = served.build(catalog.registry, catalog.executor, catalog.services)
    assert edited is not first
    assert edited.run() == {"b": {"v": 22}}


def test_other_server_parts_get_a_graph_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text(GRAPH.format(v=1))
    catalog = _catalog(tmp_path)
    served = catalog.graphs["g"]

    plain = served.build(catalog.registry, None, None)
    with_services = served.build(catalog.registry, None, object())

    assert with_services is not plain
