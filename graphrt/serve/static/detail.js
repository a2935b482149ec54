// One node of a run, everything the server knows of it (GET /runs/{id}/nodes/{key}): state, timings, attempts,
// error with its place in the file, the question it asked, its resolved inputs and result as collapsible
// JSON, streamed text, tool calls and the outside calls of its journal. Values arrive redacted as traces
// are (graphrt/base/secrets.py).
"use strict";

const NodeDetail = (() => {
  const LONG_TEXT = 300; // characters of a string shown before "show all"
  const MANY_ITEMS = 40; // items of a list or keys of an object shown before "show more"
  const OPEN_DEPTH = 2; // levels of a value open at first

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ----- a JSON value as a tree: objects and lists fold, long strings and long lists are cut with a way to expand -----

  function leaf(value) {
    if (value === null) return make("span", "json-null", "null");
    if (typeof value === "string") {
      const shown = make("span", "json-string");
      if (value.length <= LONG_TEXT) { shown.textContent = JSON.stringify(value); return shown; }
      shown.textContent = JSON.stringify(value.slice(0, LONG_TEXT)).slice(0, -1) + "…\"";
      const more = make("button", "link expand", `show all ${value.length.toLocaleString()} characters`);
      more.type = "button";
      more.addEventListener("click", () => { shown.textContent = JSON.stringify(value); more.remove(); });
      const box = make("span");
      box.append(shown, " ", more);
      return box;
    }
    return make("span", `json-${typeof value}`, String(value));
  }

  function tree(value, depth = 0) {
    if (value === null || typeof value !== "object") return leaf(value);
    const list = Array.isArray(value);
    const entries = list ? value.map((item, index) => [index, item]) : Object.entries(value);
    if (!entries.length) return make("span", "json-empty", list ? "[]" : "{}");
    const box = make("details", "json");
    box.open = depth < OPEN_DEPTH;
    box.appendChild(make("summary", "json-summary",
      list ? `[${entries.length} item${entries.length === 1 ? "" : "s"}]` : `{${entries.length} key${entries.length === 1 ? "" : "s"}}`));
    const body = make("div", "json-body");
    const add = (from, to) => {
      for (const [key, item] of entries.slice(from, to)) {
        const row = make("div", "json-row");
        row.append(make("span", "json-key", list ? `${key}` : `${key}`), make("span", "json-colon", ": "), tree(item, depth + 1));
        body.insertBefore(row, more || null);
      }
    };
    let more = null;
    if (entries.length > MANY_ITEMS) {
      more = make("button", "link expand", `show ${entries.length - MANY_ITEMS} more`);
      more.type = "button";
      more.addEventListener("click", () => { add(MANY_ITEMS, entries.length); more.remove(); more = null; });
      body.appendChild(more);
    }
    add(0, MANY_ITEMS);
    box.appendChild(body);
    return box;
  }

  // ----- times -----

  function seconds(value) {
    if (value === undefined || value === null) return "";
    if (value < 1) return `${Math.round(value * 1000)} ms`;
    if (value < 120) return `${value.toFixed(value < 10 ? 2 : 1)} s`;
    return `${Math.floor(value / 60)} min ${Math.round(value % 60)} s`;
  }

  function timings(node) {
    const rows = [];
    if (node.queued_at !== undefined && node.started_at !== undefined) rows.push(["queued", seconds(node.started_at - node.queued_at)]);
    if (node.duration !== undefined) rows.push(["running", seconds(node.duration)]);
    else if (node.started_at !== undefined && node.ended_at !== undefined) rows.push(["running", seconds(node.ended_at - node.started_at)]);
    if (node.waiting) rows.push([`waiting for the rate limit of ${node.waiting.label}`, "since " + new Date(node.waiting.since * 1000).toLocaleTimeString()]);
    if (node.rate_waited) rows.push(["waited for rate limits", seconds(node.rate_waited)]);
    if (node.waited !== undefined && node.waited !== null) rows.push(["waiting for a person", seconds(node.waited)]);
    else if (node.asked_at !== undefined) rows.push(["waiting for a person", "since " + new Date(node.asked_at * 1000).toLocaleTimeString()]);
    if (node.started_at !== undefined) rows.push(["started", new Date(node.started_at * 1000).toLocaleTimeString()]);
    return rows;
  }

  function where(error) {
    const at = error.location;
    if (!at) return "";
    return [at.file || "<graph>", at.line, at.column].filter((part) => part !== null && part !== undefined).join(":");
  }

  function argumentsOf(args) {
    if (typeof args !== "string") return args;
    try { return JSON.parse(args); } catch { return args; }
  }

  // ----- what was spent -----

  // One line of a usage (GET /runs/{id}'s `usage`, a node's): "3 LLM calls (1 retried) · 1,234 tokens · $0.0021";
  // a count the server says is unknown (null) is shown as such, never as 0. "" when nothing was spent.
  function usageText(usage) {
    if (!usage || (!usage.llm_calls && !usage.tool_calls)) return "";
    const parts = [];
    if (usage.llm_calls) {
      const retried = usage.retried && usage.retried.calls ? ` (${usage.retried.calls} retried)` : "";
      parts.push(`${usage.llm_calls.toLocaleString()} LLM call${usage.llm_calls === 1 ? "" : "s"}${retried}`);
      parts.push(usage.total_tokens === null ? "tokens unknown"
        : `${usage.total_tokens.toLocaleString()} tokens` + (usage.calls_without_tokens ? " (some unknown)" : ""));
      parts.push(usage.cost_usd === null ? "cost unknown" : `$${usage.cost_usd.toFixed(4)}`);
    }
    if (usage.tool_calls) parts.push(`${usage.tool_calls} tool call${usage.tool_calls === 1 ? "" : "s"}`);
    if (usage.waited_seconds) parts.push(`${seconds(usage.waited_seconds)} waiting for rate limits`);
    return parts.join(" · ");
  }

  // ----- the panel -----

  function section(parent, title, content) {
    const box = make("section", "detail-section");
    box.dataset.section = title.toLowerCase();
    box.appendChild(make("h4", "", title));
    box.appendChild(content);
    parent.appendChild(box);
    return box;
  }

  function table(rows) {
    const box = make("dl", "detail-table");
    for (const [name, value] of rows) box.append(make("dt", "", name), make("dd", "", value));
    return box;
  }

  // `node`: the server's JSON for one node; `states`: the node states by name.
  function render(container, node, states) {
    container.textContent = "";
    const head = make("div", "detail-head");
    // A node whose agent waits for its turn under a rate limit is shown waiting, not running.
    const shown = node.waiting ? "waiting" : node.state;
    head.append(make("code", "detail-key", node.key), make("span", `badge node-state state-${shown}`, node.waiting ? `waiting (rate limit)` : node.state));
    if (node.agent) head.appendChild(make("span", "muted", node.agent));
    container.appendChild(head);
    const facts = [];
    if (node.iteration) facts.push(["iteration", String(node.iteration)]);
    if (node.attempts && node.attempts.length > 1) facts.push(["attempts", String(node.attempts.length)]);
    if (node.restored) facts.push(["from", "the checkpoint (kept, not run by this server)"]);
    const times = timings(node);
    if (facts.length || times.length) section(container, "Timings", table([...times, ...facts]));

    const spent = usageText(node.usage);
    if (spent) section(container, "Usage", make("p", "detail-usage", spent));
    if (node.question) section(container, "Question", make("p", "detail-question", node.question));
    if (node.error) {
      const box = make("div", "detail-error");
      const place = where(node.error);
      if (place) box.appendChild(make("div", "detail-location", node.error.field ? `${place} (field ${node.error.field})` : place));
      box.appendChild(make("pre", "error", node.error.text || ""));
      section(container, "Error", box);
    }
    if (node.attempts && node.attempts.length > 1) {
      const list = make("ol", "detail-attempts");
      for (const attempt of node.attempts) {
        const took = attempt.ended_at !== undefined ? seconds(attempt.ended_at - attempt.started_at) : "running";
        list.appendChild(make("li", "", attempt.error ? `${took}: ${attempt.error.text}` : took));
      }
      section(container, "Attempts", list);
    }
    if (node.inputs !== undefined) section(container, "Inputs", tree(node.inputs));
    if (node.result !== undefined) section(container, "Result", tree(node.result));
    if (node.tokens) section(container, "Streamed", make("pre", "detail-tokens", node.tokens));
    if (node.tool_calls && node.tool_calls.length) {
      const list = make("div", "detail-tools");
      for (const call of node.tool_calls) {
        const row = make("div", "detail-tool");
        row.append(make("code", "", call.name), tree(argumentsOf(call.arguments), 1));
        if (call.error) row.appendChild(make("div", "error", `✗ ${call.error}`));
        else if (call.content !== undefined) row.appendChild(make("div", "", `→ ${call.content}`));
        list.appendChild(row);
      }
      section(container, "Tool calls", list);
    }
    if (node.calls && node.calls.length) {
      // The run's journal: what a resume, a retry or a replay takes instead of calling again.
      const list = make("ol", "detail-calls");
      for (const call of node.calls) {
        const row = make("li", `detail-call call-${call.state}`);
        const took = call.ended_at !== null && call.ended_at !== undefined ? seconds(call.ended_at - call.started_at) : "no result kept";
        row.append(make("code", "", `${call.path} #${call.index}`), " ", make("span", "muted", `${call.kind} ${call.agent}, ${took}`));
        const asked = make("div", "", "asked ");
        asked.appendChild(tree(call.request, 1));
        row.appendChild(asked);
        if (call.result !== null && call.result !== undefined) {
          const gave = make("div", "", "returned ");
          gave.appendChild(tree(call.result, 1));
          row.appendChild(gave);
        }
        list.appendChild(row);
      }
      section(container, "Journal", list);
    }
    if (node.progress && node.progress.length) {
      const list = make("ul", "plain");
      for (const line of node.progress) list.appendChild(make("li", "", line.message));
      section(container, "Progress", list);
    }
    if (node.state === states.WAITING && node.inputs === undefined && !node.error) {
      container.appendChild(make("p", "muted", "Not run yet."));
    }
  }

  return { render, tree, seconds, usageText };
})();
