package server

import (
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/netproto"
)

// TestClientPacketBudget: a connected client gets MaxClientPacketsPerSecond
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
		feed(MaxClientPacketsPerSecond + 50)
		if got := s.stats.Flood.Load(); got != 50 {
			t.Fatalf("flood %d after a burst of %d, want 50", got, MaxClientPacketsPerSecond+50)
		}
		time.Sleep(time.Second / 5) // refills a fifth of the budget
		feed(MaxClientPacketsPerSecond / 5)
		if got := s.stats.Flood.Load(); got != 50 {
			t.Fatalf("flood %d after 200 ms, want still 50", got)
		}
		feed(1)
		if got := s.stats.Flood.Load(); got != 51 {
			t.Fatalf("flood %d, want 51: the refilled budget was spent", got)
		}
		time.Sleep(10 * time.Second) // refills to the burst, not beyond
		feed(MaxClientPacketsPerSecond + 1)
		if got := s.stats.Flood.Load(); got != 52 {
			t.Fatalf("flood %d after a long pause, want 52", got)
		}
		if a := testing.AllocsPerRun(100, func() { c.budget.AllowN(s.epoch.Add(s.now()), 1) }); a != 0 {
			t.Errorf("budget check allocates %.1f times", a)
		}
	})
}

// TestDownloadPacketBudget: before it is in game a client gets the larger
// MaxDownloadPacketsPerSecond (a 0.6 client asks for each map chunk with a
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
		c.state = stateConnecting
		feed(MaxDownloadPacketsPerSecond + 10)
		if got := s.stats.Flood.Load(); got != 10 {
			t.Fatalf("flood %d after a burst of %d while connecting, want 10", got, MaxDownloadPacketsPerSecond+10)
		}
		c.state = stateIngame
		feed(MaxClientPacketsPerSecond + 10)
		if got := s.stats.Flood.Load(); got != 20 {
			t.Fatalf("flood %d after a burst of %d in game, want 20", got, MaxClientPacketsPerSecond+10)
		}
	})
}

// TestConnlessBudgets: info requests, token requests and CONNECTs from
// addresses without a slot are answered up to their rate per second; the
// rest are counted in ConnlessDropped.
func TestConnlessBudgets(t *testing.T) {
	dc := &discardConn{}
	s, err := New(Options{Config: config.Default(), Conn: dc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tokens := netproto.NewTokenGen(netproto.TokenSecret{1}, 0)
	from := netip.MustParseAddrPort("198.51.100.7:4000")
	tok := tokens.Token(from.Addr())
	var p rxPacket
	var out [netproto.MaxPacketSize]byte
	send := func(b []byte, n int, now time.Time) (handed int) {
		for range n {
			p.n = copy(p.buf[:], b)
			p.addr = from
			if s.screen(&p, tokens, now, out[:0]) {
				handed++
			}
		}
		return handed
	}
	info := netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 5}, append(append([]byte(nil), magicGetInfo...), 1))
	now := time.Now()
	send(info, InfoRepliesPerSecond+10, now)
	if got, drop := s.stats.InfoReplies.Load(), s.stats.ConnlessDropped.Load(); got != InfoRepliesPerSecond || drop != 10 {
		t.Errorf("info: %d answered, %d dropped; want %d and 10", got, drop, InfoRepliesPerSecond)
	}
	send(info, InfoRepliesPerSecond, now.Add(time.Second))
	if got := s.stats.InfoReplies.Load(); got != 2*InfoRepliesPerSecond {
		t.Errorf("info after 1 s: %d answered, want %d", got, 2*InfoRepliesPerSecond)
	}
	s.stats.ConnlessDropped.Store(0)
	send(netproto.AppendTokenRequest(nil, 5), TokenRepliesPerSecond+3, now)
	if got, drop := s.stats.TokenReplies.Load(), s.stats.ConnlessDropped.Load(); got != TokenRepliesPerSecond || drop != 3 {
		t.Errorf("token: %d answered, %d dropped; want %d and 3", got, drop, TokenRepliesPerSecond)
	}
	s.stats.ConnlessDropped.Store(0)
	if handed := send(netproto.AppendConnect(nil, tok, 5), ConnectsPerSecond+7, now); handed != ConnectsPerSecond {
		t.Errorf("%d CONNECTs handed to the loop, want %d", handed, ConnectsPerSecond)
	}
	if drop := s.stats.ConnlessDropped.Load(); drop != 7 {
		t.Errorf("%d CONNECTs dropped, want 7", drop)
	}
}
