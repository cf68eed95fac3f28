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

// TestLoopbackRegisterWarning: registration of a game bound to a loopback
// address with a master elsewhere warns that it can never be listed (the
// master's challenge cannot reach it); with the game on another address,
// or the master on this host (the tests' own), it does not. Before, the
// log said only that the registration failed, and then the firewall hint,
// never that the address was the cause.
func TestLoopbackRegisterWarning(t *testing.T) {
	const ddnet = "https://master1.ddnet.org/ddnet/15/register" // parsed only, never contacted
	for _, tt := range []struct {
		url, bind string
		warn      bool
	}{
		{ddnet, "127.0.0.1", true},
		{ddnet, "::1", true},
		{ddnet, "0.0.0.0", false},
		{ddnet, "192.0.2.10", false},
		{"http://127.0.0.1:8080/ddnet/15/register", "127.0.0.1", false},
		{"http://localhost:8080/register", "127.0.0.1", false},
	} {
		if got := loopbackRegisterWarning(tt.url, netip.MustParseAddr(tt.bind)) != ""; got != tt.warn {
			t.Errorf("master %s, bind %s: warns %v, want %v", tt.url, tt.bind, got, tt.warn)
		}
	}
}
