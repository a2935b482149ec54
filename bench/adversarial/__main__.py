"""`python -m bench.adversarial [SURFACE ...] [--every N] [--deadline S] [--workers N]`: the campaign (see __init__)."""

from __future__ import annotations

import argparse
import collections
import json
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from . import cases as case_lists
from .mcp import env_cases, run_stdio
from .mcp_http import run_mcp_http
from .serve import run_serve

RESULTS = Path(__file__).resolve().parents[1] / "results"
COLUMNS = ["cases", "results", "clean", "tracebacks", "hangs", "wrong", "leaks", "breaches", "lost"]


def _agents() -> dict[str, dict[str, Any]]:
    from graphrt.authoring.plugins import default_registry

    agents = {}
    for info in default_registry():
        if info.name == "openAIAgent" or info.name.startswith(("anthropic", "gemini", "groq")):
            pass  # fed anyway: their servers are the campaign's (OpenAI) or unreachable (the others: fast errors)
        agents[info.name] = {"inputs": list(((info.inputs or {}).get("properties") or {}))[:4],
                             "params": list(((info.params or {}).get("properties") or {}))}
    return agents


def all_cases(surfaces: list[str]) -> Iterator[dict[str, Any]]:
    for surface in surfaces:
        if surface == "agents":
            yield from case_lists.agent_cases(_agents())
        elif surface == "mcp":
            yield from env_cases()
        elif surface in ("serve", "mcp-http"):
            pass  # real server processes, attacked from this process: see serve.py and mcp_http.py
        else:
            yield from case_lists.SURFACES[surface]()


