#!/usr/bin/env python3
"""GraphAI's own graphs (../shared/conformance/graphai-own) for CI: in parallel, with graphrt's documented deviations.

    .venv/bin/python .ci/graphai_own.py [--jobs N] [--suite DIR] [-k SUBSTRING] [-v]

The suite's own runner (run.py, read-only here) checks one case at a time. This script splits the
cases into N shards, runs run.py on each shard at once, and reads their JSON reports. Then:

- a MISMATCH listed in DEVIATIONS passes if graphrt's result equals GraphAI's once the deviation's
  normalizer has been applied to both (each deviation is also in docs/explanation/compatibility.md);
- a case GraphAI never finished ("graphai-hang") must end cleanly on graphrt: a result or a
  GraphError. Runs here are bounded by GRAPHRT_RUN_TIMEOUT, so an endless loop ends with a
  RunTimeoutError instead of being killed by the runner.

Last line: "graphai-own: N match, D deviation, M mismatch, H graphai-hang (C ended cleanly)".
Exit 1 if any mismatch or any graphai-hang case that did not end cleanly.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SUITE = ROOT.parent / "shared" / "conformance" / "graphai-own"
RUN_TIMEOUT_S = "10"  # well below run.py's 20 s per case (which counts process start too): graphrt stops itself first

ON_ERROR_MESSAGE = "<onError.message>"
ON_ERROR_ERROR = "<onError.error>"


def on_error_as_graphrt_words_it(value: Any) -> Any:
    """`{onError: {message, error}}` with the message text and the error object left out of the comparison.

    GraphAI's message is its validator's text in terminal colour codes, and its `error` is a JS Error
    object, which JSON shows as `{}`. graphrt gives its own message (the one its errors carry) and
    `error: {name, message}`. The shape, and every other value, must still be GraphAI's; a string
    equal to the message (e.g. copied on by another node) is replaced too.
    """
    messages: set[str] = set()

    def collect(v: Any) -> None:
        if isinstance(v, dict):
            on_error = v.get("onError")
            if isinstance(on_error, dict) and isinstance(on_error.get("message"), str):
                messages.add(on_error["message"])
            for item in v.values():
                collect(item)
        elif isinstance(v, list):
            for item in v:
                collect(item)

    def replace(v: Any) -> Any:
        if isinstance(v, dict):
            on_error = v.get("onError")
            out = {k: replace(item) for k, item in v.items()}
            if isinstance(on_error, dict) and isinstance(on_error.get("error"), dict):
                out["onError"] = {**out["onError"], "error": ON_ERROR_ERROR}
            return out
        if isinstance(v, list):
            return [replace(item) for item in v]
        return ON_ERROR_MESSAGE if isinstance(v, str) and v in messages else v

    collect(value)
    return replace(value)


# case (path below cases/, without .json) -> (why, normalizer applied to GraphAI's and graphrt's result)
DEVIATIONS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    f"other-tests/agents_tests_graphai_test_nest__0{n}": (
        "supressError's onError: graphrt's own message, error as {name, message}", on_error_as_graphrt_words_it)
    for n in (2, 3, 4)
}


def load_runner(suite: Path) -> Any:
    """run.py as a module, for its comparison (`diff`), so that a deviation is judged by the suite's own rules."""
    spec = importlib.util.spec_from_file_location("graphai_own_run", suite / "run.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def run_shards(suite: Path, files: list[Path], jobs: int) -> list[dict[str, Any]]:
    """Runs run.py on `jobs` shards of the case files at once; returns every case's report entry."""
    env = {**os.environ, "GRAPHRT_RUN_TIMEOUT": os.environ.get("GRAPHRT_RUN_TIMEOUT", RUN_TIMEOUT_S)}
    report: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        processes = []
        for index in range(jobs):
            shard = files[index::jobs]
            if not shard:
                continue
            out = Path(tmp) / f"shard{index}.json"
            command = [sys.executable, str(suite / "run.py"), "--root", str(ROOT), "--json", str(out), *map(str, shard)]
            processes.append((subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL), out))
        for process, out in processes:
            process.communicate()
            if not out.exists():
                raise SystemExit(f"graphai-own: a shard of run.py wrote no report (exit {process.returncode})")
            report.extend(json.loads(out.read_text(encoding="utf-8")))
    return sorted(report, key=lambda entry: entry["case"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE)
    parser.add_argument("--jobs", type=int, default=max(2, 2 * (os.cpu_count() or 1)),
                        help="run.py processes at once (the cases mostly wait: sleeps, process start)")
    parser.add_argument("-k", dest="substring", default="", help="only the cases whose path contains SUBSTRING")
    parser.add_argument("-v", dest="verbose", action="store_true", help="list every case")
    args = parser.parse_args()
    if not (args.suite / "run.py").exists():
        print(f"graphai-own: skipped ({args.suite} not present)")
        return 0
    args.suite = args.suite.resolve()  # run.py names a case by its path below its own (resolved) folder
    runner = load_runner(args.suite)
    files = [f for f in sorted((args.suite / "cases").rglob("*.json")) if args.substring in str(f.relative_to(args.suite))]
    counts = {"match": 0, "deviation": 0, "MISMATCH": 0, "graphai-hang": 0, "clean": 0}
    for entry in run_shards(args.suite, files, args.jobs):
        name = entry["case"].removeprefix("cases/").removesuffix(".json")
        verdict, why = entry["verdict"], entry["why"] or ""
        (kind, payload), = entry["graphrt"].items()
        if verdict == "MISMATCH" and name in DEVIATIONS and kind == "result" and "result" in entry["graphai"]:
            reason, normalize = DEVIATIONS[name]
            if runner.diff(normalize(entry["graphai"]["result"]), normalize(payload)) is None:
                verdict, why = "deviation", reason
        if verdict == "graphai-hang":
            clean = kind in ("result", "error")
            counts["clean"] += clean
            why = f"{'ended cleanly' if clean else 'DID NOT END CLEANLY'}: {why}"
        counts[verdict if verdict in counts else "MISMATCH"] += 1
        if verdict != "match" or args.verbose:
            print(f"{verdict:12} {name}: {why}")
    print(f"graphai-own: {counts['match']} match, {counts['deviation']} deviation, {counts['MISMATCH']} mismatch, "
          f"{counts['graphai-hang']} graphai-hang ({counts['clean']} ended cleanly)")
    return 1 if counts["MISMATCH"] or counts["clean"] < counts["graphai-hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
