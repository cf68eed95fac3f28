package testport

import (
	"net"
	"strconv"
	"testing"
)

func TestSpan(t *testing.T) {
	for _, c := range []struct{ lo, hi, from, to int }{
		{32768, 60999, 10000, 32768}, // Linux default
		{49152, 65535, 10000, 49152}, // IANA
		{11000, 60999, 61000, 65536}, // too little room below: above it
		{1024, 65000, 65001, 65536},
	} {
		from, to := span(c.lo, c.hi)
		if from != c.from || to != c.to {
			t.Errorf("span(%d, %d) = [%d, %d), want [%d, %d)", c.lo, c.hi, from, to, c.from, c.to)
		}
	}
}

// TestPick: the port is outside the ephemeral range, and both TCP and UDP
// can bind it.
func TestPick(t *testing.T) {
	lo, hi := ephemeral()
	for range 20 {
		p := Pick(t)
		if p >= lo && p <= hi {
			t.Fatalf("port %d is in the ephemeral range %d-%d", p, lo, hi)
		}
		addr := "127.0.0.1:" + strconv.Itoa(p)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		pc.Close()
	}
}

// TestPickSkipsBusy: a port in use on TCP is never returned.
func TestPickSkipsBusy(t *testing.T) {
	p := Pick(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if free(p) {
		t.Fatalf("port %d reported free while a listener holds it", p)
	}
}
