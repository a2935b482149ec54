// Runs one workload file on GraphAI (node) and prints its timings, as bench/engine_graphrt.py does.
//
//   node --expose-gc bench/graphai_runner.cjs FILE [--warmup W] [--repeat R] [--checkpoints 1000,2000]
//
// Packages come from bench/.node (installed by `python -m bench`, see bench/graphai.py).
// Each repetition parses the YAML text (timed alone), builds a GraphAI with every
// @graphai/vanilla agent, and runs it. The result line starts with "BENCH_RESULT ".
"use strict";

const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const local = createRequire(path.join(__dirname, ".node", "package.json"));
const { GraphAI } = local("graphai");
const vanilla = local("@graphai/vanilla");
const YAML = local("js-yaml");

const agents = Object.fromEntries(Object.entries(vanilla).filter(([name]) => name.endsWith("Agent")));

function parseArgs(argv) {
  const args = { file: null, warmup: 0, repeat: 1, checkpoints: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--warmup") args.warmup = Number(argv[++i]);
    else if (arg === "--repeat") args.repeat = Number(argv[++i]);
    else if (arg === "--checkpoints") args.checkpoints = argv[++i].split(",").map(Number);
    else args.file = arg;
  }
  return args;
}

const ms = (from, to) => Math.round((to - from) * 1000) / 1000;
const collect = () => (global.gc ? global.gc() : undefined);

async function measure(text, warmup, repeat) {
  const record = { parse_ms: [], build_ms: [], run_ms: [], result: null };
  for (let index = 0; index < warmup + repeat; index++) {
    collect();
    const started = performance.now();
    const data = YAML.load(text);
    const parsed = performance.now();
    const graph = new GraphAI(data, agents);
    const built = performance.now();
    record.result = await graph.run();
    const finished = performance.now();
    if (index >= warmup) {
      record.parse_ms.push(ms(started, parsed));
      record.build_ms.push(ms(parsed, built));
      record.run_ms.push(ms(built, finished));
    }
  }
  return record;
}

// One run that samples memory as loop iterations pass, through GraphAI's log callback.
async function measureMemory(text, checkpoints) {
  const data = YAML.load(text);
  collect();
  const wanted = [...checkpoints].sort((a, b) => a - b);
  const samples = [];
  const started = performance.now();
  const graph = new GraphAI(data, agents);
  graph.onLogCallback = () => {
    while (wanted.length && graph.repeatCount >= wanted[0]) {
      const usage = process.memoryUsage();
      samples.push({ iteration: wanted.shift(), rss_kb: Math.round(usage.rss / 1024), heap_kb: Math.round(usage.heapUsed / 1024) });
    }
  };
  const result = await graph.run();
  return { run_ms: [ms(started, performance.now())], result, samples };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const text = fs.readFileSync(args.file, "utf-8");
  const record = args.checkpoints.length ? await measureMemory(text, args.checkpoints) : await measure(text, args.warmup, args.repeat);
  record.engine = "graphai";
  record.version = local("graphai/package.json").version;
  record.vanilla_version = local("@graphai/vanilla/package.json").version;
  record.node_version = process.version;
  record.peak_rss_kb = process.resourceUsage().maxRSS;
  process.stdout.write("BENCH_RESULT " + JSON.stringify(record) + "\n");
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
