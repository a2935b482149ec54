// The run viewer: lists graphs, starts runs, follows a run's events (SSE read with fetch, so the API
// key can go in a header and Last-Event-ID on reconnect), and answers a run that asks a question.
"use strict";

const $ = (id) => document.getElementById(id);
// The API's run statuses and node states, as the server embeds them in the page (graphrt/base/states.py).
const STATES = JSON.parse($("vocabulary").textContent);
const RUN = STATES.runStatus, NODE = STATES.nodeState;
const state = { graphs: new Map(), graph: null, run: null, picture: null, stream: null, tokens: new Map(),
                asked: 0, // how many questions this page has shown, so an answer knows which it answered
                selected: null, detailWanted: false, detailLoading: false, // the node whose detail is shown
                summary: {}, rowOf: {}, stepped: null, expanded: new Set() }; // every node briefly; the map row shown per map node;
                                                         // the loop iteration the picture shows (null: now)

// ----- the API -----

function apiKey() { return sessionStorage.getItem("graphrt-key") || ""; }

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  if (apiKey()) headers.Authorization = `Bearer ${apiKey()}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { ...options, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  if (response.status === 401) {
    $("key-form").hidden = false;
    $("key-error").hidden = !apiKey();
    $("key-error").textContent = apiKey() ? "The server refused this key: check it and try again." : "";
    throw new Error(apiKey() ? "the API key was refused" : "this server needs an API key");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

// ----- graphs -----

async function loadGraphs() {
  const { graphs } = await api("/graphs");
  const list = $("graph-list");
  list.textContent = "";
  for (const graph of graphs) {
    state.graphs.set(graph.name, graph);
    const item = document.createElement("li");
    item.textContent = graph.name;
    item.dataset.graph = graph.name;
    if (graph.error) item.classList.add("error");
    item.addEventListener("click", () => { location.hash = `graph=${encodeURIComponent(graph.name)}`; });
    list.appendChild(item);
  }
  $("server-state").textContent = `${graphs.length} graph${graphs.length === 1 ? "" : "s"}`;
}

async function loadRuns() {
  const { runs } = await api("/runs?limit=30");
  const list = $("run-list");
  list.textContent = "";
  for (const run of runs) {
    const item = document.createElement("li");
    const id = document.createElement("code");
    id.textContent = `${run.graph} · ${run.id.slice(0, 6)}`;
    const status = document.createElement("span");
    status.className = `badge status-${run.status}`;
    status.textContent = run.status;
    item.append(id, status);
    if (run.parent) {
      id.textContent += " ⑂";
      item.title = `forked from ${run.parent.run_id} at ${run.parent.node_id}`;
    }
    item.dataset.run = run.id;
    if (state.run && state.run.id === run.id) item.classList.add("selected");
    item.addEventListener("click", () => { location.hash = `run=${run.id}`; });
    list.appendChild(item);
  }
}

function showGraph(name) {
  const graph = state.graphs.get(name);
  if (!graph) return;
  if (state.graph !== graph) state.expanded = new Set(); // nested graphs opened in the picture: of this graph
  state.graph = graph;
  for (const li of $("graph-list").children) li.classList.toggle("selected", li.dataset.graph === name);
  $("graph-view").hidden = false;
  $("graph-title").textContent = graph.name;
  $("graph-error").hidden = !graph.error;
  $("graph-error").textContent = graph.error || "";
  $("run-form").hidden = Boolean(graph.error);
  const fields = $("input-fields");
  fields.textContent = "";
  for (const [node, input] of Object.entries(graph.inputs || {})) {
    const row = document.createElement("div");
    row.className = "field";
    const label = document.createElement("label");
    label.textContent = node;
    label.htmlFor = `input-${node}`;
    const field = document.createElement("input");
    field.id = `input-${node}`;
    field.name = node;
    field.placeholder = "JSON, or plain text";
    if (input.default !== null && input.default !== undefined) {
      field.value = typeof input.default === "string" ? input.default : JSON.stringify(input.default);
    }
    row.append(label, field);
    fields.appendChild(row);
  }
  $("mermaid-box").hidden = !graph.mermaid;
  $("mermaid").textContent = graph.mermaid || "";
  if (!state.run || state.run.graph !== name) {
    $("run-view").hidden = true;
    if (graph.drawing) {
      // The picture before any run: every node waiting.
      $("run-view").hidden = false;
      resetRunView(null, graph);
    }
  }
}

function readInputs() {
  const inputs = {};
  for (const field of $("input-fields").querySelectorAll("input")) {
    const text = field.value;
    if (text === "") continue;
    try { inputs[field.name] = JSON.parse(text); } catch { inputs[field.name] = text; }
  }
  return inputs;
}

async function startRun(event) {
  event.preventDefault();
  $("start-error").textContent = "";
  try {
    const run = await api(`/graphs/${state.graph.name.split("/").map(encodeURIComponent).join("/")}/runs`,
                          { method: "POST", body: { inputs: readInputs() } });
    location.hash = `run=${run.id}`;
  } catch (error) {
    $("start-error").textContent = error.message;
  }
}

// ----- a run -----

function resetRunView(run, graph) {
  stopStream();
  state.run = run;
  state.tokens = new Map();
  state.summary = {};
  state.stepped = null;
  $("iteration-bar").hidden = true;
  $("nodes-left-out").hidden = true;
  $("run-view").hidden = false;
  $("run-id").textContent = run ? run.id : "(not started)";
  $("activity").textContent = "";
  $("results").textContent = "none yet";
  $("results").classList.add("muted");
  $("run-error").hidden = true;
  $("answer-form").hidden = true;
  $("answer-note").textContent = "";
  drawPicture(graph);
  showRunInputs(run);
  showLineage(run ? run.parent : null);
  if (state.selected) { state.picture?.select(state.selected); showDetail(); }
  setStatus(run ? run.status : "");
  if (run) applyRun(run);
}

async function showRun(id) {
  const run = await api(`/runs/${encodeURIComponent(id)}`);
  const graph = state.graphs.get(run.graph);
  if (graph && (!state.graph || state.graph.name !== graph.name)) showGraph(graph.name);
  resetRunView(run, graph || { drawing: null });
  for (const li of $("run-list").children) li.classList.toggle("selected", li.dataset.run === id);
  fillInputs(run.inputs || {});
  await showNodes(run.id);
  showIterations();
  followEvents(run.id);
}

// The form holds the inputs the run was started with (not the graph's defaults), to start a like run.
function fillInputs(inputs) {
  for (const [node, value] of Object.entries(inputs)) {
    const field = $(`input-${node}`);
    if (field) field.value = typeof value === "string" ? value : JSON.stringify(value);
  }
}

function showRunInputs(run) {
  const inputs = run && run.inputs ? run.inputs : {};
  $("run-inputs-box").hidden = !Object.keys(inputs).length;
  $("run-inputs").textContent = "";
  if (Object.keys(inputs).length) $("run-inputs").appendChild(NodeDetail.tree(inputs));
}

// ----- one node: clicked in the picture or the activity list -----

function selectNode(key) {
  state.selected = key;
  state.picture?.select(key);
  showDetail();
}

async function showDetail() {
  const box = $("node-detail");
  const key = state.selected;
  box.hidden = !key;
  if (!key) return;
  if (state.detailLoading) { state.detailWanted = true; return; } // the loop below asks again, for the node selected then
  const drawn = (state.graph?.drawing?.nodes || []).find((node) => node.id === key);
  if (drawn && drawn.kind !== "computed") { // a static node: its value in this run, or the graph's
    const given = state.run && state.run.inputs && key in state.run.inputs;
    const value = given ? state.run.inputs[key] : state.graph.inputs?.[key]?.default;
    box.textContent = "";
    const head = document.createElement("div");
    head.className = "detail-head";
    const name = document.createElement("code");
    name.className = "detail-key";
    name.textContent = key;
    head.append(name, ` ${drawn.kind} node${given ? ", set by the run" : ""}`);
    box.append(head, NodeDetail.tree(value === undefined ? null : value));
    if (state.run && STATES.runSettled.includes(state.run.status)) box.appendChild(forkForm(key, true));
    return;
  }
  if (!state.run) {
    box.textContent = "Start a run to see what this node does.";
    return;
  }
  // One request at a time; events and clicks that arrive meanwhile ask for one more, of the node selected by then.
  state.detailWanted = true;
  state.detailLoading = true;
  try {
    while (state.detailWanted) {
      state.detailWanted = false;
      if (state.selected !== key) break;
      const runId = state.run.id;
      const path = key.split("/").map(encodeURIComponent).join("/");
      try {
        const nested = state.graph?.drawing?.nested?.[Inside.drawingKey(key)];
        const [node] = await Promise.all([api(`/runs/${encodeURIComponent(runId)}/nodes/${path}`),
                                          nested || key.includes("/") ? refreshSummary(runId) : null]);
        if (state.selected === key && state.run && state.run.id === runId) renderNode(box, key, node, nested);
      } catch (error) {
        if (state.selected !== key) continue;
        box.textContent = "";
        box.append(crumbs(key), error.message);
      }
    }
  } finally {
    state.detailLoading = false;
  }
  if (state.selected !== key) showDetail(); // another node was clicked while this one loaded
}

// One node's detail: where it sits (nested graphs, map rows), its iterations to step through, everything it did,
// the nested graph it runs drawn in place, and the fork form.
function renderNode(box, key, node, nested) {
  box.textContent = "";
  box.appendChild(crumbs(key));
  const body = document.createElement("div");
  body.className = "detail-body";
  if (node.history && node.history.length) {
    const entries = [...node.history, node];
    box.appendChild(Inside.stepper(entries.length, null, (at) => NodeDetail.render(body, at === null ? node : entries[at], NODE)));
  }
  box.appendChild(body);
  NodeDetail.render(body, node, NODE);
  if (nested) body.insertBefore(innerGraph(key, nested), body.querySelector('[data-section="inputs"]'));
  if (nested && !key.includes("/")) body.querySelector('[data-section="inner graph"] .inside-controls')?.prepend(openButton(key));
  if (STATES.runSettled.includes(state.run.status)) box.appendChild(forkForm(key, false)); // nested ones too: outer/inner
}

// "outer › 2 › inner": each part selects that node (a row number selects its map node at that row).
function crumbs(key) {
  const bar = document.createElement("div");
  bar.className = "crumbs";
  const parts = key.split("/");
  if (parts.length < 2) return bar;
  parts.forEach((part, index) => {
    if (index) bar.append(" › ");
    const upTo = parts.slice(0, index + 1);
    const row = /^\d+$/.test(part);
    const link = document.createElement("button");
    link.type = "button";
    link.className = "link crumb";
    link.textContent = row ? `row ${part}` : part;
    link.disabled = index === parts.length - 1;
    link.addEventListener("click", () => {
      if (row) state.rowOf[upTo.slice(0, -1).join("/")] = Number(part);
      selectNode(row ? upTo.slice(0, -1).join("/") : upTo.join("/"));
    });
    bar.appendChild(link);
  });
  return bar;
}

// The nested graph a node runs, drawn in place with its nodes' states; a map node's rows to choose from; the
// nested graph's loop iterations to step through. Clicking an inner node shows its detail.
function innerGraph(key, drawing) {
  const section = document.createElement("section");
  section.className = "detail-section inside";
  section.dataset.section = "inner graph";
  const title = document.createElement("h4");
  title.textContent = "Inner graph";
  section.appendChild(title);
  const rows = Inside.rowsOf(key, state.summary);
  const controls = document.createElement("div");
  controls.className = "inside-controls";
  section.appendChild(controls);
  const holder = document.createElement("div");
  holder.className = "inner-drawing";
  section.appendChild(holder);
  const draw = () => {
    const row = rows.length ? (state.rowOf[key] ?? rows[0]) : null;
    const prefix = row === null ? key : `${key}/${row}`;
    holder.textContent = "";
    const picture = GraphPicture.draw(holder, drawing, NODE, (id) => selectNode(`${prefix}/${id}`));
    const paint = (iteration) => {
      for (const [id, nodeState] of Object.entries(Inside.statesAt(state.summary, prefix, iteration, NODE.WAITING))) {
        picture.setState(id, nodeState);
      }
    };
    paint(null);
    controls.querySelector(".stepper")?.remove();
    const iterations = Inside.iterationsOf(state.summary, prefix);
    if (iterations > 1) controls.appendChild(Inside.stepper(iterations, null, paint));
  };
  if (rows.length) {
    const choose = document.createElement("select");
    choose.className = "map-row";
    choose.setAttribute("aria-label", "map row");
    for (const row of rows) {
      const option = document.createElement("option");
      option.value = String(row);
      option.textContent = `row ${row}`;
      choose.appendChild(option);
    }
    choose.value = String(state.rowOf[key] ?? rows[0]);
    choose.addEventListener("change", () => { state.rowOf[key] = Number(choose.value); draw(); });
    controls.appendChild(choose);
  }
  requestAnimationFrame(draw); // once the section is in the page: the picture takes its width
  return section;
}

// ----- nested graphs opened in the main picture -----

// The drawing with each opened nestedAgent/mapAgent node replaced by its graph, drawn in a box named after it:
// its nodes are keyed as the server keys them ("outer/inner"; "each/2/inner" at the map row shown), edges into
// the node go to the nested graph's first nodes and edges out of it leave from the node it names (or its results).
function pictureDrawing(graph) {
  const drawing = graph.drawing;
  const opened = [...state.expanded].filter((key) => drawing.nested && drawing.nested[key]);
  if (!opened.length) return drawing;
  const nodes = drawing.nodes.filter((node) => !opened.includes(node.id));
  const edges = drawing.edges.filter((edge) => !opened.includes(edge.source) && !opened.includes(edge.target));
  const groups = [];
  for (const key of opened) {
    const inner = drawing.nested[key];
    const prefix = innerPrefix(key);
    const id = (inner_id) => `${prefix}/${inner_id}`;
    const entered = new Set(inner.edges.map((edge) => edge.target));
    const firsts = inner.nodes.filter((node) => !entered.has(node.id)).map((node) => node.id);
    const results = inner.nodes.filter((node) => node.result).map((node) => node.id);
    for (const node of inner.nodes) nodes.push({ ...node, id: id(node.id) });
    for (const edge of inner.edges) edges.push({ ...edge, source: id(edge.source), target: id(edge.target) });
    for (const edge of drawing.edges) {
      if (edge.target === key && !opened.includes(edge.source)) {
        for (const first of firsts) edges.push({ ...edge, target: id(first) });
      }
      if (edge.source === key && !opened.includes(edge.target)) {
        const from = inner.nodes.some((node) => node.id === edge.label) ? [edge.label] : (results.length ? results : firsts);
        for (const source of from) edges.push({ ...edge, source: id(source) });
      }
    }
    const agent = drawing.nodes.find((node) => node.id === key)?.agent || "";
    const row = prefix === key ? "" : `, row ${prefix.slice(key.length + 1)}`;
    groups.push({ id: key, label: `${key} (${agent}${row})`, members: inner.nodes.map((node) => id(node.id)) });
  }
  return { nodes, edges, groups };
}

// Where an opened node's graph is keyed: the node itself, or the map row shown ("each/2").
function innerPrefix(key) {
  const node = state.graph?.drawing?.nodes.find((drawn) => drawn.id === key);
  if (!node || node.agent !== "mapAgent") return key;
  const rows = Inside.rowsOf(key, state.summary);
  return `${key}/${state.rowOf[key] ?? (rows.length ? rows[0] : 0)}`;
}

// Draws the main picture (with the opened nested graphs) and paints every node's state the page knows.
function drawPicture(graph) {
  state.picture = graph.drawing ? GraphPicture.draw($("drawing"), pictureDrawing(graph), NODE, selectNode) : null;
  showRowChoices(graph);
  paintOpened();
}

function paintOpened() {
  if (!state.picture) return;
  for (const key of state.expanded) {
    const prefix = innerPrefix(key);
    for (const [id, nodeState] of Object.entries(Inside.statesAt(state.summary, prefix, null, NODE.WAITING))) {
      state.picture.setState(`${prefix}/${id}`, nodeState);
    }
  }
}

// A map node opened in the picture: which of its rows is shown, chosen beside the zoom buttons.
function showRowChoices(graph) {
  const box = $("picture-rows");
  box.textContent = "";
  for (const key of state.expanded) {
    const node = graph.drawing?.nodes.find((drawn) => drawn.id === key);
    if (!node || node.agent !== "mapAgent") continue;
    const rows = Inside.rowsOf(key, state.summary);
    const choose = document.createElement("select");
    choose.className = "map-row";
    choose.dataset.node = key;
    choose.setAttribute("aria-label", `${key}: map row`);
    for (const row of rows.length ? rows : [0]) {
      const option = document.createElement("option");
      option.value = String(row);
      option.textContent = `${key}: row ${row}`;
      choose.appendChild(option);
    }
    choose.value = innerPrefix(key).slice(key.length + 1);
    choose.addEventListener("change", () => { state.rowOf[key] = Number(choose.value); redrawPicture(); });
    box.appendChild(choose);
  }
}

// Draws the picture again (a node opened or closed, another map row) where the view and the selection were.
function redrawPicture() {
  if (!state.graph) return;
  drawPicture(state.graph);
  if (state.run) for (const [node, nodeState] of Object.entries(state.run.nodes || {})) state.picture?.setState(node, nodeState);
  for (const node of Object.values(state.summary)) {
    if (!node.path.length && node.state !== NODE.WAITING) state.picture?.setState(node.node_id, node.state);
  }
  if (state.selected) { state.picture?.select(state.selected); state.picture?.focus(state.selected); }
}

// "Open in the picture" / "Close in the picture" for a top-level nestedAgent or mapAgent node.
function openButton(key) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "open-in-picture";
  const opened = state.expanded.has(key);
  button.textContent = opened ? "Close in the picture" : "Open in the picture";
  button.addEventListener("click", async () => {
    if (opened) state.expanded.delete(key);
    else state.expanded.add(key);
    if (state.run) await refreshSummary(state.run.id).catch(() => {});
    const first = state.graph.drawing.nested[key].nodes.find((node) => node.kind === "computed");
    redrawPicture();
    if (!opened && first) state.picture?.focus(`${innerPrefix(key)}/${first.id}`);
    showDetail();
  });
  return button;
}

// Every node the server keeps for the run, a page at a time (each page links the next), and a line when
// nodes past the most it keeps were left out.
async function refreshSummary(runId) {
  const nodes = {};
  let page = `/runs/${encodeURIComponent(runId)}/nodes`;
  let leftOut = null;
  while (page) {
    const answer = await api(page);
    Object.assign(nodes, answer.nodes);
    leftOut = answer.left_out;
    page = answer.next;
  }
  if (state.run && state.run.id === runId) {
    state.summary = nodes;
    $("nodes-left-out").hidden = !leftOut;
    $("nodes-left-out").textContent = leftOut ? `Not every node is shown: ${leftOut.message}.` : "";
  }
  return nodes;
}

// The top-level loop's iterations: the picture shows each node's state in the chosen one.
function showIterations() {
  const bar = $("iteration-bar");
  bar.textContent = "";
  const count = Inside.iterationsOf(state.summary, "");
  bar.hidden = !(state.graph && state.graph.loop && state.run && count > 1);
  if (bar.hidden) return;
  bar.appendChild(Inside.stepper(count, null, (iteration) => {
    state.stepped = iteration;
    for (const [id, nodeState] of Object.entries(Inside.statesAt(state.summary, "", iteration, NODE.WAITING))) {
      state.picture?.setState(id, nodeState);
    }
  }));
}

// What the server knows of each node (a run of an earlier server too: from its checkpoint).
async function showNodes(runId) {
  const nodes = await refreshSummary(runId);
  for (const node of Object.values(nodes)) {
    if (node.path.length || node.state === NODE.WAITING) continue;
    setNodeState(node.node_id, node.state, stateDetail(node));
  }
}

function setStatus(status) {
  const badge = $("run-status");
  badge.textContent = status || "";
  badge.className = `badge status-${status}`;
  badge.dataset.status = status || "";
  $("cancel-run").hidden = !status || STATES.runEnded.includes(status);
}

function applyRun(run) {
  setStatus(run.status);
  const settledNow = state.run && run.status && state.run.status !== run.status && STATES.runSettled.includes(run.status);
  if (state.run && run.status) state.run.status = run.status;
  if (settledNow && state.selected) showDetail(); // its fork form, now that the run has settled
  if (settledNow && state.run) refreshSummary(state.run.id).then(showIterations).catch(() => {});
  for (const [node, nodeState] of Object.entries(run.nodes || {})) state.picture?.setState(node, nodeState);
  if (run.results !== undefined) {
    $("results").textContent = JSON.stringify(run.results, null, 2);
    $("results").classList.remove("muted");
  }
  $("run-error").hidden = !run.error;
  $("run-error").textContent = run.error || "";
  if (run.usage) {
    const spent = NodeDetail.usageText(run.usage);
    $("run-usage").hidden = !spent;
    $("run-usage").textContent = spent;
  }
  const asking = run.status === RUN.INTERRUPTED;
  if (asking && $("answer-form").hidden) state.asked += 1; // a question shown anew
  $("answer-form").hidden = !asking;
  if (asking) {
    $("question").textContent = run.question || "The run asks:";
    $("answer-input").focus();
  }
  showAnswers(run.answers || []);
  if (STATES.runSettled.includes(run.status)) loadRuns().catch(() => {});
}

function activityFor(node) {
  let box = $("activity").querySelector(`[data-activity="${CSS.escape(node)}"]`);
  if (!box) {
    box = document.createElement("div");
    box.className = "activity-node";
    box.dataset.activity = node;
    const name = document.createElement("b");
    name.textContent = node;
    const nodeState = document.createElement("span");
    nodeState.className = "state";
    box.append(name, nodeState);
    name.addEventListener("click", () => selectNode(node));
    $("activity").appendChild(box);
  }
  return box;
}

function setNodeState(node, nodeState, detail) {
  if (state.stepped === null) state.picture?.setState(node, nodeState); // not while an earlier iteration is shown
  activityFor(node).querySelector(".state").textContent = detail ? `${nodeState}: ${detail}` : nodeState;
}

// A fork names the run and node it came from: a link back.
function showLineage(parent) {
  const box = $("run-parent");
  box.hidden = !parent;
  box.textContent = "";
  if (!parent) return;
  const link = document.createElement("a");
  link.href = `#run=${encodeURIComponent(parent.run_id)}&node=${encodeURIComponent(parent.node_id)}`;
  link.textContent = parent.run_id;
  const node = document.createElement("code");
  node.textContent = parent.node_id;
  box.append("forked from ", link, " at ", node);
  if (parent.set && parent.set.length) box.append(`, with new ${parent.set.join(", ")}`);
}

