package server

import (
	"io"
	"testing"
	"testing/synctest"
	"time"

	"twserver/gamemsg"
	"twserver/metrics"
)

// TestGameEventCounts: joins, a chat line, a suicide's kill message, a
// called vote and a leave (whose character dies with a kill message too,
// as in the reference) are counted in Gauges.Events.
func TestGameEventCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.say("hello")
		a.run(100 * time.Millisecond)
		a.sendGame(&gamemsg.ClKill{})
		a.run(100 * time.Millisecond)
		if k := ts.Gauges().Events[metrics.EventKill].Load(); k != 1 {
			t.Errorf("kill events after a suicide %d, want 1", k)
		}
		b.sendGame(&gamemsg.ClCallVote{Type: "kick", Value: "0", Reason: "test"})
		b.run(200 * time.Millisecond)
		go func() { _, _ = io.WriteString(ts.cons, "kick 1\n") }()
		a.run(200 * time.Millisecond)
		ev := &ts.Gauges().Events
		want := map[int]uint64{metrics.EventJoin: 2, metrics.EventChat: 1, metrics.EventKill: 2, metrics.EventVote: 1, metrics.EventLeave: 1, metrics.EventFlagCapture: 0}
		for i, n := range want {
			if got := ev[i].Load(); got != n {
				t.Errorf("%s events %d, want %d", metrics.GameEvents[i], got, n)
			}
		}
	})
}
