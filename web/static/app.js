// twserver status page. Every string a player controls is set with
// textContent (or drawn on the canvas), never parsed as markup.
'use strict';

// $, el and playerName: /common.js
const WEAPONS = Minimap.WEAPONS; // the minimap renderer: /draw.js

let games = [];
let current = null;
let stream = null;
let layer = null;       // {gen, width, height, image}
let layerGen = -1;
let frame = null;       // the "frame" message shown (positions)
let game = null;        // the newest "game" message (state, players)
let follow = -1;
let frames = 0;         // frames drawn
let updates = 0;        // frames drawn UPDATE_MS or more after the one before
let drawnAt = -Infinity;
let received = 0;       // frames received
let lastFeedSeq = 0;

// Playback. With many viewers the server writes each one only a few
// times a second, several frames at once, so the frames are queued and
// each is drawn at its game time: TICK_MS per tick after the earliest
// arrival seen for a tick (the clock), plus a delay that follows the
// largest gap between arrivals of the last WINDOW_MS (so that the next
// bundle comes before the queue runs dry; it grows at once and shrinks by
// DELAY_STEP_MS a frame, so that playback speeds up a little instead of
// jumping). A frame is never drawn before one it follows; late ones are
// skipped.
const TICK_MS = 20;       // the game's tick
const QUEUE_MAX = 64;     // frames waiting to be drawn
const WINDOW_MS = 5000;   // the arrivals the clock and the delay follow
const BUNDLE_MS = 20;     // arrivals this close are one bundle
const DELAY_MIN_MS = 100; // the delay before two arrivals were seen
const DELAY_STEP_MS = 10; // how much the delay shrinks a frame
const UPDATE_MS = 40;     // draws closer than this count as one update
let queue = [];           // frames waiting to be drawn, oldest first
let clock = [];           // [arrival, arrival - tick * TICK_MS] of recent frames
let gaps = [];            // [arrival, gap to the bundle before] of recent bundles
let lastArrival = -1;
let lastSeq = 0;          // the newest frame received on this connection
let delay = DELAY_MIN_MS;
let timer = 0;

async function getJSON(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(url + ': ' + r.status);
  return r.json();
}

async function loadGames() {
  try {
    const j = await getJSON('/api/games');
    games = j.games;
  } catch (e) { return; }
  const nav = $('games');
  nav.replaceChildren();
  for (const g of games) {
    const b = el('button', g.name + ' (' + g.port + ', ' + g.clients.length + ')');
    b.dataset.port = g.port;
    if (g.port === current) b.classList.add('on');
    b.addEventListener('click', () => select(g.port));
    nav.append(b);
  }
  nav.hidden = games.length < 2; // one game: its name is the title already
  if (current === null && games.length > 0) select(games[0].port);
}

function select(port) {
  current = port;
  for (const b of $('games').children) b.classList.toggle('on', Number(b.dataset.port) === port);
  if (stream) stream.close();
  layer = null; layerGen = -1; frame = null; game = null; lastFeedSeq = 0; follow = -1;
  resetPlayback();
  gaps = []; lastArrival = -1; delay = DELAY_MIN_MS;
  $('feed').replaceChildren();
  $('feed-section').hidden = true;
  $('recordings').replaceChildren();
  stream = new EventSource('/api/games/' + port + '/events');
  stream.addEventListener('open', () => { lastSeq = 0; }); // (re)connected: seq may start over
  stream.addEventListener('frame', (e) => onFrame(JSON.parse(e.data)));
  stream.addEventListener('game', (e) => { game = JSON.parse(e.data); showGame(game); });
  stream.addEventListener('feed', (e) => onFeed(JSON.parse(e.data)));
  loadHistory();
  loadRecordings();
}

// the finished games' recordings (empty when the game does not record)
async function loadRecordings() {
  if (current === null) return;
  const port = current;
  let j;
  try { j = await getJSON('/api/games/' + port + '/recordings'); } catch (e) { return; }
  if (port !== current) return;
  const list = $('recordings');
  list.replaceChildren();
  for (const r of j.recordings) {
    const li = el('li');
    const a = el('a', r.name);
    a.href = r.url; // built by the server from a checked file name
    a.setAttribute('download', '');
    li.append(a, el('span', ' ' + r.kind + ', ' + Math.ceil(r.bytes / 1024) + ' KiB, ' + new Date(r.modified).toLocaleString()));
    if (r.watch) { const w = el('a', 'watch'); w.href = r.watch; li.append(' ', w); } // the viewer (server-built address)
    list.append(li);
  }
  $('rec-section').hidden = j.recordings.length === 0;
}

