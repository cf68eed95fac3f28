package loadclient

import (
	"testing"
	"time"

	"twserver/netproto"
)

// TestLateOwn feeds INPUTTIMING for inputs the client sent on its schedule
// and behind it: a late input counts in LateInputs, and in LateOwn only
// when the client's own send delay covers the time it was late by.
func TestLateOwn(t *testing.T) {
	cases := []struct {
		name      string
		sendDelay time.Duration
		leftMs    int32
		late, own int64
	}{
		{"on time, early", 0, 15, 0, 0},
		{"on time, late", 0, -10, 1, 0},
		{"stalled 100 ms, late 30", 100 * time.Millisecond, -30, 1, 1},
		{"stalled 20 ms, late 30", 20 * time.Millisecond, -30, 1, 0},
		{"stalled 30 ms, late 30", 30 * time.Millisecond, -30, 1, 1},
		{"stalled, early", 100 * time.Millisecond, 5, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := steadyClient(t)
			late0, own0 := c.stats.LateInputs, c.stats.LateOwn
			now := c.clock()
			c.sendInput(now, now-tc.sendDelay)
			tick := c.inputs[(c.inHead+c.inN-1)%inputRing].tick
			var p netproto.Packer
			p.AddInt(tick)
			p.AddInt(tc.leftMs)
			c.onSystem(netproto.NetmsgInputTiming, p.Bytes())
			if got := c.stats.LateInputs - late0; got != tc.late {
				t.Errorf("LateInputs +%d, want +%d", got, tc.late)
			}
			if got := c.stats.LateOwn - own0; got != tc.own {
				t.Errorf("LateOwn +%d, want +%d", got, tc.own)
			}
		})
	}
	// An INPUTTIMING for a tick the client holds no delay for (negative,
	// or overwritten) counts as late, not own, and does not panic.
	c, _ := steadyClient(t)
	for _, tick := range []int32{-5, -64, 1 << 30} {
		var p netproto.Packer
		p.AddInt(tick)
		p.AddInt(-10)
		before := c.stats.LateOwn
		c.onSystem(netproto.NetmsgInputTiming, p.Bytes())
		if c.stats.LateOwn != before {
			t.Errorf("tick %d: counted as the client's own", tick)
		}
	}
}
