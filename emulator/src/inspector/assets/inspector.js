// The a2a-emulator inspector page: reads the journal once from /_emulator/api/, then
// applies every change the live feed (/_emulator/api/events) sends. The traces the agents
// exported (/_emulator/api/traces) are read again after each invocation and every few
// seconds; an invocation whose trace is kept links to it, shown as a waterfall. Plain DOM,
// no library.
"use strict";

const API = "/_emulator/api";
const invocations = new Map(); // seq -> record
const sessions = new Map(); // id -> record
const tasks = new Map(); // id -> record
const traces = new Map(); // traceId -> summary
let traceShown = null; // {id, spanCount, data}: the trace the detail panel shows
let selectedSpan = null; // spanId
let selected = null; // {kind, key}
const MAX_ROWS = 500;
const TRACE_POLL_MS = 3000;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function time(at) { return at ? at.slice(11, 23) : ""; }
function short(id) { return id && id.length > 14 ? id.slice(0, 6) + "…" + id.slice(-6) : (id || ""); }
// A state as read at a glance: v1.0's TASK_STATE_WORKING as "working", like v0.3's.
function plainState(state) {
  return String(state || "?").toLowerCase().replace(/^task_state_/, "").replace(/_/g, "-");
}
function stateClass(state) { return "state state-" + plainState(state); }
function stateBadge(state) { return el("span", { class: stateClass(state), title: state || "" }, plainState(state)); }
function codeClass(code) {
  if (code === null || code === undefined) return "";
  return [-32053, -32054].includes(code) ? "code-retry" : "code-err";
}

// The trace of invocation `r`: the one its traceparent names, else one of its session
// whose first span started while it ran (an agent that started a trace of its own).
function traceOf(r) {
  if (r.traceId && traces.has(r.traceId)) return r.traceId;
  if (!r.session) return null;
  const from = Date.parse(r.at) - 5;
  const to = Date.parse(r.at) + (r.latencyMs ?? r.headMs ?? 0) + 5;
  for (const t of traces.values()) {
    const start = Date.parse(t.start);
    if (t.sessionId === r.session && start >= from && start <= to) return t.traceId;
  }
  return null;
}

function renderInvocations() {
  const body = document.querySelector("#invocations tbody");
  const rows = [...invocations.values()].sort((a, b) => b.seq - a.seq).slice(0, MAX_ROWS);
  body.replaceChildren(...rows.map((r) => {
    const trace = traceOf(r);
    const row = el("tr", {
      "data-seq": r.seq,
      "data-trace": trace,
      "data-method": r.method || "",
      "data-status": r.status,
      "data-code": r.code ?? "",
      class: [selected && selected.kind === "invocation" && selected.key === r.seq ? "selected" : "", r.done ? "" : "open"].join(" ").trim() || null,
      onclick: () => select("invocation", r.seq),
    },
      el("td", { class: "mono" }, r.seq),
      el("td", { class: "mono" }, time(r.at)),
      el("td", { class: "mono short", title: r.session || "" }, short(r.session)),
      el("td", {}, r.route),
      el("td", { class: "mono" }, r.method || r.httpMethod + " " + r.path.split("?")[0]),
      el("td", {}, r.version || ""),
      el("td", { class: "s" + String(r.status)[0] }, r.status),
      el("td", { class: codeClass(r.code) }, r.code ?? ""),
      el("td", { class: "mono" }, r.latencyMs === null ? (r.stream ? "stream…" : "…") : r.latencyMs.toFixed(1)),
      el("td", { class: "fault" }, r.fault || ""),
      el("td", { class: "mono short", title: r.taskId || "" }, short(r.taskId)),
      el("td", {}, trace ? el("a", {
        class: "trace-link", href: "#", title: trace,
        onclick: (event) => { event.preventDefault(); event.stopPropagation(); select("trace", trace); },
      }, "waterfall") : ""));
    return row;
  }));
  document.getElementById("invocation-count").textContent = invocations.size;
}

function renderSessions() {
  const list = document.getElementById("sessions");
  list.replaceChildren(...[...sessions.values()].reverse().map((s) => el("li", {
    "data-session": s.id, "data-state": s.state, onclick: () => select("session", s.id),
  },
    stateBadge(s.state), " ",
    el("span", { class: "why" }, (s.why ? s.why + " · " : "") + s.invocations + " invocations"),
    el("div", { class: "id" }, s.id))));
  document.getElementById("session-count").textContent = sessions.size;
}

function renderTasks() {
  const list = document.getElementById("tasks");
  list.replaceChildren(...[...tasks.values()].reverse().map((t) => el("li", {
    "data-task": t.id, "data-state": t.state || "", onclick: () => select("task", t.id),
  },
    stateBadge(t.state), " ",
    el("span", { class: "why" }, t.timeline.length + " steps"),
    el("div", { class: "id" }, t.id))));
  document.getElementById("task-count").textContent = tasks.size;
}