// "Fork from here": a new run from this node, its result (or a static node's value) replaced when given.
function forkForm(key, isStatic) {
  const form = document.createElement("form");
  form.className = "fork-form";
  const label = document.createElement("label");
  label.textContent = isStatic ? "Fork with a new value:" : "Fork from here, with a new result (empty: compute it again):";
  const value = document.createElement("textarea");
  value.rows = 2;
  value.id = "fork-value";
  value.placeholder = "JSON, or plain text";
  const button = document.createElement("button");
  button.type = "submit";
  button.textContent = "Fork";
  const note = document.createElement("span");
  note.className = "error";
  form.append(label, value, button, note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { from: key, set: {} };
    if (value.value !== "") {
      try { body.set[key] = JSON.parse(value.value); } catch { body.set[key] = value.value; }
    } else if (isStatic) {
      note.textContent = "give the static node a value";
      return;
    }
    try {
      const run = await api(`/runs/${encodeURIComponent(state.run.id)}/fork`, { method: "POST", body });
      loadRuns().catch(() => {});
      location.hash = `run=${run.id}`;
    } catch (error) {
      note.textContent = error.message;
    }
  });
  return form;
}

function showAnswers(answers) {
  $("answers-box").hidden = !answers.length;
  $("answers").textContent = "";
  for (const given of answers) {
    const item = document.createElement("li");
    const node = document.createElement("code");
    node.textContent = given.key;
    item.append(node, ` ${typeof given.answer === "string" ? given.answer : JSON.stringify(given.answer)}`);
    $("answers").appendChild(item);
  }
}

