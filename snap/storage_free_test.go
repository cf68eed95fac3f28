package snap

import (
	"testing"
	"time"
)

// TestStorageFreeBound: after a stall fills the history window, an ack
// keeps at most MaxFree purged entries for reuse, and the steady state of
// an acknowledging client (alloc, ack) still allocates nothing.
func TestStorageFreeBound(t *testing.T) {
	var s Storage
	tick := int32(1)
	for range HistoryTicks / 2 { // a client not acking for 3 s at 25 snapshots/s
		s.Alloc(tick, 0)
		tick += 2
	}
	if s.Len() != HistoryTicks/2 {
		t.Fatalf("stored %d", s.Len())
	}
	s.Ack(tick - 2)
	if s.Len() != 1 || len(s.free) != MaxFree {
		t.Fatalf("after the ack: %d stored, %d kept for reuse (want 1 and %d)", s.Len(), len(s.free), MaxFree)
	}
	if a := testing.AllocsPerRun(200, func() {
		s.Alloc(tick, time.Duration(tick))
		s.Ack(tick - 4) // the client acks two snapshots back
		tick += 2
	}); a != 0 {
		t.Errorf("steady state allocates %.1f times per snapshot", a)
	}
}
