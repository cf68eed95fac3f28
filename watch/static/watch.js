// twserver recorded-game viewer. The frames come from the server in
// chunks (ChunkTicks of game each, every FrameTicks), parsed from flat int
// arrays (watch/frames.go). Every string a player controls is set with
// textContent (or drawn on the canvas), never parsed as markup.
'use strict';

// $, el and playerName: /common.js
const TICK_MS = 20;       // the game's tick
const MAX_CHUNKS = 48;    // chunks kept in the page (4 minutes of game)
const RETRY_MS = 250;     // asks again for a chunk not built yet
const ROUGH_MS = 1000;    // asks again for a chunk whose rough frames came
const FEED_LINES = 40;    // feed lines shown
const HASH_EVERY_MS = 1000;
const SPEEDS = [0.5, 1, 2, 4, 8];
const FLAG_NAMES = ['red', 'blue'];

const name = decodeURIComponent(location.pathname.split('/')[2] || '');
const base = '/watch/' + encodeURIComponent(name);

let info = null;          // the recording's state (/info)
let layer = null;
let tick = 0;             // the moment shown (float while playing)
let playing = false;
let speed = 1;
let follow = '';          // the followed player's name ('' = whole map)
let lastTs = 0;
const chunks = new Map(); // chunk index -> {from, frames} (parsed), or 'wait'
let shown = null;         // the frame drawn
let feedKey = '';
let hashAt = 0;
let waiting = false;      // the frame of the moment is not here yet
const teamOf = new Map(); // client id -> team, as the newest built frame said

// the last moment to show: built, or read by the rough pass (info.end_tick)
function endTick() { return Math.max(info.last_tick, info.end_tick || 0); }

