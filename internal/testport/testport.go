// Package testport picks loopback ports for tests that must name a port
// before the program that binds it starts (a child process, a config file,
// a sidecar that comes up later).
//
// A port taken with "127.0.0.1:0" and closed again comes from the kernel's
// ephemeral range, and the kernel hands the same range out to every socket
// bound to port 0 and to every outgoing connection of the tests running in
// parallel: between the close and the later bind, one of them can take it
// ("bind: address already in use"). testport picks below the ephemeral
// range instead, where the kernel never assigns a port by itself, at a
// random place, and checks the port is free on TCP and UDP both.
package testport

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Range bounds: ports are picked in [lowest, the ephemeral range's start),
// or above the ephemeral range when it starts too low to leave room.
const (
	lowest   = 10000
	minRoom  = 2000
	maxTries = 500
)

// ephemeral returns the kernel's ephemeral port range (Linux; the IANA
// range elsewhere).
func ephemeral() (lo, hi int) {
	lo, hi = 49152, 65535
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return lo, hi
	}
	l, err1 := strconv.Atoi(f[0])
	h, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || l > h {
		return lo, hi
	}
	return l, h
}

// span is the range ports are picked from, [from, to), given the
// ephemeral range [lo, hi].
func span(lo, hi int) (from, to int) {
	if lo-lowest >= minRoom {
		return lowest, lo
	}
	return hi + 1, 65536
}

// free reports whether port is free on 127.0.0.1 for TCP and UDP.
func free(port int) bool {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	defer ln.Close()
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return false
	}
	pc.Close()
	return true
}

// Pick returns a port outside the ephemeral range that is free on
// 127.0.0.1 for both TCP and UDP right now.
func Pick(tb testing.TB) int {
	tb.Helper()
	from, to := span(ephemeral())
	if to-from < 1 {
		tb.Fatalf("testport: no ports outside the ephemeral range")
	}
	for range maxTries {
		if p := from + rand.IntN(to-from); free(p) {
			return p
		}
	}
	tb.Fatalf("testport: no free port in %d-%d after %d tries", from, to-1, maxTries)
	return 0
}

// Addr returns "127.0.0.1:PORT" with a port from Pick.
func Addr(tb testing.TB) string {
	tb.Helper()
	return "127.0.0.1:" + strconv.Itoa(Pick(tb))
}
