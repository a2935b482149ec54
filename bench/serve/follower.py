"""The load generator of `python -m bench multiserve`, in a process of its own: clients that start runs on several
servers and follow each one's events to its end, on another server than the one that took it.

    python -m bench.serve.follower http://127.0.0.1:P1,http://127.0.0.1:P2 --graph chain --runs 300 --clients 30

Each of `--clients` clients takes the next run number n, POSTs it to server n mod k (another server when that one
does not answer: it is being killed or restarted), then reads the run's Server-Sent Events from server n + 1 mod k.
When a stream breaks (its server died) or ends before the run did (its server stopped), the client reads on from
the next server with `Last-Event-ID`, so the ids it was given tell whether an event was missed or repeated across
servers. A run is done once `GET /runs/{id}` says it ended. Prints one JSON line: per run its number, id, status,
results, event ids, the wall-clock time each event arrived, whether its stream ended with its status, how often its
stream was read again, and the POSTs that got no answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

import httpx

__all__ = ["main"]

ENDED = ("finished", "failed", "cancelled")
RETRY_SECONDS = 0.2  # a server that does not answer is being killed or restarted: the next one is tried after this
GIVE_UP_SECONDS = 300.0  # a run not ended by then is counted lost


async def _post(client: httpx.AsyncClient, urls: list[str], first: int, graph: str, n: int,
                said: dict[str, int]) -> str | None:
    """The new run's id, from the first server that takes it (None: none did before GIVE_UP_SECONDS)."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    index = first
    while time.monotonic() < deadline:
        url = urls[index % len(urls)]
        try:
            answer = await client.post(f"{url}/graphs/{graph}/runs", json={"inputs": {"n": n}})
        except httpx.HTTPError:
            said["post_unanswered"] += 1  # the run may have been saved: a run of its own, never a lost one
            answer = None
        if answer is not None and answer.status_code == 202:
            return answer.json()["id"]
        if answer is not None and answer.status_code != 503 and answer.status_code != 429:
            raise RuntimeError(f"POST {url}: {answer.status_code} {answer.text[:300]}")
        index += 1
        await asyncio.sleep(RETRY_SECONDS)
    return None


async def _follow(client: httpx.AsyncClient, urls: list[str], first: int, run_id: str,
                  seen: dict[str, Any]) -> str | None:
    """Reads the run's events until it ended, from server `first` on, the next one each time a stream breaks."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    index = first
    while time.monotonic() < deadline:
        url = urls[index % len(urls)]
        headers = {"Last-Event-ID": str(seen["ids"][-1])} if seen["ids"] else {}
        try:
            async with client.stream("GET", f"{url}/runs/{run_id}/events", headers=headers) as stream:
                if stream.status_code == 200:
                    await _read_events(stream, seen)
            run = (await client.get(f"{url}/runs/{run_id}")).json()
            if run.get("status") in ENDED:
                seen["results"] = run.get("results")
                return run["status"]
        except (httpx.HTTPError, ValueError):
            pass
        seen["reads_again"] += 1
        index += 1
        await asyncio.sleep(RETRY_SECONDS)
    return None


async def _read_events(stream: httpx.Response, seen: dict[str, Any]) -> None:
    """Each event's id and the time it arrived, until the server ends the stream; whether the last one read is the
    run's end (its status, ended)."""
    event_id: str | None = None
    ends = False
    async for line in stream.aiter_lines():
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data = json.loads(line[5:])
            ends = isinstance(data, dict) and data.get("type") == "RunStatus" and data.get("status") in ENDED
        elif line == "" and event_id is not None:
            seen["ids"].append(int(event_id))
            seen["times"].append(time.time())
            seen["ends"] = ends
            event_id = None


async def _load(urls: list[str], graph: str, runs: int, clients: int) -> dict[str, Any]:
    said = {"post_unanswered": 0}
    done: list[dict[str, Any]] = []
    numbers = iter(range(runs))
    limits = httpx.Limits(max_connections=clients * 2 + 10, max_keepalive_connections=clients * 2)

    async def one(client: httpx.AsyncClient, n: int) -> None:
        posted = time.time()
        run_id = await _post(client, urls, n, graph, n, said)
        seen: dict[str, Any] = {"ids": [], "times": [], "reads_again": 0, "results": None, "ends": False}
        status = await _follow(client, urls, n + 1, run_id, seen) if run_id is not None else None
        done.append({"n": n, "id": run_id, "status": status, "posted": posted, "ended": time.time(), **seen})

    async def client_loop(client: httpx.AsyncClient) -> None:
        for n in numbers:  # shared: each client takes the next run once its last one ended
            await one(client, n)

    started = time.time()
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), limits=limits) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(min(clients, runs))))
    return {"runs": sorted(done, key=lambda run: run["n"]), "started": started, "ended": time.time(), **said}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve.follower", description=__doc__.splitlines()[0])
    parser.add_argument("urls", help="the servers, comma-separated")
    parser.add_argument("--graph", default="chain")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--clients", type=int, default=30)
    args = parser.parse_args(argv)
    urls = [url.rstrip("/") for url in args.urls.split(",") if url]
    print(json.dumps(asyncio.run(_load(urls, args.graph, args.runs, args.clients))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
