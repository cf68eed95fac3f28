package server

import (
	"testing"
	"testing/synctest"
	"time"

	"twserver/console"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
)

// inputPacket builds a datagram from client c (server token 1, see
// newIdleServer) with one non-vital INPUT for intended tick.
func inputPacket(intended int32) []byte {
	var pk netproto.Packer
	pk.AddMsgHeader(netproto.NetmsgInput, true)
	pk.AddInt(0) // ack tick
	pk.AddInt(intended)
	pk.AddInt(10 * 4)
	for range 10 {
		pk.AddInt(0)
	}
	pk.AddInt(0) // ping correction
	msg := pk.Bytes()
	payload := netproto.AppendChunkHeader(nil, netproto.ChunkHeader{Size: len(msg)})
	payload = append(payload, msg...)
	return netproto.AppendPacket(nil, netproto.PacketHeader{NumChunks: 1, Token: 1}, payload)
}

// readInputTimings returns the INPUTTIMING (intended tick, time left) pairs
// in every datagram queued at mc.
func readInputTimings(t *testing.T, mc *sockio.MemConn) (timings [][2]int32) {
	t.Helper()
	readMessages(t, mc, func(id int32, sys bool, body []byte) {
		if !sys || id != netproto.NetmsgInputTiming {
			return
		}
		var u netproto.Unpacker
		u.Reset(body)
		tick, left := u.GetInt(), u.GetInt()
		if u.Err() != nil {
			t.Fatalf("bad INPUTTIMING: %v", u.Err())
		}
		timings = append(timings, [2]int32{tick, left})
	})
	return timings
}

// readMessages calls fn for every message in every data datagram queued at mc.
func readMessages(t *testing.T, mc *sockio.MemConn, fn func(id int32, sys bool, body []byte)) {
	t.Helper()
	var buf [RecvBufSize]byte
	var scratch [netproto.MaxPayload]byte
	for mc.Queued() > 0 {
		n, _, err := mc.ReadFrom(buf[:])
		if err != nil {
			t.Fatal(err)
		}
		h, payload, err := netproto.ParsePacket(buf[:n])
		if err != nil || h.Flags&netproto.FlagControl != 0 {
			continue
		}
		payload, err = netproto.DecodePayload(scratch[:], h, payload)
		if err != nil {
			t.Fatalf("bad payload: %v", err)
		}
		var rd netproto.ChunkReader
		rd.Reset(payload, int(h.NumChunks))
		for {
			ch, ok := rd.Next()
			if !ok {
				break
			}
			id, sys, hn, err := netproto.ParseMsgHeader(ch.Data)
			if err != nil {
				t.Fatalf("bad message header: %v", err)
			}
			fn(id, sys, ch.Data[hn:])
		}
	}
}

// TestInputTimingArrivalTime checks that INPUTTIMING's time left is the
// start of the intended tick minus the time the reader read the datagram,
// not the (later) time the loop got to it (net.md A4.8).
func TestInputTimingArrivalTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newIdleServer(t, 1)
		c := s.clients[0]
		peer, err := s.conn.(*sockio.MemConn).Net().Listen(c.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer peer.Close()

		tests := []struct {
			name            string
			intended        int32
			arrival, queued time.Duration // arrival after the tick-0 start; time queued before the loop handles it
			want            int32
		}{
			{"early", 10, 50 * time.Millisecond, 30 * time.Millisecond, 150},
			{"late", 12, 260 * time.Millisecond, 15 * time.Millisecond, -20},
			{"rounds toward zero", 20, 399*time.Millisecond + 500*time.Microsecond, 0, 0},
		}
		for _, tt := range tests {
			time.Sleep(time.Until(s.sched.TickStart(0).Add(tt.arrival)))
			p := &rxPacket{cid: c.id, addr: c.addr, at: time.Now()}
			p.n = copy(p.buf[:], inputPacket(tt.intended))
			time.Sleep(tt.queued) // the loop is busy elsewhere
			s.handlePacket(p)
			c.conn.Flush(s.now()) // the non-vital INPUTTIMING waits for a flush
			s.flushAll()
			got := readInputTimings(t, peer)
			if len(got) != 1 || got[0] != [2]int32{tt.intended, tt.want} {
				t.Errorf("%s: INPUTTIMING = %v, want [[%d %d]]", tt.name, got, tt.intended, tt.want)
			}
		}
	})
}

