package world_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"twserver/snap"
	"twserver/world"
	"twserver/worldstate"
)

// ctfRows is a closed CTF arena with both flag stands, pickups and spawns.
var ctfRows = []string{
	"################################################",
	"#..............................................#",
	"#....R...........n.......N.......g..........B..#",
	"#..#######...........#######...........######..#",
	"#..............................................#",
	"#.........H.........................A..........#",
	"#......########....S.........S....#######......#",
	"#...r.................L.....................b..#",
	"#.....----..........#######..........----......#",
	"#........A.........H........H.........A........#",
	"#.....#######....................#######.......#",
	"#..R..........g..............n.............B...#",
	"#######.........####xxxxxxxx####.........#######",
	"#......H................................H......#",
	"################################################",
}

// stateGame is a scripted 8-player CTF game.
type stateGame struct {
	w       *world.World
	players [8]world.ScriptPlayer
}

func newStateGame(t *testing.T) *stateGame {
	cfg := world.DefaultConfig()
	cfg.GameType, cfg.ScoreLimit = world.GameCTF, 0
	g := &stateGame{w: world.NewTestWorldForState(t, cfg, ctfRows...)}
	for i := range g.players {
		g.players[i] = world.NewScriptPlayer(uint32(0x9e3779b9 * (i + 1)))
		if err := g.w.AddPlayer(i, world.PlayerInfo{Name: fmt.Sprintf("bot%d", i)}); err != nil {
			t.Fatal(err)
		}
		g.w.SetLatency(i, 20+i)
	}
	return g
}

// step runs one tick and returns every viewer's snapshot items and the
// message events, as words.
func (g *stateGame) step(t *testing.T, b *snap.Builder, s *snap.Snapshot) []int32 {
	w := g.w
	next := w.CurrentTick() + 1
	for cid := range g.players {
		if w.HasPlayer(cid) {
			in := g.players[cid].Step(w, cid, next)
			w.DirectInput(cid, in)
			w.SetInput(cid, in)
		}
	}
	w.Tick()
	var out []int32
	w.DrainEvents(func(e world.Event) {
		out = append(out, int32(e.Kind), int32(e.To))
		out = append(out, e.Args[:]...)
	})
	for v := -1; v < len(g.players); v++ {
		if v >= 0 && !w.InGame(v) {
			continue
		}
		b.Reset()
		if err := w.Snap(v, b); err != nil {
			t.Fatalf("tick %d viewer %d: %v", w.CurrentTick(), v, err)
		}
		b.Finish(s)
		out = append(out, int32(v), int32(s.NumItems()))
		for i := 0; i < s.NumItems(); i++ {
			out = append(out, int32(s.Key(i)))
			out = append(out, s.ItemData(i)...)
		}
	}
	w.PostSnap()
	return out
}

// TestStateCarriesTheGame saves a running CTF game (projectiles in flight,
// a flag carried, scores) and reads it into a fresh World of the same map:
// the two compare equal field by field, and ticked on with the same inputs
// they give byte-identical snapshots and events. Controls: a fresh world
// differs, and a walk that leaves one value out differs.
func TestStateCarriesTheGame(t *testing.T) {
	var b snap.Builder
	b.Sizes = snap.Sizes7
	var s snap.Snapshot
	a := newStateGame(t)
	for k := 0; k < 1500; k++ {
		a.step(t, &b, &s)
	}
	carried := false
	for k := 0; k < 500; k++ {
		for cid := 0; cid < 8 && !carried; cid++ {
			carried = world.GrabFlag(a.w, world.TeamBlue, cid)
		}
		projs, _ := world.Shots(a.w)
		if carried && projs > 0 && a.w.Score(0)+a.w.Score(1)+a.w.Score(2) != 0 {
			break
		}
		a.step(t, &b, &s)
	}
	projs, lasers := world.Shots(a.w)
	if !carried || projs == 0 {
		t.Fatalf("the game to save lacks a carried flag (%v) or projectiles (%d)", carried, projs)
	}
	t.Logf("saving at tick %d: %d projectiles, %d lasers, scores %d %d %d", a.w.CurrentTick(), projs, lasers,
		a.w.Score(0), a.w.Score(1), a.w.Score(2))

	data := worldstate.Append(nil, a.w)
	t.Logf("state: %d bytes", len(data))
	bg := newStateGame(t)
	bg.players = a.players
	if err := worldstate.Read(bg.w, data); err != nil {
		t.Fatal(err)
	}
	world.ClearStale(a.w)
	world.ClearStale(bg.w)
	if !reflect.DeepEqual(a.w, bg.w) {
		t.Fatal("the read world differs from the saved one")
	}
	if fresh := newStateGame(t); reflect.DeepEqual(a.w, fresh.w) {
		t.Fatal("control: a fresh world compares equal to the saved one")
	}
	for k := 0; k < 600; k++ {
		tick := a.w.CurrentTick()
		if x, y := a.step(t, &b, &s), bg.step(t, &b, &s); !slices.Equal(x, y) {
			t.Fatalf("tick %d after the save: the read world's snapshots or events differ", tick+1)
		}
	}
	if a.w.CurrentTick() != bg.w.CurrentTick() {
		t.Fatalf("ticks %d and %d", a.w.CurrentTick(), bg.w.CurrentTick())
	}
}

// skipVisitor forwards every visit but the skip-th (on both sides).
type skipVisitor struct {
	world.StateVisitor
	n, skip int
}

func (v *skipVisitor) take() bool { v.n++; return v.n-1 != v.skip }

