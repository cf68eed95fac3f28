package server

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/session"
)

// rconLines collects RCON_LINE texts and auth state changes seen by a test client.
func (tc *testClient) rconAuth(pw string) {
	tc.sendSys(netproto.NetmsgRconAuth, netproto.SendVital|netproto.SendFlush, func(p *netproto.Packer) { p.AddString(pw) })
}

func (tc *testClient) rconCmd(line string) {
	tc.sendSys(netproto.NetmsgRconCmd, netproto.SendVital|netproto.SendFlush, func(p *netproto.Packer) { p.AddString(line) })
}

func TestRcon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.RconPassword = "admin"; c.Server.RconMaxTries = 2 })
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.rconAuth("wrong")
		a.run(200 * time.Millisecond)
		if !containsLine(a.rconLines, "Wrong password 1/2.") {
			t.Errorf("rcon lines after a wrong password: %q", a.rconLines)
		}
		a.rconAuth("admin")
		a.run(1500 * time.Millisecond) // the command list takes about a second (TestRconCmdList)
		if !a.rconOn || !containsLine(a.rconLines, "Admin authentication successful. Full remote console access granted.") {
			t.Fatalf("rcon auth failed: on=%v lines=%q", a.rconOn, a.rconLines)
		}
		if len(a.rconCmds) < len(console.Commands()) {
			t.Errorf("got %d RCON_CMD_ADD, want %d", len(a.rconCmds), len(console.Commands()))
		}
		a.rconCmd("status")
		a.run(200 * time.Millisecond)
		if !containsLine(a.rconLines, "id=1 addr=127.0.0.3:50002 client=705 name='bob' score=0 ") {
			t.Errorf("rcon status output: %q", a.rconLines)
		}
		a.rconCmd("kick 1")
		a.run(200 * time.Millisecond)
		b.run(200 * time.Millisecond)
		if b.conn.Reason() != "Kicked by console" {
			t.Errorf("bob: state %v reason %q", b.conn.State(), b.conn.Reason())
		}
		// Too many wrong tries: banned for server.rcon_ban_time (default 5) minutes.
		c := join(t, ts, netipFrom("127.0.0.5:50005"), "carol")
		c.rconAuth("x")
		c.run(100 * time.Millisecond)
		c.rconAuth("y")
		c.run(200 * time.Millisecond)
		if c.conn.Reason() != "You have been banned for 5 minutes (Too many remote console authentication tries)" {
			t.Errorf("carol: reason %q", c.conn.Reason())
		}
	})
}

// rconCmdNames is the command list an rcon login announces, in order.
func rconCmdNames() []string {
	var names []string
	for _, c := range console.RconCommands() {
		names = append(names, c.Name)
	}
	return names
}

// TestRconCmdList: after an rcon login the whole command list arrives, in
// order, every entry vital and none lost, paced as the reference (at most
// session.RconCmdsPerTick at once, one round every session.RconListGroups ticks); on a link
// that loses every 5th datagram both ways it still ends whole.
func TestRconCmdList(t *testing.T) {
	for _, lossEvery := range []int{0, 5} {
		t.Run(fmt.Sprintf("loss1in%d", lossEvery), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := startServer(t, func(c *config.Config) { c.Server.RconPassword = "admin" })
				var lossy atomic.Bool
				var mu sync.Mutex
				n, lost := 0, 0
				ts.mn.Drop = func(from, to netip.AddrPort, b []byte) bool {
					if lossEvery == 0 || !lossy.Load() {
						return false
					}
					mu.Lock()
					defer mu.Unlock()
					n++
					if n%lossEvery == 0 {
						lost++
						return true
					}
					return false
				}
				a := join(t, ts, cl1Addr, "alice")
				lossy.Store(true)
				a.rconAuth("admin")
				a.run(6 * time.Second)
				want := rconCmdNames()
				if !slices.Equal(a.rconCmds, want) {
					t.Fatalf("got %d RCON_CMD_ADD, want the %d of rconCommands in order:\n%q", len(a.rconCmds), len(want), a.rconCmds)
				}
				if a.rconNonVit != 0 {
					t.Errorf("%d RCON_CMD_ADD came non-vital", a.rconNonVit)
				}
				if a.conn.State() != netproto.StateOnline {
					t.Errorf("connection %v %q", a.conn.State(), a.conn.Reason())
				}
				bursts := map[time.Duration]int{}
				for _, at := range a.rconCmdAt {
					bursts[at]++
				}
				biggest := 0
				for _, k := range bursts {
					biggest = max(biggest, k)
				}
				rounds := (len(want) + session.RconCmdsPerTick - 1) / session.RconCmdsPerTick
				took := a.rconCmdAt[len(want)-1] - a.rconCmdAt[0]
				t.Logf("%d commands in %d arrivals over %v, at most %d at once; %d datagrams lost, %d gaps at the client",
					len(want), len(bursts), took, biggest, lost, a.conn.Stats.Gaps)
				if lossEvery > 0 {
					if lost == 0 {
						t.Error("the link lost nothing")
					}
					return
				}
				if biggest > session.RconCmdsPerTick || len(bursts) < rounds {
					t.Errorf("%d arrivals, at most %d at once: want at least %d of at most %d", len(bursts), biggest, rounds, session.RconCmdsPerTick)
				}
				if minTook := time.Duration(rounds-1) * session.RconListGroups * TickDuration; took < minTook {
					t.Errorf("the list took %v, want at least %v (one round every %d ticks)", took, minTook, session.RconListGroups)
				}
				if a.conn.Stats.Gaps != 0 {
					t.Errorf("%d vital chunks came out of order on a lossless link", a.conn.Stats.Gaps)
				}
			})
		})
	}
}

func TestRconDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		a.rconAuth("anything")
		a.run(200 * time.Millisecond)
		if a.rconOn || !containsLine(a.rconLines, "No rcon password set on server.") {
			t.Errorf("on=%v lines=%q", a.rconOn, a.rconLines)
		}
		a.rconCmd("shutdown") // not authed: ignored
		a.run(200 * time.Millisecond)
		if a.conn.State() != netproto.StateOnline {
			t.Errorf("unauthenticated rcon command had an effect: %v %q", a.conn.State(), a.conn.Reason())
		}
	})
}

func TestVoteKickAndOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			c.Votes = []config.VoteOption{{Description: "Say hi", Command: "say hi from vote"}}
		})
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		c := join(t, ts, netipFrom("127.0.0.4:50003"), "carol")
		if a.voteOptions != 1 {
			t.Errorf("vote options received: %d", a.voteOptions)
		}
		// Option vote: alice calls (auto yes), bob votes yes: 2 of 3 pass.
		a.sendGame(&gamemsg.ClCallVote{Type: "option", Value: "Say hi"})
		a.run(100 * time.Millisecond)
		b.run(100 * time.Millisecond)
		b.sendGame(&gamemsg.ClVote{Vote: 1})
		b.run(200 * time.Millisecond)
		c.run(300 * time.Millisecond)
		found := false
		for _, m := range c.chats {
			if m.ClientID == -1 && m.Message == "hi from vote" {
				found = true
			}
		}
		if !found {
			t.Errorf("passed option vote did not run its command; carol chats %+v", c.chats)
		}
		// Kick vote against carol: alice and bob vote yes.
		time.Sleep(3 * time.Second) // vote call interval
		a.sendGame(&gamemsg.ClCallVote{Type: "kick", Value: "2", Reason: "afk"})
		a.run(100 * time.Millisecond)
		b.sendGame(&gamemsg.ClVote{Vote: 1})
		b.run(200 * time.Millisecond)
		c.run(300 * time.Millisecond)
		// voting.kick_ban_time (default 5): the reference bans rather than kicks
		if c.conn.Reason() != "You have been banned for 5 minutes (Banned by vote)" {
			t.Errorf("carol: state %v reason %q", c.conn.State(), c.conn.Reason())
		}
	})
}

func containsLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// TestRconCmdList6: a 0.6/DDNet client that asks for the command list (the
// RCON_AUTH int) gets all of it as 0.6 RCON_CMD_ADD, in order, with no vital
// chunk out of order; one that does not ask gets none, as in the reference.
func TestRconCmdList6(t *testing.T) {
	for _, ask := range []int32{1, 0} {
		t.Run(fmt.Sprintf("ask%d", ask), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := startServer(t, func(c *config.Config) { c.Server.RconPassword = "pw" })
				c := newConn6Peer(t, ts)
				c.sys(netproto.Netmsg6Info, func(p *netproto.Packer) { p.AddString(session.NetVersion6); p.AddString("") })
				c.sys(netproto.Netmsg6RconAuth, func(p *netproto.Packer) { p.AddString(""); p.AddString("pw"); p.AddInt(ask) })
				c.pump()
				var got []string
				var u netproto.Unpacker
				for _, m := range c.got {
					if id, sys, n, _ := netproto.ParseMsgHeader(m); sys && id == netproto.Netmsg6RconCmdAdd {
						u.Reset(m[n:])
						got = append(got, u.GetString())
					}
				}
				want := rconCmdNames()
				if ask == 0 {
					want = nil
				}
				if !slices.Equal(got, want) {
					t.Errorf("asked %d: got %d RCON_CMD_ADD, want %d: %q", ask, len(got), len(want), got)
				}
				if c.conn.Stats.Gaps != 0 {
					t.Errorf("%d vital chunks out of order", c.conn.Stats.Gaps)
				}
			})
		})
	}
}

// TestRconMapList: a 0.7.5 client's rcon login announces the maps of map.dir
// (MAPLIST_ENTRY_ADD), all of them in order, session.RconMapsPerTick per round
// beside the command list.
func TestRconMapList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		dm1, err := filepath.Abs("../world/twmap/testdata/dm1.map")
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := range session.RconMapsPerTick + 8 {
			name := fmt.Sprintf("m%02d", i)
			want = append(want, name)
			if err := os.Symlink(dm1, filepath.Join(dir, name+".map")); err != nil {
				t.Fatal(err)
			}
		}
		ts := startServer(t, func(c *config.Config) { c.Server.RconPassword = "admin"; c.Map.Dir = dir })
		a := join(t, ts, cl1Addr, "alice")
		a.rconAuth("admin")
		a.run(100 * time.Millisecond)
		if len(a.mapList) != session.RconMapsPerTick {
			t.Errorf("after the first round: %d map entries, want %d", len(a.mapList), session.RconMapsPerTick)
		}
		a.run(time.Second)
		if !slices.Equal(a.mapList, want) {
			t.Errorf("map list %q, want %q", a.mapList, want)
		}
	})
}
