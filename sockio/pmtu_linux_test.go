//go:build linux

package sockio

import (
	"bytes"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"twserver/internal/refserver"
	"twserver/netproto"
)

// socketFD is the descriptor of a game socket of this package.
func socketFD(t *testing.T, c BatchConn) int {
	t.Helper()
	switch c := c.(type) {
	case *pacedUDP:
		return c.fd
	case *udpConn:
		return c.fd
	}
	t.Fatalf("no descriptor for %T", c)
	return -1
}

// pmtuMode is the socket's IP_MTU_DISCOVER.
func pmtuMode(t *testing.T, fd int) int {
	t.Helper()
	v, err := unix.GetsockoptInt(fd, unix.SOL_IP, unix.IP_MTU_DISCOVER)
	if err != nil {
		t.Fatalf("getsockopt IP_MTU_DISCOVER: %v", err)
	}
	return v
}

// TestGameSocketsDontFragment: both game sockets, IPv4 and dual-stack, send
// their IPv4 datagrams with IP_PMTUDISC_DO (pmtu_linux.go), not the
// kernel's default IP_PMTUDISC_WANT.
func TestGameSocketsDontFragment(t *testing.T) {
	for _, k := range udpKinds {
		for _, bind := range []string{"127.0.0.1:0", ":0"} {
			t.Run(string(k.kind)+"/"+bind, func(t *testing.T) {
				if got := pmtuMode(t, socketFD(t, k.listen(t, bind))); got != unix.IP_PMTUDISC_DO {
					t.Errorf("IP_MTU_DISCOVER = %d, want IP_PMTUDISC_DO (%d)", got, unix.IP_PMTUDISC_DO)
				}
			})
		}
	}
}

// pmtuInnerEnv marks the re-run of TestOversizeDatagramFragments inside a
// private network namespace.
const pmtuInnerEnv = "TWSERVER_SOCKIO_PMTU_INNER"

// pathMTU is lo's MTU in TestOversizeDatagramFragments: below the largest
// datagrams (MaxPacketSize plus 28 bytes of IPv4 and UDP headers), the
// smallest an IPv6 interface takes.
const pathMTU = 1280

// TestOversizeDatagramFragments: on a path whose MTU is below a datagram
// (lo at 1280 bytes, in a private network namespace), the socket refuses
// the datagram under IP_PMTUDISC_DO (the test checks that first, with a
// plain sendto), and the game sockets send it fragmented instead: a batch
// of a small, a full-size and a small datagram arrives whole and in order,
// as does a full-size WriteTo, from an IPv4 and a dual-stack socket, and
// the socket is back in IP_PMTUDISC_DO after each.
func TestOversizeDatagramFragments(t *testing.T) {
	if refserver.Inner(t, pmtuInnerEnv) {
		if out, err := exec.Command("ip", "link", "set", "lo", "mtu", strconv.Itoa(pathMTU)).CombinedOutput(); err != nil {
			t.Fatalf("ip link set lo mtu %d: %v %s", pathMTU, err, out)
		}
		for _, k := range udpKinds {
			for _, bind := range []string{"127.0.0.1:0", ":0"} {
				t.Run(string(k.kind)+"/"+bind, func(t *testing.T) { testOversize(t, k.listen(t, bind)) })
			}
		}
		return
	}
	refserver.RunInner(t, pmtuInnerEnv)
}

func testOversize(t *testing.T, c BatchConn) {
	peer, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	to := peer.LocalAddr().(*net.UDPAddr).AddrPort()
	fd := socketFD(t, c)
	big := bytes.Repeat([]byte{0xa5}, netproto.MaxPacketSize)
	if len(big)+28 <= pathMTU {
		t.Fatalf("a datagram of %d bytes fits an MTU of %d", len(big), pathMTU)
	}

	// The condition the sockets handle: a plain send of the big datagram
	// is refused.
	family := uint16(unix.AF_INET)
	if c.LocalAddr().Addr().Is6() {
		family = unix.AF_INET6
	}
	if _, e := sendto(fd, family, big, to); e != unix.EMSGSIZE {
		t.Fatalf("a plain sendto of %d bytes over an MTU of %d: errno %v, want EMSGSIZE", len(big), pathMTU, e)
	}

	small1, small2 := []byte("before the big one"), []byte("after the big one")
	ms := []Datagram{
		{Buf: small1, N: len(small1), Addr: to},
		{Buf: big, N: len(big), Addr: to},
		{Buf: small2, N: len(small2), Addr: to},
	}
	if n, err := c.WriteBatch(ms); n != 3 || err != nil {
		t.Fatalf("WriteBatch: %d, %v; want 3, nil", n, err)
	}
	if n, err := c.WriteTo(big, to); n != len(big) || err != nil {
		t.Fatalf("WriteTo: %d, %v; want %d, nil", n, err, len(big))
	}
	if got := pmtuMode(t, fd); got != unix.IP_PMTUDISC_DO {
		t.Errorf("after the fragmented sends IP_MTU_DISCOVER = %d, want IP_PMTUDISC_DO", got)
	}
	_ = peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, recvBufSize)
	for i, want := range [][]byte{small1, big, small2, big} {
		n, _, err := peer.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if !bytes.Equal(buf[:n], want) {
			t.Fatalf("datagram %d: %d bytes, want %d", i, n, len(want))
		}
	}
}