function onFrame(f) {
  const now = performance.now();
  received++;
  if (f.seq <= lastSeq) return; // not newer than one had on this connection
  lastSeq = f.seq;
  const newest = queue.length ? queue[queue.length - 1] : frame;
  if (newest && f.tick < newest.tick) resetPlayback(); // the game's tick started over
  clock.push([now, now - f.tick * TICK_MS]);
  while (clock.length && clock[0][0] < now - WINDOW_MS) clock.shift();
  if (lastArrival >= 0 && now - lastArrival > BUNDLE_MS) gaps.push([now, now - lastArrival]);
  while (gaps.length && gaps[0][0] < now - WINDOW_MS) gaps.shift();
  lastArrival = now;
  const want = gaps.length ? Math.max(...gaps.map((g) => g[1])) : DELAY_MIN_MS;
  delay = Math.max(want, delay - DELAY_STEP_MS);
  queue.push(f);
  if (queue.length > QUEUE_MAX) queue.shift();
  if (timer) { clearTimeout(timer); timer = 0; } // the clock or the delay may have moved
  schedule();
}

// when frame f is due to be drawn (performance.now time)
function dueAt(f) {
  let base = Infinity;
  for (const c of clock) base = Math.min(base, c[1]);
  return base + f.tick * TICK_MS + delay;
}

// forget the queue and the clock (another game, or its tick started over)
function resetPlayback() {
  queue = []; clock = [];
  if (timer) { clearTimeout(timer); timer = 0; }
}

// sets the timer for the next queued frame
function schedule() {
  if (timer || !queue.length) return;
  timer = setTimeout(play, Math.max(0, dueAt(queue[0]) - performance.now()));
}

// draws the newest frame that is due (skipping older due ones)
function play() {
  timer = 0;
  const now = performance.now();
  let next = null;
  while (queue.length && dueAt(queue[0]) <= now + 1) next = queue.shift();
  if (next) {
    frame = next;
    frames++;
    if (now - drawnAt >= UPDATE_MS) updates++;
    drawnAt = now;
    if (frame.map_gen !== layerGen) { layerGen = frame.map_gen; loadLayer(current, frame.map_gen); }
    draw();
  }
  schedule();
}

async function loadLayer(port, gen) {
  let m;
  try { m = await getJSON('/api/games/' + port + '/map'); } catch (e) { return; }
  if (port !== current) return;
  layer = Minimap.layerOf(m);
  draw();
}

function showGame(g) {
  $('g-name').textContent = g.name;
  const limits = [];
  if (g.score_limit) limits.push('score limit ' + g.score_limit);
  if (g.time_limit) limits.push('time limit ' + g.time_limit + ' min');
  let info = g.map + ' · ' + g.game_type + ' · ' + g.state.replace('_', ' ');
  if (limits.length) info += ' · ' + limits.join(', ');
  if (g.teams) info += ' · red ' + g.team_score[0] + ' : ' + g.team_score[1] + ' blue';
  info += ' · ' + g.clients.length + '/' + g.max_clients + ' clients';
  $('g-info').textContent = info;
  const players = g.clients.filter((c) => c.is_player).sort((a, b) => b.score - a.score);
  const specs = g.clients.filter((c) => !c.is_player);
  fillTable($('players'), players, g.teams);
  fillTable($('spectators'), specs, g.teams);
  // an empty list shows no header and no empty table
  $('players').hidden = players.length === 0;
  $('no-players').hidden = players.length > 0;
  $('spec-section').hidden = specs.length === 0;
  const sel = $('follow');
  const want = ['-1'].concat(players.map((c) => String(c.id)));
  const have = Array.from(sel.options).map((o) => o.value + ':' + o.textContent);
  const wantText = ['-1:whole map'].concat(players.map((c) => c.id + ':' + c.name));
  if (have.join('\n') !== wantText.join('\n')) {
    sel.replaceChildren(el('option', 'whole map'));
    sel.options[0].value = '-1';
    for (const c of players) { const o = el('option', c.name); o.value = String(c.id); sel.append(o); }
    sel.value = want.includes(String(follow)) ? String(follow) : '-1';
  }
}

function fillTable(table, rows, teams) {
  const body = el('tbody');
  for (const c of rows) {
    const tr = el('tr');
    tr.dataset.id = c.id;
    if (teams && c.team >= 0) tr.className = 'team' + c.team;
    const team = c.team < 0 ? 'spectator' : (teams ? (c.team === 0 ? 'red' : 'blue') : '');
    const name = playerName(c); // bots say they are bots
    // country: ISO 3166-1 numeric, -1 when the player set none
    const country = c.country >= 0 ? c.country : '-';
    for (const v of [name, c.clan, country, c.score, team, c.ping, c.client]) tr.append(el('td', v));
    body.append(tr);
  }
  table.tBodies[0].replaceWith(body);
}