function headersBlock(title, headers) {
  if (!headers) return el("div", {}, el("h3", {}, title), el("pre", {}, "(did not reach a container)"));
  const text = Object.entries(headers).map(([name, value]) => name + ": " + value).join("\n");
  return el("div", {}, el("h3", {}, title), el("pre", { class: "headers" }, text));
}

function bodyBlock(title, text, bytes) {
  let shown = text ?? "(not read)";
  try { shown = JSON.stringify(JSON.parse(shown), null, 2); } catch (_) { /* cut short, or not JSON */ }
  const kept = text ? new TextEncoder().encode(text).length : 0;
  const note = bytes > kept ? " (first " + kept + " of " + bytes + " bytes)" : "";
  return el("div", {}, el("h3", {}, title + note), el("pre", {}, shown));
}

// Spans nested under their parents, each parent's children by start: [{span, depth}].
function nested(spans) {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map();
  const roots = [];
  for (const s of spans) {
    if (s.parentSpanId && ids.has(s.parentSpanId)) {
      if (!children.has(s.parentSpanId)) children.set(s.parentSpanId, []);
      children.get(s.parentSpanId).push(s);
    } else roots.push(s);
  }
  const ordered = [];
  const visit = (s, depth) => {
    ordered.push({ span: s, depth });
    (children.get(s.spanId) || []).forEach((child) => visit(child, depth + 1));
  };
  roots.forEach((s) => visit(s, 0));
  return ordered;
}

function renderWaterfall(title, detail) {
  const t = traceShown.data;
  if (!t) { detail.replaceChildren(el("pre", {}, "(this trace is no longer kept)")); return; }
  title.textContent = "Trace " + t.traceId + " · " + t.spanCount + " spans · " + t.durationMs.toFixed(3) + " ms" +
    (t.sessionId ? " · session " + t.sessionId : "");
  const total = Math.max(t.durationMs, 0.001);
  const rows = nested(t.spans).map(({ span: s, depth }) => el("div", {
    class: "span-row" + (s.spanId === selectedSpan ? " selected" : ""),
    "data-span-id": s.spanId, "data-parent": s.parentSpanId || "", "data-depth": depth,
    onclick: () => { selectedSpan = s.spanId; renderDetail(); },
  },
    el("div", { class: "span-name", style: "padding-left:" + (8 + depth * 16) + "px", title: s.name }, s.name,
      el("span", { class: "service" }, s.service || "")),
    el("div", { class: "span-track" }, el("div", {
      class: "span-bar kind-" + s.kind + " status-" + s.status.code,
      style: "left:" + (s.offsetMs / total * 100).toFixed(3) + "%;width:" + (s.durationMs / total * 100).toFixed(3) + "%",
      title: s.offsetMs.toFixed(3) + " ms + " + s.durationMs.toFixed(3) + " ms",
    })),
    el("div", { class: "span-ms" }, s.durationMs.toFixed(3))));
  const chosen = t.spans.find((s) => s.spanId === selectedSpan);
  const about = chosen ? el("div", { id: "span-detail" }, el("h3", {}, chosen.name + " (" + chosen.kind + ", " + chosen.status.code + ")"),
    el("pre", { class: "attributes" }, JSON.stringify({
      spanId: chosen.spanId, parentSpanId: chosen.parentSpanId, service: chosen.service, scope: chosen.scope,
      start: chosen.start, durationMs: chosen.durationMs, status: chosen.status,
      attributes: chosen.attributes, events: chosen.events,
    }, null, 2))) : el("p", { class: "hint" }, "Click a span for its attributes.");
  detail.replaceChildren(el("div", { class: "waterfall" }, ...rows), about);
}

// Reads trace `id` when it is not shown yet or has grown, then shows it.
async function showTrace(id) {
  const known = traces.get(id);
  if (!traceShown || traceShown.id !== id || (known && known.spanCount !== traceShown.spanCount)) {
    const reply = await fetch(API + "/traces/" + id);
    const data = reply.ok ? await reply.json() : null;
    traceShown = { id, spanCount: data ? data.spanCount : 0, data };
  }
  if (selected && selected.kind === "trace" && selected.key === id) renderDetail();
}

