package world

import "testing"

// Helpers for the external tests of this package (state_test.go), which
// import packages that import world.

// NewTestWorldForState is newTestWorld.
func NewTestWorldForState(t testing.TB, cfg Config, rows ...string) *World {
	return newTestWorld(t, cfg, rows...)
}

// ScriptPlayer is the scripted bot-like input stream of dm8_test.go.
type ScriptPlayer struct{ s scriptPlayer }

// NewScriptPlayer seeds a script.
func NewScriptPlayer(seed uint32) ScriptPlayer {
	var p ScriptPlayer
	p.s.r.s = seed
	return p
}

// Step is the script's input for the next tick.
func (p *ScriptPlayer) Step(w *World, cid int, tick int32) Input { return p.s.step(w, cid, tick) }

// GrabFlag gives the flag of team to the live character of cid.
func GrabFlag(w *World, team, cid int) bool {
	c, f := w.playerChar(cid), w.flags[team]
	if c == nil || f == nil || f.carrier != nil || w.players[cid].team == team {
		return false
	}
	f.grab(w, c)
	return true
}

// Shots counts the projectiles and lasers in flight.
func Shots(w *World) (projs, lasers int) { return len(w.projs), len(w.lasers) }

// ClearStale zeroes the unused tails of the event buffers (old entries that
// are never read again and not part of the state), so that two worlds
// compare equal with reflect.DeepEqual.
func ClearStale(w *World) {
	clear(w.events.events[w.events.n:])
	clear(w.out.q[w.out.n:])
}
