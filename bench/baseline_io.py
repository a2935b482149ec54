"""The I/O fan-out with no engine at all: what this machine can do, as a floor for the engines.

`python -m bench.baseline_io --n 1000` starts n asyncio tasks that each take
one of 100 semaphore slots, sleep 50 ms and give it back, exactly the work of
`io_fan_out.yaml` without a graph. `node bench/baseline_io.cjs` is the same
in JavaScript. The gap between an engine and this floor is the engine's own
overhead; the gap between the floor and 500 ms is the machine's.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from ._proc import emit, peak_rss_kb
from .workloads import IO_CONCURRENCY, IO_SLEEP_MS

__all__ = ["fan_out", "main"]


async def fan_out(n: int) -> list[int]:
    slots = asyncio.Semaphore(IO_CONCURRENCY)

    async def sleeper() -> int:
        async with slots:
            await asyncio.sleep(IO_SLEEP_MS / 1000)
            return 1

    return list(await asyncio.gather(*(sleeper() for _ in range(n))))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline_io", description=__doc__)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    run_ms: list[float] = []
    result: list[int] = []
    for index in range(args.warmup + args.repeat):
        started = time.perf_counter()
        result = asyncio.run(fan_out(args.n))
        if index >= args.warmup:
            run_ms.append(round((time.perf_counter() - started) * 1000, 3))
    emit({"engine": "floor", "run_ms": run_ms, "result": {"sink": result}, "peak_rss_kb": peak_rss_kb()})


if __name__ == "__main__":
    main()
