"""YAML parsing beside js-yaml, one graph written in each style graph files use: `python -m bench yaml`.

    .venv/bin/python -m bench yaml                 # 50,000 nodes, 3 rounds, each style
    .venv/bin/python -m bench yaml --n 10000 --rounds 5 flow_single block_plain
    .venv/bin/python -m bench yaml --set eval      # graph files the reader was not tuned on (bench/yaml_eval.py)
    .venv/bin/python -m bench yaml --set eval2     # hand-written shapes it left whole (bench/yaml_eval2.py)
    .venv/bin/python -m bench yaml --set eval3     # files as people and tools write them (bench/yaml_eval3.py)
    .venv/bin/python -m bench yaml --set eval4     # more shapes of hand-written and saved files (bench/yaml_eval4.py)
    .venv/bin/python -m bench yaml --set eval5     # GraphAI samples, dumpers' files, scripts (bench/yaml_eval5.py)

Every style is the same graph, a chain of `copyAgent` nodes (`nN` takes `:nN-1`): one JSON object a
line (what `--write-workloads` writes), YAML's flow style with single, double or no quotes, block style
plain or quoted, double-quoted strings with escapes, literal block scalars (a prompt's lines), and
anchors with aliases. Each round times graphrt's `parse_graph_text` in one fresh process and js-yaml's
`load` in one node process (warmups, then the median of the repeats), engines taking turns; the ratios are
graphrt's median over js-yaml's in the same round, of wall time and of the process's CPU time (which other
work on a shared machine disturbs less), and the table gives their range over the rounds, with the load
average and the CPU. "read by" says which of graphrt's readers
took the file: its own (`quick`, graphdata/quick_yaml.py), its own with the entries it does not know read by
PyYAML (`pieces`), or PyYAML (`full`).

These nine styles are the files the quick reader was made fast on; `--set eval` times the evaluation set
of bench/yaml_eval.py instead, files it was not tuned on, `--set eval2` the second one (bench/yaml_eval2.py):
folded and literal block scalars, flow collections and scalars over several lines, comments inside them, and
`--set eval3` the third (bench/yaml_eval3.py), written before it was measured: Windows line endings, chat
message lists, four-space indentation, pretty-printed JSON, numbers, markdown prompts, tool schemas, tabs in
text, merge keys; and `--set eval4` the fourth (bench/yaml_eval4.py), also written before it was measured:
sequences flush with their keys, end-of-line comments, punctuation in plain text, quoted and odd keys, nested
graphs in block and flow, anchored scalars and sequences, empty values and quoted look-alikes, document markers
and trailing spaces, long double-quoted prompts, scalars over lines inside flow collections; and `--set eval5` the
fifth (bench/yaml_eval5.py), also written before it was measured: GraphAI's sample graphs at scale, function-calling
graphs, graphs saved by PyYAML (block and flow styles) and by js-yaml's dump, three-space and mixed indentation,
names and text in scripts other than Latin, vectors of numbers, settings nested five to eight deep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from ._proc import RESULT_PREFIX, emit

__all__ = ["SETS", "STYLES", "main", "seeded_chain", "write_style"]

BENCH_DIR = Path(__file__).resolve().parent
RUNNER = BENCH_DIR / "yaml_runner.cjs"


def seeded_chain(seed: int, start: list[str],
                 node: Callable[[int, random.Random], list[str]]) -> Callable[[int], list[str]]:
    """A chain of `n` nodes, the same for the same `seed` (the evaluation sets' files): `start` (the lines before
    node 1), then `node(i, rng)`'s lines for each node after."""
    def lines(n: int) -> list[str]:
        rng = random.Random(seed)
        found = list(start)
        for i in range(1, n):
            found += node(i, rng)
        return found
    return lines


def _header() -> list[str]:
    return ["version: 0.5", "nodes:"]


def _json_lines(n: int) -> list[str]:
    return _header() + ['  n0: {"value": 0}'] + [
        f'  n{i}: {{"agent": "copyAgent", "params": {{"namedKey": "v"}}, "inputs": {{"v": ":n{i - 1}"}}}}'
        for i in range(1, n)]


def _flow_single(n: int) -> list[str]:
    return _header() + ["  n0: {value: 0}"] + [
        f"  n{i}: {{agent: copyAgent, params: {{namedKey: v}}, inputs: {{v: ':n{i - 1}'}}}}" for i in range(1, n)]


def _flow_double(n: int) -> list[str]:
    return _header() + ["  n0: {value: 0}"] + [
        f'  n{i}: {{agent: "copyAgent", params: {{namedKey: "v"}}, inputs: {{v: ":n{i - 1}"}}}}' for i in range(1, n)]


