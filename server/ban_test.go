package server

import (
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/netproto"
)

// TestStressingNetworkBan checks the reference's ban of an address whose
// connection fails within a second of being accepted (net.md A1.10), and
// that a connection failing later is not banned.
func TestStressingNetworkBan(t *testing.T) {
	for _, tt := range []struct {
		name   string
		closed time.Duration // when the first client closes after connecting
		banned bool
	}{
		{"close within 1 s", 300 * time.Millisecond, true},
		{"close after 1 s", 1500 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := startServer(t, nil)
				first := newTestClient(t, ts.mn, cl1Addr, srvAddr, "first")
				first.connect()
				first.run(tt.closed)
				if first.conn.State() != netproto.StateOnline {
					t.Fatalf("first client not connected: %v %q", first.conn.State(), first.conn.Reason())
				}
				first.conn.Disconnect(first.now(), "bye")
				first.flush()
				time.Sleep(100 * time.Millisecond)

				again := newTestClient(t, ts.mn, netip.AddrPortFrom(cl1Addr.Addr(), cl1Addr.Port()+1), srvAddr, "again")
				again.connect()
				again.run(500 * time.Millisecond)
				gotBan := strings.Contains(again.conn.Reason(), ReasonStressing)
				if gotBan != tt.banned {
					t.Errorf("second connection: state %v reason %q, want banned=%v", again.conn.State(), again.conn.Reason(), tt.banned)
				}
			})
		})
	}
}
