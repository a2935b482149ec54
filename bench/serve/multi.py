"""`python -m bench multiserve`: several `graphrt serve` processes on one PostgreSQL store, against one.

The runs are a chain of three 50 ms I/O nodes (countedAgent of tests/serve/count_agents.py, which also writes
`run node` to a shared file each time a node runs). PostgreSQL is a throwaway cluster on 127.0.0.1 with its default
settings (bench/durable.py's); the servers are processes on 127.0.0.1 ports, standing in for machines; the load
generators are processes of their own (bench/serve/loadgen.py, bench/serve/follower.py).

- **throughput**: with 1, 2 and 4 servers (`--levels`), each with `--max-runs` slots, `--runs-per-server` runs
  per server from `--clients-per-server` clients per server (a closed loop), sent round-robin (POST ?wait=true);
  runs per second, its share of linear (k × one server's), and p50 / p99 latency added against one server.
  Each level has a database of its own.
- **one door**: the same load at each level, every request sent to the first server (a load balancer that does
  not spread, or clients that know one URL): the runs it has no free slot for wait in the store's queue, and the
  other servers run them; × linear is against one server's runs per second (the round-robin one's when both ran).
- **faults**: three servers under the follower's load (each run started on one server and its events read on
  another); one server is killed with SIGKILL `--kills` times (a different one each time, started again once the
  others have made progress). Counted: runs lost (never finished), runs with wrong results, nodes saved before a
  kill that ran again, duplicate webhooks (two deliveries of one run's event), event ids missing or repeated in what
  the clients read across servers (their own reads, and against the store's log), and how long the killed server's
  runs went without an event (they waited for another server to claim them). The servers share one machine, so each
  finds a killed one's process gone at once; `--machines` runs each under a host name of its own (a UTS namespace,
  `unshare`), as on machines of their own: then a killed server's runs wait for its lease to lapse.
- **rolling**: the same load and counts while each of three servers in turn is drained (`graphrt serve --drain`:
  it finishes its runs, then exits; `--rolling-stop term`: stopped with SIGTERM, its runs given up to the others)
  and started again.

Writes bench/results/multiserve_latest.json (git-ignored). Exits 1 if a run was lost or wrong. Needs the serve
and postgres extras, and PostgreSQL's initdb and pg_ctl.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from bench.durable import _free_port, _pg_bin, _Postgres
from bench.machine import describe

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[2]
_SETTLING = 1.0
"""Seconds after a disturbance in which a run's last event may still come from the server stopped (sent before it
died): a run's wait for another server is the gap that begins by then."""
RESULTS = ROOT / "bench" / "results"
COUNT_AGENTS = ROOT / "tests" / "serve" / "count_agents.py"
NODES = ("a", "b", "c")


def _chain(ms: int) -> str:
    nodes = ["  n:\n    value: 0"]
    previous = "n: :n"
    for name in NODES:
        nodes.append(f"  {name}:\n    agent: countedAgent\n    params:\n      ms: {ms}\n    inputs:\n      {previous}")
        previous = f"previous: :{name}"
    return "version: 0.5\nnodes:\n" + "\n".join(nodes) + "\n    isResult: true\n"


def _expected(n: int) -> dict[str, Any]:
    return {"c": {"n": n, "seen": list(NODES)}}


# ----- the parts: PostgreSQL databases, servers, a webhook receiver -----


