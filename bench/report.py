"""Tables from the measurements: times, ratios and memory, plus the issue's targets checked.

Every table renders as aligned text (the terminal) or as Markdown (BENCHMARKS.md).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable

from .driver import Measurement
from .workloads import get

__all__ = ["Report"]

_NAMES = {"graphrt": "graphrt", "graphai": "GraphAI", "langgraph": "LangGraph",
          "floor": "no engine: Python (the floor)", "node": "no engine: node"}


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 10:
        return f"{value:.2f}"
    if value < 100:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def _mb(kb: int | float | None) -> str:
    return "—" if kb is None else f"{kb / 1024:.0f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if not a or not b else f"{a / b:.2f}×"


def _median(values: list[float] | None) -> float | None:
    return statistics.median(values) if values else None


def _slash(values: Iterable[str]) -> str:
    return " / ".join(values)


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""

    def text(self) -> str:
        widths = [max(len(row[i]) for row in [self.header, *self.rows]) for i in range(len(self.header))]
        lines = [self.title, "-" * len(self.title)]
        for index, row in enumerate([self.header, *self.rows]):
            lines.append("  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                                   for i, (cell, width) in enumerate(zip(row, widths))).rstrip())
            if index == 0:
                lines.append("  ".join("-" * width for width in widths))
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.header) + " |",
                 "|" + "|".join("---" if i == 0 else "---:" for i in range(len(self.header))) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines)


class Report:
    """All measurements of one bench run."""

    def __init__(self, measurements: list[Measurement], engines: tuple[str, ...]) -> None:
        self.measurements = measurements
        self.engines = engines

    def find(self, engine: str, workload: str, n: int | None = None) -> Measurement | None:
        for measurement in self.measurements:
            if measurement.engine == engine and measurement.workload == workload and (n is None or measurement.n == n):
                if measurement.error is None:
                    return measurement
        return None

    def _keys(self) -> list[tuple[str, int]]:
        return list(dict.fromkeys((m.workload, m.n) for m in self.measurements))

    # ----- tables -----

    def tables(self) -> list[Table]:
        tables = [self.main_table(), self.per_step_table(), self.floor_table()]
        names = {workload for workload, _ in self._keys()}
        if "io_fan_out" in names:
            tables.append(self.io_table())
        if "big_graph" in names:
            tables.append(self.big_graph_table())
        if "loop_memory" in names:
            tables.append(self.memory_table())
        if "large_tools" in names:
            tables.append(self.tools_table())
        tables.append(self.targets_table())
        return [table for table in tables if table.rows]

    def main_table(self) -> Table:
        engines = [e for e in ("graphrt", "graphai", "langgraph") if e in self.engines]
        short = {"graphrt": "rt", "graphai": "GA", "langgraph": "LG"}
        header = ["workload", "n", *(f"{_NAMES[e]} ms" for e in engines)]
        if "graphai" in engines:
            header.append("rt/GA")
        if "langgraph" in engines:
            header.append("rt/LG")
        header += [f"parse ms {'/'.join(short[e] for e in engines if e != 'langgraph')}",
                   f"command ms {'/'.join(short[e] for e in engines)}",
                   f"peak RSS MB {'/'.join(short[e] for e in engines)}", "result"]
        rows = []
        for workload, n in self._keys():
            found = {engine: self.find(engine, workload, n) for engine in engines}
            row = [workload, f"{n:,}"]
            row += [_ms(m.total_ms) if m else ("failed" if self._failed(e, workload, n) else "—") for e, m in found.items()]
            rt = found.get("graphrt")
            is_memory = get(workload).memory
            if "graphai" in engines:
                row.append("—" if is_memory else _ratio(rt and rt.total_ms, found["graphai"] and found["graphai"].total_ms))
            if "langgraph" in engines:
                row.append("—" if is_memory else _ratio(rt and rt.total_ms, found["langgraph"] and found["langgraph"].total_ms))
            row.append(_slash(_ms(m.parse_ms) if m else "—" for e, m in found.items() if e != "langgraph"))
            row.append(_slash(_ms(m.command_ms) if m else "—" for m in found.values()))
            row.append(_slash(_mb(m.rss_kb) if m else "—" for m in found.values()))
            row.append(self._check(workload, n))
            rows.append(row)
        note = ("Engine times are medians of build + run inside one process after warmups (YAML parsing apart); "
                "'command' is the whole runner process (start, imports, parse, build, run), median wall time; "
                "peak RSS is the whole command's (in-process runner's when no command ran). "
                "rt/GA < 1 means graphrt is faster. loop_memory is one run with memory sampling "
                "(graphrt under tracemalloc), so its time is not a speed figure.")
        return Table("Times (ms), ratios and peak memory", header, rows, note)

    def _failed(self, engine: str, workload: str, n: int) -> bool:
        return any(m.engine == engine and m.workload == workload and m.n == n and m.error for m in self.measurements)

    def _check(self, workload: str, n: int) -> str:
        ran = [m for m in self.measurements if m.workload == workload and m.n == n]
        wrong = [_NAMES[m.engine] for m in ran if m.ok is False]
        failed = [_NAMES[m.engine] for m in ran if m.ok is None and m.error]
        if not wrong and not failed:
            return "ok"
        return "; ".join(part for part in (wrong and f"WRONG: {', '.join(wrong)}", failed and f"FAILED: {', '.join(failed)}")
                         if part)

    def per_step_table(self) -> Table:
        rows = []
        for workload, unit in (("counter_count", "iteration"), ("counter_while", "iteration"), ("accumulate", "iteration"),
                               ("chain", "node"), ("fan_out", "node"), ("map_rows", "row")):
            found = {engine: self.find(engine, workload) for engine in self.engines}
            if not found.get("graphrt"):
                continue
            per = {e: (m.total_ms * 1000 / m.n if m and m.total_ms else None) for e, m in found.items()}
            row = [workload, unit] + [("—" if per.get(e) is None else f"{per[e]:.1f}") for e in ("graphrt", "graphai", "langgraph")
                                      if e in self.engines]
            lg = per.get("langgraph")
            row.append(_ratio(lg, per["graphrt"]) if "langgraph" in self.engines else "—")
            rows.append(row)
        header = ["workload", "per", *(f"{_NAMES[e]} µs" for e in ("graphrt", "graphai", "langgraph") if e in self.engines),
                  "LangGraph/graphrt"]
        return Table("Per step (µs per iteration, node or row)", header, rows,
                     "LangGraph/graphrt > 1 means graphrt is faster per step (target ≥ 10×).")

    def floor_table(self) -> Table:
        """Each engine's time over the floor: the same work as a plain Python loop (bench/floor.py)."""
        engines = [e for e in ("graphrt", "graphai", "langgraph") if e in self.engines]
        rows = []
        for workload, n in self._keys():
            floor = self.find("floor", workload, n)
            if floor is None or not floor.total_ms:
                continue
            found = {engine: self.find(engine, workload, n) for engine in engines}
            rows.append([workload, f"{n:,}", _ms(floor.total_ms), f"{floor.total_ms * 1000 / n:.2f}",
                         *(_ratio(m and m.total_ms, floor.total_ms) for m in found.values())])
        return Table("Each engine over the floor (the same work as a plain Python loop)",
                     ["workload", "n", "floor ms", "floor µs per step", *(f"{_NAMES[e]}/floor" for e in engines)], rows,
                     "The floor (bench/floor.py) does per node what a run cannot avoid: a fresh inputs dict with its "
                     "references resolved, a fresh params dict, one await of an agent doing the vanilla agent's work, the "
                     "result stored; per loop iteration a fresh dict of the static nodes. It is Python's floor; GraphAI runs "
                     "on node, whose own floor is lower. Medians in one process after warmups, "
                     "taking turns with the engines.")

    def io_table(self) -> Table:
        ideal = get("io_fan_out").ideal_ms
        rows = []
        for engine in (*self.engines, "floor", "node"):
            measurement = self.find(engine, "io_fan_out")
            if measurement and measurement.run_ms:
                rows.append([_NAMES[engine], _ms(measurement.run_ms), f"{(measurement.run_ms / ideal - 1) * 100:+.1f}%",
                             _ms(measurement.total_ms), f"{(measurement.total_ms / ideal - 1) * 100:+.1f}%"])
        return Table("I/O fan-out against the ideal (500 ms)",
                     ["engine", "run ms", "run over ideal", "build + run ms", "build + run over ideal"], rows,
                     "1000 nodes sleeping 50 ms at concurrency 100: the ideal run is 10 waves × 50 ms "
                     "(target: within 5%, judged on the run; building the 1000-node graph comes before it). "
                     "'no engine' rows do the same sleeps with a bare semaphore: the floor this machine allows.")

    def big_graph_table(self) -> Table:
        rows = []
        sizes = sorted({n for workload, n in self._keys() if workload == "big_graph"})
        for engine in self.engines:
            found = [m for m in (self.find(engine, "big_graph", n) for n in sizes) if m is not None]
            for measurement in found:
                rows.append([_NAMES[engine], f"{measurement.n:,}", _ms(measurement.parse_ms), _ms(measurement.build_ms),
                             _ms(measurement.run_ms), f"{measurement.total_ms * 1000 / measurement.n:.1f}",
                             f"{self._scaling(found, measurement, 'parse_ms'):.2f}",
                             f"{self._scaling(found, measurement, 'total_ms'):.2f}", _mb(measurement.peak_rss_kb)])
        return Table("The big graph: load, validate + build, run",
                     ["engine", "nodes", "parse ms", "build ms", "run ms", "build + run µs/node", "parse scaling",
                      "build + run scaling", "peak RSS MB"], rows,
                     "scaling: time per node at this size ÷ time per node at the smallest size (1.00 = linear). "
                     "Every size is timed on a fresh process's first run (the smaller size: median of 3 processes).")

    @staticmethod
    def _scaling(found: list[Measurement], measurement: Measurement, phase: str) -> float:
        smallest = found[0]
        per = lambda m: (getattr(m, phase) or 0) / m.n  # noqa: E731
        return per(measurement) / per(smallest) if per(smallest) else float("nan")

    def memory_table(self) -> Table:
        rows = []
        for engine in self.engines:
            measurement = self.find(engine, "loop_memory")
            if not measurement or len(measurement.samples) < 2:
                continue
            first, last = measurement.samples[0], measurement.samples[-1]
            growth = last["rss_kb"] - first["rss_kb"]
            traced = ""
            if first.get("traced_kb") is not None:
                traced = f"{first['traced_kb'] / 1024:.1f} → {last['traced_kb'] / 1024:.1f}"
            elif first.get("heap_kb") is not None:
                traced = f"heap {first['heap_kb'] / 1024:.1f} → {last['heap_kb'] / 1024:.1f}"
            rows.append([_NAMES[engine], f"{first['iteration']:,} → {last['iteration']:,}",
                         f"{first['rss_kb'] / 1024:.1f} → {last['rss_kb'] / 1024:.1f}", f"{growth / 1024:+.1f}",
                         f"{growth / max(1, last['iteration'] - first['iteration']) * 1000:.2f}", traced or "—",
                         _ms(measurement.total_ms)])
        sizes = [m.n for m in self.measurements if m.workload == "loop_memory"]
        return Table(f"Memory across loop iterations (counter loop, {max(sizes, default=0):,} iterations)",
                     ["engine", "iterations", "RSS MB", "RSS growth MB", "KB per 1000 it.",
                      "traced MB (graphrt) / JS heap", "run ms"], rows,
                     "Sampled as iterations pass; graphrt under tracemalloc (traced = live Python allocations).")

    def _tools(self) -> list[tuple[Measurement, Measurement | None]]:
        sizes = sorted({n for workload, n in self._keys() if workload == "large_tools"})
        found = [(self.find("graphrt", "large_tools", n), self.find("graphai", "large_tools", n)) for n in sizes]
        return [(rt, ga) for rt, ga in found if rt is not None and rt.extra.get("validate_ms")]

    @staticmethod
    def tool_ms(measurement: Measurement, phase: str) -> float | None:
        return _median(measurement.extra.get(phase))

    @staticmethod
    def display_overhead(measurement: Measurement) -> float | None:
        """The display's cost as a fraction of the quiet run: median of each round's display ÷ run, in CPU time.

        Where the runner took a quiet run after the display too, a round's baseline is the mean of the two.
        """
        cpu = "_cpu" if measurement.extra.get("display_cpu_ms") else ""
        before = measurement.extra.get(f"run{cpu}_ms") or []
        after = measurement.extra.get(f"run_again{cpu}_ms") or before
        pairs = [display / ((run + again) / 2) - 1
                 for display, run, again in zip(measurement.extra.get(f"display{cpu}_ms") or [], before, after) if run]
        return _median(pairs)

    def tools_table(self) -> Table:
        rows = []
        found = self._tools()
        smallest = found[0][0] if found else None
        for rt, ga in found:
            validate, locate = self.tool_ms(rt, "validate_ms"), self.tool_ms(rt, "locate_ms")
            overhead = self.display_overhead(rt)
            phase = "validate_cpu_ms" if rt.extra.get("validate_cpu_ms") and smallest.extra.get("validate_cpu_ms") else "validate_ms"
            scaling = (self.tool_ms(rt, phase) / rt.n) / (self.tool_ms(smallest, phase) / smallest.n) if smallest else None
            rows.append([f"{rt.n:,}", _ms(rt.parse_ms), _ms(rt.total_ms), _ms(validate), _ratio(validate, rt.total_ms),
                         "—" if scaling is None else f"{scaling:.2f}", _ms(self.tool_ms(rt, "lint_ms")),
                         _ms(self.tool_ms(rt, "viz_ms")), _ms(self.tool_ms(rt, "display_ms")),
                         "—" if overhead is None else f"{overhead * 100:+.1f}%", str(rt.extra.get("redraws", "—")),
                         _ms(locate), _ratio(locate, rt.parse_ms), _ms(ga.build_ms) if ga else "—",
                         _ms(ga.total_ms) if ga else "—"])
        return Table("Large graphs: validate, lint, viz and the live display beside the run",
                     ["nodes", "parse ms", "run ms", "validate ms", "validate/run", "validate scaling", "lint ms",
                      "viz ms", "run + display ms", "display adds", "redraws", "located error ms", "located/parse",
                      "GraphAI build ms", "GraphAI build + run ms"], rows,
                     "The big graph (100 chains + sink). run: Graph(data) and its run, quiet; validate: every check of "
                     "`graphrt validate` (GraphAI's rules and lint, warnings included; its scaling: time per node ÷ at the smallest "
                     "size, in CPU time); lint: lint's checks alone; viz: "
                     "the model and its Mermaid text; run + display: the run with the live display on a terminal (what it adds: "
                     "median of each round's ratio in CPU time, which other work on the machine does not inflate, against the "
                     "mean of the quiet runs just before and after it); "
                     "located error: the position of one field of the last node from a fresh source (one scan of the "
                     "nodes block, the node's own lines composed), against parsing it. GraphAI build is its `new GraphAI(...)`, which validates. "
                     "Medians within one process each; the sizes below 100,000 over 3 processes.")

    # ----- targets -----

    def targets_table(self) -> Table:
        rows: list[list[str]] = []

        def add(target: str, value: str, met: bool | None) -> None:
            rows.append([target, value, "—" if met is None else ("yes" if met else "NO")])

        # Issue 44: half of GraphAI's time on the loops and the fan-out, at most its time on the I/O fan-out.
        for workload, bound in (("counter_count", 0.5), ("counter_while", 0.5), ("accumulate", 0.5), ("fan_out", 0.5),
                                ("io_fan_out", 1.0), ("chain", 1.0), ("map_rows", 1.0)):
            rt, ga = self.find("graphrt", workload), self.find("graphai", workload)
            if rt and ga:
                ratio = rt.total_ms / ga.total_ms
                add(f"{workload}: graphrt ≤ {bound}× GraphAI", f"{ratio:.2f}×", ratio <= bound)
        rt, lg = self.find("graphrt", "counter_count"), self.find("langgraph", "counter_count")
        if rt and lg:
            speedup = (lg.total_ms / lg.n) / (rt.total_ms / rt.n)
            add("per step: ≥ 10× faster than LangGraph", f"{speedup:.1f}× faster", speedup >= 10)
        rt = self.find("graphrt", "io_fan_out")
        if rt:
            ideal = get("io_fan_out").ideal_ms
            add("I/O fan-out run within 5% of ideal", f"{(rt.run_ms / ideal - 1) * 100:+.1f}%", rt.run_ms <= ideal * 1.05)
        rt = self.find("graphrt", "loop_memory")
        if rt and len(rt.samples) >= 2:
            first, last = rt.samples[0], rt.samples[-1]
            rss_growth = (last["rss_kb"] - first["rss_kb"]) / 1024
            traced_growth = ((last.get("traced_kb") or 0) - (first.get("traced_kb") or 0)) / 1024
            add("memory flat across loop iterations (growth < 1 MB traced, < 5 MB RSS)",
                f"{traced_growth:+.2f} MB traced, {rss_growth:+.1f} MB RSS", traced_growth < 1 and rss_growth < 5)
        found = [m for m in (self.find("graphrt", "big_graph", n) for n in sorted(
            {n for w, n in self._keys() if w == "big_graph"})) if m]
        if len(found) >= 2:
            small, big = found[0], found[-1]
            scaling = self._scaling(found, big, "total_ms")
            add(f"big graph linear in time, build + run ({small.n:,} → {big.n:,} nodes, ≤ 1.25)",
                f"{scaling:.2f} (parse {self._scaling(found, big, 'parse_ms'):.2f})", scaling <= 1.25)
            memory = (big.peak_rss_kb / small.peak_rss_kb) / (big.n / small.n)
            add("big graph linear in memory (peak RSS ratio ÷ size ratio ≤ 1.25)", f"{memory:.2f}", memory <= 1.25)
        tools = self._tools()
        if tools:
            big = tools[-1][0]
            validate = self.tool_ms(big, "validate_ms")
            add(f"validate of {big.n:,} nodes within 2× of the run (issue 16)", _ratio(validate, big.total_ms),
                validate <= 2 * big.total_ms)
            overheads = [(rt.n, self.display_overhead(rt)) for rt, _ in tools]
            add("live display adds < 10% to the run, every size (issue 16)",
                ", ".join(f"{n:,}: {o * 100:+.1f}%" for n, o in overheads if o is not None),
                all(o is not None and o < 0.10 for _, o in overheads))
            add("a located error costs at most one pass over the text (≤ 1× parse; issue 16)",
                ", ".join(f"{rt.n:,}: {_ratio(self.tool_ms(rt, 'locate_ms'), rt.parse_ms)}" for rt, _ in tools),
                all(self.tool_ms(rt, "locate_ms") <= rt.parse_ms for rt, _ in tools))
            if len(tools) >= 2:
                # Per-node time at the big size ÷ at the small one, against the run's own (which issue 6 holds
                # linear): on a shared machine, memory and load bend every phase alike.
                # In CPU time where the runner took it: the load of the moment bends wall times, differently per size.
                small = tools[0][0]
                cpu = "_cpu" if small.extra.get("validate_cpu_ms") and big.extra.get("validate_cpu_ms") else ""

                def per_node(measurement: Measurement, phase: str) -> float:
                    return self.tool_ms(measurement, phase.replace("_ms", f"{cpu}_ms")) / measurement.n

                run_scaling = per_node(big, "run_ms") / per_node(small, "run_ms")
                scalings = {phase: per_node(big, phase) / per_node(small, phase) / run_scaling
                            for phase in ("validate_ms", "lint_ms", "viz_ms", "display_ms")}
                add(f"validate, lint, viz, display scale as the run does ({small.n:,} → {big.n:,} nodes, "
                    f"{'CPU' if cpu else 'wall'} time; scaling ÷ the run's {run_scaling:.2f} ≤ 1.25)",
                    ", ".join(f"{phase[:-3]} {value:.2f}" for phase, value in scalings.items()),
                    all(value <= 1.25 for value in scalings.values()))
        return Table("Targets (issues 6, 16 and 44)", ["target", "measured", "met"], rows)

    # ----- output -----

    def text(self) -> str:
        return "\n\n".join(table.text() for table in self.tables())

    def markdown(self) -> str:
        return "\n\n".join(table.markdown() for table in self.tables())
