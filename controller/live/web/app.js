// The live page's script. It opens one Server-Sent Events stream
// (/api/events, server.go) and draws what it is told:
//   snapshot  every stage's counts (controller.Pipeline), at most 4 a second
//   hop       one hop on the followed object's path (hop.go: stage, what, file)
//   step      step mode: the hop the pipeline is paused at, or that it is done
// Everything from the server is put on the page with textContent, never as HTML.
"use strict";

// Which stage card a hop lights: the trace's first word → the card's id.
const cardOf = {
  listwatch: "stage-reflector", fifo: "stage-fifo", store: "stage-store",
  handler: "stage-handlers", queue: "stage-queue", controller: "stage-workers", apiclient: "stage-workers",
};
const stageName = {
  listwatch: "Reflector", fifo: "FIFO", store: "Store", handler: "Handler",
  queue: "Workqueue", controller: "Worker", apiclient: "API write",
};

const $ = (id) => document.getElementById(id);
let source = null;       // the EventSource
let following = "";      // the key whose path is shown
let shown = new Set();   // seqs of the hops on the path, so a reconnect adds none twice
let lastHopMS = null;    // the previous hop's time on the path, for "took"
let latest = null;       // the latest snapshot
let samples = [];        // [{at, totals}] of the last seconds, for the rates

// el builds an element with text and children; the only way this page makes DOM.
function el(tag, className, text, ...children) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const c of children) e.append(c);
  return e;
}

// row is one informer, handler or controller in a stage card: a name and pairs.
function row(name, pairs, meter) {
  const dl = el("dl");
  for (const [k, v, bad] of pairs) {
    dl.append(el("dt", "", k), el("dd", bad ? "bad" : "", v));
  }
  const r = el("div", "row", null, el("div", "name", name), dl);
  if (meter !== undefined) {
    const fill = el("span");
    fill.style.width = Math.min(100, meter * 100) + "%"; // CSSOM, allowed by the page's CSP
    r.append(el("div", "meter", null, fill));
  }
  return r;
}

function fill(id, total, rows) {
  const card = $(id);
  card.dataset.total = String(total);
  card.querySelector(".rows").replaceChildren(...rows);
}

// informerName is how a card names an informer: namespace/resource (selector).
const informerName = (inf) => (inf.namespace ? inf.namespace + "/" : "") + inf.name + (inf.selector ? " (" + inf.selector + ")" : "");

// totals are the running counts the rates are taken from, one per informer
// ("received <name>") and per controller ("adds <name>", "reconciles <name>").
function totals(s) {
  const t = {};
  for (const inf of s.informers || []) t["received " + informerName(inf)] = inf.reflector.received;
  for (const c of s.controllers || []) {
    t["adds " + c.name] = c.queue.adds;
    t["reconciles " + c.name] = c.workers.reconciles;
  }
  return t;
}

// rate is per second over the samples of the last five seconds (0 for a count
// the oldest sample did not have yet).
function rate(name) {
  if (samples.length < 2) return 0;
  const a = samples[0], b = samples[samples.length - 1];
  const dt = (b.at - a.at) / 1000;
  return dt > 0 && name in a.totals ? (b.totals[name] - a.totals[name]) / dt : 0;
}

function sample() {
  if (!latest) return;
  const now = performance.now();
  samples.push({ at: now, totals: totals(latest) });
  while (samples.length > 2 && now - samples[0].at > 5000) samples.shift();
}

const perSecond = (name) => rate(name).toFixed(1) + "/s";

function draw() {
  const s = latest;
  if (!s) return;
  $("status").textContent = s.command + " · up " + Math.round(s.uptimeSeconds) + " s · " + s.hops + " hops traced";
  const leader = $("leader");
  leader.textContent = "leader: " + (!s.leader.elected ? "no election (always leading)" : s.leader.leading ? "leading" : "waiting for the Lease");
  leader.classList.toggle("leading", s.leader.leading);

  const infs = s.informers || [], ctrls = s.controllers || [];
  const sum = (xs, f) => xs.reduce((n, x) => n + f(x), 0);
  fill("stage-reflector", sum(infs, (i) => i.reflector.received), infs.map((i) => row(informerName(i), [
    ["state", i.reflector.state],
    ["resourceVersion", i.reflector.resourceVersion || "—"],
    ["received", i.reflector.received],
    ["received/s", perSecond("received " + informerName(i))],
    ["relists", i.reflector.relists],
    ["watch restarts", i.reflector.watchRestarts],
    ...(i.reflector.lastError ? [["last error", i.reflector.lastError, true]] : []),
  ])));
  const applied = (i) => Object.values(i.fifo.events || {}).reduce((n, v) => n + v, 0);
  fill("stage-fifo", sum(infs, applied), infs.map((i) => row(informerName(i), [
    ["depth", i.fifo.depth],
    ...Object.entries(i.fifo.events || {}).filter(([, n]) => n > 0).map(([type, n]) => ["events " + type, n]),
  ], i.fifo.depth / 100)));
  fill("stage-store", sum(infs, (i) => i.store.objects), infs.map((i) => row(informerName(i), [
    ["objects", i.store.objects],
    ["resourceVersion", i.store.resourceVersion || "—"],
    ["synced", i.store.synced ? "yes" : "no"],
    ...(i.store.indexes || []).map((ix) => ["index " + ix.name, ix.values + (ix.values === 1 ? " value" : " values")]),
  ])));
  const handlers = infs.flatMap((i) => (i.handlers || []).map((h) => ({ h, i })));
  fill("stage-handlers", sum(handlers, (x) => x.h.handled), handlers.map(({ h, i }) => row(h.name + " ← " + i.name, [
    ["backlog", h.backlog],
    ["handling", h.busy ? "yes" : "no"],
    ["handled", h.handled],
  ], h.backlog / 100)));
  fill("stage-queue", sum(ctrls, (c) => c.queue.adds), ctrls.map((c) => row(c.name, [
    ["depth", c.queue.depth],
    ["processing", c.queue.processing],
    ["delayed", c.queue.delayed],
    ["adds", c.queue.adds],
    ["adds/s", perSecond("adds " + c.name)],
    ["retries", c.queue.retries],
  ], c.queue.depth / 100)));
  fill("stage-workers", sum(ctrls, (c) => c.workers.reconciles), ctrls.map((c) => row(c.name, [
    ["active", c.workers.active + " of " + c.workers.max],
    ["backoff", c.workers.backoff],
    ["reconciles", c.workers.reconciles],
    ["reconciles/s", perSecond("reconciles " + c.name)],
    ["errors", c.workers.errors, c.workers.errors > 0],
  ], c.workers.max ? c.workers.active / c.workers.max : 0)));

  const recent = $("recent");
  recent.replaceChildren(...(s.recent || []).map((key) => {
    const b = el("button", key === following ? "on" : "", key);
    b.type = "button";
    b.addEventListener("click", () => follow(key));
    return b;
  }));
  $("step").hidden = !s.step;
}

