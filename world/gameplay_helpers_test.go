package world

import (
	"strings"
	"testing"

	"twserver/world/vmath"
)

// Tile letters of the test maps.
var testTiles = map[byte]byte{
	'.': 0, '#': 1, 'x': 2, '-': 3,
	'S': 192, 'R': 193, 'B': 194, 'r': 195, 'b': 196,
	'A': 197, 'H': 198, 'g': 199, 'n': 200, 'N': 201, 'L': 202,
}

// gridMap turns rows of tile letters into a game layer (all rows are padded
// with air to the longest one).
func gridMap(t testing.TB, rows ...string) (int, int, []byte) {
	t.Helper()
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	game := make([]byte, 0, width*len(rows))
	for _, r := range rows {
		r += strings.Repeat(".", width-len(r))
		for i := 0; i < len(r); i++ {
			v, ok := testTiles[r[i]]
			if !ok {
				t.Fatalf("bad tile letter %q", r[i])
			}
			game = append(game, v)
		}
	}
	return width, len(rows), game
}

func newTestWorld(t testing.TB, cfg Config, rows ...string) *World {
	t.Helper()
	w, h, g := gridMap(t, rows...)
	return newWorld(w, h, g, cfg, 1)
}

// flatRows is a closed room with a flat floor at tile row 10 (floor top at
// y = 320) and one spawn point.
var flatRows = []string{
	"##############################",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#............................#",
	"#.S..........................#",
	"##############################",
}

// tileCenter returns the centre of tile (x, y).
func tileCenter(x, y int) vmath.Vec2 { return vmath.V(float32(x*32+16), float32(y*32+16)) }

// groundPos is a position standing on the floor of flatRows at tile column x.
func groundPos(x int) vmath.Vec2 { return vmath.V(float32(x*32+16), 320-15) }

// addChars adds n players and ticks until all have characters.
func addChars(t testing.TB, w *World, n int) []*Character {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := w.AddPlayer(i, PlayerInfo{}); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]*Character, n)
	for k := 0; k < 200; k++ {
		w.Tick()
		all := true
		for i := 0; i < n; i++ {
			out[i] = w.playerChar(i)
			if out[i] == nil {
				all = false
			}
		}
		if all {
			return out
		}
	}
	t.Fatalf("characters did not spawn")
	return nil
}

// place moves a character to pos with zero velocity.
func place(c *Character, pos vmath.Vec2) {
	c.core.Pos = pos
	c.core.Vel = vmath.Vec2{}
	c.pos = pos
}

// aimInput is an input aiming at (tx, ty) relative to the tee.
func aimInput(tx, ty int32) Input { return Input{TargetX: tx, TargetY: ty} }

// fire presses (and keeps holding) the fire button of cid once, the way a
// client does: the counter goes to the next odd value, sent both as direct
// and predicted input. It makes sure the character has seen enough inputs.
func fire(w *World, cid int, in Input) {
	c := w.playerChar(cid)
	if c != nil {
		c.numInputs = max(c.numInputs, 3)
		in.Fire = c.latest.Fire
	}
	if in.Fire&1 == 0 {
		in.Fire++
	} else {
		in.Fire += 2
	}
	in.Fire &= InputStateMask
	w.DirectInput(cid, in)
	w.SetInput(cid, in)
}

// drain returns the pending message events.
func drain(w *World) []Event {
	var evs []Event
	w.DrainEvents(func(e Event) { evs = append(evs, e) })
	return evs
}

// countEvents counts snapshot events of type typ currently buffered.
func countSnapEvents(w *World, typ uint16) int {
	n := 0
	for i := 0; i < w.events.n; i++ {
		if w.events.events[i].typ == typ {
			n++
		}
	}
	return n
}

// fakeBuilder records items for Snap tests.
type fakeBuilder struct {
	items []fakeItem
}

type fakeItem struct {
	typ, id uint16
	data    []int32
}

func (b *fakeBuilder) NewItem(typ, id uint16, size int) ([]int32, error) {
	for _, it := range b.items {
		if it.typ == typ && it.id == id {
			return nil, errDup
		}
	}
	d := make([]int32, size)
	b.items = append(b.items, fakeItem{typ, id, d})
	return d, nil
}

func (b *fakeBuilder) find(typ, id uint16) []int32 {
	for _, it := range b.items {
		if it.typ == typ && it.id == id {
			return it.data
		}
	}
	return nil
}

func (b *fakeBuilder) count(typ uint16) int {
	n := 0
	for _, it := range b.items {
		if it.typ == typ {
			n++
		}
	}
	return n
}

type dupErr struct{}

func (dupErr) Error() string { return "duplicate key" }

var errDup = dupErr{}