def _flow_plain(n: int) -> list[str]:
    return _header() + ["  n0: {value: 0}"] + [
        f"  n{i}: {{agent: copyAgent, params: {{namedKey: v, step: {i}}}, inputs: [':n{i - 1}', n{i}]}}"
        for i in range(1, n)]


def _block(n: int, agent: str, key: str, ref: Callable[[int], str]) -> list[str]:
    lines = _header() + ["  n0:", "    value: 0"]
    for i in range(1, n):
        lines += [f"  n{i}:", f"    agent: {agent}", "    params:", f"      namedKey: {key}", "    inputs:",
                  f"      v: {ref(i - 1)}"]
    return lines


def _block_plain(n: int) -> list[str]:
    return _block(n, "copyAgent", "v", lambda i: f":n{i}")


def _block_quoted(n: int) -> list[str]:
    return _block(n, "'copyAgent'", '"v"', lambda i: f"':n{i}'")


def _block_escapes(n: int) -> list[str]:
    lines = _header() + ["  n0:", "    value: 0"]
    for i in range(1, n):
        lines += [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                  '      template: "Step ${v}:\\n\\tgo on, \\"quoted\\" \\u00e9\\n"']
    return lines


def _block_scalars(n: int) -> list[str]:
    lines = _header() + ["  n0:", "    value: 0"]
    for i in range(1, n):
        lines += [f"  n{i}:", "    agent: stringTemplateAgent", "    inputs:", f"      v: :n{i - 1}", "    params:",
                  "      template: |", "        Step ${v}:", "          go on", "", "        done"]
    return lines


def _anchors(n: int) -> list[str]:
    lines = _header() + ["  n0:", "    value: 0", "  n1:", "    agent: &agent copyAgent",
                         "    params: &params {namedKey: v}", "    inputs: {v: ':n0'}"]
    for i in range(2, n):
        lines += [f"  n{i}:", "    agent: *agent", "    params: *params", f"    inputs: {{v: ':n{i - 1}'}}"]
    return lines


STYLES: dict[str, Callable[[int], list[str]]] = {
    "json_lines": _json_lines,
    "flow_single": _flow_single,
    "flow_double": _flow_double,
    "flow_plain": _flow_plain,
    "block_plain": _block_plain,
    "block_quoted": _block_quoted,
    "block_escapes": _block_escapes,
    "block_scalars": _block_scalars,
    "anchors": _anchors,
}


def _sets() -> dict[str, dict[str, Callable[[int], list[str]]]]:
    from .yaml_eval import EVAL
    from .yaml_eval2 import EVAL2
    from .yaml_eval3 import EVAL3
    from .yaml_eval4 import EVAL4
    from .yaml_eval5 import EVAL5

    return {"tuned": STYLES, "eval": EVAL, "eval2": EVAL2, "eval3": EVAL3, "eval4": EVAL4, "eval5": EVAL5}


SETS = ("tuned", "eval", "eval2", "eval3", "eval4", "eval5")


def write_style(style: str, n: int, folder: Path, styles: dict[str, Callable[[int], list[str]]] = STYLES) -> Path:
    path = folder / f"{style}_{n}.yaml"
    path.write_text("\n".join(styles[style](n)) + "\n", encoding="utf-8")
    return path


def _time_graphrt(files: list[str], warmup: int, repeat: int) -> None:
    """In the runner process: each file's parse times, and which reader read it."""
    import gc

    from graphrt.base.errors import GraphLoadError
    from graphrt.graphdata import loader
    from graphrt.graphdata.loader import parse_graph_text
    from graphrt.graphdata.quick_yaml import quick_load

    record: dict[str, object] = {}
    for file in files:
        # As graphrt reads a graph file (loader.read_graph_file) and js-yaml's runner reads it: its bytes, decoded,
        # so a file's \r\n line endings reach the parser (read_text would make them \n).
        text = Path(file).read_bytes().decode("utf-8")
        times: dict[str, list[float]] = {"ms": [], "cpu_ms": []}
        try:
            for index in range(warmup + repeat):
                gc.collect()
                cpu = time.process_time()
                started = time.perf_counter()
                parse_graph_text(text, file)
                elapsed = time.perf_counter() - started
                used = time.process_time() - cpu
                if index >= warmup:
                    times["ms"].append(round(elapsed * 1000, 3))
                    times["cpu_ms"].append(round(used * 1000, 3))
        except GraphLoadError as error:
            record[file] = f"error: {error}"
            continue
        limits = {"max_depth": loader.MAX_DEPTH, "max_values": loader.MAX_VALUES}
        reader = ("quick" if quick_load(text, **limits) is not None
                  else "pieces" if quick_load(text, **limits, full=loader._full_value) is not None else "full")
        record[file] = {**times, "reader": reader}
    emit(record)