function clock(t) {
  const s = Math.max(0, Math.floor(t * TICK_MS / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

function parseClock(s) {
  const p = s.split(':').map(Number);
  if (p.some((x) => !Number.isFinite(x) || x < 0)) return null;
  const secs = p.reduce((a, x) => a * 60 + x, 0);
  return Math.round(secs * 1000 / TICK_MS);
}

// the naming of client id at tick t (the newest before it), null before any
function namingAt(id, t) {
  let n = null;
  for (const p of info.names) if (p.id === id && p.from <= t + info.frame_ticks) n = p;
  return n;
}

// the name of client id at tick t
function nameAt(id, t) {
  const n = namingAt(id, t);
  return n === null ? '#' + id : n.name;
}

// the scoreboard's name: a bot says it is one, as on the server's page
function shownName(id, t) {
  const n = namingAt(id, t);
  if (n === null) return '#' + id;
  return playerName(n);
}

// frame ints -> the renderer's frame
function parseFrame(a) {
  let i = 0;
  const f = { tick: a[i++], tees: [], projectiles: [], lasers: [], pickups: [], flags: [], players: [] };
  const list = (dst, n) => { const c = a[i++]; for (let k = 0; k < c; k++) { dst.push(a.slice(i, i + n)); i += n; } };
  list(f.tees, 12);
  list(f.projectiles, 3);
  list(f.lasers, 4);
  list(f.pickups, 3);
  list(f.flags, 3);
  f.carriers = [a[i], a[i + 1]];
  f.teamScore = [a[i + 2], a[i + 3]];
  i += 4;
  list(f.players, 3);
  for (const [id, , team] of f.players) teamOf.set(id, team);
  return f;
}

// rough frame ints (watch/rough.go: tick, then id, x, y of each tee) -> a
// frame of positions only; the teams are those last seen built
function parseRough(a) {
  const f = { tick: a[0], rough: true, tees: [], projectiles: [], lasers: [], pickups: [], flags: [], players: [] };
  for (let i = 2, n = 0; n < a[1]; n++, i += 3) {
    f.tees.push(a.slice(i, i + 3));
    f.players.push([a[i], 0, teamOf.has(a[i]) ? teamOf.get(a[i]) : 0]);
  }
  return f;
}

async function getJSON(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(url + ': ' + r.status);
  return r.json();
}

async function loadInfo() {
  try { info = await getJSON(base + '/info'); } catch (e) { $('status').textContent = 'cannot load the recording'; return; }
  $('title').textContent = 'Recorded game: ' + info.map + ' · ' + info.game_type;
  $('meta').textContent = new Date(info.start).toLocaleString() + ' · ' + info.name +
    (info.done ? '' : ' · preparing…') + (info.error ? ' · ' + info.error : '');
  const tl = $('timeline');
  tl.min = String(Math.max(0, info.first_tick));
  tl.max = String(Math.max(0, endTick()));
  fillFollow();
  if (!info.done) setTimeout(loadInfo, 1000);
  else if (tick > endTick()) tick = endTick();
  if (!layer) loadLayer();
  render();
  if (pendingNext) nextEvent(pendingNext);
}

async function loadLayer() {
  try { layer = Minimap.layerOf(await getJSON(base + '/map')); } catch (e) { setTimeout(loadLayer, RETRY_MS); return; }
  render();
}

// the parsed chunk k, or null while it is on its way
function chunk(k) {
  const c = chunks.get(k);
  if (c && c !== 'wait') { chunks.delete(k); chunks.set(k, c); return c; } // most recently used last
  if (!c) fetchChunk(k);
  return null;
}

async function fetchChunk(k) {
  chunks.set(k, 'wait');
  let r;
  try { r = await fetch(base + '/chunk/' + k); } catch (e) { chunks.delete(k); return; }
  if (r.status === 202) { setTimeout(() => { chunks.delete(k); render(); }, RETRY_MS); return; }
  if (r.status === 404) { chunks.set(k, { from: k * info.chunk_ticks, frames: [] }); return; } // past the end
  if (!r.ok) { setTimeout(() => { chunks.delete(k); render(); }, RETRY_MS); return; }
  const j = await r.json();
  const c = { from: j.from, frames: j.frames, rough: j.rough === true };
  chunks.set(k, c);
  if (c.rough) setTimeout(() => { if (chunks.get(k) === c) { chunks.delete(k); render(); } }, ROUGH_MS);
  while (chunks.size > MAX_CHUNKS) chunks.delete(chunks.keys().next().value);
  render();
}

// the frame of tick t (the newest at or before it), or null
function frameAt(t) {
  if (!info) return null;
  const k = Math.floor(t / info.chunk_ticks);
  const c = chunk(k);
  if (!c) return null;
  if (t >= (k + 1) * info.chunk_ticks - 2 * 50 && (k + 1 < info.chunks || !info.done)) chunk(k + 1); // the next one, 2 s ahead
  let best = null, from = c;
  for (const a of c.frames) { if (a[0] <= t) best = a; else break; }
  if (!best && k > 0) {
    const p = chunks.get(k - 1);
    if (p && p !== 'wait' && p.frames.length) { best = p.frames[p.frames.length - 1]; from = p; }
  }
  if (!best && c.frames.length) best = c.frames[0];
  if (!best) return null;
  return from.rough ? parseRough(best) : parseFrame(best);
}

function render() {
  if (!info) return;
  const t = Math.floor(tick);
  const f = frameAt(t);
  waiting = !f;
  $('status').textContent = waiting ? 'loading…' : f.rough ? 'preparing this moment: positions only' : '';
  if (f) shown = f;
  const cv = $('minimap');
  if (shown && layer) {
    const names = new Map(shown.players.map(([id, , team]) => [id, { name: nameAt(id, shown.tick), team }]));
    const fid = followId(shown);
    const drawn = Minimap.draw(cv, layer, shown, names, info.teams, fid);
    cv.dataset.tees = drawn.join(' ');
    cv.dataset.tick = String(shown.tick);
    if (!shown.rough) showScore(shown);
  }
  $('timeline').value = String(t);
  $('clock').textContent = clock(t) + ' / ' + clock(endTick());
  showFeed(t);
}

function followId(f) {
  if (!follow) return -1;
  const p = f.players.find(([id]) => nameAt(id, f.tick) === follow);
  return p ? p[0] : -1;
}

function showScore(f) {
  const body = el('tbody');
  const rows = f.players.slice().sort((a, b) => b[1] - a[1]);
  for (const [id, score, team] of rows) {
    const tr = el('tr');
    if (info.teams && team >= 0) tr.className = 'team' + team;
    tr.append(el('td', shownName(id, f.tick)), el('td', team < 0 ? 'spectator' : (info.teams ? FLAG_NAMES[team] : '')), el('td', score));
    body.append(tr);
  }
  $('score').tBodies[0].replaceWith(body);
  $('teamscore').textContent = info.teams ? 'red ' + f.teamScore[0] + ' : ' + f.teamScore[1] + ' blue' : '';
}

function eventText(e) {
  const n = (id) => (id < 0 ? 'the server' : nameAt(id, e.tick));
  switch (e.kind) {
    case 'kill': return e.client === e.victim || e.client < 0 ? n(e.victim) + ' died' :
      n(e.client) + ' killed ' + n(e.victim) + ' (' + (Minimap.WEAPONS[e.weapon] || 'world') + ')';
    case 'capture': return n(e.client) + ' captured the ' + (FLAG_NAMES[e.team] || '') + ' flag (' + (e.ticks * TICK_MS / 1000).toFixed(2) + ' s)';
    case 'chat': return (e.client < 0 ? '*** ' : n(e.client) + ': ') + e.text;
    case 'join': return n(e.client) + ' entered the game';
    case 'leave': return n(e.client) + ' left the game';
  }
  return e.kind;
}

// the feed as of tick t: the last FEED_LINES events at or before it
function showFeed(t) {
  let end = 0;
  while (end < info.events.length && info.events[end].tick <= t) end++;
  const key = end + ':' + info.events.length;
  if (key === feedKey) return;
  feedKey = key;
  const feed = $('feed');
  feed.replaceChildren();
  for (const e of info.events.slice(Math.max(0, end - FEED_LINES), end)) {
    const li = el('li', null, e.kind);
    li.dataset.tick = String(e.tick);
    li.append(el('span', clock(e.tick), 'at'), el('span', eventText(e)));
    feed.append(li);
  }
  feed.scrollTop = feed.scrollHeight;
}

function fillFollow() {
  const sel = $('follow');
  const names = [...new Set(info.names.map((p) => p.name))];
  const have = Array.from(sel.options).slice(1).map((o) => o.value).join('\n');
  if (have !== names.join('\n')) {
    sel.replaceChildren(el('option', 'whole map'));
    sel.options[0].value = '';
    for (const n of names) { const o = el('option', n); o.value = n; sel.append(o); }
  }
  sel.value = names.includes(follow) ? follow : '';
}

function seek(t) {
  if (!info) return;
  // while the file is read, a moment past what is known may come
  tick = Math.max(Math.max(0, info.first_tick), info.done ? Math.min(endTick(), t) : t);
  writeHash();
  render();
}

function setPlaying(p) {
  playing = p && !!info;
  $('play').textContent = playing ? 'pause' : 'play';
  writeHash();
}

function setSpeed(s) {
  speed = s;
  $('speed').value = String(s);
}

// nextEvent seeks to the next event of kind after the moment shown; while
// the recording is still being prepared and none is known yet, it goes
// there as soon as one is (loadInfo asks again).
let pendingNext = null;
function nextEvent(kind) {
  pendingNext = null;
  if (!info) { pendingNext = kind; return; }
  const e = info.events.find((x) => x.kind === kind && x.tick > Math.floor(tick));
  if (e) seek(e.tick);
  else if (!info.done) pendingNext = kind;
}

// the demo downloads (when the server makes them): whole or a clip of
// CLIP_TICKS either side of the moment, free view or the followed player's
const CLIP_TICKS = 10 * 50;
function showDownloads() {
  const p = $('downloads');
  if (!info || !info.demo) return;
  const t = Math.floor(tick);
  const id = shown ? followId(shown) : -1;
  const view = id >= 0 ? '&view=' + id : '';
  const clip = '&from=' + Math.max(0, t - CLIP_TICKS) + '&to=' + (t + CLIP_TICKS);
  const links = [
    ['demo 0.7', '?ddnet=0' + view], ['demo DDNet', '?ddnet=1' + view],
    ['clip 0.7', '?ddnet=0' + view + clip], ['clip DDNet', '?ddnet=1' + view + clip],
  ];
  p.replaceChildren(el('span', 'download' + (id >= 0 ? ' (' + follow + "'s view)" : '') + ': '));
  for (const [text, q] of links) {
    const a = el('a', text);
    a.href = info.demo + q;
    a.setAttribute('download', '');
    p.append(a, ' ');
  }
  p.hidden = false;
}

function writeHash() {
  hashAt = performance.now();
  showDownloads();
  let h = '#t=' + clock(tick);
  if (follow) h += '&follow=' + encodeURIComponent(follow);
  if (location.hash !== h) history.replaceState(null, '', h);
}

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const t = p.get('t') ? parseClock(p.get('t')) : null;
  if (t !== null) tick = t;
  follow = p.get('follow') || '';
  if (info) { fillFollow(); seek(tick); }
}

function step(ts) {
  if (lastTs && playing && info && !waiting) {
    tick += (ts - lastTs) / TICK_MS * speed;
    if (tick >= endTick()) {
      tick = endTick();
      if (info.done) setPlaying(false);
    }
    if (performance.now() - hashAt > HASH_EVERY_MS) writeHash();
  }
  lastTs = ts;
  if (playing) render();
  requestAnimationFrame(step);
}

function onKey(e) {
  if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT' && e.key !== ' ') return;
  const s = SPEEDS.indexOf(speed);
  switch (e.key) {
    case ' ': setPlaying(!playing); break;
    case 'ArrowLeft': seek(tick - (e.shiftKey ? 50 : 250)); break;
    case 'ArrowRight': seek(tick + (e.shiftKey ? 50 : 250)); break;
    case ',': seek(tick - 2); break;
    case '.': seek(tick + 2); break;
    case '+': setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, s + 1)]); break;
    case '-': setSpeed(SPEEDS[Math.max(0, s - 1)]); break;
    case 'k': nextEvent('kill'); break;
    case 'c': nextEvent('capture'); break;
    case 'm': nextEvent('chat'); break;
    case 'f': {
      const o = Array.from($('follow').options).map((x) => x.value);
      follow = o[(o.indexOf(follow) + 1) % o.length];
      $('follow').value = follow;
      writeHash(); render(); break;
    }
    default: return;
  }
  e.preventDefault();
}

$('play').addEventListener('click', () => setPlaying(!playing));
$('speed').addEventListener('change', (e) => setSpeed(Number(e.target.value)));
$('timeline').addEventListener('input', (e) => seek(Number(e.target.value)));
$('next-kill').addEventListener('click', () => nextEvent('kill'));
$('next-capture').addEventListener('click', () => nextEvent('capture'));
$('next-chat').addEventListener('click', () => nextEvent('chat'));
$('follow').addEventListener('change', (e) => { follow = e.target.value; writeHash(); render(); });
$('minimap').addEventListener('click', () => $('minimap').focus());
document.addEventListener('keydown', onKey);
window.addEventListener('hashchange', readHash);
readHash();
loadInfo().then(() => { if (!location.hash.includes('t=')) tick = Math.max(0, info ? info.first_tick : 0); seek(tick); });
requestAnimationFrame(step);
// the test hook: the moment shown and whether the page plays
window.watchState = () => ({ tick: shown ? shown.tick : -1, playing, speed, follow, waiting, rough: !!(shown && shown.rough) });
