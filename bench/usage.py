"""`python -m bench.usage pacing|budgets`: rate limits and budgets measured against a scripted LLM server.

- `pacing`: `--runs` runs at once (20), each a chain of `--calls` openAIAgent calls, through a scripted
  OpenAI-compatible server on 127.0.0.1, with a `--tpm` tokens-per-minute limit (6,000) on its label. The
  server answers each request after it is granted, and counts its tokens as a provider would: the prompt
  (its UTF-8 bytes over 4) and `max_tokens` written. Reported: the most tokens any 60-second window of the
  server's requests held (it must not pass the limit), and the run's rate: its tokens over the time from
  its first request to a minute after its last, the minute each request counts in (within 10% of the limit).
  With `--processes 2`, the runs are split over two processes whose runs are saved in one PostgreSQL store (a
  throwaway server), which keeps the limit's window for both; `--unshared` runs them unsaved, each process
  counting in its own memory, for comparison. The window is the real 60 seconds: a run takes minutes.
- `budgets`: `--runs` ReAct runs (100, graphs/react.yaml) with a `--budget` token budget (2,000), against a
  server that never finishes (every reply is another search). Reported: the most any run spent, against
  the budget plus one call's most output, and how many runs were stopped with their partial results.

Both write their figures as JSON to bench/results/usage_<name>_latest.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio

from .llm_wire import send_events, send_json, stream_chunks

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
WINDOW = 60.0


class ScriptedLLM:
    """An OpenAI-compatible server on 127.0.0.1 that records when each request came and what it counted.

    Args:
        react: answer as a ReAct model that never finishes (a thought and `Action: search[...]` each time).
        output_tokens: what a reply writes when the request gives no max_tokens.
    """

    def __init__(self, *, react: bool = False, output_tokens: int = 40) -> None:
        self.react = react
        self.output_tokens = output_tokens
        self.requests: list[tuple[float, int]] = []  # (time.monotonic(), tokens counted)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                answer = server.answer(body)
                if body.get("stream"):  # the same reply as server-sent events: its text, its end, its usage
                    send_events(self, stream_chunks(answer))
                    return
                send_json(self, answer)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = len(json.dumps(body.get("messages", []), ensure_ascii=False).encode()) // 4
        written = int(body.get("max_tokens") or body.get("max_completion_tokens") or self.output_tokens)
        with self._lock:
            self.requests.append((time.monotonic(), prompt + written))
            number = len(self.requests)
        content = f"Thought: I should look again.\nAction: search[step {number}]" if self.react else "ok " * 3
        return {"id": f"c{number}", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": written, "total_tokens": prompt + written}}


def _most_in_a_window(requests: list[tuple[float, int]]) -> int:
    """The most tokens any 60-second window of the requests held (the windows that start at a request: the others
    hold no more)."""
    return max(sum(tokens for at, tokens in requests if start <= at < start + WINDOW) for start, _ in requests)


def _chain(url: str, calls: int, max_tokens: int) -> dict[str, Any]:
    """A chain of `calls` openAIAgent calls to the scripted server, each with `max_tokens`."""
    nodes: dict[str, Any] = {}
    for index in range(calls):
        prompt = "Say something short." if index == 0 else f":step{index - 1}.text"
        nodes[f"step{index}"] = {"agent": "openAIAgent", "isResult": True,
                                 "inputs": {"prompt": prompt, "max_tokens": max_tokens},
                                 "params": {"baseURL": url, "apiKey": "sk-bench", "model": "bench"}}
    return {"version": 0.5, "nodes": nodes}


async def _run_at_once(url: str, runs: int, calls: int, tpm: int, max_tokens: int, store: str | None) -> None:
    """`runs` runs of the chain at once in this process, saved in `store` (None: not saved)."""
    import graphrt

    config = {"rate_limits": {"openai:bench": {"tokens_per_minute": tpm}}}
    graphs = [graphrt.Graph(_chain(url, calls, max_tokens), config=config) for _ in range(runs)]
    opened = None
    if store is not None:
        from graphrt.checkpoint import open_store
        from graphrt.durable import arun_checkpointed

        opened = open_store(store)  # one store for the process's runs: one window of grants, one connection for it
    try:
        async with anyio.create_task_group() as group:
            for graph in graphs:
                if opened is None:
                    group.start_soon(graph.arun)
                else:
                    group.start_soon(functools.partial(arun_checkpointed, graph, opened))
    finally:
        if opened is not None:
            await opened.close()


def _figures(server: ScriptedLLM, runs: int, tpm: int, elapsed: float) -> dict[str, Any]:
    most = _most_in_a_window(server.requests)
    total = sum(tokens for _, tokens in server.requests)
    span = server.requests[-1][0] - server.requests[0][0] + WINDOW
    rate = total / span * WINDOW
    return {"runs": runs, "calls": len(server.requests), "tpm": tpm, "tokens": total, "seconds": round(elapsed, 1),
            "most_in_a_window": most, "within_limit": most <= tpm, "per_minute": round(rate, 1),
            "rate_vs_limit": round(rate / tpm, 3)}


async def pacing(runs: int, calls: int, tpm: int, max_tokens: int) -> dict[str, Any]:
    server = ScriptedLLM()
    started = time.monotonic()
    try:
        await _run_at_once(server.url, runs, calls, tpm, max_tokens, None)
    finally:
        server.close()
    return _figures(server, runs, tpm, time.monotonic() - started)


async def pacing_processes(runs: int, calls: int, tpm: int, max_tokens: int, processes: int,
                           shared: bool) -> dict[str, Any]:
    """`runs` runs at once split over `processes` processes, each process's saved in one PostgreSQL store (a
    throwaway server), which shares the limit's window between them; `shared` False: not saved, each process
    counting in its own memory (what they did before the store kept the window)."""
    from .durable import _Postgres, _pg_bin

    if not (_pg_bin("initdb") and _pg_bin("pg_ctl")):
        raise SystemExit("bench usage pacing --processes: needs PostgreSQL's initdb and pg_ctl")
    postgres = _Postgres()
    server = ScriptedLLM()
    try:
        url = postgres.start()
        shares = [runs // processes + (index < runs % processes) for index in range(processes)]
        command = [sys.executable, "-m", "bench.usage", "child", "--llm", server.url, "--calls", str(calls),
                   "--tpm", str(tpm), "--max-tokens", str(max_tokens)] + (["--store", url] if shared else [])
        started = time.monotonic()
        children = [subprocess.Popen([*command, "--runs", str(share)], cwd=ROOT) for share in shares]
        codes = [await anyio.to_thread.run_sync(child.wait) for child in children]
        elapsed = time.monotonic() - started
        if any(codes):
            raise SystemExit(f"bench usage pacing --processes: a process failed ({codes})")
    finally:
        server.close()
        postgres.stop()
    figures = _figures(server, runs, tpm, elapsed)
    return {"processes": processes, "store": "postgresql" if shared else "none (each process's memory)", **figures}


async def budgets(runs: int, budget: int, output_tokens: int) -> dict[str, Any]:
    import graphrt
    from graphrt import AgentContext, AgentInfo
    from graphrt.base.errors import BudgetExceeded

    server = ScriptedLLM(react=True, output_tokens=output_tokens)

    async def search(ctx: AgentContext) -> dict[str, Any]:
        return {"content": f"Nothing found for {ctx.inputs['arg'].get('query')}."}

    schema = {"type": "function", "function": {"name": "search", "description": "Search the pages.",
                                               "parameters": {"type": "object", "properties": {
                                                   "query": {"type": "string"}}, "required": ["query"]}}}
    tool = AgentInfo(name="searchAgent", func=search, tools=(schema,))
    config = {"global": {"baseURL": server.url, "apiKey": "sk-bench", "model": "bench"}}
    graph = graphrt.Graph(ROOT / "graphs" / "react.yaml", agents=[tool], config=config)
    spent, stopped, partial = [], 0, 0
    try:
        for index in range(runs):
            run = graph.start(inject={"tools": ["searchAgent"], "maxSteps": 200, "examples": [],
                                      "question": f"Question {index}?"}, budget={"tokens": budget})
            try:
                await run
            except BudgetExceeded:
                stopped += 1
                done = run.results(all_results=True)
                partial += "start" in done and "task" in done
            spent.append(run.usage.tokens)
    finally:
        server.close()
    bound = budget + output_tokens
    return {"runs": runs, "budget": budget, "most_output": output_tokens, "most_spent": max(spent),
            "least_spent": min(spent), "bound": bound, "within_bound": max(spent) <= bound,
            "stopped": stopped, "stopped_with_partial_results": partial}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.usage", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["pacing", "budgets", "child"])
    parser.add_argument("--runs", type=int, help="runs (pacing: at once; default 20; budgets: 100)")
    parser.add_argument("--calls", type=int, default=4, help="pacing: LLM calls per run (default 4)")
    parser.add_argument("--tpm", type=int, default=6000, help="pacing: tokens per minute (default 6,000)")
    parser.add_argument("--max-tokens", type=int, default=200, help="pacing: each call's max_tokens (default 200)")
    parser.add_argument("--processes", type=int, default=1,
                        help="pacing: split the runs over this many processes sharing one PostgreSQL store (default 1)")
    parser.add_argument("--unshared", action="store_true",
                        help="pacing with --processes: no store, each process counting in its own memory")
    parser.add_argument("--budget", type=int, default=2000, help="budgets: each run's tokens (default 2,000)")
    parser.add_argument("--output-tokens", type=int, default=40, help="budgets: what each reply writes (default 40)")
    parser.add_argument("--llm", help=argparse.SUPPRESS)  # child: the scripted server's URL
    parser.add_argument("--store", help=argparse.SUPPRESS)  # child: the store its runs are saved in
    args = parser.parse_args(argv)
    if args.what == "child":  # one of pacing's processes
        anyio.run(_run_at_once, args.llm, args.runs, args.calls, args.tpm, args.max_tokens, args.store)
        return 0
    name = args.what
    if args.what == "pacing" and args.processes > 1:
        figures = anyio.run(pacing_processes, args.runs or 20, args.calls, args.tpm, args.max_tokens, args.processes,
                            not args.unshared)
        name = f"pacing_{args.processes}_processes" + ("_unshared" if args.unshared else "")
    elif args.what == "pacing":
        figures = anyio.run(pacing, args.runs or 20, args.calls, args.tpm, args.max_tokens)
    else:
        figures = anyio.run(budgets, args.runs or 100, args.budget, args.output_tokens)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"usage_{name}_latest.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
