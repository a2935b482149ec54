"""`python -m bench.viewer`: how long the run viewer takes to draw a graph of 100, 1,000 and 5,000 nodes.

The viewer's own files (graphrt/serve/static/graph.js and style.css) are loaded
into Debian's chromium (headless, through Playwright's `executable_path`, no
browser download), and `GraphPicture.draw` draws layered graphs: `--width`
nodes a layer, each reading two nodes of the layer above. Each size is drawn
`--repeat` times after one untimed drawing; the table gives the median time of
`draw` (layout and SVG) and of `draw` plus the browser's first layout and paint
of it (a forced reflow, then a frame). GraphAI and LangGraph ship no viewer, so
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
  const started = performance.now();
  GraphPicture.draw(box, drawing, states, () => {});
  const drawn = performance.now();
  box.getBoundingClientRect(); document.body.offsetHeight; // layout
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return { draw: drawn - started, painted: performance.now() - started, nodes: nodes.length };
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
                rows.append({"nodes": runs[0]["nodes"], "draw_ms": statistics.median(r["draw"] for r in runs),
                             "painted_ms": statistics.median(r["painted"] for r in runs), "repeat": repeat})
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
    print(f"| nodes | draw (median of {args.repeat}) | draw + first layout and paint |")
    print("|---:|---:|---:|")
    for row in rows:
        print(f"| {row['nodes']:,} | {row['draw_ms']:.1f} ms | {row['painted_ms']:.1f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
