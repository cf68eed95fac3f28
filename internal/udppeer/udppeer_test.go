package udppeer

import "testing"

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
