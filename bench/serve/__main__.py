"""`python -m bench.serve`: graphrt serve measured against calling graphrt.arun directly, in one run.

- load: `--runs` runs (200) started at once by as many concurrent clients against `--max-runs` (50),
  each a graph with one 50 ms I/O node (sleeperAgent). The clients are a load generator in a process
  of its own (bench/serve/loadgen.py). Every run must finish with its own result.
  Per-run latency (submit to result) and throughput are compared with the same runs through
  `graphrt.arun` (one Graph, built once) in one process under the same concurrency limit, without and
  with the server's checkpoint store (SQLite); then one run at a time, to show the server's own cost.
  The server's CPU time per run (from /proc, over the load) is set beside arun's with the same store (this
  process's own CPU time over those runs), with the load average before and after.
- `--baseline REF` (once or more): the load alone, against the server of git commit REF (its tree from
  `git archive`, its `graphrt` first on the path) and this tree's, `--rounds` times each in turn (the order
  reversed every other round), with arun between: the side-by-side view of a change to the server.
- `--concurrency 1,2,5,...`: the load alone at each number of clients, a closed loop (each client sends its next
  run once its last is answered), against one server with `--max-runs` (50), and `graphrt.arun` with the same
  store, as many clients and the same limit beside it: throughput, p50 and p99 latency and the server's CPU per
  run by concurrency. Writes bench/results/serve_scaling_latest.json (git-ignored), which
  `python -m bench report` draws.
- faults: `--fault-runs` runs (100) of a chain of three 100 ms nodes; the server is killed with
  SIGKILL while they are in flight, then started again on the same checkpoint. Every run must finish
  once, with the results of an undisturbed run, and no node saved before the kill may run again.

Exits 1 if a run was lost or wrong. Needs the serve extra (pip install -e '.[serve]').
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

import graphrt
import graphrt.authoring.agent_like
from bench.machine import describe
from graphrt.base.states import RunStatus
from graphrt.checkpoint import SQLiteStore
from graphrt.durable import arun_checkpointed

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
COUNT_AGENTS = ROOT / "tests" / "serve" / "count_agents.py"

IO_GRAPH = """\
version: 0.5
nodes:
  n:
    value: 0
  io:
    agent: sleeperAgent
    params:
      duration: 50
    inputs:
      n: :n
    isResult: true
