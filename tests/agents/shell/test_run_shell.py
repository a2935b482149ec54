"""runShellAgent: off unless the run's config allows the program; then GraphAI's results."""

from __future__ import annotations

import functools
import os
import select
import shutil
import signal
import sys
from pathlib import Path

import anyio
import pytest
from graphrt_agents.shell.agent import AGENTS, ShellNotAllowed, ShellOutputLimit, run_shell_agent

import graphrt
from graphrt.testing import SampleCase, parametrize_samples
from graphrt.testing import agent_context as context

pytestmark = pytest.mark.anyio


@parametrize_samples(*AGENTS)
def test_every_sample_gives_its_result(sample_case: SampleCase) -> None:
    sample_case.check()  # through the mock, which allows echo only


async def shell(commands, allow=None, **inputs):
    config = {} if allow is None else {"allow": allow}
    return await run_shell_agent(context({"commands": commands, **inputs}, {}, config=config))


def _found(name: str) -> str:
    """The file PATH gives for `name`, its folder's links resolved, as the agent's messages write it."""
    folder, base = os.path.split(shutil.which(name))
    return os.path.join(os.path.realpath(folder), base)


async def test_without_an_allowance_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(ShellNotAllowed) as caught:
        await shell(["touch", str(marker)])
    assert str(caught.value) == ("runShellAgent is off: it runs programs on this machine; whoever runs the graph can "
                                 "allow 'touch' with the config {runShellAgent: {allow: ['touch']}} (program names or "
                                 "absolute paths, or true for any)")
    assert not marker.exists()


async def test_only_the_allowed_programs_run(tmp_path: Path) -> None:
    assert await shell(["echo", "hi"], allow=["echo"]) == {"text": "hi\n", "stderr": ""}
    with pytest.raises(ShellNotAllowed) as caught:
        await shell(["touch", str(tmp_path / "x")], allow=["echo"])
    assert str(caught.value) == (f"runShellAgent: 'touch' is {_found('touch')}, which is not among the programs "
                                 f"the config allows (echo: {_found('echo')}); allow it with {{runShellAgent: "
                                 "{allow: ['touch']}} (program names or absolute paths, or true for any)")
    assert not (tmp_path / "x").exists()


