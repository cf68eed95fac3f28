package econ_test

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"twserver/econ"
)

// addrListener is a loopback listener that reports another address, so a
// test sees what an econ on that address logs without listening there.
type addrListener struct {
	net.Listener
	addr netip.AddrPort
}

func (l addrListener) Addr() net.Addr { return net.TCPAddrFromAddrPort(l.addr) }

// TestExposedWarning: an econ listening beyond loopback warns that its
// password and lines travel in clear, as the web page does for its token
// (before, only "econ listening addr=0.0.0.0:8304" was logged); on
// loopback it does not.
func TestExposedWarning(t *testing.T) {
	for addr, want := range map[string]int{"127.0.0.1:8304": 0, "[::1]:8304": 0, "0.0.0.0:8304": 1, "192.0.2.1:8304": 1, "[::]:8304": 1} {
		var logs logCounter
		startEcon(t, econ.Options{Logger: logs.logger(), Listen: func(string) (net.Listener, error) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			return addrListener{ln, netip.MustParseAddrPort(addr)}, err
		}})
		deadline := time.Now().Add(2 * time.Second)
		for logs.count("econ listening") == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := logs.count(econ.ExposedWarning); got != want {
			t.Errorf("%s: %d warnings, want %d", addr, got, want)
		}
	}
}
