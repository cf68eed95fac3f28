package server

import (
	"net/netip"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/edge"
	"twserver/metrics"
	"twserver/netproto"
	"twserver/session"
)

// pregameAddr is the address of test connection i (its own IP).
func pregameAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 30, byte(i >> 8), byte(i)}), 5000)
}

// connectN accepts CONNECTs from the addresses of ids and returns the slots that got one.
func connectN(s *Server, ids ...int) []*client {
	var out []*client
	for _, i := range ids {
		s.onConnect(pregameAddr(i), edge.Request7(1, 2))
		if cid, ok := s.byAddr[pregameAddr(i)]; ok {
			out = append(out, s.clients[cid])
		}
	}
	return out
}

// TestPregameStageTimeouts: a client that stops making progress is dropped
// after its stage's bound and not before, with the reason and the counter.
func TestPregameStageTimeouts(t *testing.T) {
	for _, tc := range []struct {
		state clientState
		limit time.Duration
		kind  int
	}{
		{stateAuth, edge.PregameInfoTimeout, edge.PregameStallAuth},
		{stateConnecting, edge.PregameStallTimeout, edge.PregameStallConnecting},
		{stateReady, edge.PregameEnterTimeout, edge.PregameStallReady},
	} {
		t.Run(tc.state.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newIdleServerWith(t, 0, func(c *config.Config) { c.Server.MaxClients = 8 })
				c := connectN(s, 1)[0]
				c.state = tc.state
				time.Sleep(tc.limit - time.Second)
				s.checkPregame(s.now())
				if c.state == stateEmpty {
					t.Fatalf("dropped before its bound %v", tc.limit)
				}
				time.Sleep(2 * time.Second)
				s.checkPregame(s.now())
				if c.state != stateEmpty {
					t.Fatalf("still connected %v after its last progress (bound %v)", tc.limit+time.Second, tc.limit)
				}
				if n := s.gauges.PregameDrops[tc.kind].Load(); n != 1 {
					t.Errorf("counter %s = %d, want 1", edge.PregameDrops[tc.kind], n)
				}
			})
		})
	}
}

// TestPregameSlowDownload: a download asking for one window every 9 s is
// never stopped however long it takes; requests after the end of the map
// are no progress, so a client that then stalls is dropped.
func TestPregameSlowDownload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServerWith(t, 0, func(c *config.Config) { c.Server.MaxClients = 8; c.Server.MapDownloadSpeed = 1 })
		c := connectN(s, 1)[0]
		s.pk.Reset()
		info := []byte(session.NetVersion + "\x00\x00")
		s.sysMessage(c, netproto.NetmsgInfo, info, time.Now())
		if c.state != stateConnecting {
			t.Fatalf("state %v after INFO", c.state)
		}
		windows := (s.curMap.Size + MapChunkSize - 1) / MapChunkSize
		for w := range windows {
			time.Sleep(edge.PregameStallTimeout - time.Second)
			s.checkPregame(s.now())
			if c.state == stateEmpty {
				t.Fatalf("a download progressing every %v dropped at window %d of %d", edge.PregameStallTimeout-time.Second, w, windows)
			}
			s.sysMessage(c, netproto.NetmsgRequestMapData, nil, time.Now())
		}
		if c.dl.Chunk != windows {
			t.Fatalf("sent %d chunks of %d", c.dl.Chunk, windows)
		}
		for range 3 { // past the end: no progress
			time.Sleep(4 * time.Second)
			s.sysMessage(c, netproto.NetmsgRequestMapData, nil, time.Now())
			s.checkPregame(s.now())
		}
		if c.state != stateEmpty {
			t.Fatalf("requests after the end of the map kept a stalled client for %v", 12*time.Second)
		}
	})
}

// TestPregameShareAndEviction: at most half the slots are pre-game; a new
// CONNECT is refused while every pre-game client progresses, and takes the
// place of the stalest once one has made no progress for edge.PregameEvictIdle;
// while the share is more than half taken, one address gets at most
// edge.MaxPregamePerIP pre-game slots. A full server of players still refuses
// with the reference's reason.
func TestPregameShareAndEviction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServerWith(t, 0, func(c *config.Config) { c.Server.MaxClients = 8; c.Server.MaxClientsPerIP = 8 })
		// cap 4
		held := connectN(s, 1, 2, 3, 4)
		if len(held) != 4 {
			t.Fatalf("%d of 4 accepted", len(held))
		}
		if got := connectN(s, 5); len(got) != 0 {
			t.Fatal("a fifth pre-game client accepted with a pre-game cap of 4")
		}
		if n := s.gauges.Refused[metrics.RefusePregameFull].Load(); n != 1 {
			t.Fatalf("pregame_full refusals %d, want 1", n)
		}
		time.Sleep(time.Second)
		s.progress(held[0]) // 1 progresses, 2..4 idle
		time.Sleep(edge.PregameEvictIdle)
		got := connectN(s, 5)
		_, stalest := s.byAddr[pregameAddr(2)]
		_, progressing := s.byAddr[pregameAddr(1)]
		if len(got) != 1 || stalest || !progressing {
			t.Fatalf("eviction: accepted %d, stalest (2) still there %v, progressing (1) still there %v", len(got), stalest, progressing)
		}
		if n := s.gauges.PregameDrops[edge.PregameEvicted].Load(); n != 1 {
			t.Errorf("evicted counter %d, want 1", n)
		}
		// per address under pressure: 127.31.0.1 already has one pre-game slot
		s2 := newIdleServerWith(t, 0, func(c *config.Config) { c.Server.MaxClients = 8; c.Server.MaxClientsPerIP = 8 })
		connectN(s2, 1, 2)
		same := netip.MustParseAddr("127.31.0.1")
		for port := range uint16(3) {
			s2.onConnect(netip.AddrPortFrom(same, 6000+port), edge.Request7(1, 2))
		}
		if n := s2.sameIPCount(same); n != edge.MaxPregamePerIP {
			t.Errorf("%d pre-game slots for one address under pressure, want %d", n, edge.MaxPregamePerIP)
		}
		if n := s2.gauges.Refused[metrics.RefusePregamePerIP].Load(); n != 1 {
			t.Errorf("pregame_per_ip refusals %d, want 1", n)
		}
		if !strings.Contains(edge.ReasonPregamePerIP, "%d") {
			t.Error("the per-IP reason names the bound")
		}
	})
}

// TestPregameMapChange: a map change sends in-game clients back to
// connecting with fresh progress, so a long game does not drop them, and a
// newcomer finding the server full never evicts a player loading the map.
func TestPregameMapChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServer(t, 2)
		for _, c := range s.clients[:2] {
			c.entered = true // as enterGame sets it
		}
		time.Sleep(time.Minute)
		s.applyMap(s.curMap)
		s.checkPregame(s.now())
		for _, c := range s.clients[:2] {
			if c.state != stateConnecting {
				t.Fatalf("client %d state %v after a map change", c.id, c.state)
			}
		}
		time.Sleep(edge.PregameEvictIdle + time.Second)
		if got := connectN(s, 9); len(got) != 0 {
			t.Fatal("a newcomer took the slot of a player loading the new map")
		}
		for _, c := range s.clients[:2] {
			if c.state != stateConnecting {
				t.Fatalf("client %d state %v after a newcomer's CONNECT", c.id, c.state)
			}
		}
	})
}
