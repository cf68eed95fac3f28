package sockio

import (
	"errors"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"twserver/internal/cienv"
)

// TestListenUDPPaced: on Linux ListenUDP opens the paced socket and says so
// (a fallback there fails the test under CI=true, with its reason); on
// other systems it opens the batch socket with ErrNoPaced as the reason.
func TestListenUDPPaced(t *testing.T) {
	c, ch, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if KindOf(c) != ch.Kind {
		t.Errorf("ListenUDP says %q, the socket is %q", ch.Kind, KindOf(c))
	}
	if runtime.GOOS != "linux" {
		if ch.Kind != KindBatch || !errors.Is(ch.Fallback, ErrNoPaced) {
			t.Errorf("ListenUDP on %s: %+v, want the batch socket with ErrNoPaced", runtime.GOOS, ch)
		}
		return
	}
	if ch.Fallback != nil || ch.Kind != KindPaced {
		cienv.Unavailable(t, "ListenUDP fell back to the %s socket: %v", ch.Kind, ch.Fallback)
	}
	if _, ok := c.(PacedConn); !ok {
		t.Errorf("ListenUDP says paced, gave %T", c)
	}
}

// TestListenUDPFallbackReported: when the paced socket's setup fails,
// ListenUDP opens a working batch socket on the same address and returns
// the failure as the reason. A fallback that goes silent again fails here.
func TestListenUDPFallbackReported(t *testing.T) {
	cause := errors.New("SO_TIMESTAMPNS: operation not permitted")
	var offered *net.UDPConn
	failing := func(c *net.UDPConn) (PacedConn, error) { offered = c; return nil, cause }
	c, ch, err := listenUDP("127.0.0.1:0", failing)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ch.Kind != KindBatch || !errors.Is(ch.Fallback, cause) {
		t.Fatalf("after a failed paced setup: %+v, want KindBatch with the cause", ch)
	}
	if KindOf(c) != KindBatch {
		t.Errorf("the fallback socket is %q (%T)", KindOf(c), c)
	}
	if got := offered.LocalAddr().(*net.UDPAddr).AddrPort(); got != c.LocalAddr() {
		t.Errorf("fallback on %v, the paced setup was offered %v", c.LocalAddr(), got)
	}
	// The fallback socket works: a datagram to itself comes back.
	if _, err := c.WriteTo([]byte("echo"), c.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 16)
		if n, from, err := c.ReadFrom(buf); err != nil || string(buf[:n]) != "echo" || from != c.LocalAddr() {
			t.Errorf("ReadFrom: %q from %v, %v", buf[:n], from, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		c.Close()
		<-done
		t.Fatal("the fallback socket did not read its own datagram in 2 s")
	}
}

// TestKindOf names each implementation.
func TestKindOf(t *testing.T) {
	mc, err := NewMemNet().Listen(netip.MustParseAddrPort("10.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		c    PacketConn
		want Kind
	}{{mc, KindMem}, {b, KindBatch}, {struct{ PacketConn }{mc}, KindOther}} {
		if got := KindOf(tc.c); got != tc.want {
			t.Errorf("KindOf(%T) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestFile: File gives a second descriptor of the same socket (a datagram
// sent to it is read through the game socket after the file is closed,
// and the file's address is the socket's) for the paced and the batch
// socket, and refuses a MemConn.
func TestFile(t *testing.T) {
	paced, _, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	batch, err := ListenBatch("127.0.0.1:0")
	if err != nil {
		paced.Close()
		t.Fatal(err)
	}
	for _, c := range []PacketConn{paced, batch} {
		t.Run(string(KindOf(c)), func(t *testing.T) {
			defer c.Close()
			f, err := File(c)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			if _, err := peer.WriteToUDPAddrPort([]byte("after the file"), c.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					c.Close() // a read that never comes ends the test
				}
			}()
			ms := []Datagram{{Buf: make([]byte, 64)}}
			n, err := c.(BatchConn).ReadBatch(ms)
			close(done)
			if err != nil || n != 1 || string(ms[0].Buf[:ms[0].N]) != "after the file" {
				t.Fatalf("read after closing the file: %d datagrams, %q, %v", n, ms[0].Buf[:ms[0].N], err)
			}
			// Last, as net.FilePacketConn makes the socket non-blocking.
			if f, err = File(c); err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fc, err := net.FilePacketConn(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fc.Close()
			if got := fc.LocalAddr().(*net.UDPAddr).AddrPort(); got != c.LocalAddr() {
				t.Errorf("the file's socket is on %v, the game socket on %v", got, c.LocalAddr())
			}
		})
	}
	m, err := NewMemNet().Listen(netip.MustParseAddrPort("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := File(m); err == nil {
		t.Error("File of a MemConn: no error")
	}
}
