"""The load generator of `python -m bench.serve`, in a process of its own: N clients POST at once.

    python -m bench.serve.loadgen http://127.0.0.1:PORT /graphs/io/runs?wait=true --runs 200

Each client opens its own connection and sends one request, written by hand as
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


async def _load(url: str, path: str, runs: int) -> dict[str, Any]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    latencies = [0.0] * runs
    results: list[Any] = [None] * runs
    inside = [0.0] * runs
    refused = 0

    async def one(n: int) -> None:
        nonlocal refused
        started = time.perf_counter()
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

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(runs)))
    return {"latencies": latencies, "results": results, "inside": inside, "refused": refused,
            "wall": time.perf_counter() - started}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve.loadgen", description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("path")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(_load(args.url, args.path, args.runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
