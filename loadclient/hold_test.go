package loadclient

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestHoldFloodBounds: hold and flood runs refuse non-loopback targets and
// sources, and stay within their size, rate and time bounds.
func TestHoldFloodBounds(t *testing.T) {
	lo := netip.MustParseAddrPort("127.0.0.1:8303")
	hold := func(f func(*HoldConfig)) error {
		hc := HoldConfig{Server: lo, Clients: 200, Stage: HoldMap, RampUp: time.Second, Duration: 10 * time.Second}
		f(&hc)
		return hc.Validate()
	}
	flood := func(f func(*FloodConfig)) error {
		fc := FloodConfig{Server: lo, Rate: 100000, Duration: 10 * time.Second, Sources: 2000, Weights: [numFloodKinds]int{1, 1, 1, 1}}
		f(&fc)
		return fc.Validate()
	}
	for _, tc := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"hold ok", hold(func(*HoldConfig) {}), true},
		{"hold remote server", hold(func(h *HoldConfig) { h.Server = netip.MustParseAddrPort("192.0.2.1:8303") }), false},
		{"hold remote source", hold(func(h *HoldConfig) { h.SourceBase = netip.MustParseAddr("10.0.0.1") }), false},
		{"hold sources leave 127/8", hold(func(h *HoldConfig) { h.SourceBase = netip.MustParseAddr("127.255.255.200") }), false},
		{"hold too many", hold(func(h *HoldConfig) { h.Clients = MaxHoldClients + 1 }), false},
		{"hold too fast", hold(func(h *HoldConfig) { h.Clients, h.RampUp = 1000, time.Second }), false},
		{"hold too long", hold(func(h *HoldConfig) { h.Duration = MaxHoldDuration }), false},
		{"hold no stage", hold(func(h *HoldConfig) { h.Stage = HoldNone }), false},
		{"flood ok", flood(func(*FloodConfig) {}), true},
		{"flood remote server", flood(func(f *FloodConfig) { f.Server = netip.MustParseAddrPort("192.0.2.1:8303") }), false},
		{"flood IPv6 server", flood(func(f *FloodConfig) { f.Server = netip.MustParseAddrPort("[::1]:8303") }), false},
		{"flood remote source", flood(func(f *FloodConfig) { f.SourceBase = netip.MustParseAddr("192.168.0.1") }), false},
		{"flood rate", flood(func(f *FloodConfig) { f.Rate = MaxFloodRate + 1 }), false},
		{"flood duration", flood(func(f *FloodConfig) { f.Duration = MaxFloodDuration + time.Second }), false},
		{"flood sources", flood(func(f *FloodConfig) { f.Sources = MaxFloodSources + 1 }), false},
		{"flood no kind", flood(func(f *FloodConfig) { f.Weights = [numFloodKinds]int{} }), false},
	} {
		if (tc.err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.name, tc.err, tc.ok)
		}
	}
}

// TestParseHoldAndFlood: stage names and kind weights.
func TestParseHoldAndFlood(t *testing.T) {
	for _, s := range []string{"connect", "map", "ready"} {
		st, err := ParseHoldStage(s)
		if err != nil || st.String() != s {
			t.Errorf("ParseHoldStage(%q) = %v, %v", s, st, err)
		}
	}
	if _, err := ParseHoldStage("ingame"); err == nil {
		t.Error("ParseHoldStage accepted ingame")
	}
	for _, tc := range []struct {
		in   string
		want [numFloodKinds]int
		ok   bool
	}{
		{"", [numFloodKinds]int{1, 1, 1, 1}, true},
		{"token=3,garbage", [numFloodKinds]int{3, 0, 0, 1}, true},
		{"info=2, connect=5", [numFloodKinds]int{0, 5, 2, 0}, true},
		{"bogus=1", [numFloodKinds]int{}, false},
		{"token=-1", [numFloodKinds]int{}, false},
	} {
		got, err := ParseFloodWeights(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseFloodWeights(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestFloodSends: a small flood against a real loopback socket arrives from
// every source address, at the asked rate, with the kinds counted.
func TestFloodSends(t *testing.T) {
	pc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	_ = pc.SetReadBuffer(4 << 20)
	got := map[netip.Addr]int{}
	total := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			pc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			_, from, err := pc.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			got[from.Addr()]++
			total++
		}
	}()
	sum, err := RunFlood(context.Background(), FloodConfig{
		Server: pc.LocalAddr().(*net.UDPAddr).AddrPort(), Rate: 4000, Duration: time.Second,
		Sources: 50, Weights: [numFloodKinds]int{1, 1, 1, 1}, Senders: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	t.Logf("sent %d (%v) at %.0f/s; received %d from %d addresses", sum.SentTotal, sum.Sent, sum.AchievedPPS, total, len(got))
	if sum.SentTotal < 3000 || sum.SentTotal > 4400 {
		t.Errorf("sent %d in 1 s at 4000/s", sum.SentTotal)
	}
	if uint64(total) != sum.SentTotal || len(got) != 50 {
		t.Errorf("received %d of %d datagrams from %d of 50 addresses", total, sum.SentTotal, len(got))
	}
	for _, k := range FloodKinds {
		if sum.Sent[k] < sum.SentTotal/8 {
			t.Errorf("kind %s: %d of %d", k, sum.Sent[k], sum.SentTotal)
		}
	}
}
