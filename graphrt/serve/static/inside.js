// Inside a node: a nested graph (nestedAgent, mapAgent: one picture per map row) drawn in place, and a loop's
// iterations stepped through. Node keys are paths: "outer/inner", "map/2/inner" (row 2), as the server names them;
// GET /runs/{id}/nodes gives each node's state now and, for a looping graph, in each earlier iteration ("past").
"use strict";

const Inside = (() => {
  // The nested drawing's key (the graph's node ids, no map rows): "map/2/inner" -> "map/inner".
  function drawingKey(key) {
    return key.split("/").filter((part) => !/^\d+$/.test(part)).join("/");
  }

  // The map rows the server has seen nodes of under `key` ("map/0/x", "map/1/x" -> [0, 1]); [] for a nestedAgent.
  function rowsOf(key, summary) {
    const rows = new Set();
    const prefix = `${key}/`;
    for (const other of Object.keys(summary)) {
      if (!other.startsWith(prefix)) continue;
      const next = other.slice(prefix.length).split("/")[0];
      if (/^\d+$/.test(next)) rows.add(Number(next));
    }
    return [...rows].sort((a, b) => a - b);
  }

  // How many iterations the graph at `prefix` ("" for the top) has run: the most any of its nodes has seen.
  function iterationsOf(summary, prefix) {
    let most = 0;
    for (const [key, node] of Object.entries(summary)) {
      if (under(key, prefix)) most = Math.max(most, (node.iteration || 0) + 1);
    }
    return most;
  }

  function under(key, prefix) {
    if (!prefix) return !key.includes("/");
    return key.startsWith(`${prefix}/`) && !key.slice(prefix.length + 1).includes("/");
  }

  // Each node's state in `iteration` of the graph at `prefix` (null: as it is now), by node id.
  function statesAt(summary, prefix, iteration, waiting) {
    const states = {};
    for (const [key, node] of Object.entries(summary)) {
      if (!under(key, prefix)) continue;
      let shown = node.state;
      if (iteration !== null && iteration !== node.iteration) {
        const past = (node.past || []).find((entry) => entry.iteration === iteration);
        shown = past ? past.state : waiting;
      }
      states[node.node_id] = shown;
    }
    return states;
  }

  function button(text, title, onClick) {
    const control = document.createElement("button");
    control.type = "button";
    control.className = "step";
    control.textContent = text;
    control.title = title;
    control.addEventListener("click", onClick);
    return control;
  }

  // ◀ iteration N of M ▶ (and "now", the live state); `onStep(index or null)`.
  function stepper(count, current, onStep) {
    const bar = document.createElement("div");
    bar.className = "stepper";
    const label = document.createElement("span");
    label.className = "step-label";
    let at = current;
    const show = () => {
      label.textContent = at === null ? `now (iteration ${count} of ${count})` : `iteration ${at + 1} of ${count}`;
      back.disabled = (at === null ? count - 1 : at) <= 0;
      forward.disabled = at === null;
    };
    const back = button("◀", "the iteration before", () => { at = (at === null ? count - 1 : at) - 1; show(); onStep(at); });
    const forward = button("▶", "the next iteration", () => {
      at = at + 1 >= count - 1 ? null : at + 1; show(); onStep(at);
    });
    bar.append(back, label, forward);
    show();
    return bar;
  }

  return { drawingKey, rowsOf, iterationsOf, statesAt, stepper };
})();