def _run(command: list[str]) -> dict[str, object]:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    raise RuntimeError(f"{command[0]} gave no result ({done.returncode}): {done.stderr.strip()[-500:]}")


def _range(values: list[float], digits: int = 0) -> str:
    low, high = min(values), max(values)
    return f"{low:.{digits}f}" if f"{low:.{digits}f}" == f"{high:.{digits}f}" else f"{low:.{digits}f}–{high:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench yaml", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("styles", nargs="*", help=f"default: all of the set (tuned: {', '.join(STYLES)})")
    parser.add_argument("--set", choices=SETS, default="tuned",
                        help="tuned: the styles the reader was made fast on (default); eval, eval2, eval3, eval4, eval5: files it was not tuned on")
    parser.add_argument("--n", type=int, default=50_000, help="nodes in each file (default 50,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, engines taking turns (default 3)")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--time-graphrt", nargs="+", metavar="FILE", help=argparse.SUPPRESS)  # the runner process
    args = parser.parse_args(argv)
    if args.time_graphrt:
        _time_graphrt(args.time_graphrt, args.warmup, args.repeat)
        return 0
    chosen = _sets()[args.set]
    unknown = set(args.styles) - set(chosen)
    if unknown:
        raise SystemExit(f"bench yaml: unknown style(s) {', '.join(sorted(unknown))} (known: {', '.join(chosen)})")
    from . import graphai
    from .machine import describe

    missing = graphai.available()
    if missing:
        raise SystemExit(f"bench yaml: js-yaml needs node: {missing}")
    graphai.ensure_installed()
    styles = args.styles or list(chosen)
    machine = describe()
    print("\n".join(f"{key}: {value}" for key, value in machine.items()), flush=True)
    repeat = ["--warmup", str(args.warmup), "--repeat", str(args.repeat)]
    with tempfile.TemporaryDirectory(prefix="graphrt-bench-yaml-") as folder:
        files = {style: str(write_style(style, args.n, Path(folder), chosen)) for style in styles}
        rounds: list[tuple[dict[str, object], dict[str, object]]] = []
        for _ in range(args.rounds):
            ours = _run([sys.executable, "-m", "bench.yaml_styles", *repeat, "--time-graphrt", *files.values()])
            theirs = _run(["node", "--expose-gc", str(RUNNER), *repeat, *files.values()])
            rounds.append((ours, theirs))
        sizes = {style: os.path.getsize(file) for style, file in files.items()}
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"\nload average at end: {load}\n")
    rows = [["style", "KB", "read by", "graphrt ms", "js-yaml ms", "graphrt/js-yaml", "CPU ms rt/js", "CPU rt/js"]]
    for style, file in files.items():
        ours_ms, theirs_ms, ratios, reader, note = [], [], [], "", ""
        ours_cpu, theirs_cpu, cpu_ratios = [], [], []
        for ours, theirs in rounds:
            mine, other = ours[file], theirs[file]
            if isinstance(mine, str) or isinstance(other, str):
                note = f"graphrt {mine if isinstance(mine, str) else 'reads it'}; js-yaml {other if isinstance(other, str) else 'reads it'}"
                break
            ours_ms.append(statistics.median(mine["ms"]))
            theirs_ms.append(statistics.median(other["ms"]))
            ratios.append(ours_ms[-1] / theirs_ms[-1])
            ours_cpu.append(statistics.median(mine["cpu_ms"]))
            theirs_cpu.append(statistics.median(other["cpu_ms"]))
            cpu_ratios.append(ours_cpu[-1] / theirs_cpu[-1])
            reader = mine["reader"]
        if note:
            rows.append([style, f"{sizes[style] // 1024:,}", "—", note, "", "", "", ""])
            continue
        rows.append([style, f"{sizes[style] // 1024:,}", reader, _range(ours_ms), _range(theirs_ms),
                     _range(ratios, 2) + "×", f"{_range(ours_cpu)} / {_range(theirs_cpu)}", _range(cpu_ratios, 2) + "×"])
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print(f"\nset {args.set}; {args.n:,} nodes a file; per round the median of {args.repeat} parses after {args.warmup} warmup(s), "
          f"{args.rounds} rounds; ranges are over the rounds.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
