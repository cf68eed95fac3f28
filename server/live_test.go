package server

import (
	"testing"

	"twserver/live"
	"twserver/world"
)

// TestLiveFrames: without a viewer the loop publishes no frame and a tick
// allocates nothing (TestTickAllocs); with one it publishes a frame every
// FrameEvery ticks with every player, every character and the events,
// sharing the game layer, at a few allocations per frame; after the
// viewer leaves it stops.
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
	if f := hub.Latest(); f.Seq != 0 {
		t.Fatalf("frame %d published without a viewer", f.Seq)
	}
	s.liveChat(3, "p3", "hello")
	detach := hub.Attach()
	for range FrameEvery {
		step()
	}
	f := hub.Latest()
	if f.Seq != 1 || f.Tick%FrameEvery != 0 || len(f.Players) != 8 || f.Map == nil || len(f.Map.Tiles) != f.Map.Width*f.Map.Height {
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
	// The race detector's instrumentation allocates in the frame's
	// building, so the bound holds only without it (the no-viewer bound
	// below holds either way).
	a := testing.AllocsPerRun(100, step)
	if a > 2 && !raceEnabled {
		t.Errorf("a tick with a viewer allocates %.2f times, want at most 2 (about 6 per frame every %d ticks)", a, FrameEvery)
	}
	if g := hub.Latest(); g.Map != f.Map || g.Seq < 20 {
		t.Errorf("after 100 ticks: frame %d, same map layer %v", g.Seq, g.Map == f.Map)
	}
	detach()
	seq := hub.Latest().Seq
	for range 20 {
		step()
	}
	if hub.Latest().Seq != seq {
		t.Errorf("frames published after the viewer left")
	}
	if a := testing.AllocsPerRun(100, step); a > 0 {
		t.Errorf("a tick after the viewer left allocates %.2f times", a)
	}
}

// TestLiveEventRing: the ring keeps the last live.MaxEvents events in order.
func TestLiveEventRing(t *testing.T) {
	s := newIdleServer(t, 1)
	for i := range live.MaxEvents + 7 {
		s.liveChat(0, "p0", itoa(i))
	}
	detach := s.Live().Attach()
	defer detach()
	for range 2 * FrameEvery {
		stepAcked(s)
	}
	ev := s.Live().Latest().Events
	if len(ev) != live.MaxEvents || ev[0].Text != itoa(7) || ev[len(ev)-1].Text != itoa(live.MaxEvents+6) || ev[len(ev)-1].Seq != live.MaxEvents+7 {
		t.Errorf("%d events, first %+v last %+v", len(ev), ev[0], ev[len(ev)-1])
	}
}
