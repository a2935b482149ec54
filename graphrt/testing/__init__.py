"""Test an agent pack's samples with pytest: docs and tests from one source, as in GraphAI.

    from graphrt.testing import assert_samples_pass, parametrize_samples
    from my_pack import Calculator, greet

    def test_every_sample_passes():
        assert_samples_pass(greet, Calculator)

    @parametrize_samples(greet, Calculator)     # one test per sample: greet[0], Calculator[0], ...
    def test_sample(sample_case):
        sample_case.check()

The agents are added to the built-in ones (so a graph sample can use them),
and every sample runs through a real one-node graph (see graphrt.testing.samples).

Test a whole graph that calls LLMs and services offline with a cassette: its outside calls recorded
once, then replayed with no network and no key (graphrt.testing.cassette; the `cassette` fixture of
graphrt's pytest plugin, graphrt.testing.pytest_plugin).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import anyio

from graphrt.authoring.agent_info import AgentContext, AgentInfo, AgentLike, Sample
from graphrt.authoring.agent_like import as_agent
from graphrt.authoring.plugins import make_registry
from graphrt.authoring.registry import Registry
from graphrt.testing.samples import SampleOutcome, run_sample

if TYPE_CHECKING:
    from graphrt.testing.cassette import Cassette, CassetteError

__all__ = ["Cassette", "CassetteError", "SampleCase", "sample_cases", "parametrize_samples", "assert_samples_pass",
           "agent_context"]


def __getattr__(name: str) -> Any:
    """`Cassette` and `CassetteError`, imported on first use: a command that runs samples never needs the journal."""
    if name in ("Cassette", "CassetteError"):
        from graphrt.testing import cassette

        return getattr(cassette, name)
    raise AttributeError(f"module 'graphrt.testing' has no attribute {name!r}")


@dataclass(frozen=True)
class SampleCase:
    """One sample of one agent, ready to run."""

    agent: AgentInfo
    index: int
    sample: Sample
    registry: Registry

    @property
    def id(self) -> str:
        return f"{self.agent.name}[{self.index}]"

    def run(self) -> SampleOutcome:
        """Runs the sample (from sync code)."""
        return anyio.run(run_sample, self.agent, self.sample, self.registry, self.index)

    async def arun(self) -> SampleOutcome:
        """Runs the sample (from async code)."""
        return await run_sample(self.agent, self.sample, self.registry, self.index)

    def check(self) -> None:
        """Runs the sample; raises AssertionError saying what differs."""
        outcome = self.run()
        if not outcome.passed:
            raise AssertionError(outcome.describe())


def sample_cases(*agents: AgentLike, registry: Registry | None = None) -> list[SampleCase]:
    """Every sample of the agents, in order, run with the built-in agents plus these (or `registry`)."""
    infos = [as_agent(agent) for agent in agents]
    registry = registry if registry is not None else make_registry(infos)
    return [SampleCase(info, index, sample, registry) for info in infos for index, sample in enumerate(info.samples)]


def parametrize_samples(*agents: AgentLike, registry: Registry | None = None,
                        argname: str = "sample_case") -> Callable[[Any], Any]:
    """A `pytest.mark.parametrize` giving the test one SampleCase per sample, with readable ids."""
    import pytest

    cases = sample_cases(*agents, registry=registry)
    return pytest.mark.parametrize(argname, cases, ids=[case.id for case in cases])


def assert_samples_pass(*agents: AgentLike, registry: Registry | None = None) -> None:
    """Runs every sample of the agents; raises one AssertionError listing all failures.

    An agent without samples is a failure too: samples are its documentation.
    """
    infos = [as_agent(agent) for agent in agents]
    problems = [f"{info.name}: has no samples" for info in infos if not info.samples]
    for case in sample_cases(*infos, registry=registry):
        outcome = case.run()
        if not outcome.passed:
            problems.append(outcome.describe())
    if problems:
        raise AssertionError("agent samples failed:\n" + "\n".join(f"  {problem}" for problem in problems))


def agent_context(inputs: dict[str, Any] | None = None, params: dict[str, Any] | None = None, **fields: Any) -> AgentContext:
    """An AgentContext for calling an agent function directly in a unit test (node id "test")."""
    return AgentContext(inputs=inputs or {}, params=params or {}, node_id=fields.pop("node_id", "test"), **fields)
