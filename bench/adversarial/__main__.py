"""`python -m bench.adversarial [SURFACE ...] [--every N] [--deadline S] [--workers N]`: the campaign (see __init__)."""

from __future__ import annotations

import argparse
import collections
import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from . import cases as case_lists
from .mcp import env_cases, run_stdio

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
        self.case, self.started = case, time.monotonic()
        os.write(self._write, (json.dumps(case) + "\n").encode())

    def close(self) -> None:
        os.close(self._write)
        self.process.kill()
        self.process.wait()


def run_cases(cases: list[dict[str, Any]], *, workers: int, deadline: float, log: Any) -> list[dict[str, Any]]:
    queue = collections.deque(cases)
    outcomes: list[dict[str, Any]] = []
    selector = selectors.DefaultSelector()
    pool: list[Worker] = []

    def start() -> Worker:
        worker = Worker()
        selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
        pool.append(worker)
        return worker

    def stop(worker: Worker) -> None:
        selector.unregister(worker.process.stdout)
        pool.remove(worker)
        worker.close()

    for _ in range(workers):
        start()
    for worker in pool:
        if queue:
            worker.give(queue.popleft())
    # The first case of a worker also imports graphrt and its agents: its clock starts once the worker is up.
    while any(worker.case for worker in pool):
        for key, _ in selector.select(timeout=0.5):
            worker = key.data
            chunk = os.read(worker.process.stdout.fileno(), 1 << 20)
            worker.buffer += chunk
            if not chunk:  # the worker died: the case ended it
                outcome = {"id": worker.case["id"], "end": "traceback", "detail": "the worker process died"}
                outcome["surface"] = worker.case["surface"]
                outcomes.append(outcome)
                stop(worker)
                fresh = start()
                if queue:
                    fresh.give(queue.popleft())
                continue
            while b"\n" in worker.buffer:
                line, worker.buffer = worker.buffer.split(b"\n", 1)
                outcome = json.loads(line)
                outcome["surface"] = worker.case["surface"]
                outcome["seconds"] = round(time.monotonic() - worker.started, 2)
                outcomes.append(outcome)
                log(len(outcomes), outcome)
                worker.case = None
                if queue:
                    worker.give(queue.popleft())
        now = time.monotonic()
        for worker in list(pool):
            if worker.case and now - worker.started > deadline:
                outcome = {"id": worker.case["id"], "surface": worker.case["surface"], "end": "hang",
                           "detail": f"no answer in {deadline} s"}
                outcomes.append(outcome)
                log(len(outcomes), outcome)
                stop(worker)
                fresh = start()
                if queue:
                    fresh.give(queue.popleft())
    for worker in list(pool):
        stop(worker)
    return outcomes


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
    surfaces = [*case_lists.SURFACES, "mcp"]
    parser.add_argument("surfaces", nargs="*", help=f"default: all ({', '.join(dict.fromkeys(surfaces))})")
    parser.add_argument("--every", type=int, default=1, help="try one case in N")
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds a case may take before it is a hang")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS / "adversarial.json")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every case that is not clean as it ends")
    args = parser.parse_args(argv)
    chosen = args.surfaces or list(dict.fromkeys(surfaces))
    started = time.monotonic()
    cases = [case for number, case in enumerate(all_cases(chosen)) if number % args.every == 0]
    print(f"{len(cases)} cases on {', '.join(chosen)}; deadline {args.deadline:g} s, {args.workers} workers",
          file=sys.stderr)

    def log(count: int, outcome: dict[str, Any]) -> None:
        bad = outcome["end"] not in ("result", "clean") or outcome.get("leak") or outcome.get("breach") or outcome.get("lost")
        if args.verbose and bad:
            print(f"  {outcome['end']:10} {outcome['id']}: {str(outcome.get('detail', ''))[:160]!r}", file=sys.stderr)
        if count % 200 == 0:
            print(f"  {count}/{len(cases)} cases, {time.monotonic() - started:.0f} s", file=sys.stderr)

    outcomes = run_cases(cases, workers=args.workers, deadline=args.deadline, log=log)
    if "mcp" in chosen:
        for outcome in run_stdio(args.deadline, args.every):
            outcome["surface"] = "mcp"
            outcomes.append(outcome)
            log(len(outcomes), outcome)
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
