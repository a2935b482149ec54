"""The catalog builds a served graph's Graph once, and again only when its file changes."""

from __future__ import annotations

import gc
import os
import weakref
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

    first = catalog.build(served)
    assert catalog.build(served) is first

    before = path.stat().st_mtime_ns
    path.write_text(GRAPH.format(v=22))  # another size
    os.utime(path, ns=(before + 1_000_000, before + 1_000_000))
    edited = catalog.build(served)
    assert edited is not first
    assert edited.run() == {"b": {"v": 22}}


def test_runs_get_a_graph_with_the_services_the_catalog_has_now(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text(GRAPH.format(v=1))
    catalog = _catalog(tmp_path)
    served = catalog.graphs["g"]

    plain = catalog.build(served)
    services = object()
    catalog.services = services  # the MCP servers, once the server has started them
    with_services = catalog.build(served)
    catalog.services = None  # and let go when it stops

    assert plain.services is None and with_services.services is services
    assert catalog.build(served) is not with_services and catalog.build(served).services is None


def test_the_catalog_keeps_one_graph_per_served_file_and_none_of_a_file_gone(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text(GRAPH.format(v=1))
    (tmp_path / "h.yaml").write_text(GRAPH.format(v=2))
    catalog = _catalog(tmp_path)
    kept = catalog.build(catalog.graphs["h"])
    gone = weakref.ref(catalog.build(catalog.graphs["g"]))

    (tmp_path / "g.yaml").unlink()
    catalog.refresh()
    gc.collect()

    assert sorted(catalog.graphs) == ["h"] and catalog.build(catalog.graphs["h"]) is kept
    assert gone() is None  # g's Graph was let go with its file
