package udppeer

import (
	"testing"
	"time"
)

// TestListen: the peers are distinct loopback sockets that reach each other.
func TestListen(t *testing.T) {
	ps := Listen(t, 2)
	a, b := Addr(ps[0]), Addr(ps[1])
	if a == b || !a.Addr().IsLoopback() || !b.Addr().IsLoopback() {
		t.Fatalf("peers %v and %v", a, b)
	}
	if _, err := ps[0].WriteToUDPAddrPort([]byte("hi"), b); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	n, from, err := ps[1].ReadFromUDPAddrPort(buf)
	if err != nil || string(buf[:n]) != "hi" || from != a {
		t.Fatalf("read %q from %v, %v", buf[:n], from, err)
	}
}

// TestExpect: Expect reads the datagrams sent in their order, ExpectNone
// finds nothing after them.
func TestExpect(t *testing.T) {
	ps := Listen(t, 2)
	for _, m := range []string{"one", "two"} {
		if _, err := ps[0].WriteToUDPAddrPort([]byte(m), Addr(ps[1])); err != nil {
			t.Fatal(err)
		}
	}
	Expect(t, ps[1], 2*time.Second, "one", "two")
	ExpectNone(t, ps[1], 20*time.Millisecond)
}
