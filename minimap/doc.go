// Package minimap holds draw.js, the minimap renderer shared by the live
// page (web) and the recorded-game viewer (watch): the map's game layer,
// tees with names and team colours, pick-ups, projectiles, lasers and flags.
// Both pages serve it as /draw.js.
package minimap

import _ "embed"

// DrawJS is the renderer's script.
//
//go:embed draw.js
var DrawJS []byte
