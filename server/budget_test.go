package server

import (
	"testing"
	"testing/synctest"
	"time"

	"twserver/netproto"
	"twserver/session"
)

// TestClientPacketBudget: a connected client gets session.MaxClientPacketsPerSecond
// datagrams at once, the rest are counted as flood; the budget refills at
// that rate per second; checking it allocates nothing.
func TestClientPacketBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServer(t, 1)
		c := s.clients[0]
		pkt := netproto.AppendKeepAlive(nil, 0, 1)
		feed := func(n int) {
			for range n {
				s.feedClient(c, pkt, time.Now())
			}
		}
		feed(session.MaxClientPacketsPerSecond + 50)
		if got := s.stats.Flood.Load(); got != 50 {
			t.Fatalf("flood %d after a burst of %d, want 50", got, session.MaxClientPacketsPerSecond+50)
		}
		time.Sleep(time.Second / 5) // refills a fifth of the budget
		feed(session.MaxClientPacketsPerSecond / 5)
		if got := s.stats.Flood.Load(); got != 50 {
			t.Fatalf("flood %d after 200 ms, want still 50", got)
		}
		feed(1)
		if got := s.stats.Flood.Load(); got != 51 {
			t.Fatalf("flood %d, want 51: the refilled budget was spent", got)
		}
		time.Sleep(10 * time.Second) // refills to the burst, not beyond
		feed(session.MaxClientPacketsPerSecond + 1)
		if got := s.stats.Flood.Load(); got != 52 {
			t.Fatalf("flood %d after a long pause, want 52", got)
		}
		if a := testing.AllocsPerRun(100, func() { c.budget.Allow(s.now()) }); a != 0 {
			t.Errorf("budget check allocates %.1f times", a)
		}
	})
}

// TestDownloadPacketBudget: before it is in game a client gets the larger
// session.MaxDownloadPacketsPerSecond (a 0.6 client asks for each map chunk with a
// packet of its own), and the in-game budget once it entered.
func TestDownloadPacketBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServer(t, 1)
		c := s.clients[0]
		pkt := netproto.AppendKeepAlive(nil, 0, 1)
		feed := func(n int) {
			for range n {
				s.feedClient(c, pkt, time.Now())
			}
		}
		c.state = session.Connecting
		feed(session.MaxDownloadPacketsPerSecond + 10)
		if got := s.stats.Flood.Load(); got != 10 {
			t.Fatalf("flood %d after a burst of %d while connecting, want 10", got, session.MaxDownloadPacketsPerSecond+10)
		}
		c.state = session.Ingame
		feed(session.MaxClientPacketsPerSecond + 10)
		if got := s.stats.Flood.Load(); got != 20 {
			t.Fatalf("flood %d after a burst of %d in game, want 20", got, session.MaxClientPacketsPerSecond+10)
		}
	})
}
