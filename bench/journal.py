"""`python -m bench journal`: what the journal of outside calls costs, whether it makes effects happen once under
kill -9, and how fast a recorded run replays (graphrt/engine/journal.py, graphrt/testing/cassette.py).

    python -m bench journal cost      # p50 of a durable toolsAgent run with the journal ÷ without (SQLite, PostgreSQL)
    python -m bench journal kill      # 200 toolsAgent runs killed with SIGKILL at random moments, then resumed
    python -m bench journal replay    # 50 recordings of graphs/react.yaml and of a toolsAgent graph, replayed offline
    python -m bench journal size      # the bytes a toolsAgent run of 20 rounds journals, in a store and a cassette

The LLM is a scripted OpenAI-compatible server on 127.0.0.1 (a thread of this process, or of the runner's),
reached through the real openai SDK: it answers from the conversation it is sent (ask for effect n+1 while fewer
than `--calls` are done, then answer), so a resumed run is answered as the run that was killed would have been.
Each tool call appends its number to a file (`effectAgent--act`, an agent with side effects), so the effects can
be counted across processes. PostgreSQL rows need initdb and pg_ctl (a throwaway cluster with the server's
default durability: fsync and synchronous_commit on). The figures go to bench/results/journal_latest.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

from .llm_wire import send_events, send_json, stream_chunks

__all__ = ["main"]

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent

AGENTS = '''
import os

import anyio
from graphrt.authoring.agent_info import AgentInfo

ACT = {"type": "function", "function": {"name": "act", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}


async def act(ctx):
    n = ctx.inputs["arg"]["n"]
    with open(os.environ["BENCH_EFFECTS"], "a", encoding="utf-8") as log:
        log.write(f"{os.environ.get('BENCH_RUN', '-')} {n}\\n")
    await anyio.sleep(float(os.environ.get("BENCH_REPLY_MS", "0")) / 1000)  # done, and its answer on its way
    return {"content": f"effect {n} done"}


AGENTS = [AgentInfo("effectAgent", act, tools=(ACT,), side_effects=os.environ.get("BENCH_PURE") != "1")]
'''

TOOLS = """\
version: 0.5
nodes:
  agent:
    agent: toolsAgent
    inputs:
      tools: [effectAgent--act]
      userInput: {text: Do the effects, one at a time.}
      maxRounds: 20
    isResult: true
"""


# ----- the scripted LLM -----


class _QuietServer(ThreadingHTTPServer):
    """A server that says nothing of a client gone in the middle of a request (a process killed with SIGKILL)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, BrokenPipeError)):
            super().handle_error(request, client_address)


class ScriptedLLM:
    """An OpenAI-compatible server on 127.0.0.1 answering from the conversation: `act` asks for effect n+1 while
    fewer than `calls` tool results are in it, then answers; `react` searches, looks up, then finishes."""

    def __init__(self, calls: int = 5, delay: float = 0.0) -> None:
        self.calls = calls
        self.delay = delay  # seconds each answer takes (a real LLM takes hundreds of ms)
        self.requests = 0
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        message: dict[str, Any]
        if body.get("tools"):
            done = sum(1 for item in messages if item.get("role") == "tool")
            if done < self.calls:
                arguments = json.dumps({"n": done + 1})
                message = {"role": "assistant", "content": None, "tool_calls": [{
                    "id": f"call_{done}", "type": "function",
                    "function": {"name": "effectAgent--act", "arguments": arguments}}]}
            else:
                message = {"role": "assistant", "content": f"{done} effects done"}
        else:  # ReAct: search, look up, finish
            seen = sum(1 for item in messages if str(item.get("content", "")).startswith("Observation:"))
            step = ("Thought: I should read about the tower.\nAction: search[Eiffel Tower]",
                    "Thought: Who was the engineer?\nAction: lookup[engineer]",
                    "Thought: The page says so.\nAction: finish[Gustave Eiffel's company]")[min(seen - 1, 2)] \
                if seen else "Thought: I should read about the tower.\nAction: search[Eiffel Tower]"
            message = {"role": "assistant", "content": step}
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "scripted",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        llm = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                with llm._lock:
                    llm.requests += 1
                if llm.delay:
                    time.sleep(llm.delay)
                answer = llm.answer(body)
                if body.get("stream"):
                    send_events(self, stream_chunks(answer))
                    return
                send_json(self, answer)

        return Handler


