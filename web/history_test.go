package web

import (
	"testing"
	"time"
)

// TestHistorySnapshotBytes: the snapshot plot is the mean and the largest
// bucket of the server's own snapshot size histogram over the interval,
// per snapshot sent to one client, not another counter of the game.
func TestHistorySnapshotBytes(t *testing.T) {
	s := startGame(t, "sizes", "dm") // no client: the loop sends no snapshot
	var h history
	t0 := time.Unix(1000, 0)
	h.sample(s, t0)
	g := s.Gauges()
	for _, n := range []int{100, 300, 200, 600} {
		g.SnapshotBytes.Observe(n)
	}
	h.sample(s, t0.Add(5*time.Second))
	g.SnapshotBytes.Observe(20)
	h.sample(s, t0.Add(10*time.Second))
	h.sample(s, t0.Add(15*time.Second))
	g.SnapshotBytes.Observe(100000)
	h.sample(s, t0.Add(20*time.Second))
	for _, n := range []int{20000, 50000, 10, 1000} { // the mean 17752.5 is above the top bound
		g.SnapshotBytes.Observe(n)
	}
	h.sample(s, t0.Add(25*time.Second))
	for _, n := range []int{30000, 10, 10, 10, 10} { // the mean 6008 is below it
		g.SnapshotBytes.Observe(n)
	}
	h.sample(s, t0.Add(30*time.Second))
	got := h.samples()
	want := []struct{ mean, max float64 }{{300, 1024}, {20, 64}, {0, 0}, {100000, 100000},
		{17752.5, (71010 - 16 - 1024) / 2.0}, {6008, 30040 - 4*16}}
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].SnapshotBytes != w.mean || got[i].SnapshotBytesMax != w.max {
			t.Errorf("sample %d: snapshot bytes mean %v max %v, want %v and %v", i, got[i].SnapshotBytes, got[i].SnapshotBytesMax, w.mean, w.max)
		}
	}
}
