"""`python -m bench.viewer`: how long the run viewer takes to draw a graph of 100, 1,000 and 5,000 nodes.

The viewer's own files (graphrt/serve/static/graph.js and style.css) are loaded
into Debian's chromium (headless, through Playwright's `executable_path`, no
browser download), and `GraphPicture.draw` draws layered graphs: `--width`
nodes a layer, each reading two nodes of the layer above. Each size is drawn
`--repeat` times after one untimed drawing; the table gives the median time of
`draw` (layout and SVG) and of `draw` plus the browser's first layout and paint
of it (a forced reflow, then a frame); then, on the drawn picture, of a pan step
and a zoom step until painted (the median of 8 each, at the first view), of
fitting the whole graph in view, and of a pan step of the fitted picture. GraphAI and LangGraph ship no viewer, so
there is nothing to set beside it.

    .venv/bin/python -m bench.viewer                  # 100, 1000, 5000 nodes
    .venv/bin/python -m bench.viewer --sizes 500 --repeat 9
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "graphrt" / "serve" / "static"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

_DRAW = """
async ([size, width]) => {
  const nodes = [{ id: "seed", label: "seed", kind: "static" }], edges = [];
  const layers = Math.ceil(size / width);
  for (let layer = 0; layer < layers; layer++) {
    for (let i = 0; i < width && nodes.length <= size; i++) {
      const id = `n${layer}_${i}`;
      nodes.push({ id, label: id, kind: "computed", agent: "copyAgent" });
      if (layer === 0) edges.push({ source: "seed", target: id, label: "", kind: "data" });
      else {
        edges.push({ source: `n${layer - 1}_${i}`, target: id, label: "x", kind: "data" });
        edges.push({ source: `n${layer - 1}_${(i + 1) % width}`, target: id, label: "y", kind: "data" });
      }
    }
  }
  const states = { WAITING: "waiting", EXECUTING: "executing" };
  const box = document.getElementById("drawing");
  const ids = new Set(nodes.map((n) => n.id));
  const drawing = { nodes, edges: edges.filter((e) => ids.has(e.target)) };
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const started = performance.now();
  const picture = GraphPicture.draw(box, drawing, states, () => {});
  const drawn = performance.now();
  box.getBoundingClientRect(); document.body.offsetHeight; // layout
  await frame();
  const painted = performance.now() - started;
  // Interaction: each step until it is painted; the median of the steps of each kind.
  const timed = async (step) => { const t = performance.now(); step(); document.body.offsetHeight; await frame();
                                  return performance.now() - t; };
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pans = [], zooms = [], fitted = [];
  for (let i = 0; i < 8; i++) pans.push(await timed(() => picture.panBy(i % 2 ? -120 : 120, 90)));
  for (let i = 0; i < 8; i++) zooms.push(await timed(() => picture.zoom(i % 2 ? 1 / 1.25 : 1.25)));
  fitted.push(await timed(() => picture.fit()));  // the whole graph in view: the far level of detail
  for (let i = 0; i < 8; i++) fitted.push(await timed(() => picture.panBy(i % 2 ? -40 : 40, 30)));
  return { draw: drawn - started, painted, nodes: nodes.length, pan: median(pans), zoom: median(zooms),
           fit: fitted[0], fitPan: median(fitted.slice(1)) };
}
"""


def measure(sizes: list[int], width: int, repeat: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    page_html = (f"<html><head><style>{(STATIC / 'style.css').read_text()}</style></head>"
                 "<body><div id='drawing' style='width:900px'></div></body></html>")
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_content(page_html)
            page.add_script_tag(content=(STATIC / "graph.js").read_text())
            for size in sizes:
                page.evaluate(_DRAW, [size, width])  # untimed: the engine compiles the code first
                runs = [page.evaluate(_DRAW, [size, width]) for _ in range(repeat)]
                rows.append({"nodes": runs[0]["nodes"], "repeat": repeat,
                             **{f"{key}_ms": statistics.median(r[key] for r in runs)
                                for key in ("draw", "painted", "pan", "zoom", "fit", "fitPan")}})
        finally:
            browser.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.viewer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000], help="node counts")
    parser.add_argument("--width", type=int, default=50, help="nodes a layer (default 50)")
    parser.add_argument("--repeat", type=int, default=5, help="timed drawings of each size (default 5)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"bench.viewer: {CHROMIUM} is not installed (apt-get install chromium)", file=sys.stderr)
        return 1
    rows = measure(args.sizes, args.width, args.repeat)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"| nodes | draw | draw + first paint | pan step | zoom step | fit | pan step, fitted |  (medians of {args.repeat})")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['nodes']:,} | " + " | ".join(f"{row[key + '_ms']:.1f} ms" for key in
                                                  ("draw", "painted", "pan", "zoom", "fit", "fitPan")) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
