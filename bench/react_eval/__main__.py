"""`python -m bench.react_eval`: how often the ReAct graphs answer right, and how fast.

    .venv/bin/python -m bench.react_eval                          # the general graphs and the example, general.yaml
    .venv/bin/python -m bench.react_eval graphs/react.yaml --limit 5
    .venv/bin/python -m bench.react_eval --kind two-hop
    .venv/bin/python -m bench.react_eval --questions other_kinds  # the set of other kinds (measured once)
    .venv/bin/python -m bench.react_eval --chooser examples/react_wiki/react_wiki.yaml   # no LLM: first choices

Each question of the set runs through each graph, one at a time, on whatever
server openAIAgent picks (the embedded model when neither OPENAI_BASE_URL nor
OPENAI_API_KEY is set). The example's graphs (examples/react_wiki/) get the
example's agents. With `--chooser`, openAIAgent is the first-choice chooser
(first_choice.py): what the example's rules answer with no model at all. An
answer is right when it says one of the question's accepted forms (whole words,
case and accents folded), none of its wrong ones, and is short (at most 12
words), so that pasting a whole observation does not count. Results go to
bench/results/react_eval.json (git-ignored) and a Markdown table to stdout;
BENCHMARKS.md keeps a reviewed copy.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import yaml

import graphrt

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "bench" / "results"
GRAPHS = ("graphs/react.yaml", "graphs/react_tools.yaml", "examples/react_wiki/react_wiki.yaml",
          "examples/react_wiki/react_wiki_tools.yaml")
EXAMPLE_AGENTS = ROOT / "examples" / "react_wiki" / "react_wiki_agents.py"
QUESTION_SETS = {
    "questions": "examples/react_wiki's tuned set (40: easy, medium, two-hop)",
    "holdout": "examples/react_wiki's held-out set (20), which later informed fixes",
    "general": "the general graphs' own set (30: easy, medium, two-hop), written before any tuning",
    "other_kinds": "20 questions of other kinds, written before any tuning and measured once",
}
MAX_ANSWER_WORDS = 12


def _fold(text: str) -> str:
    """Lower case without accents, so that "Brasilia" matches "Brasília"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _says(answer: str, form: str) -> bool:
    """True when `form` occurs in `answer` as whole words ("no" is not in "not known"), folded."""
    return re.search(rf"(?<!\w){re.escape(_fold(form))}(?!\w)", _fold(answer)) is not None


def is_right(answer: Any, accepted: list[str], wrong: list[str] = ()) -> bool:
    """True when the answer is short, says one of the accepted forms and none of the wrong ones."""
    if not isinstance(answer, str) or len(answer.split()) > MAX_ANSWER_WORDS:
        return False
    return any(_says(answer, str(form)) for form in accepted) and not any(_says(answer, str(form)) for form in wrong)


def load_questions(kind: str | None = None, name: str = "questions") -> list[dict[str, Any]]:
    """The questions of `bench/react_eval/NAME.yaml` (see QUESTION_SETS)."""
    questions = yaml.safe_load((HERE / f"{name}.yaml").read_text(encoding="utf-8"))
    return [question for question in questions if kind is None or question["kind"] == kind]


def agents_for(graph_file: str, chooser: bool) -> list[Any]:
    """The agents a graph runs with: the example's for its graphs, and the chooser as openAIAgent with --chooser."""
    agents: list[Any] = []
    if graph_file.startswith("examples/react_wiki/"):
        from graphrt.authoring.agent_like import module_agents

        agents += module_agents(str(EXAMPLE_AGENTS))
    if chooser:
        from .first_choice import CHOOSER

        agents.append(CHOOSER)
    return agents


def ask(graph_file: str, question: dict[str, Any], agents: list[Any] | None = None) -> dict[str, Any]:
    """Runs one question through one graph; a failed run counts as wrong, with its error."""
    started = time.perf_counter()
    try:
        results = graphrt.run(ROOT / graph_file, inject={"question": question["question"]}, agents=agents or None)
        error = None
    except graphrt.GraphError as failure:
        results, error = {}, str(failure).splitlines()[0]
    seconds = time.perf_counter() - started
    answer = results.get("answer", {}).get("answer") if isinstance(results.get("answer"), dict) else results.get("answer")
    status = (results.get("status") or {}).get("status") if isinstance(results.get("status"), dict) else results.get("status")
    return {
        "graph": graph_file, "kind": question["kind"], "question": question["question"], "answer": answer,
        "right": is_right(answer, question["answers"], question.get("wrong", [])), "status": status or ("error" if error else None),
        "error": error, "seconds": round(seconds, 2), "model": _model(results),
        "steps": _value(results.get("steps", results.get("rounds"))),
    }


def _value(result: Any) -> Any:
    """A result node's value: copyAgent's `{name: value}` holds it under its one key."""
    return next(iter(result.values()), None) if isinstance(result, dict) and len(result) == 1 else result


def _model(results: dict[str, Any]) -> str | None:
    model = results.get("model")
    return model.get("model") if isinstance(model, dict) else model


def table(rows: list[dict[str, Any]]) -> str:
    """Per graph and kind: right answers, statuses and the median and 90th-percentile time."""
    kinds = list(dict.fromkeys(row["kind"] for row in rows))
    lines = ["| graph | questions | right | " + " | ".join(kinds) + " | finished | median s | p90 s |",
             "|---|---:|---:|" + "---:|" * len(kinds) + "---:|---:|---:|"]
    for graph_file in dict.fromkeys(row["graph"] for row in rows):
        mine = [row for row in rows if row["graph"] == graph_file]
        times = sorted(row["seconds"] for row in mine)

        def share(kind: str) -> str:
            subset = [row for row in mine if row["kind"] == kind]
            return f"{sum(row['right'] for row in subset)}/{len(subset)}" if subset else "-"

        right = sum(row["right"] for row in mine)
        finished = sum(row["status"] == "finished" for row in mine)
        p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
        lines.append(f"| {graph_file} | {len(mine)} | {right} ({100 * right / len(mine):.0f}%) | "
                     + " | ".join(share(kind) for kind in kinds)
                     + f" | {finished} | {statistics.median(times):.1f} | {p90:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.react_eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("graphs", nargs="*", default=list(GRAPHS))
    parser.add_argument("--kind", help="only the questions of this kind (easy, medium, two-hop, yes-no, ...)")
    parser.add_argument("--limit", type=int, help="only the first N questions")
    parser.add_argument("--questions", default="general", choices=list(QUESTION_SETS),
                        help="the question set, bench/react_eval/NAME.yaml: " +
                        "; ".join(f"{name}: {about}" for name, about in QUESTION_SETS.items()))
    parser.add_argument("--chooser", action="store_true", help="no LLM: the first-choice chooser answers")
    parser.add_argument("--out", type=Path, default=RESULTS / "react_eval.json")
    args = parser.parse_args(argv)
    questions = load_questions(args.kind, args.questions)[: args.limit]
    rows: list[dict[str, Any]] = []
    load_before = os.getloadavg()[0]
    for graph_file in args.graphs:
        agents = agents_for(graph_file, args.chooser)
        for number, question in enumerate(questions, 1):
            row = ask(graph_file, question, agents)
            rows.append(row)
            mark = "ok " if row["right"] else "BAD"
            print(f"{mark} {graph_file} {number}/{len(questions)} {row['seconds']:5.1f}s {row['status']}: "
                  f"{question['question']} -> {row['answer']!r}", file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    print(table(rows))
    # Other work on the machine slows every step: say how busy it was (1-minute load average).
    print(f"\nload average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