def _database(admin_url: str, name: str) -> str:
    """A new empty database on the bench's cluster: each measurement starts from an empty store."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + "/" + name


def _query(url: str, sql: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url) as connection:
        return list(connection.execute(sql).fetchall())


class Servers:
    """`count` graphrt serve processes on one store, each on a port of its own that it keeps across restarts."""

    def __init__(self, folder: Path, store: str, count: int, max_runs: int, extra: list[str],
                 env: dict[str, str], machines: bool = False) -> None:
        self.folder, self.store, self.max_runs, self.extra, self.env = folder, store, max_runs, extra, env
        self.machines = machines  # each server under a host name of its own (a UTS namespace): as on other machines
        self.ports = [_free_port() for _ in range(count)]
        self.processes: list[subprocess.Popen | None] = [None] * count

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.ports]

    def start(self, index: int) -> None:
        log = open(self.folder / f"server-{index}.log", "ab")  # noqa: SIM115 - the process writes it
        served = [sys.executable, "-m", "graphrt", "serve", str(self.folder), "--port", str(self.ports[index]),
                  "--checkpoint", self.store, "--agents", str(COUNT_AGENTS), "--max-runs", str(self.max_runs),
                  *self.extra]
        if self.machines:  # no server finds another's process gone by its pid: each waits for the other's lease
            served = ["unshare", "--user", "--map-root-user", "--uts", "sh", "-c",
                      f'hostname bench-machine-{index} && exec "$0" "$@"', *served]
        self.processes[index] = subprocess.Popen(
            served,
            env={**os.environ, **self.env}, stdout=log, stderr=log, cwd=ROOT)
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.processes[index].poll() is not None:
                raise RuntimeError(f"graphrt serve {index} exited: see {self.folder / f'server-{index}.log'}")
            try:
                if httpx.get(f"{self.urls[index]}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"graphrt serve {index} did not start: see {self.folder / f'server-{index}.log'}")

    def start_all(self) -> None:
        for index in range(len(self.ports)):
            self.start(index)

    def kill(self, index: int) -> None:
        process = self.processes[index]
        if process is not None:
            process.send_signal(signal.SIGKILL)
            process.wait()
            self.processes[index] = None

    def stop(self, index: int) -> None:
        process = self.processes[index]
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            self.processes[index] = None

    def stop_all(self) -> None:
        for index in range(len(self.ports)):
            self.stop(index)

    def drain(self, index: int) -> None:
        """`graphrt serve --drain` of server `index` (by its id): it takes and claims no more runs, finishes those it
        holds, and exits; waited for."""
        process = self.processes[index]
        if process is None:
            return
        server = httpx.get(f"{self.urls[index]}/health", timeout=10).json()["server"]
        subprocess.run([sys.executable, "-m", "graphrt", "serve", str(self.folder), "--checkpoint", self.store,
                        "--drain", server], check=True, cwd=ROOT, capture_output=True, timeout=60)
        try:
            process.wait(300)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"graphrt serve {index} did not exit after draining") from None
        self.processes[index] = None


class WebhookReceiver:
    """Takes every server's webhook calls and keeps (run id, event type, delivery id) of each."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        lock = threading.Lock()
        calls = self.calls

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server spelling
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with lock:
                    calls.append((body.get("run", {}).get("id", ""), body.get("type", ""), body.get("delivery_id", "")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pids: list[int]) -> float:
    """CPU seconds (user and system) the processes have used so far; one gone counts nothing."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the line)
    return total / _TICK


def _postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def _machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, from /proc/stat."""
    values = [int(value) for value in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values) - idle) / _TICK, sum(values) / _TICK


class CpuShare:
    """Where the CPU went while a load ran: the machine's busy share, and CPU ms per run of the servers, PostgreSQL
    and the load generator (this process's waited children), so a report can say what limits throughput."""

    def __init__(self, servers: list[int]) -> None:
        self.servers = servers
        self.postgres = _postgres_pids()
        self._at = self._now()

    def _now(self) -> tuple[float, float, float, float, float]:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (*_machine_busy(), _cpu_of(self.servers), _cpu_of(self.postgres),
                children.ru_utime + children.ru_stime)

    def per_run(self, runs: int) -> dict[str, float]:
        now = self._now()
        busy, whole, servers, postgres, loadgen = (after - before for after, before in zip(now, self._at))
        return {"machine_busy": busy / whole if whole else 0.0, "servers_ms": 1000 * servers / runs,
                "postgres_ms": 1000 * postgres / runs, "loadgen_ms": 1000 * loadgen / runs}


# ----- throughput -----


