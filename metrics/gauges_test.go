package metrics

import "testing"

// TestPublishSlots: a recount lands in Clients, Players and Spectators by
// dialect, replacing the last one; the info labels are replaced only when
// they change.
func TestPublishSlots(t *testing.T) {
	var g Gauges
	var n SlotCount
	n.Add(Dialect07, 4, true, false)
	n.Add(Dialect07, 4, false, true)
	n.Add(Dialect06, 4, true, false)
	n.Add(Dialect06, 1, false, false)
	g.PublishSlots(&n)
	if g.Clients[Dialect07][4].Load() != 2 || g.Clients[Dialect06][4].Load() != 1 || g.Clients[Dialect06][1].Load() != 1 ||
		g.Players[Dialect07].Load() != 1 || g.Spectators[Dialect07].Load() != 1 || g.Players[Dialect06].Load() != 1 || g.Spectators[Dialect06].Load() != 0 {
		t.Errorf("published %v %v %v", &g.Clients, &g.Players, &g.Spectators)
	}
	g.PublishSlots(&SlotCount{})
	if g.Clients[Dialect07][4].Load() != 0 || g.Players[Dialect06].Load() != 0 {
		t.Error("an empty recount left counts")
	}
	g.PublishInfo("srv", "DM", "dm1")
	first := g.Info.Load()
	g.PublishInfo("srv", "DM", "dm1")
	if g.Info.Load() != first {
		t.Error("unchanged labels replaced")
	}
	g.PublishInfo("srv", "DM", "ctf1")
	if in := g.Info.Load(); in == first || in.Map != "ctf1" {
		t.Errorf("changed labels: %+v", in)
	}
}