class _LLMProcess:
    """The scripted LLM in a process of its own, as a real one is: its threads take no turns at this process's GIL
    (in the process, every request is handed between the run's thread and the server's)."""

    def __init__(self, calls: int, delay: float) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from bench.journal import _serve; _serve(int(sys.argv[1]), "
             "float(sys.argv[2]))", str(calls), str(delay)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        self.url = self._process.stdout.readline().strip()

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()  # the server ends when its stdin does
        self._process.wait()


def _serve(calls: int, delay: float) -> None:
    """A scripted LLM until stdin closes (_LLMProcess)."""
    llm = ScriptedLLM(calls, delay)
    print(llm.url, flush=True)
    sys.stdin.read()
    llm.close()


def _environment(llm: ScriptedLLM | _LLMProcess, folder: Path) -> dict[str, str]:
    return {**os.environ, "OPENAI_BASE_URL": llm.url, "OPENAI_API_KEY": "sk-bench-0000000000000000",
            "BENCH_EFFECTS": str(folder / "effects.log"), "PYTHONPATH": str(ROOT)}


@contextlib.contextmanager
def _restored() -> Iterator[None]:
    """os.environ, sys.path and the agents' module as they were, after a measurement that changes them."""
    environ, path = dict(os.environ), list(sys.path)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        sys.modules.pop("effects_agents", None)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# ----- cost: the journal's overhead on a durable run -----


def cost(rounds: int, runs: int, calls: int, postgres_url: str | None, delay: float = 0.0,
         pure: bool = False, apart: bool = False) -> dict[str, Any]:
    """p50 (and p99) of a checkpointed toolsAgent run of `calls` tool calls with the journal and without, taking
    turns round by round, on SQLite and on PostgreSQL; the LLM answering after `delay` seconds; `pure`: the tool
    has no side effects (no call is marked as started before it is made); `apart`: the LLM in a process of its own."""
    import anyio

    import graphrt
    from graphrt.checkpoint import SQLiteStore
    from graphrt.durable import arun_checkpointed

    with _restored(), tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "effects_agents.py").write_text(AGENTS)
        llm: ScriptedLLM | _LLMProcess = _LLMProcess(calls, delay) if apart else ScriptedLLM(calls, delay)
        os.environ.update({key: value for key, value in _environment(llm, folder).items()
                           if key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BENCH_EFFECTS")})
        os.environ["BENCH_PURE"] = "1" if pure else "0"
        sys.path.insert(0, str(folder))
        import effects_agents

        graph = graphrt.Graph(TOOLS, agents=effects_agents.AGENTS)
        stores: dict[str, Callable[[], Any]] = {"sqlite": lambda: SQLiteStore(folder / "runs.db")}
        if postgres_url:
            from graphrt.checkpoint.postgres import PostgresStore

            stores["postgres"] = lambda: PostgresStore(postgres_url)
        figures: dict[str, dict[str, list[float]]] = {}

        async def measure() -> None:
            for name, make in stores.items():
                store = make()
                try:
                    for _ in range(5):  # warm: the connection, the SDK, the code
                        await arun_checkpointed(graph, store)
                    for round_ in range(rounds):
                        for journaled in ((True, False) if round_ % 2 == 0 else (False, True)):
                            times = figures.setdefault(f"{name} {'with' if journaled else 'without'}", {})
                            latencies = times.setdefault("latencies", [])
                            cpu = times.setdefault("cpu", [])
                            for _ in range(runs):
                                started, used = time.perf_counter(), time.process_time()
                                result = await arun_checkpointed(graph, store, journaled=journaled)
                                latencies.append(time.perf_counter() - started)
                                cpu.append(time.process_time() - used)  # this process's: the load of others aside
                                if result["agent"]["text"] != f"{calls} effects done":
                                    raise SystemExit(f"bench journal: a run gave {result!r}")
                        print(f"{name} round {round_ + 1}/{rounds}", file=sys.stderr, flush=True)
                finally:
                    await store.close()

        anyio.run(measure)
        llm.close()
    table = {}
    for name in stores:
        with_, without = figures[f"{name} with"]["latencies"], figures[f"{name} without"]["latencies"]
        p50_with, p50_without = statistics.median(with_), statistics.median(without)
        cpu_with = statistics.median(figures[f"{name} with"]["cpu"])
        cpu_without = statistics.median(figures[f"{name} without"]["cpu"])
        table[name] = {"p50_with_ms": p50_with * 1000, "p50_without_ms": p50_without * 1000,
                       "cpu_with_ms": cpu_with * 1000, "cpu_without_ms": cpu_without * 1000,
                       "cpu_ratio": cpu_with / cpu_without,
                       "cpu_per_call_us": (cpu_with - cpu_without) / (2 * calls + 1) * 1e6,
                       "p99_with_ms": _percentile(with_, 0.99) * 1000,
                       "p99_without_ms": _percentile(without, 0.99) * 1000,
                       "ratio": p50_with / p50_without, "journaled_calls": 2 * calls + 1,
                       "per_call_us": (p50_with - p50_without) / (2 * calls + 1) * 1e6, "runs": len(with_)}
    return table


# ----- kill: exactly once under SIGKILL -----


def kill(runs: int, calls: int, seed: int, reply_ms: float = 30.0) -> dict[str, Any]:
    """`runs` checkpointed toolsAgent runs, each killed with SIGKILL at a random moment and resumed (again and
    again if a resume is killed too, up to three kills a run), then every effect counted: each happens once, but
    those whose call was uncertain (killed in the middle: its effect done, its result not kept), which resume asks
    about; the bench answers as a person who checked would: yes if the effect's line is in the file, else no.
    Each tool call does its effect at once and answers `reply_ms` later, as a service that acted and replies."""
    randomness = random.Random(seed)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "effects_agents.py").write_text(AGENTS)
        (folder / "tools.yaml").write_text(TOOLS)
        llm = ScriptedLLM(calls)
        env = {**_environment(llm, folder), "BENCH_REPLY_MS": str(reply_ms)}
        db = str(folder / "runs.db")
        base = [sys.executable, "-m", "graphrt"]
        agents = str(folder / "effects_agents.py")
        # How long a whole run takes here, to kill within it.
        started = time.perf_counter()
        subprocess.run([*base, "run", str(folder / "tools.yaml"), "--agents", agents, "-q"],
                       env={**env, "BENCH_RUN": "probe"}, check=True, capture_output=True)
        whole = time.perf_counter() - started
        decided: list[dict[str, Any]] = []
        kills = 0
        for number in range(runs):
            run_id = f"r{number}"
            run_env = {**env, "BENCH_RUN": run_id}
            command = [*base, "run", str(folder / "tools.yaml"), "--agents", agents, "--checkpoint", db,
                       "--run-id", run_id, "-q"]
            killed_here = 0
            for _ in range(20):  # processes a run takes at most: kills, questions, and the one that finishes
                process = subprocess.Popen(command, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True)
                killed = False
                if killed_here < 3:
                    try:
                        process.wait(timeout=randomness.uniform(0.05, 1.0) * whole)
                    except subprocess.TimeoutExpired:
                        process.send_signal(signal.SIGKILL)
                        killed, killed_here, kills = True, killed_here + 1, kills + 1
                out, err = process.communicate()
                if process.returncode == 0:
                    break
                if process.returncode == 3:  # an uncertain call: the run asks whether it happened
                    asked = _asked_effect(err)
                    answer = "yes" if asked in _effects(folder, run_id) else "no"
                    decided.append({"run": run_id, "effect": asked, "answer": answer})
                    command = [*base, "resume", "--checkpoint", db, "--run-id", run_id, "--agents", agents, "-q",
                               "--answer", answer]
                    continue
                if not killed:
                    raise SystemExit(f"bench journal kill: run {run_id} failed: {err[-1000:]}")
                # Killed: run it again by its id, which continues it where it is saved (or starts it, if its record
                # was not saved yet).
                command = [*base, "run", str(folder / "tools.yaml"), "--agents", agents, "--checkpoint", db,
                           "--run-id", run_id, "-q"]
            else:
                raise SystemExit(f"bench journal kill: run {run_id} did not finish: {err[-1000:]}")
        llm.close()
        counted = Counter(line for line in (folder / "effects.log").read_text().splitlines()
                          if not line.startswith("probe "))
    twice = {line: count for line, count in counted.items() if count > 1}
    missing = [f"r{number} {n}" for number in range(runs) for n in range(1, calls + 1)
               if counted[f"r{number} {n}"] == 0]
    return {"runs": runs, "calls_per_run": calls, "reply_ms": reply_ms, "kills": kills,
            "effects": sum(counted.values()),
            "expected": runs * calls, "twice": twice, "missing": missing, "uncertain": decided}


def _effects(folder: Path, run_id: str) -> set[int]:
    path = folder / "effects.log"
    lines = path.read_text().splitlines() if path.exists() else []
    return {int(line.split()[1]) for line in lines if line.split()[0] == run_id}


def _asked_effect(question: str) -> int:
    """The effect an uncertain call's question names: its request's `"arg":{"n":N}`."""
    marker = '"arg":{"n":'
    start = question.index(marker) + len(marker)
    return int(question[start:question.index("}", start)])


# ----- replay: recorded runs replayed offline -----


def replay(runs: int, calls: int) -> dict[str, Any]:
    """`runs` recordings of graphs/react.yaml and of the toolsAgent graph, each replayed with no LLM server and no
    key: the results compared, and the wall time of all the replays ÷ all the recordings."""
    import graphrt
    from graphrt.testing.cassette import Cassette

    corpus = str(ROOT / "tests" / "llm" / "data" / "wiki_corpus.json")
    figures: dict[str, Any] = {}
    with _restored(), tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "effects_agents.py").write_text(AGENTS)
        sys.path.insert(0, str(folder))
        import effects_agents

        llm = ScriptedLLM(calls)
        online = {key: value for key, value in _environment(llm, folder).items()
                  if key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BENCH_EFFECTS")}
        cases = {"react.yaml": (lambda: graphrt.Graph(ROOT / "graphs" / "react.yaml",
                                                     config={"wikiAgent": {"corpus": corpus}}),
                                {"question": "Who designed the Eiffel Tower?"}),
                 "toolsAgent": (lambda: graphrt.Graph(TOOLS, agents=effects_agents.AGENTS), {})}
        for name, (make, inject) in cases.items():
            graph = make()
            os.environ.update(online)
            graph.run(inject=inject)  # warm
            recorded, recording = [], 0.0
            for number in range(runs):
                with Cassette.record(folder / f"{name}-{number}.jsonl") as tape:
                    started = time.perf_counter()
                    recorded.append(graph.run(inject=inject, journal=tape))
                    recording += time.perf_counter() - started
            asked = llm.requests
            os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"  # the discard port: nothing answers
            os.environ.pop("OPENAI_API_KEY", None)
            replayed, replaying = [], 0.0
            for number in range(runs):
                tape = Cassette.replay(folder / f"{name}-{number}.jsonl")
                started = time.perf_counter()
                replayed.append(graph.run(inject=inject, journal=tape))
                replaying += time.perf_counter() - started
            figures[name] = {"runs": runs, "identical": sum(a == b for a, b in zip(recorded, replayed)),
                             "llm_requests_in_replays": llm.requests - asked,
                             "record_ms": recording * 1000, "replay_ms": replaying * 1000,
                             "replay_share": replaying / recording}
        llm.close()
    return figures


# ----- size: what a long toolsAgent run journals -----


def size(calls: int) -> dict[str, Any]:
    """The bytes the journal keeps for one checkpointed toolsAgent run of `calls` tool calls (`calls` + 1 rounds):
    its entries' requests and results in a SQLite store, the whole database file, and the run's cassette."""
    import anyio

    import graphrt
    from graphrt.checkpoint import SQLiteStore
    from graphrt.checkpoint.guard import GuardedStore
    from graphrt.durable import arun_checkpointed
    from graphrt.testing.cassette import Cassette

    with _restored(), tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "effects_agents.py").write_text(AGENTS)
        llm = ScriptedLLM(calls)
        os.environ.update({key: value for key, value in _environment(llm, folder).items()
                           if key in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "BENCH_EFFECTS")})
        sys.path.insert(0, str(folder))
        import effects_agents

        graph = graphrt.Graph(TOOLS.replace("maxRounds: 20", f"maxRounds: {calls + 5}"), agents=effects_agents.AGENTS)

        async def measure() -> dict[str, Any]:
            store = SQLiteStore(folder / "runs.db")
            try:
                result = await arun_checkpointed(graph, store, run_id="long")
                entries = await GuardedStore(store).get_calls("long")
            finally:
                await store.close()
            if result["agent"]["text"] != f"{calls} effects done":
                raise SystemExit(f"bench journal size: the run gave {result!r}")
            llm_entries = [entry for entry in entries if entry.kind == "llm"]
            return {"entries": len(entries), "llm_entries": len(llm_entries),
                    "journal_bytes": sum(len(entry.request or "") + len(entry.result or "") for entry in entries),
                    "largest_llm_entry_bytes": max(len(entry.request or "") + len(entry.result or "")
                                                   for entry in llm_entries),
                    "database_bytes": (folder / "runs.db").stat().st_size
                    + sum(path.stat().st_size for path in folder.glob("runs.db-*"))}

        figures = anyio.run(measure)
        with Cassette.record(folder / "long.jsonl") as tape:
            graph.run(journal=tape)
        figures["cassette_bytes"] = (folder / "long.jsonl").stat().st_size
        llm.close()
    return {"rounds": calls + 1, "tool_calls": calls, **figures}


