package edge

import (
	"net/netip"
	"testing"
	"time"
)

// TestBanList: a ban refuses its address (mapped or not) with a CLOSE text
// at most once per banReplyInterval, ends on time, keeps its creation order
// in listings, and the list holds at most MaxBans addresses.
func TestBanList(t *testing.T) {
	var l BanList
	now := time.Unix(1000, 0)
	ip := netip.MustParseAddr("192.0.2.1")
	if _, banned := l.Check(ip, now); banned {
		t.Fatal("banned before any ban")
	}
	b, updated := l.Add(netip.MustParseAddr("::ffff:192.0.2.1"), 2*time.Minute, "why", now)
	if b == nil || updated {
		t.Fatalf("Add: %v %v", b, updated)
	}
	if text, banned := l.Check(ip, now); !banned || text != "You have been banned for 2 minutes (why)" {
		t.Fatalf("Check: %q %v", text, banned)
	}
	if text, banned := l.Check(ip, now.Add(time.Second)); !banned || text != "" {
		t.Fatalf("second Check within %v: %q %v", banReplyInterval, text, banned)
	}
	if text, _ := l.Check(ip, now.Add(banReplyInterval+2*time.Second)); text == "" {
		t.Fatal("no CLOSE text after the reply interval")
	}
	other := netip.MustParseAddr("192.0.2.2")
	l.Add(other, 0, "life", now)
	if _, updated := l.Add(ip, time.Minute, "again", now); !updated {
		t.Fatal("re-ban did not update")
	}
	if es := l.Entries(now); len(es) != 2 || es[0].IP != ip || es[1].IP != other || es[0].Ban.Reason != "again" {
		t.Fatalf("entries %+v", es)
	}
	later := now.Add(time.Minute + time.Second)
	if l.Active(later) != 1 {
		t.Errorf("active after the first ban ended: %d", l.Active(later))
	}
	if _, banned := l.Check(ip, later); banned {
		t.Error("banned after its end")
	}
	if !l.Remove(other) || l.Remove(other) || l.Len() != 0 {
		t.Errorf("remove: %d left", l.Len())
	}
	for i := range MaxBans {
		if b, _ := l.Add(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 0, "r", now); b == nil {
			t.Fatalf("ban %d refused", i)
		}
	}
	if b, _ := l.Add(ip, 0, "r", now); b != nil || l.Len() != MaxBans {
		t.Errorf("ban beyond MaxBans: %v, %d held", b, l.Len())
	}
}
