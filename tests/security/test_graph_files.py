"""A graph file can load other graph files (graphLoader) only from its own folder or below it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import graphrt
from graphrt.base.errors import GraphLoadError

INNER = """\
version: 0.5
nodes:
  number:
    value: 42
  answer:
    agent: copyAgent
    inputs:
      n: :number
    isResult: true
"""


def _outer(file_name: str) -> str:
    return f"""\
version: 0.5
nodes:
  loaded:
    agent: nestedAgent
    graphLoader:
      fileName: {file_name}
    isResult: true
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    graphs = tmp_path / "graphs"
    (graphs / "sub").mkdir(parents=True)
    (graphs / "sub" / "inner.yaml").write_text(INNER)
    (graphs / "inner.yaml").write_text(INNER)
    (tmp_path / "outside.yaml").write_text(INNER)
    return graphs


def _run(folder: Path, file_name: str) -> dict:
    outer = folder / "outer.yaml"
    outer.write_text(_outer(file_name))
    return graphrt.run(outer)


def test_a_graph_loads_a_graph_file_beside_it(folder: Path) -> None:
    assert _run(folder, "inner.yaml") == {"loaded": {"answer": {"n": 42}}}


def test_a_graph_loads_a_graph_file_below_it(folder: Path) -> None:
    assert _run(folder, "sub/inner.yaml") == {"loaded": {"answer": {"n": 42}}}


@pytest.mark.parametrize("file_name", ["../outside.yaml", "sub/../../outside.yaml"])
def test_a_path_that_climbs_out_of_the_folder_is_refused(folder: Path, file_name: str) -> None:
    with pytest.raises(GraphLoadError, match=f"graphLoader '{file_name}': a graph can only load files inside its folder"):
        _run(folder, file_name)


def test_an_absolute_path_outside_the_folder_is_refused(folder: Path) -> None:
    outside = folder.parent / "outside.yaml"

    with pytest.raises(GraphLoadError, match="a graph can only load files inside its folder"):
        _run(folder, str(outside))


def test_a_symlink_inside_the_folder_that_points_out_of_it_is_refused(folder: Path) -> None:
    os.symlink(folder.parent / "outside.yaml", folder / "link.yaml")

    with pytest.raises(GraphLoadError, match="a graph can only load files inside its folder"):
        _run(folder, "link.yaml")


def test_a_graph_given_as_text_cannot_load_graph_files(folder: Path) -> None:
    with pytest.raises(GraphLoadError, match="only a graph read from a file can load other graph files"):
        graphrt.run(_outer("inner.yaml"))


def test_a_loaded_graph_loads_files_of_the_same_folder_tree_relative_to_itself(folder: Path) -> None:
    (folder / "sub" / "middle.yaml").write_text(_outer("deeper/inner.yaml"))
    (folder / "sub" / "deeper").mkdir()
    (folder / "sub" / "deeper" / "inner.yaml").write_text(INNER)
    (folder / "sub" / "up.yaml").write_text(_outer("../inner.yaml"))

    assert _run(folder, "sub/middle.yaml") == {"loaded": {"loaded": {"answer": {"n": 42}}}}
    assert _run(folder, "sub/up.yaml") == {"loaded": {"loaded": {"answer": {"n": 42}}}}


def test_a_loaded_graph_cannot_leave_the_first_graph_folder(folder: Path) -> None:
    (folder / "sub" / "escape.yaml").write_text(_outer("../../outside.yaml"))

    with pytest.raises(graphrt.AgentError, match="graphLoader '../../outside.yaml': a graph can only load files inside "
                                                 f"its folder {folder.resolve()}"):
        _run(folder, "sub/escape.yaml")


def test_an_error_in_a_loaded_graph_names_its_file(folder: Path) -> None:
    (folder / "broken.yaml").write_text(INNER.replace(":number", ":nummber"))

    with pytest.raises(graphrt.AgentError) as caught:
        _run(folder, "broken.yaml")
    assert str(caught.value.location).startswith(str(folder.resolve() / "broken.yaml"))