def throughput(admin_url: str, folder: Path, levels: list[int], runs_per_server: int, clients_per_server: int,
               max_runs: int, extra: list[str], *, one_door: bool = False) -> tuple[list[dict[str, Any]], bool]:
    """Runs per second and latencies at each level; `one_door`: every request sent to the first server (the others
    get their runs from the store's queue)."""
    measured = []
    ok = True
    for count in levels:
        store = _database(admin_url, f"{'one_door' if one_door else 'throughput'}_{count}")
        servers = Servers(folder, store, count, max_runs, extra, {})
        try:
            servers.start_all()
            doors = servers.urls[:1] if one_door else servers.urls
            _loadgen(servers.urls, 10 * count, 10 * count)  # warm up: imports, connections, the graph read once
            load_before = _load_average()
            runs = runs_per_server * count
            cpu = CpuShare([process.pid for process in servers.processes if process is not None])
            answer = _loadgen(doors, runs, clients_per_server * count)
            spent = cpu.per_run(runs)
            load_after = _load_average()
        finally:
            servers.stop_all()
        right = sum(result == _expected(n) for n, result in enumerate(answer["results"]))
        ok = ok and right == runs
        measured.append({"servers": count, "runs": runs, "clients": clients_per_server * count, "right": right,
                         "runs_per_s": runs / answer["wall"], "p50_ms": _percentile(answer["latencies"], .5) * 1000,
                         "p99_ms": _percentile(answer["latencies"], .99) * 1000, "refused": answer["refused"],
                         "load_before": load_before, "load_after": load_after, "cpu": spent})
    return measured, ok


