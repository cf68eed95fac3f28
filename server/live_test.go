package server

import (
	"testing"

	"twserver/live"
	"twserver/world"
)

// TestLiveFrames: without a viewer the loop publishes no frame and a tick
// allocates nothing (TestTickAllocs); with one it publishes a frame every
// FrameEvery ticks on average with every player, every character and the
// events, sharing the game layer, without allocating (the hub's pooled
// frames); a frame a reader holds stays as it was; after the viewer
// leaves it stops.
func TestLiveFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s := newIdleServer(t, 8)
	hub := s.Live()
	step := func() { stepAcked(s) }
	for range 300 {
		step()
	}
	if seq := hub.Seq(); seq != 0 {
		t.Fatalf("frame %d published without a viewer", seq)
	}
	s.liveChat(3, "p3", "hello")
	r, err := hub.Attach()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 * FrameEvery {
		step()
	}
	f := hub.Acquire()
	if f.Seq < 2 || f.Seq > 3 || len(f.Players) != 8 || f.Map == nil || len(f.Map.Tiles) != f.Map.Width*f.Map.Height {
		t.Fatalf("frame %d tick %d: %d players, map %v", f.Seq, f.Tick, len(f.Players), f.Map != nil)
	}
	chars := 0
	for _, it := range f.Items {
		if it.Type == world.ObjCharacter {
			chars++
		}
	}
	if chars != 8 {
		t.Errorf("%d characters in the frame, want 8", chars)
	}
	if n := len(f.Events); n != 1 || f.Events[0].Kind != live.EventChat || f.Events[0].Text != "hello" || f.Events[0].Name != "p3" {
		t.Errorf("events %+v", f.Events)
	}
	if p := f.Players[3]; p.ID != 3 || p.Name != "p3" || !p.IsPlayer || p.Client != live.Client07 {
		t.Errorf("player 3: %+v", p)
	}
	layer, seq1 := f.Map, f.Seq
	f.Release()
	// The race detector's instrumentation allocates in the frame's
	// building, so the bound holds only without it (the no-viewer bound
	// below holds either way).
	a := testing.AllocsPerRun(100, step)
	if a > 0 && !raceEnabled {
		t.Errorf("a tick with a viewer allocates %.2f times, want 0 (the hub's pooled frames keep their buffers)", a)
	}
	if g := hub.Acquire(); g.Map != layer || g.Seq < seq1+100/FrameEvery-1 || g.Seq > seq1+100/FrameEvery+1 || len(g.Players) != 8 || len(g.Events) != 1 {
		t.Errorf("after 100 ticks: frame %d, same map layer %v, %d players, %d events", g.Seq, g.Map == layer, len(g.Players), len(g.Events))
	} else {
		g.Release()
	}
	// A reader holding a frame keeps it as it was while the loop goes on.
	held := hub.Acquire()
	seqHeld, tickHeld := held.Seq, held.Tick
	for range 4 * live.PoolFrames * FrameEvery {
		step()
	}
	if held.Seq != seqHeld || held.Tick != tickHeld || len(held.Players) != 8 || hub.Seq() == seqHeld {
		t.Errorf("held frame %d tick %d changed to %d tick %d (newest %d)", seqHeld, tickHeld, held.Seq, held.Tick, hub.Seq())
	}
	held.Release()
	r.Detach()
	seq := hub.Seq()
	for range 20 {
		step()
	}
	if hub.Seq() != seq {
		t.Errorf("frames published after the viewer left")
	}
	if a := testing.AllocsPerRun(100, step); a > 0 {
		t.Errorf("a tick after the viewer left allocates %.2f times", a)
	}
}

// TestLiveEventRing: the frames carry the last live.MaxEvents events in order.
func TestLiveEventRing(t *testing.T) {
	s := newIdleServer(t, 1)
	for i := range live.MaxEvents + 7 {
		s.liveChat(0, "p0", itoa(i))
	}
	r, err := s.Live().Attach()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Detach()
	for range 2 * FrameEvery {
		stepAcked(s)
	}
	f := s.Live().Acquire()
	defer f.Release()
	ev := f.Events
	if len(ev) != live.MaxEvents || ev[0].Text != itoa(7) || ev[len(ev)-1].Text != itoa(live.MaxEvents+6) || ev[len(ev)-1].Seq != live.MaxEvents+7 {
		t.Errorf("%d events, first %+v last %+v", len(ev), ev[0], ev[len(ev)-1])
	}
}

// TestLiveKillFeed: a kill message goes into the page's feed unless its
// weapon is WEAPON_GAME (the character of a player who leaves or changes
// team: the leave has its line, and the slot's name is gone by then).
func TestLiveKillFeed(t *testing.T) {
	for _, tc := range []struct {
		weapon int32
		feed   bool
	}{
		{world.WeaponGame, false},
		{world.WeaponSelf, true},
		{world.WeaponWorld, true},
		{0, true}, // hammer
		{5, true}, // ninja
	} {
		s := newIdleServer(t, 2)
		s.onWorldEvent(world.Event{Kind: world.EvKillMsg, To: -1, Args: [5]int32{0, 1, tc.weapon}})
		r, err := s.Live().Attach()
		if err != nil {
			t.Fatal(err)
		}
		for range 2 * FrameEvery {
			stepAcked(s)
		}
		f := s.Live().Acquire()
		kills := 0
		for _, e := range f.Events {
			if e.Kind == live.EventKill && e.Weapon == int(tc.weapon) {
				kills++
			}
		}
		f.Release()
		r.Detach()
		if (kills == 1) != tc.feed || kills > 1 {
			t.Errorf("weapon %d: %d kills in the feed, want it there: %v", tc.weapon, kills, tc.feed)
		}
	}
}