// What a node's state adds in the activity list: from a node event, or from the server's node summary.
function stateDetail(data) {
  const error = data.error && typeof data.error === "object" ? data.error.text : data.error;
  if (data.state === NODE.COMPLETED) return data.duration === undefined ? "" : `${(data.duration * 1000).toFixed(0)} ms`;
  if (data.state === NODE.INTERRUPTED) return "asks a question";
  if (data.state === NODE.FAILED || data.state === NODE.TIMED_OUT) return error || "";
  if (data.state === NODE.ABORT) return "cancelled";
  return "";
}

// Tool-call arguments as the LLM sent them: a JSON text (OpenAI's), shown as its value, or a value.
function shownArguments(args) {
  if (typeof args !== "string") return JSON.stringify(args);
  try { return JSON.stringify(JSON.parse(args)); } catch { return args; }
}

function onEvent(type, data) {
  const top = !data.path || data.path.length === 0;
  const node = data.node_id;
  if (type === "RunStatus") { applyRun({ ...data, nodes: data.nodes }); return; }
  if (top && node && data.state) setNodeState(node, data.state, stateDetail(data)); // node events carry their state
  // Its agent waits for its turn under a rate limit: the node is shown waiting (its state, executing, comes back
  // with the call's start).
  if (top && node && type === "LlmCallWaiting") setNodeState(node, NODE.WAITING, `rate limit ${data.label}`);
  if (top && node && type === "LlmCallStarted" && data.waited) setNodeState(node, NODE.EXECUTING);
  if (!top && node && data.state && state.stepped === null) state.picture?.setState([...data.path, node].join("/"), data.state);
  const owner = top ? node : data.path[0];
  if (!owner) return;
  if (state.selected && (owner === state.selected || (node && [...(data.path || []), node].join("/") === state.selected))) {
    showDetail();
  }
  if (type === "TokenDelta") {
    const text = (state.tokens.get(owner) || "") + data.token;
    state.tokens.set(owner, text);
    const box = activityFor(owner);
    let tokens = box.querySelector(".tokens");
    if (!tokens) { tokens = document.createElement("div"); tokens.className = "tokens"; box.appendChild(tokens); }
    tokens.textContent = text;
    state.picture?.setTokens(owner, text);
  } else if (type === "ToolCalled" || type === "ToolReturned") {
    const box = activityFor(owner);
    let line = box.querySelector(`[data-call="${CSS.escape(data.tool_call_id)}"]`);
    if (!line) { line = document.createElement("div"); line.className = "tool"; line.dataset.call = data.tool_call_id; box.appendChild(line); }
    if (type === "ToolCalled") {
      line.textContent = "";
      const name = document.createElement("code");
      name.textContent = data.name;
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = "tool";
      line.append(tag, name, ` ${shownArguments(data.arguments)}`);
    } else {
      const result = document.createElement("div");
      result.textContent = data.error ? `✗ ${data.error}` : `→ ${data.content}`;
      line.appendChild(result);
    }
  } else if (type === "AgentProgress") {
    const box = activityFor(owner);
    const line = document.createElement("div");
    line.className = "progress";
    line.textContent = data.message;
    box.appendChild(line);
  }
}

