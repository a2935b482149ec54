// Draws a graph as SVG: nodes in layers (longest path from the sources), ordered to cut crossings; a layer
// wider than MAX_ROW nodes wraps onto more rows, so a large graph stays a readable shape. The picture zooms
// (wheel, buttons), pans (drag), fits, and finds a node by name; it draws only what is in view, with text only
// where it is legible, so 5,000 nodes pan and zoom as freely as 50. No library: the drawing comes from
// GET /graphs (`drawing.nodes`, `drawing.edges`).
"use strict";

const GraphPicture = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const NODE_W = 156, NODE_H = 50, GAP_X = 34, GAP_Y = 62, PAD = 24;
  const MAX_ROW = 16; // nodes side by side before a layer wraps
  const LEGIBLE = 0.6; // the smallest scale a first view starts at: labels stay readable
  const MIN_SCALE = 0.02, MAX_SCALE = 4;
  const NEAR_BUDGET = 600; // more nodes in view than this: the far picture (paths), not a group per node
  const LABELS = 0.35, EDGE_LABELS = 0.6; // below these scales node names, edge labels are too small to read
  const FAR_EDGES = 4; // far away, edges are drawn only while layers are this many pixels apart

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

  // Where an edge runs: its path, where its label goes, and the box it keeps to (for culling).
  function edgeGeometry(a, b, fan, index, count) {
    let d, lx, ly, anchor = "middle", box;
    if (b.y > a.y) {
      const x1 = a.x + NODE_W / 2 + fan, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2 + fan, y2 = b.y;
      const my = (y1 + y2) / 2;
      if (y2 - y1 > NODE_H + GAP_Y) { // past other layers: around them, beside the nodes in between
        const xs = Math.max(x1, x2) + NODE_W / 2 + GAP_X / 2, r = 18;
        d = `M${x1},${y1} C${x1},${y1 + r * 2} ${xs},${y1 + r} ${xs},${y1 + GAP_Y / 2 + r}` +
            ` L${xs},${y2 - GAP_Y / 2 - r} C${xs},${y2 - r} ${x2},${y2 - r * 2} ${x2},${y2}`;
        lx = xs + 4; ly = my + index * 13; anchor = "start";
        box = [Math.min(x1, x2), y1, xs + 120, y2];
      } else {
        d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
        lx = (x1 + x2) / 2; ly = my - 3 + (index - (count - 1) / 2) * 13;
        box = [Math.min(x1, x2), y1, Math.max(x1, x2), y2];
      }
      return { d, lx, ly, anchor, box, line: `M${x1},${y1}L${x2},${y2}` };
    }
    // back or sideways (update, loop): around the right side
    const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x + NODE_W, y2 = b.y + NODE_H / 2;
    const bulge = Math.max(x1, x2) + 30 + index * 16;
    d = `M${x1},${y1} C${bulge},${y1} ${bulge},${y2} ${x2},${y2}`;
    lx = bulge + 4; ly = (y1 + y2) / 2 + index * 13; anchor = "start";
    box = [Math.min(x1, x2), Math.min(y1, y2), bulge + 120, Math.max(y1, y2)];
    return { d, lx, ly, anchor, box, line: d };
  }

  // `states`: the server's node states by name (WAITING, EXECUTING, ...); `onSelect(id)`: a node was clicked.
  //
  // Only what is in view is drawn. Near, each node in view (and half a view around it) is its own SVG group
  // with its labels, made when it first comes into view and taken out when it leaves; text is left out once
  // it would be too small to read (LABELS, EDGE_LABELS). Far, when more than NEAR_BUDGET nodes are in view,
  // the whole graph is a handful of paths (one per state), so panning and zooming only move them. A node's
  // state, tokens and marks live in the model and are applied whenever its group is made.
  function draw(container, drawing, states, onSelect) {
    container.textContent = "";
    const nodes = drawing.nodes;
    const rows = layers(nodes, drawing.edges);
    const widest = Math.max(1, ...rows.map((row) => row.length));
    const width = PAD * 2 + widest * NODE_W + (widest - 1) * GAP_X + NODE_W; // room on the right for edges around
    const height = PAD * 2 + rows.length * NODE_H + (rows.length - 1) * GAP_Y;
    const view = viewport(container, width, height);
    const svg = view.svg;
    svg.dataset.nodes = String(nodes.length);
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
    const edges = [];
    for (const e of drawing.edges) {
      const a = at.get(e.source), b = at.get(e.target);
      if (!a || !b) continue;
      const pair = `${e.source}\u0000${e.target}`;
      const count = parallel.get(pair), index = seen.get(pair) || 0;
      seen.set(pair, index + 1);
      const fan = (index - (count - 1) / 2) * Math.min(28, (NODE_W - 20) / Math.max(1, count - 1));
      edges.push({ edge: e, ...edgeGeometry(a, b, fan, index, count), group: null });
    }

    // The model: what each node shows, whether or not it is drawn now.
    const model = new Map(nodes.map((n) => [n.id, {
      node: n, at: at.get(n.id), state: n.kind === "computed" ? states.WAITING : n.kind, tokens: null, group: null,
    }]));
    let selected = null, found = null;

    // A nested graph opened in place (`drawing.groups`: its id, label and member nodes): a box around its nodes.
    const groupLayer = el("g", { class: "groups" }, view.content);
    for (const group of drawing.groups || []) {
      const spots = group.members.map((id) => at.get(id)).filter(Boolean);
      if (!spots.length) continue;
      const x0 = Math.min(...spots.map((p) => p.x)) - 16, y0 = Math.min(...spots.map((p) => p.y)) - 30;
      const x1 = Math.max(...spots.map((p) => p.x)) + NODE_W + 16, y1 = Math.max(...spots.map((p) => p.y)) + NODE_H + 14;
      const g = el("g", { class: "group", "data-group": group.id }, groupLayer);
      el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 10, ry: 10 }, g);
      const title = el("text", { x: x0 + 10, y: y0 + 18 }, g);
      title.textContent = group.label;
    }
    const far = el("g", { class: "overview" }, view.content);
    const edgeLayer = el("g", { class: "edges" }, view.content);
    const nodeLayer = el("g", { class: "nodes" }, view.content);
    let mode = null, farDirty = true;

    function classesOf(entry) {
      const n = entry.node;
      return ["node", n.kind, n.result ? "result" : "", n.kind === "computed" ? `state-${entry.state}` : "",
              entry.node.id === selected ? "selected" : "", entry.node.id === found ? "found" : ""].join(" ").trim();
    }

    function showAgent(entry) {
      if (!entry.group || !entry.agentText) return;
      if (entry.tokens !== null && entry.state === states.EXECUTING) {
        const tail = entry.tokens.trim().slice(-22);
        entry.agentText.textContent = entry.tokens.trim().length > 22 ? "…" + tail : tail;
        entry.agentText.setAttribute("class", "agent tokens");
      } else {
        entry.agentText.textContent = entry.node.agent;
        entry.agentText.setAttribute("class", "agent");
      }
    }

    function makeNode(entry) {
      const n = entry.node, p = entry.at;
      const g = el("g", { class: classesOf(entry), transform: `translate(${p.x},${p.y})`, "data-node": n.id,
                          "data-state": entry.state });
      const radius = n.kind === "static" || n.kind === "injected" ? 22 : n.kind === "loop" ? 2 : 8;
      el("rect", { width: NODE_W, height: NODE_H, rx: radius, ry: radius }, g);
      const title = el("title", {}, g);
      title.textContent = n.agent ? `${n.label} (${n.agent})` : n.label;
      const name = el("text", { x: NODE_W / 2, y: n.agent ? 21 : 30, "text-anchor": "middle" }, g);
      name.textContent = n.label.length > 20 ? n.label.slice(0, 19) + "…" : n.label;
      entry.agentText = n.agent ? el("text", { x: NODE_W / 2, y: 37, "text-anchor": "middle", class: "agent" }, g) : null;
      entry.group = g;
      showAgent(entry);
      if (onSelect) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.addEventListener("click", () => onSelect(n.id));
        g.addEventListener("keydown", (event) => { if (event.key === "Enter") onSelect(n.id); });
      }
      return g;
    }

    function makeEdge(item) {
      const e = item.edge;
      const g = el("g", { class: `edge ${e.kind}`, "data-edge": `${e.source}>${e.target}` });
      el("path", { d: item.d, "marker-end": "url(#arrow)" }, g);
      if (e.label) {
        const t = el("text", { x: item.lx, y: item.ly, "text-anchor": item.anchor, class: "edge-label" }, g);
        t.textContent = e.label.length > 18 ? e.label.slice(0, 17) + "…" : e.label;
      }
      item.group = g;
      return g;
    }

    // Far: every node as a rectangle in one path per look, every edge as a straight line in one path.
    function drawFar() {
      far.textContent = "";
      const looks = new Map();
      for (const entry of model.values()) {
        const look = entry.node.kind === "computed" ? `state-${entry.state}` : entry.node.kind;
        const p = entry.at;
        (looks.get(look) || looks.set(look, []).get(look)).push(`M${p.x},${p.y}h${NODE_W}v${NODE_H}h${-NODE_W}z`);
      }
      el("path", { class: "far-edges", d: edges.map((item) => item.line).join("") }, far);
      for (const [look, parts] of looks) el("path", { class: `far-nodes ${look}`, d: parts.join("") }, far);
      for (const id of [selected, found]) {
        const entry = id && model.get(id);
        if (entry) el("rect", { class: id === found ? "far-mark found" : "far-mark", x: entry.at.x - 12, y: entry.at.y - 12,
                                width: NODE_W + 24, height: NODE_H + 24 }, far);
      }
      farDirty = false;
    }

    const overlaps = (box, [x0, y0, x1, y1]) => box[2] >= x0 && box[0] <= x1 && box[3] >= y0 && box[1] <= y1;

    // What is in view now decides what is drawn (called on each change of the view, at most once a frame).
    function update() {
      const k = view.scale();
      const [x0, y0, x1, y1] = view.visible(0);
      let count = 0;
      for (const entry of model.values()) {
        const p = entry.at;
        if (p.x + NODE_W >= x0 && p.x <= x1 && p.y + NODE_H >= y0 && p.y <= y1 && ++count > NEAR_BUDGET) break;
      }
      const next = count > NEAR_BUDGET ? "far" : "near";
      svg.classList.toggle("no-labels", k < LABELS);
      svg.classList.toggle("no-edge-labels", k < EDGE_LABELS);
      svg.classList.toggle("no-far-edges", GAP_Y * k < FAR_EDGES); // layers closer than that: edges are a blur
      svg.dataset.detail = next;
      if (next === "far") {
        if (mode !== "far") {
          for (const entry of model.values()) if (entry.group) { entry.group.remove(); entry.group = null; }
          for (const item of edges) if (item.group) { item.group.remove(); item.group = null; }
        }
        if (mode !== "far" || farDirty) drawFar();
        far.style.display = "";
        mode = next;
        return;
      }
      if (mode === "far") far.style.display = "none";
      mode = next;
      const around = view.visible(0.5); // half a view around it too, so a short pan finds it drawn
      for (const entry of model.values()) {
        const p = entry.at;
        const wanted = overlaps([p.x, p.y, p.x + NODE_W, p.y + NODE_H], around);
        if (wanted && !entry.group) nodeLayer.appendChild(makeNode(entry));
        else if (!wanted && entry.group) { entry.group.remove(); entry.group = null; }
      }
      for (const item of edges) {
        const wanted = overlaps(item.box, around);
        if (wanted && !item.group) edgeLayer.appendChild(makeEdge(item));
        else if (!wanted && item.group) { item.group.remove(); item.group = null; }
      }
    }

    // A click on the far picture zooms to the node under it and selects it.
    far.addEventListener("click", (event) => {
      const [x, y] = view.toContent(event.clientX, event.clientY);
      for (const entry of model.values()) {
        const p = entry.at;
        if (x >= p.x - GAP_X / 2 && x <= p.x + NODE_W + GAP_X / 2 && y >= p.y - GAP_Y / 2 && y <= p.y + NODE_H + GAP_Y / 2) {
          view.centre(p.x + NODE_W / 2, p.y + NODE_H / 2);
          if (onSelect) onSelect(entry.node.id);
          return;
        }
      }
    });

    view.onChange(update);
    view.start();
    update();

    function restyle(entry) {
      if (!entry) return;
      if (entry.group) {
        entry.group.setAttribute("class", classesOf(entry));
        entry.group.setAttribute("data-state", entry.state);
        showAgent(entry);
      }
      if (mode === "far") { farDirty = true; view.changed(); }
    }

    return {
      select(id) {
        const before = selected;
        selected = id;
        restyle(model.get(before));
        restyle(model.get(id));
      },
      // Centres the view on a node (at a readable scale) and marks it; false if no node has that id.
      focus(id) {
        const entry = model.get(id);
        if (!entry) return false;
        const before = found;
        found = id;
        restyle(model.get(before));
        view.centre(entry.at.x + NODE_W / 2, entry.at.y + NODE_H / 2);
        update();
        restyle(entry);
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
      panBy: (dx, dy) => view.panBy(dx, dy),
      scale: () => view.scale(),
      // How many nodes are drawn as their own groups now (the rest are out of view, or in the far picture).
      drawn: () => nodeLayer.childElementCount,
      setState(id, state) {
        const entry = model.get(id);
        if (!entry || entry.node.kind !== "computed" || entry.state === state) return;
        entry.state = state;
        if (state !== states.EXECUTING) entry.tokens = null; // the agent's name again, in place of streamed text
        restyle(entry);
      },
      // While a node streams text, its last words show in place of its agent's name.
      setTokens(id, text) {
        const entry = model.get(id);
        if (!entry || !entry.node.agent || entry.state !== states.EXECUTING) return;
        entry.tokens = text;
        showAgent(entry);
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
    let listener = null, pending = false;
    const changed = () => { // the listener runs once in the next frame, however many changes came before it
      if (!listener || pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; listener(); });
    };
    const apply = () => {
      content.setAttribute("transform", `translate(${tx.toFixed(1)},${ty.toFixed(1)}) scale(${k.toFixed(4)})`);
      svg.dataset.scale = k.toFixed(3);
      changed();
    };
    const fitScale = () => Math.min(viewW / width, viewH / height, 1);
    const view = {
      svg, content,
      scale: () => k,
      onChange(fn) { listener = fn; },
      changed,
      // The part of the content in view, as [x0, y0, x1, y1], widened by `margin` views on each side.
      visible(margin) {
        const mx = (viewW / k) * margin, my = (viewH / k) * margin;
        return [-tx / k - mx, -ty / k - my, (viewW - tx) / k + mx, (viewH - ty) / k + my];
      },
      // A point of the page (a pointer event's client coordinates) in the content's coordinates.
      toContent(clientX, clientY) {
        const r = svg.getBoundingClientRect();
        return [(clientX - r.left - tx) / k, (clientY - r.top - ty) / k];
      },
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
      panBy(dx, dy) { tx += dx; ty += dy; apply(); },
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
