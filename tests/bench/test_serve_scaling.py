"""`python -m bench.serve --concurrency ...` measures a real `graphrt serve` at each number of clients, each sending
its next run once answered, beside graphrt.arun with the same store (no figures are checked, only that every run
came back right and each level has its figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.serve.__main__ import main, scaling, scaling_table

pytestmark = pytest.mark.needs("serve")


def test_each_level_runs_its_clients_in_a_closed_loop(tmp_path: Path) -> None:
    data, ok = scaling(tmp_path, [1, 3], 6, 2)
    assert ok, data
    assert [(level["clients"], level["runs"]) for level in data["levels"]] == [(1, 6), (3, 15)]
    assert data["settings"]["max_runs"] == 2 and data["machine"]["measured at"]
    for level in data["levels"]:
        assert level["server"]["refused"] == 0 and level["server"]["cpu_us_per_run"] > 0
        for side in ("server", "arun"):
            # every run waits 50 ms, at most 2 at once on either side: neither can beat min(clients, 2) ÷ 50 ms
            assert 0 < level[side]["runs_per_s"] <= min(level["clients"], 2) * 20 * 1.05, level
            assert 50 <= level[side]["p50_ms"] <= level[side]["p99_ms"], level
    table = scaling_table(data)
    assert [line.split(" | ")[0] for line in table if line.startswith("| ") and line[2].isdigit()] == ["| 1", "| 3"]


def test_a_level_that_is_no_number_of_clients_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0,5", "ten"):
        with pytest.raises(SystemExit) as stopped:
            main(["--concurrency", bad])
        assert stopped.value.code == 2
        assert "--concurrency" in capsys.readouterr().err