func (v *skipVisitor) I32(x *int32) {
	if v.take() {
		v.StateVisitor.I32(x)
	}
}

func (v *skipVisitor) F32(x *float32) {
	if v.take() {
		v.StateVisitor.F32(x)
	}
}

func (v *skipVisitor) U64(x *uint64) {
	if v.take() {
		v.StateVisitor.U64(x)
	}
}

func (v *skipVisitor) Bool(x *bool) {
	if v.take() {
		v.StateVisitor.Bool(x)
	}
}

func (v *skipVisitor) Int(x *int) {
	if v.take() {
		v.StateVisitor.Int(x)
	}
}

func (v *skipVisitor) Str(x *string) {
	if v.take() {
		v.StateVisitor.Str(x)
	}
}

func (v *skipVisitor) Range(x *int, lo, hi int) {
	if v.take() {
		v.StateVisitor.Range(x, lo, hi)
	}
}

// recorder is a visitor that keeps every value.
type recorder struct{ vals []any }

func (r *recorder) I32(x *int32)           { r.vals = append(r.vals, *x) }
func (r *recorder) U64(x *uint64)          { r.vals = append(r.vals, *x) }
func (r *recorder) F32(x *float32)         { r.vals = append(r.vals, *x) }
func (r *recorder) Bool(x *bool)           { r.vals = append(r.vals, *x) }
func (r *recorder) Int(x *int)             { r.vals = append(r.vals, *x) }
func (r *recorder) Str(x *string)          { r.vals = append(r.vals, *x) }
func (r *recorder) Range(x *int, _, _ int) { r.vals = append(r.vals, *x) }

// player replays recorded values.
type player struct {
	vals []any
	i    int
}

func (p *player) next() any              { p.i++; return p.vals[p.i-1] }
func (p *player) I32(x *int32)           { *x = p.next().(int32) }
func (p *player) U64(x *uint64)          { *x = p.next().(uint64) }
func (p *player) F32(x *float32)         { *x = p.next().(float32) }
func (p *player) Bool(x *bool)           { *x = p.next().(bool) }
func (p *player) Int(x *int)             { *x = p.next().(int) }
func (p *player) Str(x *string)          { *x = p.next().(string) }
func (p *player) Range(x *int, _, _ int) { *x = p.next().(int) }

// TestStateWalkMissingFieldDetected is the control of the field by field
// comparison of TestStateCarriesTheGame: it leaves single values out of the
// walk (as a forgotten field would be), on both sides, and checks that the
// comparison notices every one whose value the read world then lacks.
func TestStateWalkMissingFieldDetected(t *testing.T) {
	var b snap.Builder
	b.Sizes = snap.Sizes7
	var s snap.Snapshot
	a := newStateGame(t)
	for k := 0; k < 300; k++ {
		a.step(t, &b, &s)
	}
	world.ClearStale(a.w)
	var all recorder
	a.w.VisitState(&all)
	var fresh recorder
	newStateGame(t).w.VisitState(&fresh)
	var cand []int // values that differ from a fresh world's
	for i := range min(len(all.vals), len(fresh.vals)) {
		if all.vals[i] != fresh.vals[i] {
			cand = append(cand, i)
		}
	}
	caught, same := 0, 0
	for k := 0; k < 40; k++ {
		skip := cand[k*len(cand)/40]
		var r recorder
		a.w.VisitState(&skipVisitor{StateVisitor: &r, skip: skip})
		read := newStateGame(t)
		read.w.VisitState(&skipVisitor{StateVisitor: &player{vals: r.vals}, skip: skip})
		world.ClearStale(read.w)
		var got recorder
		read.w.VisitState(&got)
		if slices.Equal(got.vals, all.vals) {
			same++ // the left-out value is the fresh world's: nothing to notice
			continue
		}
		if reflect.DeepEqual(a.w, read.w) {
			t.Errorf("value %d (%v) left out of the walk was not noticed", skip, all.vals[skip])
			continue
		}
		caught++
	}
	if caught < 30 {
		t.Fatalf("only %d left-out values noticed (%d equal a fresh world's)", caught, same)
	}
	t.Logf("%d left-out values noticed, %d equal a fresh world's", caught, same)
}

// TestStateRefusesBadInput: every truncation of a good state, a state of
// another version and a malformed value are refused with errors.
func TestStateRefusesBadInput(t *testing.T) {
	var b snap.Builder
	b.Sizes = snap.Sizes7
	var s snap.Snapshot
	a := newStateGame(t)
	for k := 0; k < 100; k++ {
		a.step(t, &b, &s)
	}
	data := worldstate.Append(nil, a.w)
	if err := worldstate.Read(newStateGame(t).w, data); err != nil {
		t.Fatalf("control: the good state: %v", err)
	}
	for _, n := range []int{0, 3, 4, 5, 100, len(data) / 2, len(data) - 1} {
		if err := worldstate.Read(newStateGame(t).w, data[:n]); err == nil {
			t.Errorf("a state cut to %d of %d bytes was read", n, len(data))
		}
	}
	other := slices.Clone(data)
	other[4]++ // the version
	if err := worldstate.Read(newStateGame(t).w, other); !errors.Is(err, worldstate.ErrVersion) {
		t.Errorf("another version: %v", err)
	}
	if err := worldstate.Read(newStateGame(t).w, append(slices.Clone(data), 0)); !errors.Is(err, worldstate.ErrMalformed) {
		t.Errorf("a trailing byte: %v", err)
	}
}