class Worker:
    """One `python -m bench.adversarial.worker`, cases on a pipe of its own (its stdin is /dev/null)."""

    def __init__(self) -> None:
        read, self._write = os.pipe()
        paths = [os.environ.get("PYTHONPATH", ""), str(Path(__file__).resolve().parents[2])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in paths if path)}
        self.process = subprocess.Popen([sys.executable, "-m", "bench.adversarial.worker", str(read)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, pass_fds=(read,), env=env)
        os.close(read)
        self.case: dict[str, Any] | None = None
        self.started = 0.0
        self.buffer = b""

    def give(self, case: dict[str, Any]) -> None:
        self.case, self.started, self.cpu_started = case, time.monotonic(), self.cpu()
        os.write(self._write, (json.dumps(case) + "\n").encode())

    def cpu(self) -> float:
        """Seconds of CPU the worker has used: on a loaded machine a slow case is not a hung one."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def hung(self, deadline: float) -> str | None:
        """Why the case counts as a hang: `deadline` seconds of CPU, or six times that of waiting."""
        if self.cpu() - self.cpu_started > deadline:
            return f"more than {deadline:g} s of CPU"
        if time.monotonic() - self.started > 6 * deadline:
            return f"no answer in {6 * deadline:g} s"
        return None

    def close(self) -> None:
        os.close(self._write)
        self.process.kill()
        self.process.wait()


class Pool:
    """Workers taking cases from one queue; a hung or dead worker is replaced by a fresh one."""

    def __init__(self, cases: list[dict[str, Any]], workers: int, deadline: float, log: Any) -> None:
        self.queue = collections.deque(cases)
        self.deadline, self.log = deadline, log
        self.outcomes: list[dict[str, Any]] = []
        self.selector = selectors.DefaultSelector()
        self.workers: list[Worker] = []
        for _ in range(workers):
            self._start()

    def _start(self) -> None:
        worker = Worker()
        self.selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
        self.workers.append(worker)
        if self.queue:
            worker.give(self.queue.popleft())

    def _replace(self, worker: Worker) -> None:
        self.selector.unregister(worker.process.stdout)
        self.workers.remove(worker)
        worker.close()
        self._start()

    def _ended(self, worker: Worker, outcome: dict[str, Any]) -> None:
        outcome["surface"] = worker.case["surface"]
        outcome["seconds"] = round(time.monotonic() - worker.started, 2)
        self.outcomes.append(outcome)
        self.log(len(self.outcomes), outcome)
        worker.case = None

    def run(self) -> list[dict[str, Any]]:
        try:
            while any(worker.case for worker in self.workers):
                for key, _ in self.selector.select(timeout=0.5):
                    self._read(key.data)
                for worker in list(self.workers):
                    why = worker.hung(self.deadline) if worker.case else None
                    if why:
                        self._ended(worker, {"id": worker.case["id"], "end": "hang", "detail": why})
                        self._replace(worker)
        finally:  # interrupted too: no worker is left behind
            for worker in self.workers:
                worker.close()
        return self.outcomes

    def _read(self, worker: Worker) -> None:
        chunk = os.read(worker.process.stdout.fileno(), 1 << 20)
        if not chunk:  # the worker died: the case ended it
            self._ended(worker, {"id": worker.case["id"], "end": "traceback", "detail": "the worker process died"})
            self._replace(worker)
            return
        worker.buffer += chunk
        while b"\n" in worker.buffer:
            line, worker.buffer = worker.buffer.split(b"\n", 1)
            self._ended(worker, json.loads(line))
            if self.queue:
                worker.give(self.queue.popleft())


def tally(outcomes: list[dict[str, Any]]) -> dict[str, collections.Counter]:
    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    names = {"result": "results", "clean": "clean", "traceback": "tracebacks", "hang": "hangs", "wrong": "wrong",
             "campaign-error": "campaign errors"}
    for outcome in outcomes:
        for row in (outcome["surface"], "all"):
            table[row]["cases"] += 1
            table[row][names[outcome["end"]]] += 1
            table[row]["leaks"] += bool(outcome.get("leak"))
            table[row]["breaches"] += bool(outcome.get("breach"))
            table[row]["lost"] += bool(outcome.get("lost"))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.adversarial", description=__doc__)
    surfaces = [*case_lists.SURFACES, "mcp", "serve", "mcp-http"]
    parser.add_argument("surfaces", nargs="*", help=f"default: all ({', '.join(dict.fromkeys(surfaces))})")
    parser.add_argument("--every", type=int, default=1, help="try one case in N")
    parser.add_argument("--deadline", type=float, default=10.0,
                        help="seconds of CPU a case may use (or six times that waiting) before it is a hang")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ids", type=Path, help="only the cases of an earlier run's not_clean list (its JSON file)")
    parser.add_argument("--out", type=Path, default=RESULTS / "adversarial.json")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case that is not clean as it ends")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stops the workers on the way out
    chosen = args.surfaces or list(dict.fromkeys(surfaces))
    started = time.monotonic()
    cases = [case for number, case in enumerate(all_cases(chosen)) if number % args.every == 0]
    wanted = {o["id"] for o in json.loads(args.ids.read_text())["not_clean"]} if args.ids else None
    if wanted is not None:
        cases = [case for case in cases if case["id"] in wanted]
    servers = " (and the cases of the HTTP servers)" if {"serve", "mcp-http"} & set(chosen) else ""
    print(f"{len(cases)} cases on {', '.join(chosen)}{servers}; deadline {args.deadline:g} s, {args.workers} workers",
          file=sys.stderr)

    def log(count: int, outcome: dict[str, Any]) -> None:
        bad = outcome["end"] not in ("result", "clean") or outcome.get("leak") or outcome.get("breach") or outcome.get("lost")
        if args.verbose and bad:
            print(f"  {outcome['end']:10} {outcome['id']}: {str(outcome.get('detail', ''))[:160]!r}", file=sys.stderr)
        if count % 200 == 0:
            print(f"  {count} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)

    outcomes = Pool(cases, args.workers, args.deadline, log).run()
    if "mcp" in chosen:
        for outcome in run_stdio(args.deadline, args.every, wanted):
            outcome["surface"] = "mcp"
            outcomes.append(outcome)
            log(len(outcomes), outcome)
    for surface, run in (("serve", run_serve), ("mcp-http", run_mcp_http)):
        if surface in chosen:
            def logged(outcome: dict[str, Any], surface: str = surface) -> None:
                outcome["surface"] = surface
                outcomes.append(outcome)
                log(len(outcomes), outcome)

            run(args.deadline, args.every, wanted, logged)
    table = tally(outcomes)
    rows = [surface for surface in chosen if surface in table] + ["all"]
    print(f"{'surface':12}" + "".join(f"{column:>11}" for column in COLUMNS))
    for row in rows:
        print(f"{row:12}" + "".join(f"{table[row][column]:>11}" for column in COLUMNS))
    if table["all"]["campaign errors"]:
        print(f"(and {table['all']['campaign errors']} cases the campaign itself could not run: see {args.out})")
    print(f"{time.monotonic() - started:.0f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    bad = [o for o in outcomes if o["end"] not in ("result", "clean") or o.get("leak") or o.get("breach") or o.get("lost")]
    args.out.write_text(json.dumps({"table": {row: dict(table[row]) for row in rows}, "not_clean": bad}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
