package main

import (
	"net/netip"
	"testing"

	"twserver/sockio"
)

// TestListenIPv4Wildcard: server.bind, econ.bind, metrics.listen or
// web.listen on 0.0.0.0 listen on IPv4 alone, as the operator wrote (and as
// the reference's bindaddr 0.0.0.0 does). Before, Go's "udp" and "tcp"
// opened them dual-stack, serving IPv6 too, and the log said addr=[::]:PORT.
func TestListenIPv4Wildcard(t *testing.T) {
	s := &sockets{kinds: map[string]sockio.Kind{}}
	defer s.closeAll()
	c, _, err := s.udp("0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a := c.LocalAddr(); a.Addr() != netip.IPv4Unspecified() {
		t.Errorf("the game socket of 0.0.0.0 is on %v, want 0.0.0.0 (IPv4 alone)", a)
	}
	ln, err := s.tcp("0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if a, err := netip.ParseAddrPort(ln.Addr().String()); err != nil || a.Addr() != netip.IPv4Unspecified() {
		t.Errorf("the TCP listener of 0.0.0.0 is on %v, want 0.0.0.0 (IPv4 alone)", ln.Addr())
	}
	for addr, want := range map[string]string{"0.0.0.0:8303": "udp4", "127.0.0.1:8303": "udp", "[::]:8303": "udp", ":8303": "udp", "[::1]:8303": "udp"} {
		if got := listenNetwork("udp", addr); got != want {
			t.Errorf("listenNetwork(udp, %s) = %s, want %s", addr, got, want)
		}
	}
}
