"""`python -m bench journal` measures what it says on a few runs (no figure is checked but the counts: every effect
once, every replay identical and offline)."""

from bench.journal import main


def test_the_kill_bench_counts_each_effect_once(capsys) -> None:
    assert main(["kill", "--runs", "2", "--calls", "2"]) == 0
    said = capsys.readouterr().out
    assert "kill: 2 runs, " in said and " 4 effects of 4; twice: 0, missing: 0; " in said


def test_the_replay_bench_replays_each_recording_offline_to_its_results(capsys) -> None:
    assert main(["replay", "--runs", "2", "--calls", "2"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in said] == ["replay react.yaml", "replay toolsAgent"]
    assert all(": 2/2 identical, 0 LLM requests in the replays;" in line for line in said)


def test_the_size_bench_measures_a_run_of_twenty_rounds(capsys) -> None:
    assert main(["size"]) == 0
    assert "size: a toolsAgent run of 20 rounds (19 tool calls) journals " in capsys.readouterr().out
