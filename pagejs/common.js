// Helpers shared by twserver's pages: the status page, the admin page, the
// recorded-game viewer and twhist's archive. Each page loads /common.js
// before its own script, which uses these globals. Every string a player
// controls is set as text (textContent), never parsed as markup.
'use strict';

// $ is the element with that id.
const $ = (id) => document.getElementById(id);

// el makes a tag element with text (shown as text; none when undefined or
// null) and the class cls.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

// playerName is the name a page shows for p ({name, bot}): a bot says it
// is one, with " [bot]" after its name.
function playerName(p) {
  return p.bot ? p.name + ' [bot]' : p.name;
}
