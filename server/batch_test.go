package server

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/cienv"
	"twserver/internal/udppeer"
	"twserver/session"
	"twserver/sockio"
)

// newUDPServerInGame returns a server on a real loopback socket with n
// in-game clients whose addresses are real UDP sockets (so every datagram
// is delivered), and the sockets.
func newUDPServerInGame(tb testing.TB, n int) (*Server, []*net.UDPConn) {
	tb.Helper()
	pc, _, err := sockio.ListenUDP("127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pc.Close() })
	cfg := config.Default()
	cfg.Server.MaxClients = 64
	cfg.Server.PlayerSlots = 16
	cfg.Server.MaxClientsPerIP = 64
	cfg.Game.InactiveKickTime = 0
	s := newServerInGame(tb, cfg, pc, n)
	peers := udppeer.Listen(tb, n)
	for i, c := range s.clients[:n] {
		delete(s.byAddr, c.addr)
		s.edge.Peers.Remove(c.addr)
		c.addr = udppeer.Addr(peers[i])
		s.byAddr[c.addr] = i
		s.edge.Peers.Add(c.addr, i)
		c.snapRate = session.SnapRateFull
	}
	for _, p := range peers {
		_ = p.SetReadBuffer(1 << 20)
	}
	return s, peers
}

// drainPeers reads and discards everything queued on the peers' sockets.
func drainPeers(peers []*net.UDPConn) int {
	buf := make([]byte, RecvBufSize)
	n := 0
	for _, p := range peers {
		_ = p.SetReadDeadline(time.Now().Add(time.Millisecond))
		for {
			if _, _, err := p.ReadFromUDPAddrPort(buf); err != nil {
				break
			}
			n++
		}
	}
	return n
}

// TestSnapshotTickSendAllocs checks the loop's whole send path on a real
// socket: a snapshot tick for 63 clients, every datagram written through
// the send batch (sendmmsg), allocates nothing.
func TestSnapshotTickSendAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s, peers := newUDPServerInGame(t, 63)
	for range 100 {
		stepAcked(s)
	}
	drainPeers(peers)
	sent := s.gauges.Sent.Load()
	if a := testing.AllocsPerRun(20, func() { stepAcked(s); stepAcked(s) }); a != 0 {
		t.Errorf("snapshot tick with 63 clients over UDP allocates %.1f times", a)
	}
	if s.gauges.Sent.Load()-sent < 63*20 {
		t.Errorf("only %d datagrams sent in 20 snapshot ticks of 63 clients", s.gauges.Sent.Load()-sent)
	}
	if got := drainPeers(peers); got < 63*20 {
		t.Errorf("the peers received %d datagrams, want at least %d", got, 63*20)
	}
}

// BenchmarkSendBatch63 measures writing one snapshot tick's datagrams (63
// clients, one 600-byte datagram each) through the send batch to real
// loopback sockets.
func BenchmarkSendBatch63(b *testing.B) {
	s, peers := newUDPServerInGame(b, 63)
	payload := make([]byte, 600)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for _, c := range s.clients[:63] {
			s.queueOut(append(s.nextOut(), payload...), c.addr)
		}
		s.flushOut()
		if i++; i%16 == 0 {
			b.StopTimer()
			drainPeers(peers)
			b.StartTimer()
		}
	}
}

// BenchmarkSendUnbatched63 is BenchmarkSendBatch63 with one WriteTo per
// datagram (the path before batching), for comparison.
func BenchmarkSendUnbatched63(b *testing.B) {
	s, peers := newUDPServerInGame(b, 63)
	payload := make([]byte, 600)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for _, c := range s.clients[:63] {
			_, _ = s.conn.WriteTo(payload, c.addr)
		}
		if i++; i%16 == 0 {
			b.StopTimer()
			drainPeers(peers)
			b.StartTimer()
		}
	}
}

// TestSocketNamed: a server that opens its own socket names it (Socket, the
// twserver_socket_info gauge): on Linux the paced socket, and a fallback
// fails the test under CI=true with its reason; a socket handed in is named
// by its kind.
func TestSocketNamed(t *testing.T) {
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", 0
	var logs bytes.Buffer
	s, err := New(Options{Config: cfg, Logger: zerolog.New(&logs), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.conn.Close()
	want := sockio.KindBatch
	if runtime.GOOS == "linux" {
		want = sockio.KindPaced
	}
	if s.Socket() != want {
		cienv.Unavailable(t, "the server reads the %q socket, want %q; log: %s", s.Socket(), want, logs.String())
	}
	if s.Socket() != s.Gauges().Socket || s.Socket() != sockio.KindOf(s.conn) {
		t.Errorf("Socket %q, gauge %q, the socket is %q", s.Socket(), s.Gauges().Socket, sockio.KindOf(s.conn))
	}
	m := newServerInGame(t, cfg, &discardConn{}, 0)
	if m.Socket() != sockio.KindOther {
		t.Errorf("a handed-in test double is named %q", m.Socket())
	}
}

// TestSocketFallbackWarned: a fallback from the paced socket is logged as
// one warning with its reason and shown as the batch socket; a system
// without the paced socket is an info line, and the paced socket logs
// nothing here. A fallback that goes silent again fails here.
func TestSocketFallbackWarned(t *testing.T) {
	cause := errors.New("SO_TIMESTAMPNS: operation not permitted")
	for _, tc := range []struct {
		choice sockio.Choice
		level  string // "" for no line
	}{
		{sockio.Choice{Kind: sockio.KindBatch, Fallback: fmt.Errorf("sockio: paced socket: %w", cause)}, "warn"},
		{sockio.Choice{Kind: sockio.KindBatch, Fallback: sockio.ErrNoPaced}, "info"},
		{sockio.Choice{Kind: sockio.KindPaced}, ""},
	} {
		var logs bytes.Buffer
		s := &Server{log: zerolog.New(&logs)}
		s.noteSocket(tc.choice)
		if s.Socket() != tc.choice.Kind || s.Gauges().Socket != tc.choice.Kind {
			t.Errorf("%+v: Socket %q, gauge %q", tc.choice, s.Socket(), s.Gauges().Socket)
		}
		lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
		if tc.level == "" {
			if logs.Len() != 0 {
				t.Errorf("%+v: logged %s", tc.choice, logs.String())
			}
			continue
		}
		if len(lines) != 1 || !strings.Contains(lines[0], `"level":"`+tc.level+`"`) ||
			!strings.Contains(lines[0], tc.choice.Fallback.Error()) || !strings.Contains(lines[0], `"socket":"batch"`) {
			t.Errorf("%+v: want one %s line with the reason and the socket, got %s", tc.choice, tc.level, logs.String())
		}
	}
}
