"""`python -m bench storage`: the bytes a served run leaves in its store, SQLite and PostgreSQL, and what retention keeps.

Each graph runs `--runs` times through graphrt serve's RunService (the queue, the
checkpointed run, the event log saved as it grows), into a store of its own:

- hello: graphs/hello.yaml, one template node;
- chain: 20 copyAgent nodes, each taking the one before;
- map: graphs/fruit_map.yaml over 50 rows (a nested graph per row, its events too);
- streamed: one node that streams 400 tokens, as an LLM agent does (a TokenDelta event each), then returns the text.

LangGraph's SQLite checkpointer (langgraph-checkpoint-sqlite, the bench extra) keeps
the same hello and chain, a thread per run, side by side; it has no event log and
no retention, and GraphAI keeps nothing, so neither has more rows.

The store's own figures are read once the runs are saved: SQLite's `dbstat` (the
pages of each table and its indexes) and PostgreSQL's `pg_total_relation_size`
(table, indexes, TOAST; dead row versions of the runs' status updates included,
as autovacuum finds them), less what the empty tables take. "Checkpoint" is a run's
record and rows (`graphrt_runs`, `graphrt_rows`: all that `graphrt run --checkpoint`
keeps), "event log" its saved events (`graphrt_events`), which only a server keeps.
Then retention keeps the newest quarter (`Retention(keep_runs=runs // 4)`, as
`--keep-runs` does) and the store is read again: what the kept runs take, and
the file, whose freed pages SQLite keeps for the runs that follow.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from graphrt.base.defaults import KEEP_RUNS  # graphrt serve's default --keep-runs

__all__ = ["main"]

ROOT = Path(__file__).resolve().parent.parent
TOKENS = 400


def _graphs() -> dict[str, str]:
    chain = {"version": 0.5, "nodes": {"n0": {"value": {"text": "a value passed along", "n": 0}}}}
    for number in range(1, 21):
        chain["nodes"][f"n{number}"] = {"agent": "copyAgent", "inputs": {"value": f":n{number - 1}"}}
    chain["nodes"]["n20"]["isResult"] = True
    fruit_map = (ROOT / "graphs" / "fruit_map.yaml").read_text(encoding="utf-8")
    rows = json.dumps([f"fruit {number}" for number in range(50)])
    streamed = {"version": 0.5, "nodes": {
        "prompt": {"value": "Tell me about dataflow graphs."},
        "reply": {"agent": "streamerAgent", "inputs": {"prompt": ":prompt"}, "isResult": True}}}
    return {
        "hello": (ROOT / "graphs" / "hello.yaml").read_text(encoding="utf-8"),
        "chain": json.dumps(chain),
        "map": fruit_map.replace("value: [apple, lemon, cherry]", f"value: {rows}"),
        "streamed": json.dumps(streamed),
    }


def _streamer() -> Any:
    from graphrt.authoring.agent_info import AgentContext, AgentInfo

    async def streamer(ctx: AgentContext) -> dict[str, Any]:
        words = [f"word{number % 97} " for number in range(TOKENS)]
        for word in words:
            ctx.stream_token(word)
        return {"text": "".join(words)}

    return AgentInfo(name="streamerAgent", func=streamer)


# ----- measuring a store -----


async def _sqlite_sizes(store: Any) -> dict[str, int]:
    """Bytes of each graphrt table with its indexes (SQLite's dbstat), and of the whole file."""
    rows = await store._read("SELECT m.tbl_name, SUM(d.pgsize) FROM dbstat AS d JOIN sqlite_master AS m "
                             "ON d.name = m.name GROUP BY m.tbl_name")
    sizes = {name: int(size) for name, size in rows if name.startswith("graphrt_")}
    pages = await store._read("PRAGMA page_count")
    page_size = await store._read("PRAGMA page_size")
    sizes["file"] = int(pages[0][0]) * int(page_size[0][0])
    return sizes


async def _postgres_sizes(store: Any) -> dict[str, int]:
    tables = ("graphrt_runs", "graphrt_rows", "graphrt_events", "graphrt_webhooks")
    sizes = {}
    for table in tables:
        found = await store._read(f"SELECT pg_total_relation_size('{table}')")
        sizes[table] = int(found[0][0])
    sizes["file"] = sum(sizes.values())
    return sizes


async def _payload(store: Any) -> dict[str, int]:
    """What the runs' saved values themselves take (the text of records, rows and events), and the events."""
    events = await store._read("SELECT COUNT(*), COALESCE(SUM(LENGTH(record)), 0) FROM graphrt_events")
    rows = await store._read("SELECT COUNT(*), COALESCE(SUM(LENGTH(value)), 0) FROM graphrt_rows")
    return {"events": int(events[0][0]), "event_text": int(events[0][1]), "rows": int(rows[0][0]),
            "row_text": int(rows[0][1])}


async def _measure(kind: str, target: str, name: str, text: str, runs: int) -> dict[str, Any]:
    import anyio

    from graphrt.checkpoint import open_store
    from graphrt.engine.graph import make_registry
    from graphrt.serve import GraphCatalog
    from graphrt.serve.retention import Retention
    from graphrt.serve.runs import RunService
    from graphrt.serve.settings import ServerSettings

    sizes_of = _sqlite_sizes if kind == "sqlite" else _postgres_sizes
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "graphs"
        folder.mkdir()
        (folder / f"{name}.{'yaml' if name in ('hello', 'map') else 'json'}").write_text(text, encoding="utf-8")
        store = open_store(target)
        try:
            await store.check()
            empty = await sizes_of(store)
            service = RunService(GraphCatalog([folder], make_registry([_streamer()])), store,
                                 ServerSettings(max_runs=8, max_queue=runs, retention=Retention(keep_runs=None)))
            async with anyio.create_task_group() as tg:
                await tg.start(service.serve)
                started = [await service.submit(name) for _ in range(runs)]
                for run in started:
                    await run.settled()
                    while not run.events.closed:  # every event saved
                        await run.events.wait(run.events.last_id, 1.0)
                failed = [run.error for run in started if run.status != "finished"]
                if failed:
                    raise SystemExit(f"bench storage: {name} failed: {failed[0]}")
                full = await sizes_of(store)
                payload = await _payload(store)
                await Retention(keep_runs=runs // 4).sweep(service.store)
                kept = await sizes_of(store)
                tg.cancel_scope.cancel()
        finally:
            await store.close()

    def per_run(sizes: dict[str, int], tables: tuple[str, ...], count: int) -> float:
        return sum(sizes.get(table, 0) - empty.get(table, 0) for table in tables) / count

    checkpoint = ("graphrt_runs", "graphrt_rows")
    return {
        "store": kind, "graph": name, "runs": runs,
        "checkpoint": per_run(full, checkpoint, runs),
        "events": per_run(full, ("graphrt_events",), runs),
        "total": per_run(full, (*checkpoint, "graphrt_events", "graphrt_webhooks"), runs),
        "events_per_run": payload["events"] / runs,
        "event_text": payload["event_text"] / runs,
        "row_text": payload["row_text"] / runs,
        "kept_runs": runs // 4,
        "kept_total": sum(kept.get(t, 0) - empty.get(t, 0) for t in (*checkpoint, "graphrt_events")),
        "file_before": full["file"], "file_after": kept["file"],
    }


# ----- LangGraph, side by side: the same hello and chain with its SQLite checkpointer -----


def _langgraph_builder(name: str) -> Any:
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        name: str
        greeting: str
        value: dict[str, Any]

    graph = StateGraph(State)
    if name == "hello":
        graph.add_node("greeting", lambda state: {"greeting": f"Hello, {state['name']}!"})
        graph.add_edge(START, "greeting")
        graph.add_edge("greeting", END)
        return graph, {"name": "World"}
    for number in range(1, 21):  # each node passes the value on, as the chain's copyAgent nodes do
        graph.add_node(f"n{number}", lambda state: {"value": dict(state["value"])})
        graph.add_edge(START if number == 1 else f"n{number - 1}", f"n{number}")
    graph.add_edge("n20", END)
    return graph, {"value": {"text": "a value passed along", "n": 0}}


async def _measure_langgraph(name: str, path: Path, runs: int) -> dict[str, Any]:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    graph, start = _langgraph_builder(name)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        compiled = graph.compile(checkpointer=saver)
        await saver.setup()

        async def sizes() -> dict[str, int]:
            async with saver.conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name") as cursor:
                return {table: int(size) for table, size in await cursor.fetchall()}

        empty = await sizes()
        for number in range(runs):
            await compiled.ainvoke(start, {"configurable": {"thread_id": f"run-{number}"}})
        full = await sizes()
    total = sum(full.values()) - sum(empty.get(table, 0) for table in full)
    return {"store": "sqlite (LangGraph)", "graph": name, "runs": runs, "checkpoint": total / runs,
            "events": 0.0, "total": total / runs, "events_per_run": 0.0, "event_text": 0.0, "row_text": 0.0,
            "kept_runs": None, "kept_total": 0, "file_before": sum(full.values()), "file_after": None}


# ----- the driver -----


def _kib(value: float) -> str:
    return f"{value / 1024:,.1f}"


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| store | graph | events a run | checkpoint a run (KiB) | event log a run (KiB) | both (KiB) | "
        "text saved a run (KiB) | at --keep-runs 10,000 (MiB) | retention kept (runs: KiB) | file before → after (KiB) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for item in results:
        if item["kept_runs"] is None:  # LangGraph: no event log, no retention of its own
            lines.append(f"| {item['store']} | {item['graph']} | – | {_kib(item['checkpoint'])} | – | "
                         f"{_kib(item['total'])} | – | {item['total'] * KEEP_RUNS / 1024 / 1024:,.1f} | – | – |")
            continue
        lines.append(
            f"| {item['store']} | {item['graph']} | {item['events_per_run']:,.0f} | {_kib(item['checkpoint'])} | "
            f"{_kib(item['events'])} | {_kib(item['total'])} | {_kib(item['event_text'] + item['row_text'])} | "
            f"{item['total'] * KEEP_RUNS / 1024 / 1024:,.1f} | {item['kept_runs']}: {_kib(item['kept_total'])} | "
            f"{_kib(item['file_before'])} → {_kib(item['file_after'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench storage", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200, help="runs of each graph (default: 200)")
    parser.add_argument("--graphs", default="hello,chain,map,streamed", help="which graphs (default: all four)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    args = parser.parse_args(argv)

    import anyio

    from .durable import _Postgres, _pg_bin

    graphs = _graphs()
    names = [name.strip() for name in args.graphs.split(",") if name.strip()]
    server = None if args.no_postgres or not (_pg_bin("initdb") and _pg_bin("pg_ctl")) else _Postgres()
    if server is None:
        print("bench storage: PostgreSQL left out (initdb and pg_ctl not found, or --no-postgres)", file=sys.stderr)
    url = server.start() if server is not None else None
    results = []
    try:
        with tempfile.TemporaryDirectory() as temporary:
            for number, name in enumerate(names):
                targets = [("sqlite", str(Path(temporary) / f"{name}.db"))]
                if url is not None:
                    import psycopg

                    schema = f"storage_{number}"
                    with psycopg.connect(url, autocommit=True) as connection:
                        connection.execute(f"CREATE SCHEMA {schema}")
                    targets.append(("postgres", f"{url}?options=-csearch_path%3D{schema}"))
                for kind, target in targets:
                    result = anyio.run(_measure, kind, target, name, graphs[name], args.runs)
                    print(f"{kind:8s} {name:8s} {_kib(result['total'])} KiB a run "
                          f"({result['events_per_run']:.0f} events)", file=sys.stderr, flush=True)
                    results.append(result)
            for name in [name for name in names if name in ("hello", "chain")]:
                try:
                    result = anyio.run(_measure_langgraph, name, Path(temporary) / f"langgraph-{name}.db", args.runs)
                except ImportError:
                    print("bench storage: LangGraph left out: pip install -e '.[bench]'", file=sys.stderr)
                    break
                print(f"langgraph {name:8s} {_kib(result['total'])} KiB a run", file=sys.stderr, flush=True)
                results.append(result)
    finally:
        if server is not None:
            server.stop()
    order = {"sqlite": 0, "sqlite (LangGraph)": 1, "postgres": 2}
    results.sort(key=lambda item: (order[item["store"]], names.index(item["graph"])))
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
