// twserver admin page: actions are POSTed with the session's CSRF token;
// every answer is shown with textContent.
'use strict';

// $, el and playerName: /common.js

if ($('login')) {
  if (location.search.includes('failed')) $('failed').hidden = false;
} else {
  let csrf = '';
  const out = $('output');
  const show = (lines) => { out.textContent = lines.join('\n'); };

  async function act(action, fields) {
    const body = new URLSearchParams(fields);
    body.set('action', action);
    body.set('game', $('game').value);
    const r = await fetch('/admin/api/action', {
      method: 'POST', body, credentials: 'same-origin',
      headers: { 'X-CSRF-Token': csrf },
    });
    const j = await r.json().catch(() => ({ error: 'bad answer ' + r.status }));
    if (j.error) show(['error: ' + j.error]);
    else show(['> ' + j.line].concat(j.output));
    refresh();
  }

  async function refresh() {
    const r = await fetch('/api/games', { cache: 'no-store' });
    const j = await r.json();
    const sel = $('game');
    const keep = sel.value;
    if (sel.options.length !== j.games.length) {
      sel.replaceChildren();
      for (const g of j.games) { const o = el('option', g.name + ' (' + g.port + ')'); o.value = String(g.port); sel.append(o); }
      if (keep) sel.value = keep;
    }
    const g = j.games.find((x) => String(x.port) === sel.value) || j.games[0];
    const body = el('tbody');
    for (const c of g.clients) {
      const tr = el('tr');
      tr.dataset.id = c.id;
      const name = playerName(c); // as on the status page
      for (const v of [c.id, name, c.team < 0 ? 'spectator' : c.team, c.score]) tr.append(el('td', v));
      const td = el('td');
      // a bot is removed (bot_remove), a connected client kicked
      for (const action of [c.bot ? 'remove' : 'kick', 'spectate']) {
        const b = el('button', action);
        b.type = 'button';
        b.dataset.action = action;
        b.addEventListener('click', () => act(action, { id: String(c.id) }));
        td.append(b);
      }
      tr.append(td);
      body.append(tr);
    }
    $('aplayers').tBodies[0].replaceWith(body);
    recordings(String(g.port));
  }

  // the finished games' recordings, downloaded with the session cookie
  async function recordings(port) {
    const r = await fetch('/admin/api/games/' + port + '/recordings', { cache: 'no-store', credentials: 'same-origin' });
    const j = await r.json().catch(() => ({ recordings: [] }));
    const list = el('ul');
    list.id = 'arecordings';
    for (const x of j.recordings || []) {
      const a = Object.assign(el('a', x.name), { href: x.url, download: '' }); // url: built by the server from a checked file name
      const size = Math.ceil(x.bytes / 1024) + ' KiB';
      list.append(Object.assign(el('li'), { title: new Date(x.modified).toLocaleString() }));
      list.lastChild.append(a, ' (' + x.kind + ', ' + size + ')');
    }
    $('arecordings').replaceWith(list);
    $('rec-note').textContent = j.access === 'off' ? 'Recordings are off (web.recordings = "off").'
      : (j.recordings || []).length === 0 ? 'No finished recording.' : '';
  }

  for (const f of document.querySelectorAll('form[data-action]')) {
    f.addEventListener('submit', (e) => {
      e.preventDefault();
      act(f.dataset.action, Object.fromEntries(new FormData(f)));
    });
  }
  $('vote-cancel').addEventListener('click', () => act('vote_cancel', {}));
  $('logout').addEventListener('click', async () => {
    await fetch('/admin/logout', { method: 'POST', headers: { 'X-CSRF-Token': csrf } });
    location.href = '/admin';
  });
  fetch('/admin/api/session', { cache: 'no-store' }).then((r) => r.json()).then((j) => { csrf = j.csrf || ''; });
  refresh();
  setInterval(refresh, 3000);
}
