package httpserve

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"testing"
	"time"
)

// dialFrom connects to addr from the loopback address src (127.0.0.x).
func dialFrom(t testing.TB, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// acceptAll accepts l's connections into a channel until l is closed.
func acceptAll(l net.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 64)
	go func() {
		defer close(ch)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			ch <- c
		}
	}()
	return ch
}

// refused reports whether c was refused: it reads the 503 and then EOF
// (or a reset) within 2 s; false when c stays open.
func refused(t *testing.T, c net.Conn) bool { return closedWithin(t, c, 2*time.Second) }

// stillOpen reports whether c stays open for 300 ms.
func stillOpen(t *testing.T, c net.Conn) bool { return !closedWithin(t, c, 300*time.Millisecond) }

// closedWithin reports whether c is closed by the server within d (after
// at most the refusal, which must be the whole of it).
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	if len(b) > 0 && string(b) != refusal {
		t.Errorf("refusal: %q", b)
	}
	return true
}

// TestRefusal: the answer to a refused connection, to the byte.
func TestRefusal(t *testing.T) {
	const want = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	if refusal != want {
		t.Errorf("refusal %q, want %q", refusal, want)
	}
}

// TestListener: connections over the bound of their address are refused
// at once while another address is admitted; a trusted proxy's are not
// bounded per address; at the total bound the idle connection is closed
// for the new one, and with none idle the new one is refused; Accept never
// waits; closed connections free their places; the connections keep their
// socket.
func TestListener(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(ln, 2, 5, trusted)
	defer l.Close()
	addr := l.Addr().String()
	accepted := acceptAll(l)
	take := func() *conn {
		t.Helper()
		select {
		case c := <-accepted:
			return c.(*conn)
		case <-time.After(5 * time.Second):
			t.Fatal("not accepted")
		}
		return nil
	}
	a1, a2 := dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)
	s1, s2 := take(), take()
	a3 := dialFrom(t, "127.0.0.1", addr)
	start := time.Now()
	if !refused(t, a3) {
		t.Fatal("a third connection of one address was not refused")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v", d)
	}
	if !stillOpen(t, a1) || !stillOpen(t, a2) {
		t.Fatal("the admitted connections were closed")
	}
	b1 := dialFrom(t, "127.0.0.2", addr) // another address: admitted
	sb := take()
	for range 2 { // a trusted proxy: not bounded per address
		dialFrom(t, "127.0.0.3", addr)
		take()
	}
	if n, total := l.conns.Count(AddrKey(netip.MustParseAddr("127.0.0.1"))); n != 2 || total != 5 {
		t.Fatalf("counted %d of 127.0.0.1, %d in all; want 2, 5", n, total)
	}
	// at the total bound, all but s1 active: s1 (idle longest) is closed for a new one
	for _, c := range []*conn{s2, sb} {
		l.ConnState(c, http.StateActive)
	}
	l.mu.Lock()
	for c := range l.idle {
		if c != s1 {
			delete(l.idle, c)
		}
	}
	l.mu.Unlock()
	dialFrom(t, "127.0.0.4", addr)
	s4 := take()
	if !refused(t, a1) {
		t.Error("the idle connection was not closed for a new one at the total bound")
	}
	if l.Evicted() != 1 {
		t.Errorf("evicted %d, want 1", l.Evicted())
	}
	// none idle: the next is refused
	l.ConnState(s4, http.StateActive)
	l.mu.Lock()
	clear(l.idle)
	l.mu.Unlock()
	c5 := dialFrom(t, "127.0.0.5", addr)
	if !refused(t, c5) {
		t.Error("a connection beyond the total bound with none idle was not refused")
	}
	if !stillOpen(t, b1) {
		t.Error("an active connection was closed")
	}
	var sc syscall.Conn = s2 // package web's live stream writes through it
	if raw, err := sc.SyscallConn(); err != nil || raw == nil {
		t.Errorf("a bounded connection has no raw connection: %v", err)
	}
	// a closed connection frees its place (once)
	_ = s2.Close()
	_ = s2.Close()
	dialFrom(t, "127.0.0.1", addr)
	take()
	if n, total := l.conns.Count(AddrKey(netip.MustParseAddr("127.0.0.1"))); n != 1 || total != 5 {
		t.Errorf("after the eviction, a close and a new one: %d of 127.0.0.1, %d in all; want 1, 5", n, total)
	}
	if l.Open() != 5 {
		t.Errorf("Open %d, want 5", l.Open())
	}
	if got := l.Refused(); got != 2 {
		t.Errorf("refused %d, want 2", got)
	}
	l.Close()
	select {
	case _, ok := <-accepted:
		if ok {
			t.Fatal("accepted after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept outlived Close")
	}
}

