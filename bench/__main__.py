"""`python -m bench`: every workload on graphrt, GraphAI and LangGraph, then the tables.

    .venv/bin/python -m bench                      # everything (installs GraphAI into bench/.node if needed)
    .venv/bin/python -m bench chain fan_out        # some workloads
    .venv/bin/python -m bench --engines graphrt,graphai --quick
    .venv/bin/python -m bench --profile chain      # graphrt under pyinstrument
    .venv/bin/python -m bench --write-workloads    # regenerate bench/workloads/*.yaml
    .venv/bin/python -m bench startup              # whole-command start times (bench/startup.py)
    .venv/bin/python -m bench durable              # checkpointed runs against plain ones (bench/durable.py)
    .venv/bin/python -m bench durable_chain        # a checkpointed run's fixed cost, 3 × 20 ms nodes (bench/durable_chain.py)
    .venv/bin/python -m bench journal              # the journal's cost, kill -9 exactly-once, replay (bench/journal.py)
    .venv/bin/python -m bench ray_batch            # a batch on a real 1-, 2-, 4-node Ray cluster (bench/ray_batch.py)
    .venv/bin/python -m bench multiserve           # several graphrt serve on one PostgreSQL store (bench/serve/multi.py)
    .venv/bin/python -m bench storage              # bytes a served run keeps in SQLite and PostgreSQL (bench/storage.py)
    .venv/bin/python -m bench ray_graphs           # small graphs on node-level Ray, runs_local or not (bench/ray_graphs.py)
    .venv/bin/python -m bench yaml                 # YAML parsing beside js-yaml, in every style (bench/yaml_styles.py)
    .venv/bin/python -m bench report               # the JSON in bench/results/ as charts for the docs (bench/charts.py)

Raw numbers go to bench/results/latest.json and the tables, as Markdown, to
bench/results/latest.md (both git-ignored); BENCHMARKS.md keeps a reviewed copy.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from . import graphai
from .driver import ENGINES, Measurement, Settings, run_workload
from .machine import describe
from .report import Report
from .workloads import WORKLOADS, get, write_workload

RESULTS = Path(__file__).resolve().parent / "results"
QUICK_MAX_N = 10_000


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*", help=f"default: all ({', '.join(w.name for w in WORKLOADS)})")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated: graphrt,graphai,langgraph")
    parser.add_argument("--rounds", type=int, help="runner processes per engine, engines taking turns (default: per workload)")
    parser.add_argument("--repeat", type=int, help="timed repetitions in each process (default: per workload)")
    parser.add_argument("--warmup", type=int, help="untimed repetitions first (default: per workload)")
    parser.add_argument("--command-repeat", type=int, help="whole-command runs (default: per workload; 0 = none)")
    parser.add_argument("--no-floor", action="store_true",
                        help="skip each workload's plain Python loop (bench/floor.py), run beside the engines by default")
    parser.add_argument("--quick", action="store_true",
                        help="one round of warmup 2 + repeat 3, one whole-command run, sizes capped at 10,000")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--report", metavar="JSON", type=Path,
                        help="print the tables of an earlier run (bench/results/latest.json) and exit")
    parser.add_argument("--profile", metavar="WORKLOAD", help="profile graphrt on one workload and exit")
    parser.add_argument("--profiler", choices=("pyinstrument", "cprofile"), default="pyinstrument")
    parser.add_argument("--n", type=int, help="workload size for --profile (default: the workload's)")
    parser.add_argument("--top", type=int, default=30, help="cProfile: functions to list")
    parser.add_argument("--write-workloads", action="store_true", help="regenerate bench/workloads/*.yaml and exit")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:  # the JSON of the benchmarks as charts (bench/charts.py)
        from .charts import main as report

        return report(argv[1:])
    if argv[:1] == ["ray_batch"]:  # its own options (--rows, ...): bench/ray_batch.py
        from .ray_batch import main as ray_batch

        return ray_batch(argv[1:])
    if argv[:1] == ["storage"]:  # its own options (bench/storage.py)
        from .storage import main as storage

        return storage(argv[1:])
    if argv[:1] == ["ray_graphs"]:  # its own options (bench/ray_graphs.py)
        from .ray_graphs import main as ray_graphs

        return ray_graphs(argv[1:])
    if argv[:1] == ["journal"]:  # its own options (bench/journal.py)
        from .journal import main as journal

        return journal(argv[1:])
    if argv[:1] == ["multiserve"]:  # its own options (bench/serve/multi.py)
        from .serve.multi import main as multiserve

        return multiserve(argv[1:])
    if argv[:1] == ["yaml"]:  # its own options (bench/yaml_styles.py)
        from .yaml_styles import main as yaml_styles

        return yaml_styles(argv[1:])
    if argv[:1] == ["startup"]:  # its own options (bench/startup.py)
        from .startup import main as startup

        return startup(argv[1:])
    if argv[:1] == ["durable"]:  # its own options (bench/durable.py)
        from .durable import main as durable

        return durable(argv[1:])
    if argv[:1] == ["durable_chain"]:  # its own options (bench/durable_chain.py)
        from .durable_chain import main as durable_chain

        return durable_chain(argv[1:])
    args = _parse(argv)
    if args.write_workloads:
        for workload in WORKLOADS:
            if workload.kept_in_git:
                print(write_workload(workload))
        return 0
    if args.report:
        return _print_report(args.report, args.markdown)
    if args.profile:
        from .profile import profile

        print(profile(args.profile, args.profiler, args.n, args.top))
        return 0
    engines = tuple(engine.strip() for engine in args.engines.split(",") if engine.strip())
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"bench: unknown engine(s) {', '.join(sorted(unknown))} (known: {', '.join(ENGINES)})")
    if "graphai" in engines:
        missing = graphai.available()
        if missing:
            print(f"bench: skipping GraphAI: {missing}", file=sys.stderr)
            engines = tuple(e for e in engines if e != "graphai")
        else:
            graphai.ensure_installed()
    if "langgraph" in engines and not _has_langgraph():
        print("bench: skipping LangGraph: not installed (pip install -e '.[bench]')", file=sys.stderr)
        engines = tuple(e for e in engines if e != "langgraph")
    settings = Settings(engines=engines, rounds=args.rounds, repeat=args.repeat, warmup=args.warmup,
                        command_repeat=args.command_repeat, floor=not args.no_floor)
    if args.quick:
        settings.rounds = 1 if settings.rounds is None else settings.rounds
        settings.repeat = 3 if settings.repeat is None else settings.repeat
        settings.warmup = 2 if settings.warmup is None else settings.warmup
        settings.command_repeat = 1 if settings.command_repeat is None else settings.command_repeat
    workloads = [get(name) for name in args.workloads] or WORKLOADS
    machine = describe()
    print("\n".join(f"{key}: {value}" for key, value in machine.items()), flush=True)
    started = time.perf_counter()
    measurements = []
    for workload in workloads:
        sizes = {*workload.extra_sizes, workload.n}
        for n in sorted({min(size, QUICK_MAX_N) for size in sizes} if args.quick else sizes):
            measurements += run_workload(workload, n, settings)
    elapsed = time.perf_counter() - started
    report = Report(measurements, engines)
    print()
    print(report.markdown() if args.markdown else report.text())
    print(f"\nbench: {len(measurements)} measurements in {elapsed:.0f} s")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(
        {"machine": machine, "measurements": [dataclasses.asdict(m) for m in measurements]}, indent=1) + "\n")
    (RESULTS / "latest.md").write_text(
        "\n".join(f"- {key}: {value}" for key, value in machine.items()) + "\n\n" + report.markdown() + "\n")
    return 1 if any(m.error for m in measurements) else 0


def _print_report(path: Path, markdown: bool) -> int:
    saved = json.loads(path.read_text(encoding="utf-8"))
    measurements = [Measurement(**fields) for fields in saved["measurements"]]
    engines = tuple(engine for engine in ENGINES if any(m.engine == engine for m in measurements))
    report = Report(measurements, engines)
    print("\n".join(f"{key}: {value}" for key, value in saved["machine"].items()) + "\n")
    print(report.markdown() if markdown else report.text())
    return 0


def _has_langgraph() -> bool:
    try:
        import langgraph  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