def _loadgen(urls: list[str], runs: int, clients: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.serve.loadgen", ",".join(urls), "/graphs/chain/runs?wait=true",
                           "--runs", str(runs), "--clients", str(clients)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the load generator failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----- faults and rolling restarts: the follower's load while servers die or restart -----


class Disturbed:
    """Three servers under the follower's load, and what is needed to count what a disturbance cost."""

    def __init__(self, admin_url: str, folder: Path, name: str, runs: int, clients: int, max_runs: int,
                 extra: list[str], machines: bool = False) -> None:
        self.store = _database(admin_url, name)
        self.calls_log = folder / f"{name}-calls.log"
        self.calls_log.unlink(missing_ok=True)
        self.said, self.errors = folder / f"{name}-follower.json", folder / f"{name}-follower.err"
        self.receiver = WebhookReceiver()
        self.servers = Servers(folder, self.store, 3, max_runs, [*extra, "--webhook-url", self.receiver.url],
                               {"GRAPHRT_SERVE_COUNT_LOG": str(self.calls_log)}, machines)
        self.runs, self.clients = runs, clients
        self.saved_then: list[tuple[set[tuple[str, str]], collections.Counter]] = []  # at each disturbance
        self.disturbed_at: list[float] = []
        self.follower: subprocess.Popen | None = None

    def start(self) -> None:
        self.servers.start_all()
        # Its report goes to files: a pipe read only at the end would fill up (the report of a few hundred runs
        # passes 64 KiB) and hold the follower, which the disturbances wait on, for ever.
        with open(self.said, "wb") as out, open(self.errors, "wb") as err:
            self.follower = subprocess.Popen(
                [sys.executable, "-m", "bench.serve.follower", ",".join(self.servers.urls), "--graph", "chain",
                 "--runs", str(self.runs), "--clients", str(self.clients)], stdout=out, stderr=err, cwd=ROOT)

    def calls(self) -> collections.Counter:
        if not self.calls_log.exists():
            return collections.Counter()
        return collections.Counter(tuple(line.split()) for line in self.calls_log.read_text().splitlines()
                                   if len(line.split()) == 2)

    def wait_for_progress(self, nodes: int) -> None:
        """Until `nodes` more nodes ran (the servers are busy), or the load ended."""
        target = sum(self.calls().values()) + nodes
        while sum(self.calls().values()) < target and self.follower.poll() is None:
            time.sleep(0.05)

    def note_saved(self) -> None:
        """The nodes the store holds as completed at this instant, and how often each had run."""
        saved = {(run_id, key) for run_id, key in _query(self.store, "SELECT run_id, key FROM graphrt_rows "
                                                                     "WHERE kind = 'node'")}
        self.saved_then.append((saved, self.calls()))
        self.disturbed_at.append(time.time())

    def finish(self) -> dict[str, Any]:
        self.follower.wait(timeout=900)
        if self.follower.returncode != 0:
            raise RuntimeError(f"the follower failed: {self.errors.read_text()[-2000:]}")
        load = json.loads(self.said.read_text().strip().splitlines()[-1])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len({call[0] for call in self.receiver.calls}) < self.runs:
            time.sleep(0.1)
        self.servers.stop_all()
        self.receiver.close()
        return self._count(load)

    def _count(self, load: dict[str, Any]) -> dict[str, Any]:
        runs = load["runs"]
        calls = self.calls()
        lost = sum(run["status"] != "finished" for run in runs)
        wrong = sum(run["status"] == "finished" and run["results"] != _expected(run["n"]) for run in runs)
        ran_again = sum(calls[key] > then[key] for saved, then in self.saved_then for key in saved)
        deliveries = collections.Counter((run_id, kind) for run_id, kind, _ in self.receiver.calls)
        delivery_ids: dict[tuple[str, str], set[str]] = collections.defaultdict(set)  # distinct deliveries called
        for run_id, kind, delivery_id in self.receiver.calls:
            delivery_ids[(run_id, kind)].add(delivery_id)
        stored_last = dict(_query(self.store, "SELECT run_id, MAX(id) FROM graphrt_events GROUP BY run_id"))
        repeated = sum(len(run["ids"]) - len(set(run["ids"])) for run in runs)
        missing = sum(max(stored_last.get(run["id"], 0), max(run["ids"], default=0)) - len(set(run["ids"]))
                      for run in runs if run["id"] is not None)
        waits = self._waits(runs)
        gaps = [max((later - earlier for earlier, later in zip([run["posted"], *run["times"]], run["times"])),
                    default=0.0) for run in runs]
        return {
            "runs": len(runs), "lost": lost, "wrong": wrong, "post_unanswered": load["post_unanswered"],
            "reads_again": sum(run["reads_again"] for run in runs),
            "nodes_saved_then_ran_again": ran_again,
            "nodes_run_twice": sum(count > 1 for count in calls.values()),
            "webhook_runs": len({run_id for run_id, _ in deliveries}),
            "duplicate_webhooks": sum(count - 1 for count in deliveries.values()),
            "deliveries_twice": sum(len(ids) - 1 for ids in delivery_ids.values()),
            "events_repeated": repeated, "events_missing": missing,
            "streams_without_end": sum(run["status"] is not None and not run.get("ends") for run in runs),
            "longest_gap_s": max(gaps, default=0.0),
            "waits": waits, "wall_s": load["ended"] - load["started"],
            "disturbed_at_s": [round(at - load["started"], 3) for at in self.disturbed_at],
        }

    def _waits(self, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Per disturbance: the runs under way then (posted before it, ended after it) and, for each, its longest
        time without an event from the disturbance on, among the gaps that began by a second after it (the
        stopped server may still send what it had sent before it died); those that waited over a second were the
        stopped server's, until claimed. A run's POST counts as its first event (it may be queued there)."""
        found = []
        for at in self.disturbed_at:
            gaps = []
            for run in runs:
                times = [run["posted"], *run["times"]]
                if times[0] > at or run["ended"] <= at:
                    continue
                spans = [later - max(earlier, at) for earlier, later in zip(times, times[1:])
                         if later > at and earlier <= at + _SETTLING]
                gaps.append(max(spans, default=run["ended"] - at))
            held = sorted(gap for gap in gaps if gap > 1.0)
            found.append({"under_way": len(gaps), "waited_over_1s": len(held),
                          "longest_wait_s": max(gaps, default=0.0),
                          "median_wait_of_those_s": statistics.median(held) if held else 0.0})
        return found


def faults(admin_url: str, folder: Path, kills: int, runs: int, clients: int, max_runs: int,
           extra: list[str], machines: bool = False) -> dict[str, Any]:
    disturbed = Disturbed(admin_url, folder, "faults-machines" if machines else "faults", runs, clients, max_runs,
                          extra, machines)
    load_before = _load_average()
    disturbed.start()
    try:
        for kill in range(kills):
            victim = kill % 3
            disturbed.wait_for_progress(3 * clients)
            disturbed.note_saved()
            disturbed.servers.kill(victim)
            disturbed.wait_for_progress(3 * clients)  # the others go on, and claim the victim's runs
            disturbed.servers.start(victim)
        counted = disturbed.finish()
    finally:
        disturbed.servers.stop_all()
    return {**counted, "kills": kills, "machines": machines, "load_before": load_before,
            "load_after": _load_average()}


def rolling(admin_url: str, folder: Path, runs: int, clients: int, max_runs: int,
            extra: list[str], how: str) -> dict[str, Any]:
    disturbed = Disturbed(admin_url, folder, "rolling", runs, clients, max_runs, extra)
    load_before = _load_average()
    disturbed.start()
    try:
        for index in range(3):
            disturbed.wait_for_progress(3 * clients)
            disturbed.note_saved()
            if how == "drain":
                disturbed.servers.drain(index)
            else:
                disturbed.servers.stop(index)
            disturbed.servers.start(index)
        counted = disturbed.finish()
    finally:
        disturbed.servers.stop_all()
    return {**counted, "how": how, "load_before": load_before, "load_after": _load_average()}


# ----- the report -----


def _throughput_lines(measured: list[dict[str, Any]], max_runs: int, one_door: bool = False,
                      one: dict[str, Any] | None = None) -> list[str]:
    one = one or next((row for row in measured if row["servers"] == 1), None)
    title = "every request to the first server (one door), the others fed by the store's queue" if one_door else \
        "requests spread round-robin"
    lines = [f"## throughput, {title}: chain of three 50 ms I/O nodes, --max-runs {max_runs} per server, "
             f"one PostgreSQL", "",
             "| servers | runs | clients | right | runs/s | × linear | p50 ms | p99 ms | p50 added | p99 added | "
             "machine CPU busy | CPU ms a run: servers / PostgreSQL / load generator | load |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for row in measured:
        linear = row["runs_per_s"] / (one["runs_per_s"] * row["servers"]) if one else float("nan")
        added = ((row["p50_ms"] - one["p50_ms"]), (row["p99_ms"] - one["p99_ms"])) if one else (0.0, 0.0)
        lines.append(f"| {row['servers']} | {row['runs']} | {row['clients']} | {row['right']} | "
                     f"{row['runs_per_s']:.1f} | {linear:.2f} | {row['p50_ms']:.0f} | {row['p99_ms']:.0f} | "
                     f"{added[0]:+.0f} | {added[1]:+.0f} | {row['cpu']['machine_busy']:.0%} | "
                     f"{row['cpu']['servers_ms']:.1f} / {row['cpu']['postgres_ms']:.1f} / {row['cpu']['loadgen_ms']:.1f} | "
                     f"{row['load_before']} → {row['load_after']} |")
    return lines


def _disturbed_lines(title: str, counted: dict[str, Any]) -> list[str]:
    waits = counted["waits"]
    longest = max((wait["longest_wait_s"] for wait in waits), default=0.0)
    held = [wait["median_wait_of_those_s"] for wait in waits if wait["waited_over_1s"]]
    return [
        f"## {title}", "",
        f"- {counted['runs']} runs in {counted['wall_s']:.1f} s, load {counted['load_before']} → "
        f"{counted['load_after']}",
        f"- runs lost: {counted['lost']}; wrong results: {counted['wrong']}; POSTs unanswered (retried on another "
        f"server): {counted['post_unanswered']}; event streams read again on another server: {counted['reads_again']}",
        f"- completed (saved) nodes that ran again: {counted['nodes_saved_then_ran_again']}; nodes run twice in all "
        f"(in flight when their server stopped, so not saved): {counted['nodes_run_twice']}",
        f"- webhooks: {counted['webhook_runs']} runs called; calls of one run's event beyond its first: "
        f"{counted['duplicate_webhooks']}, of them deliveries made twice: {counted['deliveries_twice']} "
        f"(the others: one delivery called again, its server killed before it saved the outcome)",
        f"- event ids repeated: {counted['events_repeated']}; missing: {counted['events_missing']}; streams that "
        f"ended without the run's status: {counted['streams_without_end']}; the longest time any run went without "
        f"an event (disturbed or not): {counted['longest_gap_s']:.1f} s",
        f"- each disturbance: runs under way / of them waiting over 1 s for a claim (median wait): "
        + "; ".join(f"{wait['under_way']} / {wait['waited_over_1s']} ({wait['median_wait_of_those_s']:.1f} s)"
                    for wait in waits) + f"; longest wait {longest:.1f} s"
        + (f"; median of medians {statistics.median(held):.1f} s" if held else ""),
    ]


def _levels(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench multiserve", description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=_levels, default=[1, 2, 4], help="numbers of servers (default 1,2,4)")
    parser.add_argument("--max-runs", type=int, default=10, help="each server's --max-runs (default 10)")
    parser.add_argument("--runs-per-server", type=int, default=300)
    parser.add_argument("--clients-per-server", type=int, default=20)
    parser.add_argument("--ms", type=int, default=50, help="each node's I/O wait (default 50)")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--fault-runs", type=int, default=600)
    parser.add_argument("--fault-clients", type=int, default=30)
    parser.add_argument("--lease-seconds", type=float, default=5.0,
                        help="the servers' --lease-seconds: how long a killed server's runs wait (default 5)")
    parser.add_argument("--rolling-stop", choices=("drain", "term"), default="drain",
                        help="how the rolling restart stops each server (default drain: graphrt serve --drain)")
    parser.add_argument("--machines", action="store_true",
                        help="faults: each server under a host name of its own (unshare --uts), as on machines of "
                             "their own: a killed server's runs wait for its lease, not for its pid to be found gone")
    parser.add_argument("--only", choices=("throughput", "one-door", "faults", "rolling"), action="append")
    args = parser.parse_args(argv)
    if not (_pg_bin("initdb") and _pg_bin("pg_ctl")):
        print("bench multiserve: needs PostgreSQL's initdb and pg_ctl", file=sys.stderr)
        return 2
    only = set(args.only or ("throughput", "one-door", "faults", "rolling"))
    extra = ["--lease-seconds", f"{args.lease_seconds:g}"]
    postgres = _Postgres()
    admin_url = postgres.start()
    folder = Path(tempfile.mkdtemp(prefix="bench-multiserve-"))
    (folder / "chain.yaml").write_text(_chain(args.ms), encoding="utf-8")
    report: dict[str, Any] = {"machine": describe()}
    lines = [f"# graphrt serve: several servers on one PostgreSQL store ({report['machine']['machine']}, "
             f"load at start {report['machine']['load average at start']})", ""]
    ok = True
    try:
        if "throughput" in only:
            measured, right = throughput(admin_url, folder, args.levels, args.runs_per_server,
                                         args.clients_per_server, args.max_runs, extra)
            report["throughput"], ok = measured, ok and right
            lines += [*_throughput_lines(measured, args.max_runs), ""]
        if "one-door" in only:
            spread = next((row for row in report.get("throughput", []) if row["servers"] == 1), None)
            measured, right = throughput(admin_url, folder, args.levels, args.runs_per_server,
                                         args.clients_per_server, args.max_runs, extra, one_door=True)
            report["one_door"], ok = measured, ok and right
            lines += [*_throughput_lines(measured, args.max_runs, one_door=True, one=spread), ""]
        if "faults" in only:
            counted = faults(admin_url, folder, args.kills, args.fault_runs, args.fault_clients, args.max_runs, extra,
                             args.machines)
            report["faults"] = counted
            ok = ok and counted["lost"] == 0 and counted["wrong"] == 0
            lines += [*_disturbed_lines(f"faults: kill -9 one server of three, {args.kills} times, under load "
                                        f"(--lease-seconds {args.lease_seconds:g}"
                                        f"{', each server as on a machine of its own' if args.machines else ''})",
                                        counted), ""]
        if "rolling" in only:
            counted = rolling(admin_url, folder, args.fault_runs, args.fault_clients, args.max_runs, extra,
                              args.rolling_stop)
            report["rolling"] = counted
            ok = ok and counted["lost"] == 0 and counted["wrong"] == 0
            stopped = "drained (graphrt serve --drain)" if args.rolling_stop == "drain" else "stopped (SIGTERM)"
            lines += [*_disturbed_lines(f"rolling restart: each of three servers {stopped} and started again "
                                        "in turn, under load", counted), ""]
    finally:
        postgres.stop()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "multiserve_latest.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print("\n".join(lines))
    print(f"(server logs in {folder})", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
