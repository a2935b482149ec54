// Times js-yaml (the YAML parser GraphAI's tools use) on YAML files, as bench/yaml_styles.py times graphrt's reader.
//
//   node --expose-gc bench/yaml_runner.cjs --warmup W --repeat R FILE...
//
// js-yaml comes from bench/.node (installed by `python -m bench`, see bench/graphai.py). Prints one line,
// "BENCH_RESULT " and {file: {ms: [...], cpu_ms: [...]}} (wall time, and the process's CPU time: the machine is
// shared), or {file: "error: ..."} for a file js-yaml refuses.
"use strict";

const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const YAML = createRequire(path.join(__dirname, ".node", "package.json"))("js-yaml");

const args = { warmup: 1, repeat: 5, files: [] };
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === "--warmup") args.warmup = Number(process.argv[++i]);
  else if (arg === "--repeat") args.repeat = Number(process.argv[++i]);
  else args.files.push(arg);
}

const record = {};
for (const file of args.files) {
  const text = fs.readFileSync(file, "utf8");
  const times = { ms: [], cpu_ms: [] };
  try {
    for (let index = 0; index < args.warmup + args.repeat; index++) {
      if (global.gc) global.gc();
      const cpu = process.cpuUsage();
      const started = performance.now();
      YAML.load(text);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (index >= args.warmup) {
        times.ms.push(Math.round(elapsed * 1000) / 1000);
        times.cpu_ms.push((used.user + used.system) / 1000);
      }
    }
    record[file] = times;
  } catch (error) {
    record[file] = `error: ${String(error.reason || error.message).split("\n")[0]}`;
  }
}
process.stdout.write("BENCH_RESULT " + JSON.stringify(record) + "\n");
