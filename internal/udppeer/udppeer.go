// Package udppeer opens the loopback UDP sockets that tests use as the
// other end of a socket under test (the peers a batch is sent to, the
// sender of a flood), and checks what reaches them.
package udppeer

import (
	"net"
	"net/netip"
	"testing"
	"time"
)

// Listen opens n IPv4 loopback UDP sockets on ports the kernel picks,
// closed when tb ends.
func Listen(tb testing.TB, n int) []*net.UDPConn {
	tb.Helper()
	peers := make([]*net.UDPConn, n)
	for i := range peers {
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { c.Close() })
		peers[i] = c
	}
	return peers
}

// Addr is the address c is bound to.
func Addr(c *net.UDPConn) netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }

// Expect reads one datagram from c for each of wants, in order, within
// wait of the call, and fails tb at the first that is missing or differs.
func Expect(tb testing.TB, c *net.UDPConn, wait time.Duration, wants ...string) {
	tb.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 2048)
	for i, want := range wants {
		n, _, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			tb.Fatalf("datagram %d of %d at %v: %v", i, len(wants), Addr(c), err)
		}
		if string(buf[:n]) != want {
			tb.Fatalf("datagram %d at %v: got %q, want %q", i, Addr(c), buf[:n], want)
		}
	}
}

// ExpectNone fails tb if a datagram reaches c within wait.
func ExpectNone(tb testing.TB, c *net.UDPConn, wait time.Duration) {
	tb.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 2048)
	if n, _, err := c.ReadFromUDPAddrPort(buf); err == nil {
		tb.Fatalf("one datagram too many at %v: %q", Addr(c), buf[:n])
	}
}
