"""runShellAgent: off unless the run's config allows the program; then GraphAI's results."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from graphrt_agents.shell.agent import AGENTS, ShellNotAllowed, run_shell_agent

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


async def test_without_an_allowance_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(ShellNotAllowed) as caught:
        await shell(["touch", str(marker)])
    assert str(caught.value) == ("runShellAgent is off: it runs programs on this machine; whoever runs the graph can "
                                 "allow 'touch' with the config {runShellAgent: {allow: ['touch']}} (program names, "
                                 "or true for any)")
    assert not marker.exists()


async def test_only_the_allowed_programs_run(tmp_path: Path) -> None:
    assert await shell(["echo", "hi"], allow=["echo"]) == {"text": "hi\n", "stderr": ""}
    with pytest.raises(ShellNotAllowed, match=r"^runShellAgent: 'touch' is not among the programs the config allows "
                                              r"\(echo\)"):
        await shell(["touch", str(tmp_path / "x")], allow=["echo"])


async def test_it_runs_in_the_folder_the_inputs_name(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    assert (await shell(["pwd"], allow=True, dirs=[str(tmp_path), "sub"]))["text"] == f"{tmp_path / 'sub'}\n"
    assert (await shell(["pwd"], allow=True, baseDir=str(tmp_path)))["text"] == f"{tmp_path}\n"


async def test_output_on_stderr_gives_graphais_error_result() -> None:
    code = "import sys; print('out'); sys.stdout.flush(); sys.stderr.write('bad\\n')"
    assert await shell([sys.executable, "-c", code], allow=True) == {"error": b"bad\n", "stdout": "out\n",
                                                                    "stderr": "bad\n"}


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