function stopStream() {
  if (state.stream) state.stream.abort();
  state.stream = null;
}

// Server-Sent Events read with fetch: reconnects with Last-Event-ID until the server ends the stream.
async function followEvents(runId) {
  const controller = new AbortController();
  state.stream = controller;
  let lastId = "";
  for (let attempt = 0; !controller.signal.aborted; attempt++) {
    try {
      const headers = { Accept: "text/event-stream" };
      if (apiKey()) headers.Authorization = `Bearer ${apiKey()}`;
      if (lastId) headers["Last-Event-ID"] = lastId;
      const response = await fetch(`/runs/${encodeURIComponent(runId)}/events`, { headers, signal: controller.signal });
      if (!response.ok) throw new Error(`events: ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return; // the run has ended
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let type = "message", data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) lastId = line.slice(4);
            else if (line.startsWith("event: ")) type = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (data) onEvent(type, JSON.parse(data));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * (attempt + 1))));
    }
  }
}

// The form is shown and hidden by the run's status alone (applyRun): when the POST returns, the run may
// have asked its next question already, whose form must stay.
async function answer(event) {
  event.preventDefault();
  const text = $("answer-input").value;
  let value;
  try { value = JSON.parse(text); } catch { value = text; }
  const answered = state.asked;
  $("send-answer").disabled = true;
  $("answer-note").textContent = "sending…";
  try {
    await api(`/runs/${encodeURIComponent(state.run.id)}/resume`, { method: "POST", body: { answer: value } });
    $("answer-note").textContent = `answer sent: ${text}`;
    if (state.asked === answered) $("answer-input").value = "";
  } catch (error) {
    $("answer-note").textContent = error.message;
  } finally {
    $("send-answer").disabled = false;
  }
}

async function cancel() {
  try { applyRun(await api(`/runs/${encodeURIComponent(state.run.id)}/cancel`, { method: "POST" })); } catch (error) {
    $("run-error").hidden = false;
    $("run-error").textContent = error.message;
  }
}

// ----- navigation: #graph=NAME, #run=ID -----

async function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  try {
    if (params.get("node")) state.selected = params.get("node");
    if (params.get("run")) await showRun(params.get("run"));
    else if (params.get("graph")) showGraph(params.get("graph"));
    else if (state.graphs.size) showGraph(state.graphs.keys().next().value);
  } catch (error) {
    $("server-state").textContent = error.message;
  }
}

async function boot() {
  try {
    await loadGraphs();
    $("key-form").hidden = true;
    $("key-error").hidden = true;
    await loadRuns();
    await route();
  } catch (error) {
    $("server-state").textContent = error.message;
  }
}

$("run-form").addEventListener("submit", startRun);
$("answer-form").addEventListener("submit", answer);
$("cancel-run").addEventListener("click", cancel);
$("refresh-runs").addEventListener("click", () => loadRuns().catch(() => {}));
$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem("graphrt-key", $("key-input").value);
  $("key-error").hidden = false;
  $("key-error").textContent = "checking the key…";
  boot();
});
$("zoom-in").addEventListener("click", () => state.picture?.zoom(1.25));
$("zoom-out").addEventListener("click", () => state.picture?.zoom(0.8));
$("zoom-fit").addEventListener("click", () => state.picture?.fit());
$("find-node").addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || !state.picture) return;
  event.preventDefault();
  const found = state.picture.find(event.target.value);
  const index = found.length ? (Number(event.target.dataset.next || 0) % found.length) : 0;
  $("find-note").textContent = found.length ? `${index + 1} of ${found.length}` : "no such node";
  if (found.length) {
    state.picture.focus(found[index]);
    selectNode(found[index]);
    event.target.dataset.next = String(index + 1);
  }
});
$("find-node").addEventListener("input", (event) => { event.target.dataset.next = "0"; $("find-note").textContent = ""; });
window.addEventListener("hashchange", route);
boot();