function onFeed(events) {
  const feed = $('feed');
  for (const e of events) {
    if (e.seq <= lastFeedSeq) continue;
    lastFeedSeq = e.seq;
    let text;
    switch (e.kind) {
      case 'chat': text = (e.client < 0 ? '*** ' : e.name + ': ') + e.text; break;
      case 'kill': text = e.client === e.victim || e.client < 0 ? e.victim_name + ' died' :
        e.name + ' killed ' + e.victim_name + ' (' + (WEAPONS[e.weapon] || 'world') + ')'; break;
      case 'join': text = e.name + ' entered the game'; break;
      case 'leave': text = e.name + ' left the game'; break;
      default: text = e.text || e.kind;
    }
    const li = el('li', text, e.kind);
    li.dataset.seq = e.seq;
    feed.append(li);
  }
  while (feed.children.length > 200) feed.firstElementChild.remove();
  $('feed-section').hidden = feed.children.length === 0;
  feed.scrollTop = feed.scrollHeight;
}

function draw() {
  const cv = $('minimap');
  const names = new Map(game ? game.clients.map((c) => [c.id, c]) : []);
  const drawn = Minimap.draw(cv, game ? layer : null, frame, names, game && game.teams, follow);
  if (!layer || !frame || !game) return;
  cv.dataset.tees = drawn.join(' ');
  cv.dataset.frames = String(frames);
  cv.dataset.updates = String(updates);
  cv.dataset.received = String(received);
  cv.dataset.tick = String(frame.tick);
  cv.dataset.delay = String(Math.round(delay));
}

// plots of the last hour, as inline SVG: key of the sample, caption,
// scale, and the key of a second series drawn dashed on the same axis
const PLOTS = [
  ['players', 'players', 1],
  ['tick_p99_ms', 'tick work p99 (ms)', 1],
  ['bytes_in_per_s', 'bytes in (kB/s)', 1 / 1000],
  ['bytes_out_per_s', 'bytes out (kB/s)', 1 / 1000],
  ['snapshot_bytes', 'snapshot per client (bytes, mean; max dashed)', 1, 'snapshot_bytes_max'],
];
const SVG = 'http://www.w3.org/2000/svg';

async function loadHistory() {
  if (current === null) return;
  let h;
  try { h = await getJSON('/api/games/' + current + '/history'); } catch (e) { return; }
  const box = $('plots');
  box.replaceChildren();
  for (const [key, label, scale, key2] of PLOTS) {
    const pts = h.samples.map((s) => [s.t, s[key] * scale]);
    const pts2 = key2 ? h.samples.map((s) => [s.t, s[key2] * scale]) : [];
    const div = el('div', null, 'plot');
    const last = pts.length ? pts[pts.length - 1][1] : 0;
    let cap = label + ': ' + (Math.round(last * 100) / 100);
    if (key2 && pts2.length) cap += ' (max ' + pts2[pts2.length - 1][1] + ')';
    div.append(el('div', cap, 'cap'));
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 300 90');
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.dataset.points = String(pts.length);
    // the newest sample's time and value, as drawn (the browser test reads them)
    svg.dataset.lastT = pts.length ? String(pts[pts.length - 1][0]) : '';
    svg.dataset.last = String(last);
    svg.id = 'plot-' + key;
    const now = Date.now();
    // the x axis spans the samples kept (at least a minute, at most the hour)
    const span = Math.min(3600000, Math.max(60000, pts.length ? now - pts[0][0] : 0));
    const max = Math.max(1e-9, ...pts.map((p) => p[1]), ...pts2.map((p) => p[1])) * 1.1;
    for (const [series, cls] of [[pts, ''], [pts2, 'second']]) {
      if (!series.length) continue;
      const line = document.createElementNS(SVG, 'polyline');
      if (cls) line.setAttribute('class', cls);
      line.setAttribute('points', series.map((p) => {
        const x = 300 - (now - p[0]) / span * 300;
        return x.toFixed(1) + ',' + (88 - p[1] / max * 86).toFixed(1);
      }).join(' '));
      svg.append(line);
    }
    div.append(svg);
    // the time axis: the span's start, its middle and now
    const axis = el('div', null, 'axis');
    const ago = (ms) => '-' + (ms >= 120000 ? Math.round(ms / 60000) + ' min' : Math.round(ms / 1000) + ' s');
    for (const t of [ago(span), ago(span / 2), 'now']) axis.append(el('span', t));
    axis.title = 'the top of the plot is ' + Math.round(max * 100) / 100;
    div.append(axis);
    box.append(div);
  }
}

setInterval(() => { $('fps').textContent = frames + ' frames'; }, 1000);
// one poll every 5 s, its requests one after the other: with the live
// stream a page holds two connections (the server's bounds count on it)
async function poll() {
  await loadGames();
  await loadHistory();
  await loadRecordings();
  setTimeout(poll, 5000);
}
setTimeout(poll, 5000);
$('follow').addEventListener('change', (e) => { follow = Number(e.target.value); draw(); });
loadGames();
