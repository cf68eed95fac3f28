package vote

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestCarry: a running vote passes to a new Game (through JSON, as a live
// upgrade carries it) with its kind, texts, time left and ballots: the
// count is the same, a further ballot decides it as it would have in the
// old game, and it times out when the old one would have.
func TestCarry(t *testing.T) {
	view := make(slots, 6)
	for i := range view {
		view[i] = Slot{Ingame: true, Addr: netip.AddrFrom4([4]byte{10, 0, 0, byte(i)})}
	}
	var old Game
	old.Start(State{Active: true, Kind: StartKick, Caller: 1, Target: 4, Desc: "kick 4", Reason: "afk",
		Action: Action{Name: "kick", Args: []string{"4", "afk"}}}, 10*time.Second)
	old.Cast(2, 1)
	old.Cast(3, -1)
	c := old.Export(17 * time.Second) // 18 s left
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Carried
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var g Game
	if err := g.Adopt(&back, time.Second, view); err != nil {
		t.Fatal(err)
	}
	want := old.State
	want.Ends = time.Second + 18*time.Second
	if !reflect.DeepEqual(g.State, want) {
		t.Fatalf("adopted %+v\nwant    %+v", g.State, want)
	}
	if y, n, tot := g.Count(view); y != 2 || n != 1 || tot != 6 {
		t.Fatalf("count %d yes %d no of %d, want 2 1 6", y, n, tot)
	}
	if g.Cast(2, -1) {
		t.Error("a ballot cast before the upgrade was cast again")
	}
	g.Cast(5, 1) // the third yes of six: not yet
	if _, result, _ := g.Tick(view, 2*time.Second); result != 0 {
		t.Errorf("result %d after the third yes of six", result)
	}
	g.Cast(0, 1) // the fourth: it passes
	if _, result, _ := g.Tick(view, 2*time.Second); result != EndPass {
		t.Errorf("result %d after the deciding ballot, want a pass", result)
	}
	var late Game
	if err := late.Adopt(&back, time.Second, view); err != nil {
		t.Fatal(err)
	}
	if _, result, _ := late.Tick(view, 18*time.Second); result != 0 {
		t.Error("ended before its time")
	}
	if _, result, _ := late.Tick(view, 19*time.Second); result != EndFail {
		t.Errorf("result %d at its end, want a fail", result)
	}

	// none runs: nothing carried, nothing adopted
	var idle Game
	if idle.Export(0) != nil {
		t.Error("an idle game exported a vote")
	}
	if err := idle.Adopt(nil, 0, view); err != nil || idle.Active {
		t.Error("nil adopted")
	}
	// its target did not pass: not adopted
	gone := append(slots(nil), view...)
	gone[4].Ingame = false
	var g2 Game
	if err := g2.Adopt(&back, 0, gone); err != nil || g2.Active {
		t.Errorf("a kick vote whose target is gone: %v, active %v", err, g2.Active)
	}
}

// TestAdoptMalformed: a carried vote Export does not make is refused and
// changes nothing.
func TestAdoptMalformed(t *testing.T) {
	good := Carried{Kind: StartOp, Caller: 0, Target: -1, Desc: "map", Command: "change_map dm2", LeftMs: 1000, Pos: 2,
		Ballots: []Ballot{{Slot: 0, Vote: 1, Pos: 1}, {Slot: 1, Vote: -1, Pos: 2}}}
	view := make(slots, 2)
	for i := range view {
		view[i].Ingame = true
	}
	long := strings.Repeat("x", MaxCarriedText+1)
	cases := map[string]func(c *Carried){
		"kind":          func(c *Carried) { c.Kind = EndPass },
		"caller":        func(c *Carried) { c.Caller = MaxSlots },
		"target":        func(c *Carried) { c.Target = -2 },
		"time left":     func(c *Carried) { c.LeftMs = int64(Duration/time.Millisecond) + 1 },
		"negative time": func(c *Carried) { c.LeftMs = -1 },
		"enforce":       func(c *Carried) { c.Enforce = 2 },
		"ballot slot":   func(c *Carried) { c.Ballots[1].Slot = MaxSlots },
		"ballot twice":  func(c *Carried) { c.Ballots[1].Slot = 0 },
		"ballot vote":   func(c *Carried) { c.Ballots[1].Vote = 2 },
		"ballot pos":    func(c *Carried) { c.Ballots[1].Pos = 3 },
		"command":       func(c *Carried) { c.Command = long },
		"argument":      func(c *Carried) { c.Action.Args = []string{long} },
		"arguments":     func(c *Carried) { c.Action.Args = make([]string, MaxCarriedArgs+1) },
		"ballots":       func(c *Carried) { c.Ballots = make([]Ballot, MaxSlots+1) },
	}
	var g Game
	if err := g.Adopt(&good, 0, view); err != nil || !g.Active {
		t.Fatalf("the good vote: %v", err)
	}
	for name, spoil := range cases {
		c := good
		c.Ballots = append([]Ballot(nil), good.Ballots...)
		spoil(&c)
		var g Game
		if err := g.Adopt(&c, 0, view); err == nil || g.Active {
			t.Errorf("%s: adopted (%v)", name, err)
		}
	}
}

// FuzzAdopt: any JSON as a carried vote is adopted or refused without a
// panic, and an adopted vote counts and ends within its bounds.
func FuzzAdopt(f *testing.F) {
	var g Game
	g.Start(State{Active: true, Kind: StartOp, Caller: 0, Target: -1, Desc: "d", Command: "c"}, 0)
	g.Cast(1, -1)
	b, _ := json.Marshal(g.Export(time.Second))
	f.Add(b)
	f.Add([]byte(`{"kind":2,"caller":-1,"target":63,"left_ms":25000,"pos":64,"ballots":[{"slot":63,"vote":-1,"pos":64}]}`))
	view := make(slots, MaxSlots)
	for i := range view {
		view[i].Ingame = true
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Carried
		if json.Unmarshal(b, &c) != nil {
			return
		}
		var g Game
		if g.Adopt(&c, time.Minute, view) != nil || !g.Active {
			return
		}
		if g.Ends < time.Minute || g.Ends > time.Minute+Duration {
			t.Fatalf("ends at %v", g.Ends)
		}
		g.Count(view)
		g.Cast(MaxSlots-1, 1)
		g.Tick(view, time.Minute+Duration)
		if g.Active {
			t.Fatal("still running after its time")
		}
	})
}