// TestInactivityKick checks that a player without input for the world's
// inactivity time (3 minutes by default) is dropped with the kick reason.
func TestInactivityKick(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3 minutes of ticks")
	}
	s := newIdleServer(t, 1)
	c := s.clients[0]
	addr := c.addr
	for range 3*60*50 - 10 {
		s.doTick()
	}
	if c.state == session.Empty {
		t.Fatalf("kicked before the inactivity time")
	}
	for range 3 * 50 {
		s.doTick()
	}
	if c.state != session.Empty {
		t.Fatalf("inactive player still connected after 3 minutes")
	}
	if _, ok := s.byAddr[addr]; ok || s.pendingKicks != 0 {
		t.Errorf("kicked slot still mapped (pending kicks %b)", s.pendingKicks)
	}
}

// TestCatchUpSnapshotsOnce checks that a loop that wakes several ticks late
// simulates every due tick but builds snapshots once, for the newest
// snapshot tick among the due ones: a late wake-up whose last due tick is
// odd still yields a snapshot (of the tick before it), so the snapshot rate
// holds under load.
func TestCatchUpSnapshotsOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		due      int32 // ticks due at the wake-up, starting after an even tick
		wantSnap int32 // offset of the snapshotted tick from the start, 0 = none
	}{
		{"one odd tick", 1, 0},
		{"two ticks, last even", 2, 2},
		{"five ticks, last odd", 5, 4},
		{"six ticks, last even", 6, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newIdleServer(t, 1)
			c := s.clients[0]
			for s.world.CurrentTick()%2 != 0 {
				s.doTick()
			}
			start := s.world.CurrentTick()
			stored := c.storage.Len()
			newest := c.storage.Newest()
			s.sched.SetStart(time.Now().Add(-time.Duration(start+tc.due)*netproto.TickDuration - netproto.TickDuration/2))
			s.advance()
			if got := s.world.CurrentTick(); got != start+tc.due {
				t.Fatalf("tick %d after catching up, want %d", got, start+tc.due)
			}
			n := c.storage.Len() - stored
			if tc.wantSnap == 0 {
				if n != 0 || c.storage.Newest() != newest {
					t.Errorf("%d snapshots stored (newest %d), want none", n, c.storage.Newest())
				}
				return
			}
			if n != 1 || c.storage.Newest() != start+tc.wantSnap {
				t.Errorf("%d snapshots stored while catching up (newest %d), want 1 of tick %d", n, c.storage.Newest(), start+tc.wantSnap)
			}
		})
	}
}

// TestLockTeamsSettings checks that lock_teams is announced with
// Sv_ServerSettings (TeamLock), which clients show, not with a chat line.
func TestLockTeamsSettings(t *testing.T) {
	s := newIdleServer(t, 1)
	c := s.clients[0]
	peer, err := s.conn.(*sockio.MemConn).Net().Listen(c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	for _, want := range []bool{true, false} {
		s.runConsole(console.Caller{}, "lock_teams")
		c.conn.Flush(s.now())
		s.flushAll()
		var got []bool
		readMessages(t, peer, func(id int32, sys bool, body []byte) {
			if sys {
				return
			}
			var u netproto.Unpacker
			u.Reset(body)
			m, err := gamemsg.Decode(id, &u)
			if err != nil {
				t.Fatalf("undecodable game message %d: %v", id, err)
			}
			switch m := m.(type) {
			case *gamemsg.SvServerSettings:
				got = append(got, m.TeamLock)
			case *gamemsg.SvChat:
				t.Errorf("chat line %q sent for lock_teams", m.Message)
			}
		})
		if len(got) != 1 || got[0] != want {
			t.Errorf("after lock_teams: Sv_ServerSettings team locks %v, want [%v]", got, want)
		}
	}
}