# ----- the driver -----


def _postgres() -> Any:
    from .durable import _pg_bin, _Postgres

    return _Postgres() if _pg_bin("initdb") and _pg_bin("pg_ctl") else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench journal", description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("cost", "kill", "replay", "size", "all"), nargs="?", default="all")
    parser.add_argument("--rounds", type=int, default=10, help="cost: rounds, with and without taking turns")
    parser.add_argument("--runs", type=int, help="cost: runs per round and configuration (default 20); kill: runs "
                        "(default 200); replay: recordings per graph (default 50)")
    parser.add_argument("--calls", type=int, default=5, help="tool calls per toolsAgent run")
    parser.add_argument("--llm-ms", type=float, default=0.0, help="cost: milliseconds each LLM answer takes")
    parser.add_argument("--pure-tools", action="store_true", help="cost: the tool has no side effects")
    parser.add_argument("--llm-apart", action="store_true",
                        help="cost: the scripted LLM in a process of its own (as a real one is), not a thread of this one")
    parser.add_argument("--reply-ms", type=float, default=30.0,
                        help="kill: milliseconds a tool call answers after its effect (default 30)")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args(argv)
    from .machine import describe

    report: dict[str, Any] = {"machine": describe()}
    if args.what in ("cost", "all"):
        server = _postgres()
        url = server.start() if server is not None else None
        try:
            report["cost"] = cost(args.rounds, args.runs or 20, args.calls, url, args.llm_ms / 1000, args.pure_tools,
                                  args.llm_apart)
            report["cost_settings"] = {"llm_ms": args.llm_ms, "pure_tools": args.pure_tools, "calls": args.calls,
                                       "llm_apart": args.llm_apart}
        finally:
            if server is not None:
                server.stop()
        tools = "tools without side effects" if args.pure_tools else "tools with side effects (marked started)"
        where = "in a process of its own" if args.llm_apart else "a thread of this process"
        print(f"cost: {args.calls} tool calls a run, {tools}, the LLM ({where}) answering in {args.llm_ms:g} ms")
        for name, row in report["cost"].items():
            print(f"cost {name}: p50 {row['p50_with_ms']:.1f} ms with the journal, {row['p50_without_ms']:.1f} ms "
                  f"without: {row['ratio']:.3f}×, {row['per_call_us']:.0f} µs per journaled call "
                  f"({row['journaled_calls']} a run); CPU {row['cpu_with_ms']:.1f} ms ÷ {row['cpu_without_ms']:.1f} "
                  f"ms: {row['cpu_ratio']:.3f}×, {row['cpu_per_call_us']:.0f} µs per call")
    if args.what in ("kill", "all"):
        report["kill"] = kill(args.runs or 200, args.calls, args.seed, args.reply_ms)
        row = report["kill"]
        answers = Counter(item["answer"] for item in row["uncertain"])
        print(f"kill: {row['runs']} runs, {row['kills']} SIGKILLs, {row['effects']} effects of {row['expected']}; "
              f"twice: {len(row['twice'])}, missing: {len(row['missing'])}; uncertain calls asked about: "
              f"{len(row['uncertain'])} (answered yes {answers['yes']}, no {answers['no']})")
        for item in row["uncertain"]:
            print(f"  uncertain: run {item['run']}, effect {item['effect']}: answered {item['answer']}")
    if args.what in ("replay", "all"):
        report["replay"] = replay(args.runs or 50, args.calls)
        for name, row in report["replay"].items():
            print(f"replay {name}: {row['identical']}/{row['runs']} identical, {row['llm_requests_in_replays']} LLM "
                  f"requests in the replays; replays took {row['replay_ms']:.0f} ms, recordings {row['record_ms']:.0f}"
                  f" ms: {row['replay_share']:.2f}×")
    if args.what in ("size", "all"):
        report["size"] = row = size(19)  # 20 rounds: 19 tool calls, then the answer
        print(f"size: a toolsAgent run of {row['rounds']} rounds ({row['tool_calls']} tool calls) journals "
              f"{row['journal_bytes']:,} bytes in {row['entries']} entries (its largest LLM entry "
              f"{row['largest_llm_entry_bytes']:,}); SQLite file {row['database_bytes']:,} bytes; cassette "
              f"{row['cassette_bytes']:,} bytes")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "journal_latest.json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