function renderDetail() {
  const panel = document.getElementById("detail-panel");
  const title = document.getElementById("detail-title");
  const detail = document.getElementById("detail");
  if (!selected) { panel.hidden = true; return; }
  panel.hidden = false;
  detail.className = selected.kind === "trace" ? "trace" : "";
  if (selected.kind === "trace") {
    if (!traceShown || traceShown.id !== selected.key) { title.textContent = "Trace " + selected.key; showTrace(selected.key); return; }
    renderWaterfall(title, detail);
  } else if (selected.kind === "invocation") {
    const r = invocations.get(selected.key);
    if (!r) return;
    title.textContent = "Invocation #" + r.seq + " · " + (r.method || r.httpMethod) + " · " + r.status + (r.code !== null ? " / " + r.code : "");
    const timing = "arrived " + r.at + "\nheaders after " + r.headMs.toFixed(3) + " ms\n" +
      (r.latencyMs === null ? "still open" : "done after " + r.latencyMs.toFixed(3) + " ms") +
      "\nroute " + r.route + " " + r.httpMethod + " " + r.path + "\nsession " + (r.session || "-") +
      "\nfault " + (r.fault || "-") + "\ntask " + (r.taskId || "-") +
      // A local Lambda's invocation (route lambda): Lambda's request id, the REPORT's duration, the error.
      (r.lambda ? "\nlambda request " + (r.lambda.requestId || "-") +
        (r.lambda.durationMs === null ? "" : ", " + r.lambda.durationMs.toFixed(3) + " ms") +
        (r.lambda.thawed ? ", thawed the environment" : "") +
        (r.lambda.error ? ", failed: " + r.lambda.error : "") : "");
    detail.replaceChildren(
      el("div", {}, el("h3", {}, "Timing"), el("pre", { class: "timing" }, timing)),
      headersBlock("Response headers", r.responseHeaders),
      headersBlock("Headers as the caller sent them", r.requestHeaders),
      headersBlock("Headers as the container received them", r.containerHeaders),
      bodyBlock("Request body", r.requestBody, r.requestBytes),
      bodyBlock("Response body", r.responseBody, r.responseBytes));
  } else if (selected.kind === "session") {
    const s = sessions.get(selected.key);
    if (!s) return;
    title.textContent = "Session " + s.id;
    detail.replaceChildren(el("div", {}, el("h3", {}, "Lifecycle"), el("ul", { class: "timeline" },
      ...s.events.map((e) => el("li", {}, time(e.at) + " ", stateBadge(e.state), e.why ? " " + e.why : "")))));
  } else {
    const t = tasks.get(selected.key);
    if (!t) return;
    title.textContent = "Task " + t.id;
    detail.replaceChildren(el("div", {}, el("h3", {}, "Timeline (session " + (t.session || "-") + ", context " + (t.contextId || "-") + ")"),
      el("ul", { class: "timeline" }, ...t.timeline.map((step) => el("li", {}, time(step.at) + " ",
        step.state ? stateBadge(step.state) : "artifact " + step.artifact,
        " (invocation #" + step.invocation + ")")))));
  }
}

function select(kind, key) {
  selected = { kind, key };
  if (kind === "trace") selectedSpan = null;
  renderInvocations();
  renderDetail();
}

// Reads the kept traces' summaries; an invocation row links to its own.
async function loadTraces() {
  try {
    const reply = await fetch(API + "/traces?limit=" + MAX_ROWS);
    if (!reply.ok) return;
    const body = await reply.json();
    traces.clear();
    body.traces.forEach((t) => traces.set(t.traceId, t));
  } catch (_) { return; /* the emulator stopped; the feed reconnects */ }
  renderInvocations();
  if (selected && selected.kind === "trace") showTrace(selected.key);
}

// After an invocation ends its agent's exporter sends within a few seconds: read again soon.
let tracesSoon = null;
function loadTracesSoon() {
  if (tracesSoon) return;
  tracesSoon = setTimeout(() => { tracesSoon = null; loadTraces(); }, 500);
}

function apply(kind, record) {
  if (kind === "invocation") {
    invocations.set(record.seq, record);
    if (record.done) loadTracesSoon();
    if (invocations.size > MAX_ROWS * 2) {
      const oldest = [...invocations.keys()].sort((a, b) => a - b).slice(0, invocations.size - MAX_ROWS);
      oldest.forEach((seq) => invocations.delete(seq));
    }
    renderInvocations();
  } else if (kind === "session") {
    sessions.set(record.id, record);
    renderSessions();
  } else if (kind === "task") {
    tasks.set(record.id, record);
    renderTasks();
  }
  if (selected) renderDetail();
}

async function load() {
  const [inv, ses, tsk] = await Promise.all(["invocations?limit=" + MAX_ROWS, "sessions", "tasks"]
    .map((path) => fetch(API + "/" + path).then((r) => r.json())));
  inv.invocations.forEach((r) => { if (!invocations.has(r.seq) || !invocations.get(r.seq).done) invocations.set(r.seq, r); });
  ses.sessions.forEach((s) => { if (!sessions.has(s.id)) sessions.set(s.id, s); });
  tsk.tasks.forEach((t) => { if (!tasks.has(t.id)) tasks.set(t.id, t); });
  renderInvocations(); renderSessions(); renderTasks();
  loadTraces();
}

function connect() {
  const live = document.getElementById("live");
  const feed = new EventSource(API + "/events");
  feed.onopen = () => { live.textContent = "live"; live.className = "live on"; load(); };
  feed.onerror = () => { live.textContent = "reconnecting…"; live.className = "live off"; };
  for (const kind of ["invocation", "session", "task"]) {
    feed.addEventListener(kind, (event) => apply(kind, JSON.parse(event.data)));
  }
  feed.addEventListener("lagged", () => load());
}

connect();
setInterval(loadTraces, TRACE_POLL_MS);