// light marks the card of the stage a hop happened in: for a moment, or in
// step mode until the next step.
let unlight = null;
function light(stage, hold) {
  for (const c of document.querySelectorAll(".stage.lit")) c.classList.remove("lit");
  clearTimeout(unlight);
  const card = $(cardOf[stage]);
  if (!card) return;
  card.classList.add("lit");
  if (!hold) unlight = setTimeout(() => card.classList.remove("lit"), 700);
}

function addHop(hop) {
  if (shown.has(hop.seq)) return;
  shown.add(hop.seq);
  const took = lastHopMS === null ? "" : "+" + (hop.ms - lastHopMS).toFixed(1) + " ms";
  lastHopMS = hop.ms;
  const what = el("div", "what", hop.what || hop.line,
    el("code", "file", hop.file || ""), el("code", "", hop.line));
  const li = el("li", "hop latest", null,
    el("span", "at", hop.ms.toFixed(1) + " ms"),
    el("span", "took", took),
    el("span", "where", stageName[hop.stage] || hop.stage),
    what);
  li.dataset.stage = hop.stage;
  li.dataset.seq = String(hop.seq);
  li.dataset.key = hop.key;
  for (const old of document.querySelectorAll("#path .latest")) old.classList.remove("latest");
  $("path").append(li);
  $("path-title").textContent = following + ": " + shown.size + " hops, oldest first (time since the page's command started, and since the hop before)";
  light(hop.stage, false);
}

function showStep(st) {
  const box = $("step"), next = $("step-next");
  box.hidden = false;
  box.classList.toggle("done", st.done && !st.paused);
  box.dataset.seq = st.paused && st.hop ? String(st.hop.seq) : "";
  if (st.paused && st.hop) {
    $("step-explain").textContent = st.hop.what || "A hop the page has no sentence for.";
    $("step-file").textContent = st.hop.file || "";
    $("step-line").textContent = st.hop.line;
    next.disabled = false;
    light(st.hop.stage, true);
    return;
  }
  next.disabled = true;
  $("step-explain").textContent = st.done
    ? "The story is told: every hop of the demo has been shown. The controller keeps running until Ctrl-C."
    : "The pipeline is working towards its next hop…";
}

function stepNext() {
  const next = $("step-next");
  if (next.disabled) return;
  next.disabled = true; // until the server says where the pipeline stopped next
  fetch("/api/step", { method: "POST" }).catch(() => { next.disabled = false; });
}

function connect() {
  if (source) source.close();
  const url = "/api/events" + (following ? "?follow=" + encodeURIComponent(following) : "");
  source = new EventSource(url);
  source.addEventListener("snapshot", (e) => { latest = JSON.parse(e.data); sample(); draw(); });
  source.addEventListener("hop", (e) => addHop(JSON.parse(e.data)));
  source.addEventListener("step", (e) => showStep(JSON.parse(e.data)));
  source.addEventListener("error", () => {
    $("status").textContent = "the command is not answering (stopped?); trying again…";
  });
}

function follow(key) {
  following = key.trim();
  shown = new Set();
  lastHopMS = null;
  $("path").replaceChildren();
  $("follow-key").value = following;
  $("path-title").textContent = following ? following + ": no hop remembered yet; they appear as they happen." : "Follow an object to see its path.";
  const u = new URL(location.href);
  if (following) u.searchParams.set("follow", following); else u.searchParams.delete("follow");
  history.replaceState(null, "", u);
  connect();
  draw();
}

document.addEventListener("DOMContentLoaded", () => {
  $("follow-form").addEventListener("submit", (e) => { e.preventDefault(); follow($("follow-key").value); });
  $("step-next").addEventListener("click", stepNext);
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement) return; // typing a key to follow
    if (e.target instanceof HTMLButtonElement && e.key === " ") return; // the button's own click
    if (e.key === " " || e.key === "ArrowRight" || e.key === "n") { e.preventDefault(); stepNext(); }
  });
  setInterval(() => { sample(); draw(); }, 1000); // rates fall to 0 when nothing moves
  follow(new URL(location.href).searchParams.get("follow") || "");
});