async def test_it_runs_in_the_folder_the_inputs_name(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert (await shell(["pwd"], allow=True, dirs=[str(tmp_path), "sub"]))["text"] == f"{tmp_path / 'sub'}\n"
    assert (await shell(["pwd"], allow=True, baseDir=str(tmp_path)))["text"] == f"{tmp_path}\n"


async def test_output_on_stderr_gives_graphais_error_result_with_the_exit_status() -> None:
    code = "import sys; print('out'); sys.stdout.flush(); sys.stderr.write('bad\\n')"
    assert await shell([sys.executable, "-c", code], allow=True) == {"error": b"bad\n", "stdout": "out\n",
                                                                    "stderr": "bad\n", "code": 0}


async def test_commands_that_are_not_an_array_give_graphais_error_result() -> None:
    assert await shell("echo 1", allow=True) == {"error": "runShellAgent error: command must be string[]"}


async def test_a_program_that_cannot_start_fails_the_node() -> None:
    with pytest.raises(FileNotFoundError, match="^.*runShellAgent: cannot run 'no-such-program-graphrt'"):
        await shell(["no-such-program-graphrt"], allow=True)


async def test_a_graph_is_allowed_by_its_runs_config_not_by_itself() -> None:
    graph = {"version": 0.5, "nodes": {"sh": {"agent": "runShellAgent", "inputs": {"commands": ["echo", "x"]},
                                              "params": {"allow": True}, "isResult": True}}}
    with pytest.raises(graphrt.GraphError, match="runShellAgent is off"):
        await graphrt.arun(graph)
    assert await graphrt.arun(graph, config={"runShellAgent": {"allow": ["echo"]}}) == {"sh": {"text": "x\n", "stderr": ""}}


# --- the allow-list names files: what PATH gives for a name, or an absolute path ---------------------------------


def _planted(folder: Path, name: str = "echo") -> Path:
    """A script called `name` in `folder` that leaves a mark when it runs."""
    script = folder / name
    script.write_text(f"#!/bin/sh\ntouch {folder / 'planted-ran'}\n")
    script.chmod(0o755)
    return script


async def test_a_path_to_another_file_with_an_allowed_name_does_not_run(tmp_path: Path) -> None:
    script = _planted(tmp_path)
    with pytest.raises(ShellNotAllowed) as caught:
        await shell([str(script), "x"], allow=["echo"])
    assert str(caught.value).startswith(f"runShellAgent: {str(script)!r} is {script}, which is not among the programs "
                                        "the config allows (echo:")
    assert not (tmp_path / "planted-ran").exists()


async def test_a_relative_path_is_read_from_the_folder_it_runs_in_and_refused(tmp_path: Path) -> None:
    _planted(tmp_path)
    with pytest.raises(ShellNotAllowed, match=r"^runShellAgent: './echo' is .*/echo, which is not among"):
        await shell(["./echo", "x"], allow=["echo"], baseDir=str(tmp_path))
    assert not (tmp_path / "planted-ran").exists()


async def test_a_relative_entry_of_path_is_not_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _planted(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f".:{os.environ['PATH']}")  # `echo` is ./echo for a shell; not for graphrt (as Go)
    assert await shell(["echo", "hi"], allow=["echo"]) == {"text": "hi\n", "stderr": ""}
    assert not (tmp_path / "planted-ran").exists()


async def test_the_allowed_program_runs_by_its_name_or_its_path() -> None:
    echo = shutil.which("echo")
    assert await shell(["echo", "hi"], allow=["echo"]) == {"text": "hi\n", "stderr": ""}
    assert await shell([echo, "hi"], allow=["echo"]) == {"text": "hi\n", "stderr": ""}
    assert await shell(["echo", "hi"], allow=[echo]) == {"text": "hi\n", "stderr": ""}


async def test_an_absolute_path_in_the_allow_list_allows_that_file(tmp_path: Path) -> None:
    script = _planted(tmp_path, "tool")
    assert await shell([str(script)], allow=[str(script)]) == {"text": "", "stderr": ""}
    assert (tmp_path / "planted-ran").exists()


@pytest.mark.parametrize("allow, shown", [
    ("echo", "'echo'"), (["echo", 1], "['echo', 1]"), ({"echo": True}, "{'echo': True}"), (["bin/echo"], "['bin/echo']"),
    ([""], "['']"),
])
async def test_a_malformed_allow_list_is_a_config_error(allow: object, shown: str) -> None:
    with pytest.raises(ValueError) as caught:
        await shell(["echo", "x"], allow=allow)
    assert str(caught.value) == ("runShellAgent: config 'allow' must be true, or a list of program names and absolute "
                                 f"paths, got {shown}")


async def test_a_malformed_allow_list_fails_the_run_that_gives_it() -> None:
    graph = {"version": 0.5, "nodes": {"sh": {"agent": "runShellAgent", "inputs": {"commands": ["echo", "x"]},
                                              "isResult": True}}}
    with pytest.raises(graphrt.GraphError, match="config 'allow' must be true, or a list"):
        await graphrt.arun(graph, config={"runShellAgent": {"allow": "echo"}})


# --- the exit status ----------------------------------------------------------------------------------------------


async def test_a_program_that_fails_gives_graphais_error_result_with_its_exit_status() -> None:
    assert await shell(["false"], allow=True) == {"error": "runShellAgent: 'false' exited with status 1", "stdout": "",
                                                  "stderr": "", "code": 1}


async def test_a_failure_with_output_on_stderr_gives_the_same_shape() -> None:
    code = "import sys; print('out'); sys.stdout.flush(); sys.stderr.write('bad\\n'); sys.exit(3)"
    assert await shell([sys.executable, "-c", code], allow=True) == {"error": b"bad\n", "stdout": "out\n",
                                                                    "stderr": "bad\n", "code": 3}


async def test_a_program_killed_by_a_signal_says_which() -> None:
    code = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    assert await shell([sys.executable, "-c", code], allow=True) == {
        "error": f"runShellAgent: {sys.executable!r} was killed by SIGTERM", "stdout": "", "stderr": "", "code": -15}


# --- what it leaves running, and how much it may write ------------------------------------------------------------


def _wait_for_exit(pid: int, what: str) -> None:
    """Waits until process `pid` (not a child of this one) has ended: its pidfd becomes readable (a hang guard only)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        if not select.select([descriptor], [], [], 60)[0]:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"{what} still runs after 60 s")
    finally:
        os.close(descriptor)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on another process's exit with a pidfd (Linux)")
async def test_a_cancelled_run_stops_what_the_program_started(tmp_path: Path) -> None:
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    script = f"sleep 1000 & echo $! > {fifo}; wait"  # the program, and a grandchild that would outlive it
    graph = {"version": 0.5, "nodes": {"sh": {"agent": "runShellAgent", "inputs": {"commands": ["sh", "-c", script]},
                                              "isResult": True}}}
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(graphrt.arun, graph, config={"runShellAgent": {"allow": ["sh"]}}))
        grandchild = int(await anyio.to_thread.run_sync(fifo.read_text))  # it has started
        group.cancel_scope.cancel()  # as Ctrl-C or a node's timeout cancels the agent
    await anyio.to_thread.run_sync(_wait_for_exit, grandchild, "the program's child")


async def test_output_past_the_limit_stops_the_program_with_a_typed_error() -> None:
    with pytest.raises(ShellOutputLimit) as caught:
        await run_shell_agent(context({"commands": ["cat", "/dev/zero"]}, {},
                                      config={"allow": ["cat"], "maxBytes": 100000}))
    assert str(caught.value) == ("runShellAgent: 'cat' wrote more than 100,000 bytes of output, the limit (config "
                                 "maxBytes); it was stopped")
