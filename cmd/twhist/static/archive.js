// twhist serve: the archive's list. Names come from recordings: set with
// textContent only.
'use strict';

// $ and el: /common.js

function link(text, href) {
  const a = el('a', text);
  a.href = href; // built by the server from a checked file name
  return a;
}

async function search() {
  const form = new FormData($('search'));
  const q = new URLSearchParams();
  for (const [k, v] of form) if (v) q.set(k, v);
  history.replaceState(null, '', q.toString() ? '?' + q : location.pathname);
  let j;
  try {
    const r = await fetch('/api/games?' + q, { cache: 'no-store' });
    j = await r.json();
    if (!r.ok) throw new Error(j.error || r.status);
  } catch (e) { $('count').textContent = 'search failed: ' + e.message; return; }
  const body = el('tbody');
  for (const g of j.games) {
    const tr = el('tr');
    tr.dataset.name = g.name;
    const len = Math.floor(g.seconds / 60) + ':' + String(g.seconds % 60).padStart(2, '0');
    const demos = el('td');
    demos.append(link('0.7', g.demo), ' ', link('DDNet', g.demo + '?ddnet=1'));
    const watch = el('td');
    watch.append(link('watch', g.watch));
    tr.append(el('td', new Date(g.start).toLocaleString()), el('td', g.map), el('td', g.type), el('td', len),
      el('td', (g.players || []).join(', ')), watch, demos);
    body.append(tr);
  }
  $('games').tBodies[0].replaceWith(body);
  $('count').textContent = j.games.length + (j.games.length === 1 ? ' game' : ' games');
}

$('search').addEventListener('submit', (e) => { e.preventDefault(); search(); });
for (const [k, v] of new URLSearchParams(location.search)) if ($(k)) $(k).value = v;
search();
setInterval(() => { if (document.visibilityState === 'visible' && !$('search').contains(document.activeElement)) search(); }, 15000);
