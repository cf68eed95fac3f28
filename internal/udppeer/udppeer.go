// Package udppeer opens the loopback UDP sockets that tests use as the
// other end of a socket under test (the peers a batch is sent to, the
// sender of a flood).
package udppeer

import (
	"net"
	"net/netip"
	"testing"
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
