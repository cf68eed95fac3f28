// Minimap renderer shared by the live page and the recorded-game viewer.
// Every string a player controls is drawn on the canvas, never parsed as
// markup.
'use strict';

const Minimap = (() => {
  const TILE = 32;
  const TEAM_COLOURS = ['#ff5c5c', '#5c8cff'];
  const PICKUP_COLOURS = ['#ff4040', '#ffd040', '#c0c0c0', '#a0ff60', '#ffa040', '#d060ff'];
  const WEAPONS = ['hammer', 'gun', 'shotgun', 'grenade', 'laser', 'ninja'];
  const WEAPON_SIGNS = ['H', 'G', 'S', 'N', 'L', 'J']; // drawn under a tee (grenade N, ninja J)
  const HOOK_FLYING = 4; // hook states 4 (flying) and 5 (grabbed) draw the hook

  // the layer of a map answer ({gen, width, height, tiles: base64, name})
  // as an image of one pixel per tile
  function layerOf(m) {
    const c = document.createElement('canvas');
    c.width = m.width; c.height = m.height;
    if (m.tiles) {
      const raw = atob(m.tiles);
      const ctx = c.getContext('2d');
      const img = ctx.createImageData(m.width, m.height);
      for (let i = 0; i < raw.length; i++) {
        const t = raw.charCodeAt(i);
        let rgb = [14, 15, 18];
        if (t & 2) rgb = [120, 20, 20];            // death
        else if (t & 1 && t & 4) rgb = [70, 70, 80]; // unhookable
        else if (t & 1) rgb = [150, 140, 120];     // solid
        img.data.set([rgb[0], rgb[1], rgb[2], 255], i * 4);
      }
      ctx.putImageData(img, 0, 0);
    }
    return { gen: m.gen, width: m.width, height: m.height, image: c, name: m.name };
  }

  function dot(ctx, x, y, r, colour) {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 7);
    ctx.fill();
  }

  // draws frame f ({tees: [[id, x, y], ...], flags, projectiles, pickups,
  // lasers}; a recorded game's tees carry more: [id, x, y, angle,
  // direction, weapon, hook state, hook x, hook y, ...], and carriers are
  // the ids of the red and blue flags' carriers) on canvas cv over layer; names maps a client id to {name,
  // team}; follow is the id of the tee in the middle (-1: the whole map).
  // It returns the drawn tees as "id:x,y" strings.
  function draw(cv, layer, f, names, teams, follow) {
    const ctx = cv.getContext('2d');
    ctx.fillStyle = '#0e0f12';
    ctx.fillRect(0, 0, cv.width, cv.height);
    const drawn = [];
    if (!layer || !f) return drawn;
    // view: the whole map, or 40x25 tiles around the followed tee
    let vx = 0, vy = 0, vw = layer.width * TILE, vh = layer.height * TILE;
    const ft = f.tees.find((t) => t[0] === follow);
    if (ft) { vw = 40 * TILE; vh = 25 * TILE; vx = ft[1] - vw / 2; vy = ft[2] - vh / 2; }
    const s = Math.min(cv.width / vw, cv.height / vh);
    const ox = (cv.width - vw * s) / 2 - vx * s, oy = (cv.height - vh * s) / 2 - vy * s;
    const X = (x) => ox + x * s, Y = (y) => oy + y * s;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(layer.image, X(0), Y(0), layer.width * TILE * s, layer.height * TILE * s);
    const r = Math.max(2, 14 * s);
    for (const [x, y, type] of f.pickups) dot(ctx, X(x), Y(y), Math.max(1.5, 8 * s), PICKUP_COLOURS[type] || '#fff');
    for (const [x, y] of f.projectiles) dot(ctx, X(x), Y(y), Math.max(1, 4 * s), '#fff');
    ctx.strokeStyle = '#8ff';
    for (const [x, y, fx, fy] of f.lasers) { ctx.beginPath(); ctx.moveTo(X(fx), Y(fy)); ctx.lineTo(X(x), Y(y)); ctx.stroke(); }
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    for (const t of f.tees) {
      const [id, wx, wy] = t;
      const c = names.get(id);
      const colour = teams && c ? (TEAM_COLOURS[c.team] || '#ccc') : '#f5d76e';
      const x = X(wx), y = Y(wy);
      if (t.length >= 9 && t[6] >= HOOK_FLYING) { // the hook's line
        ctx.strokeStyle = '#ddd';
        ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(X(t[7]), Y(t[8])); ctx.stroke();
      }
      dot(ctx, x, y, r, colour);
      if (t.length >= 6) { // aim (angle in 1/256 rad) and weapon
        const a = t[3] / 256;
        ctx.strokeStyle = '#000';
        ctx.lineWidth = Math.max(1, r / 4);
        ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + Math.cos(a) * r * 1.6, y + Math.sin(a) * r * 1.6); ctx.stroke();
        ctx.lineWidth = 1;
        ctx.fillStyle = '#ddd';
        ctx.fillText(WEAPON_SIGNS[t[5]] || '', x, y + r + 11);
      }
      if (f.carriers && (f.carriers[0] === id || f.carriers[1] === id)) { // carries a flag
        ctx.strokeStyle = TEAM_COLOURS[f.carriers[0] === id ? 0 : 1];
        ctx.lineWidth = 3;
        ctx.beginPath(); ctx.arc(x, y, r + 4, 0, 7); ctx.stroke();
        ctx.lineWidth = 1;
      }
      if (id === follow) { ctx.strokeStyle = '#fff'; ctx.beginPath(); ctx.arc(x, y, r + 2, 0, 7); ctx.stroke(); }
      ctx.fillStyle = '#fff';
      if (c) ctx.fillText(c.name, x, y - r - 3);
      drawn.push(id + ':' + wx + ',' + wy);
    }
    for (const [x, y, team] of f.flags) { // a flag on its pole, over the tees
      ctx.fillStyle = '#ddd';
      ctx.fillRect(X(x) - 1, Y(y) - r * 2.5, 2, r * 2.5);
      ctx.fillStyle = TEAM_COLOURS[team] || '#fff';
      ctx.fillRect(X(x) + 1, Y(y) - r * 2.5, r * 1.2, r);
    }
    return drawn;
  }

  return { TILE, TEAM_COLOURS, PICKUP_COLOURS, WEAPONS, layerOf, draw, dot };
})();
