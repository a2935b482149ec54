"""The load generator of `python -m bench.serve`, in a process of its own: N clients POST at once.

    python -m bench.serve.loadgen http://127.0.0.1:PORT /graphs/io/runs?wait=true --runs 200
    python -m bench.serve.loadgen http://127.0.0.1:PORT /graphs/io/runs?wait=true --runs 500 --clients 10
    python -m bench.serve.loadgen http://127.0.0.1:P1,http://127.0.0.1:P2 /graphs/io/runs?wait=true

Several servers (comma-separated) share the runs: run n goes to server n mod k, as a round-robin balancer would.

By default every run is a client of its own, all at once; with `--clients N`, N clients each send their
next request as soon as their last is answered, until `--runs` are done (a closed loop: N runs in flight).
Each request opens its own connection, written by hand as
HTTP/1.1 over asyncio streams: an HTTP client library in the same process as
200 waiting clients costs more CPU than the server it measures (httpx did, on the
2-core machine of issue 26). A 429 is retried after its Retry-After. Prints one
JSON line: each run's latency (s), its `results` (or the whole answer when it did
not finish), the server's `created_at`/`updated_at`, the 429s seen and the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any
from urllib.parse import urlsplit

__all__ = ["post"]


async def post(host: str, port: int, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    """One POST on a new connection: (status, headers, JSON body)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        payload = json.dumps(body).encode()
        writer.write(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
        await writer.drain()
        status_line = await reader.readline()
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            data = await reader.readexactly(int(headers["content-length"]))
        else:
            data = await reader.read()
        return status, headers, json.loads(data) if data else None
    finally:
        writer.close()


async def _load(urls: str, path: str, runs: int, clients: int | None = None) -> dict[str, Any]:
    servers = [((parts := urlsplit(url)).hostname or "127.0.0.1", parts.port or 80) for url in urls.split(",") if url]
    latencies = [0.0] * runs
    results: list[Any] = [None] * runs
    inside = [0.0] * runs
    refused = 0

    async def one(n: int) -> None:
        nonlocal refused
        started = time.perf_counter()
        host, port = servers[n % len(servers)]
        while True:
            status, headers, answer = await post(host, port, path, {"inputs": {"n": n}})
            if status != 429:
                break
            refused += 1
            await asyncio.sleep(float(headers.get("retry-after", "1")))
        latencies[n] = time.perf_counter() - started
        finished = isinstance(answer, dict) and answer.get("status") == "finished"
        results[n] = answer.get("results") if finished else answer
        if isinstance(answer, dict) and "created_at" in answer:
            inside[n] = answer["updated_at"] - answer["created_at"]

    numbers = iter(range(runs))

    async def client() -> None:
        for n in numbers:  # one iterator shared by the clients: each takes the next run when its last is answered
            await one(n)

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(min(clients or runs, runs))))
    return {"latencies": latencies, "results": results, "inside": inside, "refused": refused,
            "wall": time.perf_counter() - started}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve.loadgen", description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the server, or several comma-separated")
    parser.add_argument("path")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--clients", type=int, help="clients sending one request after another (default: --runs)")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(_load(args.url, args.path, args.runs, args.clients))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
