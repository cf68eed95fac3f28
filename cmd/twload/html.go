package main

import (
	"bytes"
	"os"
	"strings"
)

// writeHTML writes report.html: one self-contained page (no network, no
// library: the plots are SVG drawn by the page's own script) showing the
// report whose JSON is reportJSON. encoding/json escapes <, > and & in
// strings, so the JSON cannot end the script element it sits in, and the
// page's script puts every string from it into the document as text,
// never as markup.
func writeHTML(path string, reportJSON []byte) error {
	var b bytes.Buffer
	head, tail, _ := strings.Cut(reportPage, "{{DATA}}")
	b.WriteString(head)
	b.Write(reportJSON)
	b.WriteString(tail)
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// reportPage is the page; {{DATA}} is replaced by the report's JSON.
const reportPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>twload report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
td:nth-child(-n+2), th:nth-child(-n+2) { text-align: left; }
.bad { color: #b00; font-weight: bold; } .ok { color: #070; font-weight: bold; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; border: 1px solid #ddd; padding: 6px; background: #fff; }
figcaption { display: flex; justify-content: space-between; gap: 1em; font-weight: 600; }
button { font-size: 12px; }
code { background: #f4f4f4; padding: 0 3px; }
</style></head>
<body>
<h1>twload report</h1>
<div id="head"></div>
<div id="main"></div>
<script id="data" type="application/json">{{DATA}}</script>
<script>
"use strict";
const rep = JSON.parse(document.getElementById("data").textContent);
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
const SVGNS = "http://www.w3.org/2000/svg";
const FONT = "font-family: sans-serif; font-size: 11px";
const servers = rep.config.servers.map(s => s.name);
const color = name => COLORS[Math.max(0, servers.indexOf(name)) % COLORS.length];
const plots = [];
const TIME = "seconds since the load started";
// a scenario run's phases (twload -scenario): bands in the time plots
const PHASES = ((rep.rows || []).find(r => r.phases && r.phases.length) || {}).phases || [];

function h(tag, text, parent, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  if (parent) parent.appendChild(e);
  return e;
}
function s(tag, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = String(text);
  if (parent) parent.appendChild(e);
  return e;
}
function fmt(v) {
  if (v === undefined || v === null || !isFinite(v)) return "-";
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}
function spread(x) { return !x || !x.n ? "-" : x.n === 1 || x.min === x.max ? fmt(x.median) : fmt(x.median) + " (" + fmt(x.min) + "–" + fmt(x.max) + ")"; }
function niceTicks(lo, hi, n) {
  if (hi <= lo) hi = lo + 1;
  const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(st => st >= raw);
  const ticks = [];
  let t = Math.floor(lo / step + 1e-9) * step;
  for (; t < hi - step * 1e-9; t += step) ticks.push(Math.round(t * 1e6) / 1e6);
  ticks.push(Math.round(t * 1e6) / 1e6); // the first tick at or above hi
  return ticks;
}

// figure makes a plot's frame: caption, PNG button, svg of w x h.
function figure(parent, title, w, hgt) {
  const fig = h("figure", null, parent);
  const cap = h("figcaption", null, fig);
  h("span", title, cap);
  const btn = h("button", "PNG", cap);
  const svg = s("svg", { xmlns: SVGNS, width: w, height: hgt, viewBox: "0 0 " + w + " " + hgt, style: FONT }, fig);
  s("rect", { x: 0, y: 0, width: w, height: hgt, fill: "#fff" }, svg);
  const name = title.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "");
  plots.push({ svg, name });
  btn.addEventListener("click", () => pngOf(svg).then(url => {
    const a = document.createElement("a");
    a.href = url; a.download = name + ".png"; a.click();
  }));
  return svg;
}

// pngOf renders an svg to a PNG data URL (twice its size).
function pngOf(svg) {
  return new Promise((resolve, reject) => {
    const xml = new XMLSerializer().serializeToString(svg);
    const img = new Image();
    img.onload = () => {
      const c = document.createElement("canvas");
      c.width = svg.width.baseVal.value * 2; c.height = svg.height.baseVal.value * 2;
      const g = c.getContext("2d");
      g.scale(2, 2); g.drawImage(img, 0, 0);
      resolve(c.toDataURL("image/png"));
    };
    img.onerror = () => reject(new Error("cannot render the plot"));
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
  });
}
window.twPlotPNG = i => pngOf(plots[i].svg);
window.twPlotCount = () => plots.length;

// axes draws the frame, grid and labels and returns the scale functions;
// top is the room above the plot area (10 px unless given).
function axes(svg, w, hgt, xr, yr, xlabel, ylabel, top) {
  const L = 52, R = 10, T = top || 10, B = 34;
  const yt = niceTicks(yr[0], yr[1], 5);
  const y0 = yt[0], y1 = yt[yt.length - 1];
  const X = x => L + (x - xr[0]) / ((xr[1] - xr[0]) || 1) * (w - L - R);
  const Y = y => hgt - B - (y - y0) / ((y1 - y0) || 1) * (hgt - T - B);
  for (const t of yt) {
    s("line", { x1: L, x2: w - R, y1: Y(t), y2: Y(t), stroke: "#e5e5e5" }, svg);
    s("text", { x: L - 4, y: Y(t) + 4, "text-anchor": "end", fill: "#444" }, svg, fmt(t));
  }
  if (xr.length === 2 && xlabel !== null) {
    for (const t of niceTicks(xr[0], xr[1], 6)) {
      if (t < xr[0] || t > xr[1]) continue;
      s("text", { x: X(t), y: hgt - B + 14, "text-anchor": "middle", fill: "#444" }, svg, fmt(t));
    }
  }
  s("line", { x1: L, x2: w - R, y1: hgt - B, y2: hgt - B, stroke: "#888" }, svg);
  s("line", { x1: L, x2: L, y1: T, y2: hgt - B, stroke: "#888" }, svg);
  if (xlabel) s("text", { x: (L + w - R) / 2, y: hgt - 4, "text-anchor": "middle", fill: "#222" }, svg, xlabel);
  s("text", { x: 12, y: (T + hgt - B) / 2, "text-anchor": "middle", fill: "#222", transform: "rotate(-90 12 " + (T + hgt - B) / 2 + ")" }, svg, ylabel);
  return { X, Y, L, R, T, B };
}

// lineChart: series [{name, color, dash, pts: [[x, y]]}].
function lineChart(parent, title, xlabel, ylabel, series) {
  const w = 560, hgt = 250;
  const svg = figure(parent, title, w, hgt);
  const xs = series.flatMap(r => r.pts.map(p => p[0])), ys = series.flatMap(r => r.pts.map(p => p[1]));
  if (!xs.length) { s("text", { x: w / 2, y: hgt / 2, "text-anchor": "middle" }, svg, "no data"); return; }
  const xr = [Math.min(...xs), Math.max(...xs)];
  const a = axes(svg, w, hgt, xr, [Math.min(0, ...ys), Math.max(...ys)], xlabel, ylabel);
  if (xlabel === TIME) phaseBands(svg, a, xr, hgt);
  series.forEach((r, i) => {
    if (!r.pts.length) return;
    const d = r.pts.map((p, j) => (j ? "L" : "M") + a.X(p[0]).toFixed(1) + " " + a.Y(p[1]).toFixed(1)).join(" ");
    s("path", { d, fill: "none", stroke: r.color, "stroke-width": 1.6, "stroke-dasharray": r.dash || "none", class: "series" }, svg);
    const ly = a.T + 4 + i * 13;
    s("rect", { x: w - 154, y: ly - 6, width: 150, height: 13, fill: "#fff", "fill-opacity": 0.85 }, svg);
    s("line", { x1: w - 150, x2: w - 132, y1: ly, y2: ly, stroke: r.color, "stroke-width": 2, "stroke-dasharray": r.dash || "none" }, svg);
    s("text", { x: w - 128, y: ly + 4, fill: "#222" }, svg, r.name);
  });
}

// phaseBands shades a scenario's phases (alternately) behind a time plot
// and names them at the top.
function phaseBands(svg, a, xr, hgt) {
  PHASES.forEach((p, i) => {
    const x0 = a.X(Math.max(p.start_s, xr[0])), x1 = a.X(Math.min(p.end_s, xr[1]));
    if (x1 <= x0) return;
    s("rect", { x: x0, y: a.T, width: x1 - x0, height: hgt - a.B - a.T, fill: i % 2 ? "#f3f0e6" : "#e8eef6", "fill-opacity": 0.7, class: "phase" }, svg);
    s("text", { x: x0 + 2, y: a.T + 10, fill: "#555" }, svg, p.name);
  });
}

// barChart: groups [{label, bars: [{name, v, min, max}]}], whiskers min–max.
function barChart(parent, title, ylabel, groups) {
  const w = 420, hgt = 250 + 13 * servers.length;
  const svg = figure(parent, title, w, hgt);
  const all = groups.flatMap(g => g.bars.map(b => Math.max(b.v, b.max || 0)));
  // the legend has a band of its own above the plot, so no bar runs under it
  const a = axes(svg, w, hgt, [0, 1], [0, Math.max(...all, 0)], null, ylabel, 14 + 13 * servers.length);
  const gw = (w - a.L - a.R) / groups.length;
  groups.forEach((g, gi) => {
    const bw = Math.min(40, (gw - 16) / Math.max(1, g.bars.length));
    const x0 = a.L + gi * gw + (gw - bw * g.bars.length) / 2;
    g.bars.forEach((b, bi) => {
      const x = x0 + bi * bw;
      s("rect", { x: x + 2, y: a.Y(b.v), width: bw - 4, height: Math.max(0, a.Y(0) - a.Y(b.v)), fill: color(b.name), class: "bar" }, svg);
      if (b.max > b.min) {
        const cx = x + bw / 2;
        s("line", { x1: cx, x2: cx, y1: a.Y(b.min), y2: a.Y(b.max), stroke: "#000" }, svg);
        s("line", { x1: cx - 4, x2: cx + 4, y1: a.Y(b.max), y2: a.Y(b.max), stroke: "#000" }, svg);
        s("line", { x1: cx - 4, x2: cx + 4, y1: a.Y(b.min), y2: a.Y(b.min), stroke: "#000" }, svg);
      }
    });
    s("text", { x: a.L + gi * gw + gw / 2, y: hgt - a.B + 14, "text-anchor": "middle", fill: "#444" }, svg, g.label);
  });
  servers.forEach((n, i) => {
    s("rect", { x: a.L + 8, y: 4 + i * 13, width: 10, height: 10, fill: color(n), class: "legend" }, svg);
    s("text", { x: a.L + 22, y: 13 + i * 13, fill: "#222" }, svg, n);
  });
}

function table(parent, header, rows) {
  const t = h("table", null, parent);
  const tr = h("tr", null, t);
  header.forEach(c => h("th", c, tr));
  rows.forEach(r => { const row = h("tr", null, t); r.forEach(c => h("td", c, row)); });
}

// the head: when, where, what, verdict
const head = document.getElementById("head");
const c = rep.config;
h("p", "Started " + rep.started + " on " + rep.machine.cpus + " CPUs (" + rep.machine.goarch + ", load average " + rep.machine.loadavg_at_start + "); " +
  c.windows + " window(s) of " + c.window_s + " s after a " + c.ramp_up_s + " s ramp-up, " + c.games + " game(s) per server, clients " +
  c.proto + ", pattern " + c.pattern + ".", head);
const ul = h("ul", null, head);
c.servers.forEach(sv => { const li = h("li", null, ul); h("b", sv.name, li); li.appendChild(document.createTextNode(": ")); h("code", sv.cmd, li); });
h("p", rep.ok ? "OK: every run had all its clients in game and no errors." : "FAILED: " + rep.first_problem, head, rep.ok ? "ok" : "bad");

const main = document.getElementById("main");
h("h2", "Summary (median, min–max over the windows)", main);
table(main, ["clients/game", "server", "CPU % of a core", "peak RSS MB", "rx B/s per client", "snapshots/s per client (min)", "join ms", "tick ms", "in game", "errors"],
  (rep.summary || []).map(a => [a.clients, a.server, spread(a.cpu_pct), spread(a.peak_rss_mb), spread(a.rx_bytes_per_sec_per_client),
    spread(a.snaps_per_sec_per_client_min), spread(a.join_ms_mean), spread(a.tick_ms_mean), (a.in_game || []).join(", "), a.errors]));
if (rep.ratios && rep.ratios.length) {
  table(main, ["clients/game", "ratio", "CPU", "peak RSS", "bytes per client", "windows left out (not the same load)"],
    rep.ratios.map(r => r.cpu.n ? [r.clients, r.server + " / " + r.other, spread(r.cpu), spread(r.peak_rss), spread(r.rx_bytes_per_client), (r.excluded || []).join("; ")]
      : [r.clients, r.server + " / " + r.other, "not comparable", "-", "-", (r.excluded || []).join("; ")]));
}

if (PHASES.length) {
  h("h2", "Scenario phases", main);
  table(main, ["phase", "kind", "seconds", "in game min–max (end)", "snapshots/s per client mean (min)", "failed", "crc errors", "server CPU %", "server RSS MB", "what it did"],
    PHASES.map(p => [p.name, p.kind, fmt(p.start_s) + "–" + fmt(p.end_s), p.in_game_min + "–" + p.in_game_max + " (" + p.in_game_end + ")",
      fmt(p.snaps_per_sec_mean) + " (" + fmt(p.snaps_per_sec_min) + ")", p.failed, p.crc_errors,
      p.server_cpu_pct ? fmt(p.server_cpu_pct) : "-", p.server_rss_mb ? fmt(p.server_rss_mb) : "-",
      p.error ? "error: " + p.error : p.flood ? "flood: " + p.flood.sent_total + " datagrams, " + fmt(p.flood.achieved_pps) + "/s" :
      p.hold ? "hold at " + p.hold.stage + ": " + p.hold.held + " of " + p.hold.clients + " held, " + p.hold.dropped + " dropped, " + p.hold.still_held_at_end + " still held" :
      p.left ? p.left + " clients left" : (p.netem || "")]));
}

// side-by-side bars per client count
h("h2", "Side by side", main);
const bars = h("div", null, main, "plots");
const counts = c.clients;
function barsOf(field) {
  return counts.map(n => ({ label: n + " clients", bars: (rep.summary || []).filter(a => a.clients === n && a[field] && a[field].n)
    .map(a => ({ name: a.server, v: a[field].median, min: a[field].min, max: a[field].max })) })).filter(g => g.bars.length);
}
const barDefs = [["cpu_pct", "Server CPU", "% of a core"], ["peak_rss_mb", "Peak RSS", "MB"],
  ["rx_bytes_per_sec_per_client", "Bytes per client", "B/s received"], ["snaps_per_sec_per_client_min", "Slowest client's snapshots", "snapshots/s"],
  ["join_ms_mean", "Join time", "ms (mean)"], ["tick_ms_mean", "Tick work", "ms (mean)"]];
for (const [field, title, unit] of barDefs) {
  if (!rep.server_sampled && (field === "cpu_pct" || field === "peak_rss_mb")) continue;
  const g = barsOf(field);
  if (g.length) barChart(bars, title, unit, g);
}

// time series per client count: one line per run
const DASH = ["none", "5 3", "2 2", "8 3 2 3"];
for (const n of counts) {
  const runs = (rep.rows || []).filter(r => r.clients === n && r.series && r.series.length);
  if (!runs.length) continue;
  h("h2", n + " clients per game: each run over time", main);
  const box = h("div", null, main, "plots");
  const line = (field) => runs.map(r => ({ name: r.server + " w" + r.window, color: color(r.server), dash: DASH[(r.window - 1) % DASH.length],
    pts: r.series.filter(p => p[field] !== undefined).map(p => [p.t, p[field]]) }));
  if (rep.server_sampled) {
    lineChart(box, "Server CPU, " + n + " clients", TIME, "% of a core", line("cpu_pct"));
    lineChart(box, "Server RSS, " + n + " clients", TIME, "MB", line("rss_mb"));
  }
  if (n > 0) {
    lineChart(box, "Snapshots per client, " + n + " clients", TIME, "snapshots/s", line("snaps_per_sec"));
    lineChart(box, "Join times, " + n + " clients", "clients, fastest first", "ms to enter the game",
      runs.map(r => ({ name: r.server + " w" + r.window, color: color(r.server), dash: DASH[(r.window - 1) % DASH.length],
        pts: (r.join_ms || []).slice().sort((x, y) => x - y).map((v, i) => [i + 1, v]) })));
  }
  if (runs.some(r => r.series.some(p => p.tick_ms > 0))) {
    lineChart(box, "Tick work, " + n + " clients", TIME, "ms per tick (mean)",
      runs.map(r => ({ name: r.server + " w" + r.window, color: color(r.server), dash: DASH[(r.window - 1) % DASH.length],
        pts: r.series.filter(p => p.tick_ms > 0).map(p => [p.t, p.tick_ms]) })).filter(r => r.pts.length));
  }
}
document.body.setAttribute("data-phase-bands", String(document.querySelectorAll("rect.phase").length));
document.body.setAttribute("data-plots", String(plots.length));
</script>
</body></html>
`
