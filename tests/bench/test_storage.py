"""`python -m bench storage` measures what it says on a small run (no figures are checked, only that they exist)."""

from bench.storage import main


def test_the_storage_bench_gives_bytes_a_run_for_sqlite(capsys) -> None:
    assert main(["--runs", "4", "--graphs", "hello,streamed", "--no-postgres"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| sqlite | ")]
    assert [row.split(" | ")[1] for row in rows] == ["hello", "streamed"]
    streamed = rows[1].split(" | ")
    assert int(streamed[2]) > 400 and float(streamed[4]) > float(streamed[3])  # its tokens' events outweigh its rows
