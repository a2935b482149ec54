// Draws a graph as SVG: nodes in layers (longest path from the sources), ordered to cut crossings; a layer
// wider than MAX_ROW nodes wraps onto more rows, so a large graph stays a readable shape. The picture zooms
// (wheel, buttons), pans (drag), fits, and finds a node by name. No library: the drawing comes from
// GET /graphs (`drawing.nodes`, `drawing.edges`).
"use strict";

const GraphPicture = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const NODE_W = 156, NODE_H = 50, GAP_X = 34, GAP_Y = 62, PAD = 24;
  const MAX_ROW = 16; // nodes side by side before a layer wraps
  const LEGIBLE = 0.6; // the smallest scale a first view starts at: labels stay readable
  const MIN_SCALE = 0.02, MAX_SCALE = 4;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Layers: a node sits one below the lowest of its inputs. `update` edges loop back and are left out.
  function layers(nodes, edges) {
    const ids = nodes.map((n) => n.id);
    const preds = new Map(ids.map((id) => [id, []]));
    for (const e of edges) {
      if (e.kind !== "update" && preds.has(e.target) && preds.has(e.source) && e.source !== e.target) {
        preds.get(e.target).push(e.source);
      }
    }
    const layer = new Map();
    const visiting = new Set();
    function depth(id) {
      if (layer.has(id)) return layer.get(id);
      if (visiting.has(id)) return 0; // a cycle: cut it here
      visiting.add(id);
      let d = 0;
      for (const p of preds.get(id)) d = Math.max(d, depth(p) + 1);
      visiting.delete(id);
      layer.set(id, d);
      return d;
    }
    ids.forEach(depth);
    const rows = [];
    for (const id of ids) (rows[layer.get(id)] ||= []).push(id);
    // Two sweeps of barycenters: each node near the mean position of its inputs.
    const pos = new Map();
    rows.forEach((row) => row.forEach((id, i) => pos.set(id, i)));
    for (let sweep = 0; sweep < 2; sweep++) {
      for (let r = 1; r < rows.length; r++) {
        const centre = (id) => {
          const ps = preds.get(id).filter((p) => layer.get(p) < r);
          return ps.length ? ps.reduce((s, p) => s + pos.get(p), 0) / ps.length : pos.get(id);
        };
        rows[r].sort((a, b) => centre(a) - centre(b));
        rows[r].forEach((id, i) => pos.set(id, i));
      }
    }
    const wrapped = [];
    for (const row of rows.filter(Boolean)) {
      for (let i = 0; i < row.length; i += MAX_ROW) wrapped.push(row.slice(i, i + MAX_ROW));
    }
    return wrapped;
  }

  // `states`: the server's node states by name (WAITING, EXECUTING, ...); `onSelect(id)`: a node was clicked.
  function draw(container, drawing, states, onSelect) {
    container.textContent = "";
    const nodes = drawing.nodes;
    const rows = layers(nodes, drawing.edges);
    const widest = Math.max(1, ...rows.map((row) => row.length));
    const width = PAD * 2 + widest * NODE_W + (widest - 1) * GAP_X + NODE_W; // room on the right for edges around
    const height = PAD * 2 + rows.length * NODE_H + (rows.length - 1) * GAP_Y;
    const view = viewport(container, width, height);
    const svg = view.svg;
    const defs = el("defs", {}, svg);
    const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#9aa3b5" }, marker);

    const at = new Map();
    rows.forEach((row, r) => {
      const rowWidth = row.length * NODE_W + (row.length - 1) * GAP_X;
      const x0 = (width - NODE_W - rowWidth) / 2;
      row.forEach((id, i) => at.set(id, { x: x0 + i * (NODE_W + GAP_X), y: PAD + r * (NODE_H + GAP_Y) }));
    });

    // Edges between the same two nodes (two inputs from one node, say) are fanned out, and so are their labels.
    const parallel = new Map();
    for (const e of drawing.edges) {
      const pair = `${e.source}\u0000${e.target}`;
      parallel.set(pair, (parallel.get(pair) || 0) + 1);
    }
    const seen = new Map();
    const edgeLayer = el("g", { class: "edges" }, view.content);
    for (const e of drawing.edges) {
      const a = at.get(e.source), b = at.get(e.target);
      if (!a || !b) continue;
      const pair = `${e.source}\u0000${e.target}`;
      const count = parallel.get(pair), index = seen.get(pair) || 0;
      seen.set(pair, index + 1);
      const fan = (index - (count - 1) / 2) * Math.min(28, (NODE_W - 20) / Math.max(1, count - 1));
      const g = el("g", { class: `edge ${e.kind}`, "data-edge": `${e.source}>${e.target}` }, edgeLayer);
      let d, lx, ly, anchor = "middle";
      if (b.y > a.y) {
        const x1 = a.x + NODE_W / 2 + fan, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2 + fan, y2 = b.y;
        const my = (y1 + y2) / 2;
        if (y2 - y1 > NODE_H + GAP_Y) { // past other layers: around them, beside the nodes in between
          const xs = Math.max(x1, x2) + NODE_W / 2 + GAP_X / 2, r = 18;
          d = `M${x1},${y1} C${x1},${y1 + r * 2} ${xs},${y1 + r} ${xs},${y1 + GAP_Y / 2 + r}` +
              ` L${xs},${y2 - GAP_Y / 2 - r} C${xs},${y2 - r} ${x2},${y2 - r * 2} ${x2},${y2}`;
          lx = xs + 4; ly = my + index * 13; anchor = "start";
        } else {
          d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
          lx = (x1 + x2) / 2; ly = my - 3 + (index - (count - 1) / 2) * 13;
        }
      } else { // back or sideways (update, loop): around the right side
        const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x + NODE_W, y2 = b.y + NODE_H / 2;
        const bulge = Math.max(x1, x2) + 30 + index * 16;
        d = `M${x1},${y1} C${bulge},${y1} ${bulge},${y2} ${x2},${y2}`;
        lx = bulge + 4; ly = (y1 + y2) / 2 + index * 13; anchor = "start";
      }
      el("path", { d, "marker-end": "url(#arrow)" }, g);
      if (e.label) {
        const t = el("text", { x: lx, y: ly, "text-anchor": anchor }, g);
        t.textContent = e.label.length > 18 ? e.label.slice(0, 17) + "…" : e.label;
      }
    }

    const nodeLayer = el("g", { class: "nodes" }, view.content);
    const shapes = new Map();
    for (const n of nodes) {
      const p = at.get(n.id);
      const classes = ["node", n.kind, n.result ? "result" : "", n.kind === "computed" ? `state-${states.WAITING}` : ""];
      const g = el("g", { class: classes.join(" ").trim(), transform: `translate(${p.x},${p.y})`, "data-node": n.id,
                          "data-state": n.kind === "computed" ? states.WAITING : n.kind }, nodeLayer);
      const radius = n.kind === "static" || n.kind === "injected" ? 22 : n.kind === "loop" ? 2 : 8;
      el("rect", { width: NODE_W, height: NODE_H, rx: radius, ry: radius }, g);
      const title = el("title", {}, g);
      title.textContent = n.agent ? `${n.label} (${n.agent})` : n.label;
      const name = el("text", { x: NODE_W / 2, y: n.agent ? 21 : 30, "text-anchor": "middle" }, g);
      name.textContent = n.label.length > 20 ? n.label.slice(0, 19) + "…" : n.label;
      let agent = null;
      if (n.agent) {
        agent = el("text", { x: NODE_W / 2, y: 37, "text-anchor": "middle", class: "agent" }, g);
        agent.textContent = n.agent;
      }
      shapes.set(n.id, { group: g, agent, name: n.agent || "" });
      if (onSelect) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.addEventListener("click", () => onSelect(n.id));
        g.addEventListener("keydown", (event) => { if (event.key === "Enter") onSelect(n.id); });
      }
    }
    view.start();
    return {
      select(id) {
        for (const [key, shape] of shapes) shape.group.classList.toggle("selected", key === id);
      },
      // Centres the view on a node (at a readable scale) and marks it; false if no node has that id.
      focus(id) {
        const p = at.get(id);
        if (!p) return false;
        view.centre(p.x + NODE_W / 2, p.y + NODE_H / 2);
        for (const [key, shape] of shapes) shape.group.classList.toggle("found", key === id);
        return true;
      },
      // The ids of the nodes whose id or agent contains `text` (case does not matter).
      find(text) {
        const wanted = text.trim().toLowerCase();
        if (!wanted) return [];
        return nodes.filter((n) => n.id.toLowerCase().includes(wanted) || (n.agent || "").toLowerCase().includes(wanted))
          .map((n) => n.id);
      },
      fit: () => view.fit(),
      zoom: (factor) => view.zoomBy(factor),
      scale: () => view.scale(),
      setState(id, state) {
        const shape = shapes.get(id);
        if (!shape || !shape.group.classList.contains("computed")) return;
        for (const c of [...shape.group.classList]) if (c.startsWith("state-")) shape.group.classList.remove(c);
        shape.group.classList.add(`state-${state}`);
        shape.group.setAttribute("data-state", state);
        if (state !== states.EXECUTING && shape.agent) { // the agent's name again, in place of streamed text
          shape.agent.textContent = shape.name;
          shape.agent.setAttribute("class", "agent");
        }
      },
      // While a node streams text, its last words show in place of its agent's name.
      setTokens(id, text) {
        const shape = shapes.get(id);
        if (!shape || !shape.agent || shape.group.getAttribute("data-state") !== states.EXECUTING) return;
        const tail = text.trim().slice(-22);
        shape.agent.textContent = text.trim().length > 22 ? "…" + tail : tail;
        shape.agent.setAttribute("class", "agent tokens");
      },
    };
  }

  // The SVG element, sized to its panel, and a group whose transform zooms and pans the content.
  function viewport(container, width, height) {
    const box = container.getBoundingClientRect();
    const viewW = Math.max(320, Math.round(box.width || 640));
    const viewH = Math.max(260, Math.min(Math.round(window.innerHeight * 0.72), Math.round(height * Math.min(1, viewW / width)) + 8, 900));
    const svg = el("svg", { width: viewW, height: viewH, viewBox: `0 0 ${viewW} ${viewH}`, role: "img", class: "graph-picture" }, container);
    const content = el("g", { class: "viewport" }, svg);
    let k = 1, tx = 0, ty = 0;
    const apply = () => {
      content.setAttribute("transform", `translate(${tx.toFixed(1)},${ty.toFixed(1)}) scale(${k.toFixed(4)})`);
      svg.dataset.scale = k.toFixed(3);
    };
    const fitScale = () => Math.min(viewW / width, viewH / height, 1);
    const view = {
      svg, content,
      scale: () => k,
      fit() { k = fitScale(); tx = (viewW - width * k) / 2; ty = (viewH - height * k) / 2; apply(); },
      start() { // the whole graph if it is legible so; else readable, from the top
        const fitted = fitScale();
        if (fitted >= LEGIBLE) { view.fit(); return; }
        k = LEGIBLE; tx = (viewW - width * k) / 2; ty = 0;
        tx = Math.min(0, Math.max(viewW - width * k, tx));
        apply();
      },
      zoomAt(factor, cx, cy) {
        const next = Math.min(MAX_SCALE, Math.max(MIN_SCALE, k * factor));
        tx = cx - (cx - tx) * (next / k); ty = cy - (cy - ty) * (next / k); k = next; apply();
      },
      zoomBy(factor) { view.zoomAt(factor, viewW / 2, viewH / 2); },
      centre(x, y) { k = Math.max(k, 1); tx = viewW / 2 - x * k; ty = viewH / 2 - y * k; apply(); },
    };
    svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      const r = svg.getBoundingClientRect();
      view.zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - r.left, event.clientY - r.top);
    }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      drag = { x: event.clientX, y: event.clientY, tx, ty, moved: false };
    });
    svg.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return; // a click, not a drag
      if (!drag.moved) { drag.moved = true; svg.setPointerCapture(event.pointerId); svg.classList.add("panning"); }
      tx = drag.tx + dx; ty = drag.ty + dy; apply();
    });
    const end = (event) => {
      if (drag && drag.moved) {
        svg.classList.remove("panning");
        // The click that ends a drag selects nothing.
        svg.addEventListener("click", (click) => click.stopPropagation(), { capture: true, once: true });
      }
      drag = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    apply();
    return view;
  }

  return { draw };
})();
