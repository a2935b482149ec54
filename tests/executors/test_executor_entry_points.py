"""Executors are found through the entry point group graphrt.executors, by the name `--executor` gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphrt.base.entry_points import by_name
from graphrt.cli import main
from graphrt.engine.executor import ExecutorError
from graphrt.executors import EXECUTOR_GROUP, executor_class, executor_from_spec
from graphrt.executors.ray import RayExecutor

ROOT = Path(__file__).resolve().parents[2]

RECORDING_EXECUTOR = '''
    from graphrt.engine.executor import Executor
    from graphrt.engine.node import call_in_process

    CALLS = []


    class RecordingExecutor(Executor):
        """Runs calls here, and records each: `recording` or `recording://PLACE`."""

        name = "recording"
        schemes = ("recording",)
        extra = None

        def __init__(self, place="here"):
            self.place = place

        @classmethod
        def from_target(cls, target, *, address=None, **options):
            return cls(target.partition("://")[2] or address or "here", **options)

        async def call(self, call, ctx):
            CALLS.append((self.place, ctx.node_id))
            return await call_in_process(call, ctx)
'''


@pytest.fixture
def recording_executor(installed_package) -> Path:
    """A third-party executor, installed by an entry point only."""
    return installed_package("demo-executor", entry_points={EXECUTOR_GROUP: {"recording": "demo_executor:RecordingExecutor"}},
                             demo_executor=RECORDING_EXECUTOR)


def test_graphrt_declares_the_ray_executor_by_its_name() -> None:
    builtin = [name for name, point in by_name(EXECUTOR_GROUP).items() if point.builtin]
    assert builtin == ["ray"] and executor_class("ray") is RayExecutor and RayExecutor.schemes == ("ray",)


def test_a_third_party_executor_runs_the_agent_calls_of_a_run(recording_executor: Path, tmp_path: Path, capsys) -> None:
    graph = tmp_path / "g.yaml"
    # sleeperAgent, not copyAgent: copyAgent is cheaper in the driver than a trip anywhere (runs_local)
    graph.write_text("version: 0.5\nnodes:\n  n:\n    value: 1\n  out:\n    agent: sleeperAgent\n"
                     "    params: {duration: 0}\n    inputs: {v: ':n'}\n    isResult: true\n")
    assert main(["run", str(graph), "-q", "--executor", "recording://rack-2"]) == 0
    import demo_executor

    assert demo_executor.CALLS == [("rack-2", "out")]
    assert capsys.readouterr().out.split() == ['{', '"out":', '{', '"v":', '1', '}', '}']


def test_a_third_party_executor_takes_the_address_option(recording_executor: Path) -> None:
    executor = executor_from_spec("recording", address="rack-3")
    assert type(executor).__name__ == "RecordingExecutor" and executor.place == "rack-3"


def test_an_unknown_executor_names_the_installed_ones(recording_executor: Path) -> None:
    with pytest.raises(ExecutorError) as caught:
        executor_from_spec("spark")
    assert str(caught.value) == "unknown executor 'spark' (inprocess, or an executor installed: ray, recording)"


def test_an_address_alone_needs_a_name_when_several_executors_are_installed(recording_executor: Path, capsys) -> None:
    assert main(["run", str(ROOT / "graphs" / "hello.yaml"), "--address", "auto"]) == 1
    assert capsys.readouterr().err == "graphrt: --address auto needs --executor NAME (installed: ray, recording)\n"


def test_the_help_lists_the_installed_executors(recording_executor: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "'inprocess' (the default), or an installed executor (ray, recording) by NAME" in " ".join(
        capsys.readouterr().out.split())


def test_an_executor_entry_point_must_name_an_executor_class(installed_package) -> None:
    installed_package("demo-wrong", entry_points={EXECUTOR_GROUP: {"wrong": "os:getcwd"}})
    with pytest.raises(ExecutorError) as caught:
        executor_from_spec("wrong")
    assert str(caught.value) == "executor 'wrong = os:getcwd' (entry point group graphrt.executors) is not an Executor class"


def test_an_executor_without_an_address_refuses_one() -> None:
    from graphrt.engine.executor import Executor

    with pytest.raises(ExecutorError, match="^the local executor takes no address$"):
        Executor.from_target("local://x")


def test_a_missing_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    """Without Ray (hidden from this process), `--executor ray` says what to install."""
    code = "import sys; sys.modules['ray'] = None; from graphrt.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "run", str(ROOT / "graphs" / "hello.yaml"), "--executor", "ray"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert (done.returncode, done.stderr) == (
        1, "graphrt: the Ray executor needs graphrt[ray], which is not installed (no module ray): "
           "pip install 'graphrt[ray]'\n")
