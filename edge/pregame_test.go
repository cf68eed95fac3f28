package edge

import (
	"net/netip"
	"testing"
	"time"
)

// slotList is a Slots of plain values.
type slotList []PregameSlot

func (l *slotList) Len() int               { return len(*l) }
func (l *slotList) Slot(i int) PregameSlot { return (*l)[i] }

// TestAdmitPregame: the pre-game share of half the slots, the per-address
// bound once it is more than half taken, eviction of the stalest slot idle
// for PregameEvictIdle (never one back for a map change), and the stage
// timeouts.
func TestAdmitPregame(t *testing.T) {
	a := netip.MustParseAddrPort("192.0.2.1:1")
	b := netip.MustParseAddrPort("192.0.2.2:1")
	now := 10 * time.Second
	slots := make(slotList, 8) // share: 4
	if r, perIP, ev := AdmitPregame(&slots, a.Addr(), now, false); r != "" || perIP || ev >= 0 {
		t.Fatalf("empty server: %q %v %d", r, perIP, ev)
	}
	slots[0] = PregameSlot{Addr: a, Stage: StageAuth, ProgressAt: now}
	slots[1] = PregameSlot{Addr: a, Stage: StageConnecting, ProgressAt: now}
	slots[2] = PregameSlot{Addr: b, Stage: StageReady, ProgressAt: now - time.Second}
	if r, perIP, _ := AdmitPregame(&slots, a.Addr(), now, false); !perIP || r != "Too many connections from your address are still connecting (at most 2), try again in a few seconds" {
		t.Errorf("third from a: %q %v", r, perIP)
	}
	slots[3] = PregameSlot{Addr: b, Stage: StageAuth, ProgressAt: now - PregameEvictIdle, Entered: true}
	if r, perIP, ev := AdmitPregame(&slots, netip.MustParseAddr("192.0.2.3"), now, false); r != ReasonPregameFull || perIP || ev >= 0 {
		t.Errorf("share full, nothing stalled: %q %v %d", r, perIP, ev)
	}
	slots[2].ProgressAt = now - PregameEvictIdle
	if _, _, ev := AdmitPregame(&slots, netip.MustParseAddr("192.0.2.3"), now, false); ev != 2 {
		t.Errorf("evicted %d, want the stalled slot 2 (slot 3 came back for a map change)", ev)
	}
	if total, same := PregameCounts(&slots, a.Addr()); total != 4 || same != 2 {
		t.Errorf("counts %d %d", total, same)
	}
	for _, tc := range []struct {
		p     PregameSlot
		kind  int
		stall bool
	}{
		{PregameSlot{Stage: StageAuth, ProgressAt: now - PregameInfoTimeout - 1}, PregameStallAuth, true},
		{PregameSlot{Stage: StageConnecting, ProgressAt: now - PregameStallTimeout}, PregameStallConnecting, false},
		{PregameSlot{Stage: StageReady, ProgressAt: now - PregameEnterTimeout - 1}, PregameStallReady, true},
		{PregameSlot{Stage: StageNone}, 0, false},
	} {
		if kind, stall := tc.p.Stalled(now); kind != tc.kind || stall != tc.stall {
			t.Errorf("%+v: %d %v, want %d %v", tc.p, kind, stall, tc.kind, tc.stall)
		}
	}
}
