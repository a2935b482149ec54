"""The file agents: GraphAI's results, inside a base folder only; every way out is refused, also one made after
the graph was checked, naming the node and the field."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from graphrt_agents.files.confined import NotAFile, OutsideBaseFolder, base_folder, locate, open_located
from graphrt_agents.files.path_utils import AGENTS as PATH_AGENTS
from graphrt_agents.files.path_utils import node_join, node_normalize, node_resolve
from graphrt_agents.files.read import AGENTS as READ_AGENTS
from graphrt_agents.files.read import file_read_agent
from graphrt_agents.files.write import AGENTS as WRITE_AGENTS
from graphrt_agents.files.write import file_write_agent

import graphrt
from graphrt.base.jsvalue import to_json_compatible
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context


@parametrize_samples(*READ_AGENTS, *WRITE_AGENTS, *PATH_AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """base/ (a.txt, sub/b.txt, inner -> sub, back -> ../base/sub) beside outside/secret.txt."""
    base, outside = tmp_path / "base", tmp_path / "outside"
    (base / "sub").mkdir(parents=True)
    outside.mkdir()
    (base / "a.txt").write_text("A")
    (base / "sub" / "b.txt").write_text("B")
    (outside / "secret.txt").write_text("SECRET")
    (base / "inner").symlink_to("sub")
    (base / "back").symlink_to("../base/sub")
    return base


def read(base: Path | None, file: Any, *, config_base: Path | None = None, **params: Any) -> Any:
    config = {"baseDir": str(config_base)} if config_base else {}
    if base is not None:
        params["baseDir"] = str(base)
    return file_read_agent(context({"file": file}, {"outputType": "text", **params}, config=config))


def write(base: Path | None, file: str, text: Any = "hi", *, config_base: Path | None = None) -> Any:
    config = {"baseDir": str(config_base)} if config_base else {}
    params = {"baseDir": str(base)} if base is not None else {}
    return file_write_agent(context({"file": file, "text": text}, params, config=config))


# ----- GraphAI's results -----


def test_read_gives_bytes_as_a_buffer_by_default(tree: Path) -> None:
    result = file_read_agent(context({"array": ["a.txt", "sub/b.txt"]}, {"baseDir": str(tree)}))
    assert result == {"array": [b"A", b"B"]}
    assert to_json_compatible(result) == {"array": [{"type": "Buffer", "data": [65]}, {"type": "Buffer", "data": [66]}]}


def test_read_as_text_base64_and_stream(tree: Path) -> None:
    assert read(tree, "a.txt") == {"data": "A"}
    assert read(tree, "a.txt", outputType="base64") == {"data": "QQ=="}
    with read(tree, "a.txt", outputType="stream")["data"] as stream:
        assert stream.read() == b"A"


def test_read_without_a_file_says_so() -> None:
    with pytest.raises(ValueError, match="^fileReadAgent no file$"):
        file_read_agent(context({}, {"baseDir": "."}))


def test_write_creates_the_file_and_gives_graphais_result(tree: Path) -> None:
    assert write(tree, "sub/new.txt", "héllo") == {
        "result": True, "path": str(tree / "sub" / "new.txt"), "dir": str(tree / "sub"), "file": "new.txt"}
    assert (tree / "sub" / "new.txt").read_text(encoding="utf-8") == "héllo"


def test_write_takes_bytes_from_text_or_buffer(tree: Path) -> None:
    write(tree, "bin", b"\x00\xff")
    assert (tree / "bin").read_bytes() == b"\x00\xff"
    file_write_agent(context({"file": "buf", "buffer": b"\x01"}, {"baseDir": str(tree)}))
    assert (tree / "buf").read_bytes() == b"\x01"


def test_write_checks_its_inputs_as_graphai_does(tree: Path) -> None:
    with pytest.raises(ValueError, match="^fileWriteAgent: inputs.file is UNDEFINED!$"):
        file_write_agent(context({"text": "x"}, {"baseDir": str(tree)}))
    with pytest.raises(ValueError, match="^fileWriteAgent: inputs.file and inputs.buffer are UNDEFINED!$"):
        file_write_agent(context({"file": "x"}, {"baseDir": str(tree)}))


def test_a_symlink_that_stays_inside_is_followed(tree: Path) -> None:
    assert read(tree, "inner/b.txt") == {"data": "B"}
    (tree / "abs").symlink_to(tree / "sub" / "b.txt")
    assert read(tree, "abs") == {"data": "B"}


def test_an_absolute_path_inside_the_base_is_that_file(tree: Path) -> None:
    assert read(tree, str(tree / "sub" / "b.txt")) == {"data": "B"}


def test_params_base_dir_is_a_folder_inside_the_configs(tree: Path) -> None:
    assert read(Path("sub"), "b.txt", config_base=tree) == {"data": "B"}
    assert write(tree / "sub", "w.txt", config_base=tree)["path"] == str(tree / "sub" / "w.txt")


# ----- no base folder, and every way out -----


def test_without_a_base_folder_nothing_is_read_or_written(tree: Path) -> None:
    with pytest.raises(OutsideBaseFolder, match=r"^fileReadAgent: params.baseDir is UNDEFINED! \(file agents work "):
        read(None, "a.txt")
    with pytest.raises(OutsideBaseFolder, match=r"^fileWriteAgent: params.baseDir is UNDEFINED! "):
        write(None, str(tree / "x.txt"))
    assert not (tree / "x.txt").exists()


@pytest.mark.parametrize(("file", "message"), [
    ("../outside/secret.txt", "leaves the base folder {base} (through '..')"),
    ("sub/../../outside/secret.txt", "leaves the base folder {base} (through '..')"),
    ("{outside}/secret.txt", "is an absolute path outside the base folder {base}"),
])
def test_a_path_out_of_the_base_is_refused(tree: Path, file: str, message: str) -> None:
    file = file.format(outside=tree.parent / "outside")
    with pytest.raises(OutsideBaseFolder) as caught:
        read(tree, file)
    assert str(caught.value) == f"fileReadAgent: inputs.file {file!r} " + message.format(base=tree)


def test_a_symlink_that_climbs_above_the_base_is_refused_even_to_come_back(tree: Path) -> None:
    with pytest.raises(OutsideBaseFolder, match=r"'back/b.txt' leaves the base folder .* \(through '..'\)$"):
        read(tree, "back/b.txt")  # back -> ../base/sub, as openat2's RESOLVE_BENEATH refuses it


def test_a_symlink_out_of_the_base_is_refused(tree: Path) -> None:
    (tree / "link").symlink_to(tree.parent / "outside" / "secret.txt")
    (tree / "rel").symlink_to("../outside/secret.txt")
    with pytest.raises(OutsideBaseFolder, match=r"leaves the base folder .* through the symlink 'link' -> '/"):
        read(tree, "link")
    with pytest.raises(OutsideBaseFolder, match=r"leaves the base folder .* \(through '..'\)"):
        read(tree, "rel")


def test_a_symlinked_parent_folder_out_of_the_base_is_refused(tree: Path) -> None:
    (tree / "out").symlink_to(tree.parent / "outside")
    with pytest.raises(OutsideBaseFolder, match="through the symlink 'out' -> "):
        read(tree, "out/secret.txt")
    with pytest.raises(OutsideBaseFolder, match="through the symlink 'out' -> "):
        write(tree, "out/planted.txt")
    assert not (tree.parent / "outside" / "planted.txt").exists()


def test_a_dangling_symlink_out_is_not_written_through(tree: Path) -> None:
    (tree / "trap").symlink_to(tree.parent / "outside" / "planted.txt")
    with pytest.raises(OutsideBaseFolder):
        write(tree, "trap")
    assert not (tree.parent / "outside" / "planted.txt").exists()


def test_params_base_dir_cannot_leave_the_configs(tree: Path) -> None:
    with pytest.raises(OutsideBaseFolder, match=r"^fileReadAgent: params.baseDir '../outside' leaves the base folder"):
        read(Path("../outside"), "secret.txt", config_base=tree)
    with pytest.raises(OutsideBaseFolder, match="params.baseDir .* is an absolute path outside the base folder"):
        read(tree.parent / "outside", "secret.txt", config_base=tree)


def test_a_symlink_made_after_the_path_was_checked_is_refused(tree: Path) -> None:
    with base_folder("fileWriteAgent", {"baseDir": str(tree)}, None) as base:
        located = locate(base, "sub/late.txt", "inputs.file", "fileWriteAgent")
        try:
            (tree / "sub" / "late.txt").symlink_to(tree.parent / "outside" / "secret.txt")
            with pytest.raises(OutsideBaseFolder, match=r"'sub/late.txt': a part of it became a symlink while it was "
                                                        r"opened \(refused\)$"):
                open_located(located, os.O_WRONLY | os.O_TRUNC, "fileWriteAgent", "inputs.file")
        finally:
            os.close(located.dir_fd)
    assert (tree.parent / "outside" / "secret.txt").read_text() == "SECRET"


def test_a_parent_folder_swapped_for_a_symlink_after_the_walk_keeps_the_file_inside(tree: Path) -> None:
    with base_folder("fileWriteAgent", {"baseDir": str(tree)}, None) as base:
        located = locate(base, "sub/kept.txt", "inputs.file", "fileWriteAgent")
        try:
            (tree / "sub").rename(tree / "moved")
            (tree / "sub").symlink_to(tree.parent / "outside")
            os.close(open_located(located, os.O_WRONLY | os.O_CREAT, "fileWriteAgent", "inputs.file"))
        finally:
            os.close(located.dir_fd)
    assert (tree / "moved" / "kept.txt").exists() and not (tree.parent / "outside" / "kept.txt").exists()


def test_in_a_graph_a_symlink_made_after_validation_fails_the_node_naming_it(tree: Path, tmp_path: Path) -> None:
    graph_file = tmp_path / "g.yaml"
    graph_file.write_text("version: 0.5\nnodes:\n  read:\n    agent: fileReadAgent\n    inputs: {file: late.txt}\n"
                          "    params: {outputType: text}\n    isResult: true\n")
    graph = graphrt.Graph(str(graph_file), config={"fileReadAgent": {"baseDir": str(tree)}})  # validated here
    (tree / "late.txt").symlink_to(tree.parent / "outside" / "secret.txt")
    with pytest.raises(graphrt.GraphError) as caught:
        graph.run()
    message = str(caught.value)
    assert "node 'read'" in message and "through the symlink 'late.txt' -> " in message, message
    assert "g.yaml:3" in message, message


# ----- pathUtilsAgent: Node's path module -----


@pytest.mark.parametrize(("path", "normalized"), [
    ("", "."), ("/", "/"), ("//a//b/", "/a/b/"), ("a/./b/../c", "a/c"), ("../../a", "../../a"), ("/../a", "/a"),
    ("a/..", "."), ("a/../", "./"), ("./", "./"),
])
def test_normalize_is_nodes(path: str, normalized: str) -> None:
    assert node_normalize(path) == normalized


def test_join_and_resolve_are_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/tmp")
    assert (node_join(), node_join("", ""), node_join("a", "", "/b/", "../c")) == (".", ".", "a/c")
    assert (node_resolve("a", "/b", "c/"), node_resolve("x/../y"), node_resolve()) == ("/b/c", "/tmp/y", "/tmp")
    with pytest.raises(TypeError, match=r'^The "paths\[1\]" argument must be of type string. Received int$'):
        node_join("a", 1)


def test_path_utils_checks_its_params_as_graphai_does() -> None:
    from graphrt_agents.files.path_utils import path_utils_agent

    with pytest.raises(ValueError, match="^pathUtilsAgent: params.method is UNDEFINED!$"):
        path_utils_agent(context({"dirs": []}, {}))
    with pytest.raises(ValueError, match="^pathUtilsAgent: dir is not Array!$"):
        path_utils_agent(context({"dirs": "a"}, {"method": "join"}))
    with pytest.raises(ValueError, match="^pathUtilsAgent no file$"):
        path_utils_agent(context({"dirs": []}, {"method": "dirname"}))
    assert path_utils_agent(context({}, {"method": "normalize", "path": "a//b"})) == {"path": "a/b"}


# ----- only regular files: a FIFO, a socket or a device blocks no open -----


def _without_blocking(call: Any, unblock: Any) -> Any:
    """`call()`'s result or error, from a thread; if it is still blocked after 30 s, `unblock()` frees it and the
    test fails (a hang guard: the call should end at once)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    if not done.wait(30):
        unblock()
        done.wait(30)
        raise AssertionError(f"the call blocked (it ended with {outcome} once unblocked)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _open_other_end(fifo: Path, flags: int) -> None:
    os.close(os.open(fifo, flags | os.O_NONBLOCK))


def test_reading_a_fifo_is_refused_without_waiting_for_a_writer(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    with pytest.raises(NotAFile) as caught:
        _without_blocking(lambda: read(tree, "pipe"), lambda: _open_other_end(tree / "pipe", os.O_WRONLY))
    assert str(caught.value) == ("fileReadAgent: inputs.file 'pipe' is a FIFO, not a regular file: the file agents "
                                 "read and write regular files only")


def test_writing_a_fifo_is_refused_without_waiting_for_a_reader(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    with pytest.raises(NotAFile, match=r"^fileWriteAgent: inputs.file 'pipe' is a FIFO, not a regular file"):
        _without_blocking(lambda: write(tree, "pipe"), lambda: _open_other_end(tree / "pipe", os.O_RDONLY))


def test_writing_a_fifo_that_has_a_reader_is_refused_and_sends_it_nothing(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    reader = os.open(tree / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(NotAFile, match=r"^fileWriteAgent: inputs.file 'pipe' is a FIFO"):
            _without_blocking(lambda: write(tree, "pipe"), lambda: None)
        assert os.read(reader, 100) == b""  # nothing was written (and no writer is left)
    finally:
        os.close(reader)


def test_a_socket_in_the_base_folder_is_refused(tree: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tree / "sock"))
        with pytest.raises(NotAFile, match=r"^fileReadAgent: inputs.file 'sock' is a socket, not a regular file"):
            _without_blocking(lambda: read(tree, "sock"), lambda: None)


def test_a_folder_is_not_read_as_a_file(tree: Path) -> None:
    with pytest.raises(IsADirectoryError, match=r"^\[Errno 21\] fileReadAgent: inputs.file 'sub': Is a directory$"):
        read(tree, "sub")