// TestListenerIPv4Mapped: on a dual-stack listener, a client reaching it
// by its IPv4-mapped address counts as the IPv4 address, for its bound
// and for the trusted proxies (given as IPv4).
func TestListenerIPv4Mapped(t *testing.T) {
	ln, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skip("no dual-stack listener:", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	addr := net.JoinHostPort("127.0.0.1", port)
	l := NewListener(ln, 1, 10, []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")})
	defer l.Close()
	accepted := acceptAll(l)
	dialFrom(t, "127.0.0.1", addr)
	select {
	case c := <-accepted:
		if got, want := c.(*conn).key, netip.MustParsePrefix("127.0.0.1/32"); got != want {
			t.Errorf("key %v, want %v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not accepted")
	}
	if !refused(t, dialFrom(t, "127.0.0.1", addr)) {
		t.Error("a second connection of an address bounded to one was not refused")
	}
	for range 2 { // the trusted proxy, by its IPv4 prefix
		dialFrom(t, "127.0.0.3", addr)
		select {
		case <-accepted:
		case <-time.After(5 * time.Second):
			t.Fatal("a trusted proxy's connection was not accepted")
		}
	}
}

// TestCounterIPv6: IPv6 clients are counted per /64.
func TestCounterIPv6(t *testing.T) {
	a := NewCounter(2, 10)
	k := func(s string) netip.Prefix { return AddrKey(netip.MustParseAddr(s)) }
	if a.Acquire(k("2001:db8::1"), false) != Admitted || a.Acquire(k("2001:db8::2:3"), false) != Admitted {
		t.Fatal("refused below the bound")
	}
	if got := a.Acquire(k("2001:db8::ffff"), false); got != AddrFull {
		t.Errorf("a third address of one /64: %d, want AddrFull", got)
	}
	if got := a.Acquire(k("2001:db8:0:1::1"), false); got != Admitted {
		t.Errorf("another /64: %d, want Admitted", got)
	}
}

// TestCounter: the total bound, anyPer, Release and SetBounds.
func TestCounter(t *testing.T) {
	a := NewCounter(1, 2)
	k1, k2 := AddrKey(netip.MustParseAddr("192.0.2.1")), AddrKey(netip.MustParseAddr("192.0.2.2"))
	if a.Acquire(k1, false) != Admitted || a.Acquire(k1, true) != Admitted {
		t.Fatal("anyPer: refused below the total")
	}
	if got := a.Acquire(k2, false); got != TotalFull {
		t.Errorf("at the total: %d, want TotalFull", got)
	}
	a.Release(k1)
	if n, total := a.Count(k1); n != 1 || total != 1 {
		t.Errorf("after a release: %d of k1, %d in all; want 1, 1", n, total)
	}
	a.SetBounds(2, 3)
	if a.Acquire(k1, false) != Admitted || a.Acquire(k2, false) != Admitted {
		t.Error("refused within the new bounds")
	}
	a.Release(k1)
	a.Release(k1)
	if n, total := a.Count(k1); n != 0 || total != 1 {
		t.Errorf("all of k1 released: %d of k1, %d in all; want 0, 1", n, total)
	}
	if len(a.n) != 1 {
		t.Errorf("%d keys kept, want 1 (a key with no place is dropped)", len(a.n))
	}
}
