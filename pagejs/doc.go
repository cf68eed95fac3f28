// Package pagejs holds common.js, the helpers every page of the project
// shares: $ (an element by id), el (an element with text, never markup) and
// playerName (a bot's name with " [bot]" after it). The live page and the
// admin page (package web), the recorded-game viewer (package watch) and
// twhist's archive serve it as /common.js and load it before their own
// script; the Content-Security-Policy of each (script-src 'self') allows it
// as it allows the page's own script.
package pagejs

import _ "embed"

// CommonJS is the shared script.
//
//go:embed common.js
var CommonJS []byte