"""

CHAIN_GRAPH = """\
version: 0.5
nodes:
  n:
    value: 0
  a:
    agent: countedAgent
    params:
      ms: 100
    inputs:
      n: :n
  b:
    agent: countedAgent
    params:
      ms: 100
    inputs:
      previous: :a
  c:
    agent: countedAgent
    params:
      ms: 100
    inputs:
      previous: :b
    isResult: true
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(folder: Path, checkpoint: Path, port: int, *extra: str, env: dict[str, str] | None = None,
           tree: Path | None = None) -> subprocess.Popen:
    """graphrt serve on `folder`; that of the source tree `tree` when given (its folder is the server's working
    folder too: `python -m` puts the working folder first on the path, before PYTHONPATH)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "graphrt", "serve", str(folder), "--port", str(port),
         "--checkpoint", str(checkpoint), *extra],
        env={**os.environ, **(env or {}), **({"PYTHONPATH": str(tree)} if tree is not None else {})},
        cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("graphrt serve did not start")


def _cpu_seconds(pid: int) -> float:
    """The CPU time process `pid` has used so far, from /proc (Linux): its threads' run time in nanoseconds
    (schedstat), or else user + system time in clock ticks (10 ms: 50 µs a run over 200 runs)."""
    try:
        return sum(int((task / "schedstat").read_text().split()[0])
                   for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


# ----- load -----


def _saved_runs(checkpoint: Path, ids: list[str] | None = None) -> Any:
    """Every run saved in a SQLite checkpoint; with `ids`, (records, rows) of those runs by id."""

    async def read() -> Any:
        store = SQLiteStore(checkpoint)
        try:
            if ids is None:
                return await store.runs()
            return ({run_id: await store.get_run(run_id) for run_id in ids},
                    {run_id: await store.get_rows(run_id) for run_id in ids})
        finally:
            await store.close()

    return anyio.run(read)


async def _direct(path: Path, runs: int, limit: int, checkpoint: Path | None = None) -> tuple[list[float], list[Any]]:
    """Each run's latency through graphrt.arun, `runs` at once under a limit of `limit`; saved to
    `checkpoint` as the server saves its runs, when given. The Graph is built once, as a program that
    runs one graph many times would."""
    limiter = anyio.CapacityLimiter(limit)
    latencies: list[float] = [0.0] * runs
    results: list[Any] = [None] * runs
    store = SQLiteStore(checkpoint) if checkpoint is not None else None
    graph = graphrt.Graph(path)

    async def one(n: int) -> None:
        started = time.perf_counter()
        async with limiter:
            inject = {"n": n}
            results[n] = await (arun_checkpointed(graph, store, inject=inject) if store is not None
                                else graph.arun(inject=inject))
        latencies[n] = time.perf_counter() - started

    try:
        async with anyio.create_task_group() as tg:
            for n in range(runs):
                tg.start_soon(one, n)
    finally:
        if store is not None:
            await store.close()
    return latencies, results


def _served(url: str, runs: int, clients: int | None = None) -> tuple[list[float], list[float], list[Any], int, float]:
    """Each run's latency through the server (POST ?wait=true), `runs` clients at once from the load generator's
    own process (bench/serve/loadgen.py), or `clients` sending one run after another; as the client sees it and
    inside the server (queued to finished); the 429s seen and the wall time of them all."""
    done = subprocess.run([sys.executable, "-m", "bench.serve.loadgen", url, "/graphs/io/runs?wait=true",
                           "--runs", str(runs), *(["--clients", str(clients)] if clients else [])],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the load generator failed: {done.stderr[-2000:]}")
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    return measured["latencies"], measured["inside"], measured["results"], measured["refused"], measured["wall"]


async def _sequential(url: str, path: Path, runs: int) -> tuple[list[float], list[float]]:
    """One run at a time: latency through the server and through graphrt.arun, alternating."""
    served, direct = [], []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for n in range(runs):
            started = time.perf_counter()
            response = await client.post("/graphs/io/runs?wait=true", json={"inputs": {"n": n}})
            served.append(time.perf_counter() - started)
            assert response.json()["results"] == {"io": {"n": n}}, response.text
            started = time.perf_counter()
            await graphrt.arun(path, inject={"n": n})
            direct.append(time.perf_counter() - started)
    return served, direct


def load(folder: Path, runs: int, max_runs: int, sequential: int) -> tuple[list[str], bool]:
    path = folder / "io.yaml"
    path.write_text(IO_GRAPH, encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = _start(folder, folder / "load.db", port, "--max-runs", str(max_runs))
    try:
        anyio.run(_direct, path, 10, max_runs)  # warm both up
        _served(url, 10)
        load_before = _load_average()
        cpu_before = _cpu_seconds(server.pid)
        served_latency, served_inside, served_results, refused, served_wall = _served(url, runs)
        server_cpu = (_cpu_seconds(server.pid) - cpu_before) / runs
        started = time.perf_counter()
        direct_latency, direct_results = anyio.run(_direct, path, runs, max_runs)
        direct_wall = time.perf_counter() - started
        started, cpu_before = time.perf_counter(), time.process_time()
        saved_latency, saved_results = anyio.run(_direct, path, runs, max_runs, folder / "direct.db")
        saved_wall = time.perf_counter() - started
        saved_cpu = (time.process_time() - cpu_before) / runs
        load_after = _load_average()
        one_served, one_direct = anyio.run(_sequential, url, path, sequential)
        health = httpx.get(f"{url}/health").json()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    expected = [{"io": {"n": n}} for n in range(runs)]
    right = sum(result == want for result, want in zip(served_results, expected, strict=True))
    completed = sum(RunStatus.read(record.status) is RunStatus.FINISHED for record in _saved_runs(folder / "load.db"))
    ok = right == runs and direct_results == expected and saved_results == expected
    lines = [
        f"## load: {runs} runs at once, --max-runs {max_runs}, one 50 ms I/O node each",
        "",
        (f"- finished with the right result: {right}/{runs} through the server (429s retried: {refused}); "
        f"{completed} completed runs in its checkpoint (incl. {10 + sequential} warm-up and one-at-a-time runs); "
        f"queue empty after: {health['queued'] == 0 and health['running'] == 0}"),
        (f"- wall time for all {runs}: server {served_wall:.2f} s, graphrt.arun with checkpoint= {saved_wall:.2f} s, "
         f"without {direct_wall:.2f} s; throughput: server {runs / served_wall:.0f} runs/s, arun with checkpoint= "
         f"{runs / saved_wall:.0f} runs/s (server ÷ arun with the same store: {saved_wall / served_wall:.2f}×)"),
        (f"- CPU time per run: server {server_cpu * 1e6:,.0f} µs, graphrt.arun with checkpoint= {saved_cpu * 1e6:,.0f} µs; "
         f"load average {load_before} before, {load_after} after"),
        "",
        "| per-run latency, ms | p50 | p99 | max |",
        "| --- | ---: | ---: | ---: |",
        (f"| graphrt.arun, {runs} at once, limit {max_runs} | {_ms(_percentile(direct_latency, .5))} | "
        f"{_ms(_percentile(direct_latency, .99))} | {_ms(max(direct_latency))} |"),
        (f"| graphrt.arun with checkpoint=, {runs} at once, limit {max_runs} | "
        f"{_ms(_percentile(saved_latency, .5))} | {_ms(_percentile(saved_latency, .99))} | {_ms(max(saved_latency))} |"),
        (f"| graphrt serve, {runs} clients at once (load generator in its own process) | {_ms(_percentile(served_latency, .5))} | "
        f"{_ms(_percentile(served_latency, .99))} | {_ms(max(served_latency))} |"),
        (f"| graphrt serve, queued to finished inside the server | {_ms(_percentile(served_inside, .5))} | "
         f"{_ms(_percentile(served_inside, .99))} | {_ms(max(served_inside))} |"),
        (f"| added by the server under load (client view − arun with checkpoint=) | "
         f"{_ms(_percentile(served_latency, .5) - _percentile(saved_latency, .5))} | "
         f"{_ms(_percentile(served_latency, .99) - _percentile(saved_latency, .99))} | |"),
        (f"| graphrt.arun, one at a time ({sequential} runs) | {_ms(_percentile(one_direct, .5))} | "
        f"{_ms(_percentile(one_direct, .99))} | {_ms(max(one_direct))} |"),
        (f"| graphrt serve, one at a time | {_ms(_percentile(one_served, .5))} | {_ms(_percentile(one_served, .99))} | "
        f"{_ms(max(one_served))} |"),
        (f"| added by the server, one at a time | "
        f"{_ms(statistics.median(s - d for s, d in zip(one_served, one_direct, strict=True)))} | "
        f"{_ms(_percentile([s - d for s, d in zip(one_served, one_direct, strict=True)], .99))} | |"),
    ]
    return lines, ok


# ----- scaling: the load at each concurrency -----


async def _direct_clients(path: Path, runs: int, clients: int, limit: int,
                          checkpoint: Path) -> tuple[list[float], list[Any], float]:
    """`runs` runs through graphrt.arun with the server's store, by `clients` that each start their next run once
    their last returns (the load generator's closed loop), at most `limit` at once as the server's --max-runs:
    each run's latency (its wait for the limit included), results, and the wall time."""
    limiter = anyio.CapacityLimiter(limit)
    latencies: list[float] = [0.0] * runs
    results: list[Any] = [None] * runs
    store = SQLiteStore(checkpoint)
    graph = graphrt.Graph(path)
    numbers = iter(range(runs))

    async def client() -> None:
        for n in numbers:
            started = time.perf_counter()
            async with limiter:
                results[n] = await arun_checkpointed(graph, store, inject={"n": n})
            latencies[n] = time.perf_counter() - started

    started = time.perf_counter()
    try:
        async with anyio.create_task_group() as tg:
            for _ in range(min(clients, runs)):
                tg.start_soon(client)
    finally:
        await store.close()
    return latencies, results, time.perf_counter() - started


def _figures(latencies: list[float], runs: int, wall: float) -> dict[str, float]:
    return {"runs_per_s": runs / wall, "p50_ms": _percentile(latencies, .5) * 1000,
            "p99_ms": _percentile(latencies, .99) * 1000}


def scaling(folder: Path, levels: list[int], runs: int, max_runs: int) -> tuple[dict[str, Any], bool]:
    """At each number of clients, `max(runs, 5 × clients)` runs through the server (`--max-runs max_runs`) and
    through arun with the same store, as many clients and the same limit."""
    path = folder / "io.yaml"
    path.write_text(IO_GRAPH, encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    machine = describe()
    server = _start(folder, folder / "scaling.db", port, "--max-runs", str(max_runs))
    measured, ok = [], True
    try:
        _served(url, 10)
        anyio.run(_direct_clients, path, 10, 10, max_runs, folder / "direct.db")  # warm both up
        for clients in levels:
            count = max(runs, 5 * clients)
            expected = [{"io": {"n": n}} for n in range(count)]
            load_before = os.getloadavg()[0]
            cpu_before = _cpu_seconds(server.pid)
            latency, _, results, refused, wall = _served(url, count, clients)
            cpu = (_cpu_seconds(server.pid) - cpu_before) / count
            direct_latency, direct_results, direct_wall = anyio.run(_direct_clients, path, count, clients, max_runs,
                                                                    folder / "direct.db")
            ok = ok and results == expected and direct_results == expected and refused == 0
            measured.append({"clients": clients, "runs": count, "load": [load_before, os.getloadavg()[0]],
                             "server": {**_figures(latency, count, wall), "cpu_us_per_run": cpu * 1e6,
                                        "refused": refused},
                             "arun": _figures(direct_latency, count, direct_wall)})
            print(f"{clients:>4} clients: server {count / wall:7.1f} runs/s "
                  f"p50 {_percentile(latency, .5) * 1000:6.1f} ms; arun {count / direct_wall:7.1f} runs/s; "
                  f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    return {"machine": machine, "settings": {"io_ms": 50, "max_runs": max_runs, "runs": runs},
            "levels": measured}, ok


def scaling_table(data: dict[str, Any]) -> list[str]:
    settings = data["settings"]
    lines = [f"## scaling: clients in a closed loop, one 50 ms I/O node a run, --max-runs {settings['max_runs']}", "",
             f"{data['machine']['machine']}; measured {data['machine']['measured at']}", "",
             "| clients | runs | server runs/s | arun with checkpoint= runs/s | server ÷ arun | ideal runs/s | "
             "server p50 / p99 ms | arun p50 / p99 ms | server CPU per run | load (1 min) |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for level in data["levels"]:
        server, direct = level["server"], level["arun"]
        lines.append(
            f"| {level['clients']} | {level['runs']} | {server['runs_per_s']:.0f} | {direct['runs_per_s']:.0f} | "
            f"{server['runs_per_s'] / direct['runs_per_s']:.2f}× | "
            f"{min(level['clients'], settings['max_runs']) * 1000 / settings['io_ms']:.0f} | "
            f"{server['p50_ms']:.1f} / {server['p99_ms']:.1f} | {direct['p50_ms']:.1f} / {direct['p99_ms']:.1f} | "
            f"{server['cpu_us_per_run']:,.0f} µs | {level['load'][0]:.1f} → {level['load'][1]:.1f} |")
    return lines


# ----- baseline: another commit's server beside this tree's -----


def _tree_of(ref: str, folder: Path) -> Path:
    """The files of git commit `ref` of this repository, in a folder of their own."""
    tree = folder / f"tree-{ref.replace('/', '-')}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=False)
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {ref} failed: {archive.stderr.decode(errors='replace')[-500:]}")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


def baseline(folder: Path, refs: list[str], runs: int, max_runs: int, rounds: int) -> tuple[list[str], bool]:
    """The load against the servers of commits `refs` and this tree's, in turn, with arun between."""
    path = folder / "io.yaml"
    path.write_text(IO_GRAPH, encoding="utf-8")
    trees = [(ref, _tree_of(ref, folder)) for ref in refs]
    servers: dict[str, tuple[subprocess.Popen, str]] = {}
    measured: dict[str, list[tuple[float, float, float, float]]] = {}  # cpu/run, p50, p50 added, ratio
    expected = [{"io": {"n": n}} for n in range(runs)]
    ok = True
    try:
        for name, tree in (*trees, ("this tree", ROOT)):
            port = _free_port()
            servers[name] = (_start(folder, folder / f"{len(servers)}.db", port, "--max-runs", str(max_runs),
                                    tree=tree), f"http://127.0.0.1:{port}")
            _served(servers[name][1], 10)
            measured[name] = []
        anyio.run(_direct, path, 10, max_runs)
        load_before = _load_average()
        for round_ in range(rounds):
            order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
            for name in order:
                server, url = servers[name]
                cpu_before = _cpu_seconds(server.pid)
                latency, _, results, _, wall = _served(url, runs)
                cpu = (_cpu_seconds(server.pid) - cpu_before) / runs
                started = time.perf_counter()
                saved_latency, saved_results = anyio.run(_direct, path, runs, max_runs, folder / "direct.db")
                saved_wall = time.perf_counter() - started
                ok = ok and results == expected and saved_results == expected
                measured[name].append((cpu, _percentile(latency, .5),
                                       _percentile(latency, .5) - _percentile(saved_latency, .5), saved_wall / wall))
        load_after = _load_average()
    finally:
        for server, _ in servers.values():
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    lines = [f"## baseline: {runs} clients at once against each server in turn, {rounds} rounds, --max-runs {max_runs}",
             "", f"load average {load_before} before, {load_after} after; each figure the median of the rounds "
             "(each round's p50 added and ratio against an arun with checkpoint= right after it)", "",
             "| server | CPU per run | p50 | p50 added | server ÷ arun with checkpoint= |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, rows in measured.items():
        cpu, p50, added, ratio = (statistics.median(column) for column in zip(*rows, strict=True))
        lines.append(f"| {name} | {cpu * 1e6:,.0f} µs | {_ms(p50)} ms | {_ms(added)} ms | {ratio:.2f}× |")
    return lines, ok


# ----- faults -----


def faults(folder: Path, runs: int, max_runs: int, kill_at: float) -> tuple[list[str], bool]:
    (folder / "chain.yaml").write_text(CHAIN_GRAPH, encoding="utf-8")
    checkpoint, count_log = folder / "faults.db", folder / "calls.log"
    env = {"GRAPHRT_SERVE_COUNT_LOG": str(count_log)}
    extra = ("--agents", str(COUNT_AGENTS), "--max-runs", str(max_runs))
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    undisturbed = [graphrt.run(folder / "chain.yaml", inject={"n": n}, agents=graphrt.authoring.agent_like.module_agents(
        str(COUNT_AGENTS))) for n in range(3)]
    count_log.unlink(missing_ok=True)
    server = _start(folder, checkpoint, port, *extra, env=env)
    with httpx.Client(base_url=url, timeout=30) as client:
        ids = [client.post("/graphs/chain/runs", json={"inputs": {"n": n}}).json()["id"] for n in range(runs)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not count_log.exists() or
                                           len(count_log.read_text().splitlines()) < runs * 3 * kill_at):
        time.sleep(0.01)
    os.kill(server.pid, signal.SIGKILL)
    server.wait()
    records, rows = _saved_runs(checkpoint, ids)
    saved = {(run_id, row.key) for run_id in ids for row in rows[run_id] if row.kind == "node"}
    statuses = collections.Counter(records[run_id].status for run_id in ids)
    restarted = time.perf_counter()
    server = _start(folder, checkpoint, port, *extra, env=env)
    results: dict[str, Any] = {}
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            deadline = time.monotonic() + 300
            for run_id in ids:
                while (run := client.get(f"/runs/{run_id}").json())["status"] not in ("finished", "failed", "cancelled"):
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                results[run_id] = run.get("results")
        recovered = time.perf_counter() - restarted
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    calls = collections.Counter(tuple(line.split()) for line in count_log.read_text().splitlines())
    expected = [{"c": {"n": n, "seen": ["a", "b", "c"]}} for n in range(runs)]
    right = sum(results[run_id] == want for run_id, want in zip(ids, expected, strict=True))
    missing = sum((run_id, node) not in calls for run_id in ids for node in "abc")
    saved_again = sum(calls[key] > 1 for key in saved)
    in_flight_again = sum(count > 1 for key, count in calls.items() if key not in saved)
    records, _ = _saved_runs(checkpoint, ids)
    completed = sum(RunStatus.read(records[run_id].status) is RunStatus.FINISHED for run_id in ids)
    ok = right == runs and completed == runs and missing == 0 and saved_again == 0 and \
        undisturbed == expected[:3]
    lines = [
        f"## faults: kill -9 with {runs} runs in flight or queued (--max-runs {max_runs}), then restart",
        "",
        (f"- killed once {kill_at:.0%} of the nodes had run: {len(saved)} of {runs * 3} nodes saved; "
        f"store statuses {dict(statuses)}"),
        (f"- after the restart: {right}/{runs} runs finished with the results of an undisturbed run, "
        f"{completed}/{runs} saved as completed once; all done {recovered:.2f} s after the restart began"),
        (f"- nodes saved before the kill that ran again: {saved_again}; nodes in flight at the kill that ran "
        f"again (their work was not saved): {in_flight_again}; nodes never run: {missing}"),
    ]
    return lines, ok


def _levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not numbers of clients: {text!r}") from None
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError(f"numbers of clients are 1 or more: {text!r}")
    return levels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--max-runs", type=int, default=50)
    parser.add_argument("--sequential", type=int, default=100, help="runs one at a time, each way")
    parser.add_argument("--fault-runs", type=int, default=100)
    parser.add_argument("--kill-at", type=float, default=0.4, help="kill -9 once this share of the nodes has run")
    parser.add_argument("--baseline", metavar="REF", action="append",
                        help="only the load, against commit REF's server (more than one: each) and this tree's")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: rounds against each server")
    parser.add_argument("--concurrency", metavar="N,N,...", type=_levels,
                        help="only the load, at each number of clients in turn (e.g. 1,2,5,10,20,50,100,200); "
                             "each level runs --runs or 5 a client, whichever is more")
    args = parser.parse_args(argv)
    if args.concurrency:
        with tempfile.TemporaryDirectory() as temporary:
            data, ok = scaling(Path(temporary), args.concurrency, args.runs, args.max_runs)
        RESULTS.mkdir(exist_ok=True)  # what `python -m bench report` draws
        (RESULTS / "serve_scaling_latest.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print("\n".join(scaling_table(data)))
        return 0 if ok else 1
    if args.baseline:
        with tempfile.TemporaryDirectory() as temporary:
            lines, ok = baseline(Path(temporary), args.baseline, args.runs, args.max_runs, args.rounds)
        print("\n".join(lines))
        return 0 if ok else 1
    with tempfile.TemporaryDirectory() as temporary:
        load_folder, fault_folder = Path(temporary) / "load", Path(temporary) / "faults"
        load_folder.mkdir()
        fault_folder.mkdir()
        load_lines, load_ok = load(load_folder, args.runs, args.max_runs, args.sequential)
        print("\n".join(load_lines), flush=True)
        print()
        fault_lines, fault_ok = faults(fault_folder, args.fault_runs, 20, args.kill_at)
        print("\n".join(fault_lines))
    return 0 if load_ok and fault_ok else 1


if __name__ == "__main__":
    sys.exit(main())
