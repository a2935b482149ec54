"""bench/soak at a small size: faulty LLM replies lose no run, give no wrong result, repeat no completed node."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.soak.run import soak

pytestmark = pytest.mark.anyio


async def test_a_small_soak_with_many_faults_loses_no_run(tmp_path: Path) -> None:
    # A 2 s request timeout: a healthy reply on a loaded machine must not count as a slow fault (0.2 s lost runs).
    report = await soak(25, fault_rate=0.3, seed=3, concurrency=16, timeout=2.0, retries=1,
                        checkpoint=tmp_path / "soak.db")

    assert (report.lost, report.wrong, report.rework) == ([], [], 0)
    assert report.completed_after_resume > 0  # some runs did need their checkpoint
    assert sum(report.faults.values()) > 0
