package server

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/gamemsg"
	"twserver/netproto"
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
		a.run(200 * time.Millisecond)
		if !a.rconOn || !containsLine(a.rconLines, "Admin authentication successful. Full remote console access granted.") {
			t.Fatalf("rcon auth failed: on=%v lines=%q", a.rconOn, a.rconLines)
		}
		if len(a.rconCmds) < len(Commands) {
			t.Errorf("got %d RCON_CMD_ADD, want %d", len(a.rconCmds), len(Commands))
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
