// The I/O fan-out with no engine: n promises, at most 100 sleeping 50 ms at once (see bench/baseline_io.py).
//
//   node bench/baseline_io.cjs [--n 1000] [--warmup W] [--repeat R]
"use strict";

const CONCURRENCY = 100;
const SLEEP_MS = 50;

function parseArgs(argv) {
  const args = { n: 1000, warmup: 0, repeat: 1 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (key in args) args[key] = Number(argv[++i]);
  }
  return args;
}

async function fanOut(n) {
  let free = CONCURRENCY;
  const waiting = [];
  const take = () => (free > 0 ? (free--, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve)));
  const give = () => (waiting.length ? waiting.shift()() : free++);
  const sleeper = async () => {
    await take();
    await new Promise((resolve) => setTimeout(resolve, SLEEP_MS));
    give();
    return 1;
  };
  return Promise.all(Array.from({ length: n }, sleeper));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const runMs = [];
  let result = [];
  for (let index = 0; index < args.warmup + args.repeat; index++) {
    const started = performance.now();
    result = await fanOut(args.n);
    if (index >= args.warmup) runMs.push(Math.round((performance.now() - started) * 1000) / 1000);
  }
  const record = { engine: "node", run_ms: runMs, result: { sink: result }, peak_rss_kb: process.resourceUsage().maxRSS };
  process.stdout.write("BENCH_RESULT " + JSON.stringify(record) + "\n");
}

main();
