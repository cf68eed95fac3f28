package server

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/sockio"
	"twserver/world"
)

// conLog collects console lines as "L [system]: text".
type conLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *conLog) add(c console.Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%d [%s]: %s", c.Level, c.System, c.Text))
}

// inOrder reports the first of want not found in order in the lines.
func (l *conLog) inOrder(want []string) (missing string, all string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := 0
	for _, line := range l.lines {
		if i < len(want) && line == want[i] {
			i++
		}
	}
	if i < len(want) {
		return want[i], strings.Join(l.lines, "\n")
	}
	return "", ""
}

// TestConsoleLines: joins, chat, rcon, a vote, a console kick and a
// command's output reach a console sink with the 0.7.5 texts, systems and
// levels, in order.
func TestConsoleLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cl conLog
		ts := startServerWith(t, func(c *config.Config) { c.Server.RconPassword = "admin" },
			func(s *Server) { s.OnConsoleLine(console.LevelDebug, cl.add) })
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.say("hello")
		a.run(1500 * time.Millisecond)
		a.sendGame(&gamemsg.ClSay{Mode: gamemsg.ChatTeam, Target: -1, Message: "psst"})
		a.run(100 * time.Millisecond)
		b.rconAuth("admin")
		b.run(100 * time.Millisecond)
		b.rconCmd("say via rcon")
		b.run(100 * time.Millisecond)
		b.sendGame(&gamemsg.ClCallVote{Type: "kick", Value: "0", Reason: "test"})
		b.run(100 * time.Millisecond)
		go func() { _, _ = io.WriteString(ts.cons, "kick 1\nstatus\n") }()
		a.run(300 * time.Millisecond)
		want := []string{
			"1 [server]: player is ready. ClientID=0 addr=127.0.0.2:50001",
			"0 [server]: player has entered the game. ClientID=0 addr=127.0.0.2:50001",
			"2 [game]: team_join player='0:alice' team=0",
			"1 [server]: player is ready. ClientID=1 addr=127.0.0.3:50002",
			"0 [server]: player has entered the game. ClientID=1 addr=127.0.0.3:50002",
			"2 [game]: team_join player='1:bob' team=0",
			"1 [chat]: 1:0:alice: hello",
			"1 [teamchat]: 2:0:0:alice: psst",
			"0 [server]: ClientID=1 authed (admin)",
			"1 [server]: ClientID=1 rcon='say via rcon'",
			"1 [chat]: *** via rcon",
			"0 [server]: '1:bob' voted kick '0:alice' reason='test' cmd='ban 127.0.0.2 5 Banned by vote' force=0",
			"0 [server]: client dropped. cid=1 addr=127.0.0.3:50002 reason='Kicked by console'",
			"0 [game]: leave player='1:bob'",
			// the leaver's character dies with the world's events after the drop
			"2 [game]: kill killer='1:0:bob' victim='1:0:bob' weapon=-3 special=0",
		}
		if miss, all := cl.inOrder(want); miss != "" {
			t.Fatalf("missing (in order) %q; lines:\n%s", miss, all)
		}
		cl.mu.Lock()
		all := strings.Join(cl.lines, "\n") + "\n" // the status line may come last
		cl.mu.Unlock()
		if !strings.Contains(all, "\n0 [server]: id=0 addr=127.0.0.2:50001 client=705 name='alice' score=0 \n") {
			t.Errorf("status output missing:\n%s", all)
		}
	})
}

// TestConsoleWorldEventLines: the game lines of each world event, as the
// reference formats them (teams and names looked up, the team a victim
// died in, the capture time in seconds).
func TestConsoleWorldEventLines(t *testing.T) {
	var cl conLog
	s, err := New(Options{Config: config.Default(), Conn: mustListen(t), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.OnConsoleLine(console.LevelDebug, cl.add)
	for cid, name := range []string{"alice", "bob"} {
		if err := s.world.AddPlayer(cid, world.PlayerInfo{Name: name}); err != nil {
			t.Fatal(err)
		}
		s.clients[cid].state, s.clients[cid].name = stateIngame, name
	}
	ev := func(kind world.EventKind, args ...int32) world.Event {
		e := world.Event{Kind: kind, To: -1}
		copy(e.Args[:], args)
		return e
	}
	for _, tt := range []struct {
		e    world.Event
		want string
	}{
		{ev(world.EvKillMsg, 1, 0, world.WeaponShotgun, 0, 0), "2 [game]: kill killer='1:0:bob' victim='0:0:alice' weapon=2 special=0"},
		{ev(world.EvKillMsg, 0, 0, world.WeaponGame, 0, 1), "2 [game]: kill killer='0:1:alice' victim='0:1:alice' weapon=-3 special=0"},
		{ev(world.EvKillMsg, -1, 0, world.WeaponWorld, 0, 0), "2 [game]: kill killer='-1:0:' victim='0:0:alice' weapon=-1 special=0"},
		{ev(world.EvTeam, 0, -1, 0, 10, 0), "2 [game]: team_join player='0:alice' team=0->-1"},
		{ev(world.EvFlagGrab, 1, 1), "2 [game]: flag_grab player='1:bob' team=1"},
		{ev(world.EvFlagReturn, 0, 0), "2 [game]: flag_return player='0:alice' team=0"},
		{ev(world.EvFlagReturn, -1, 1), "2 [game]: flag_return"},
		{ev(world.EvGameMsg, world.GameMsgCTFCapture, 0, 1, 123), "2 [game]: flag_capture player='1:bob' team=0 time=2.46"},
		{ev(world.EvPickup, 0, world.PickupArmor), "2 [game]: pickup player='0:alice' item=1"},
		{ev(world.EvGameMsg, world.GameMsgCTFGrab, 0), ""},
		{ev(world.EvWeaponPickup, 2), ""},
	} {
		cl.lines = nil
		s.conWorldEvent(tt.e)
		got := strings.Join(cl.lines, "|")
		if got != tt.want {
			t.Errorf("event %+v: %q, want %q", tt.e, got, tt.want)
		}
	}
	// a client that left keeps its name for the lines drained after it
	c1 := s.clients[1]
	s.con.Drop(c1.id, c1.addr, c1.name, "bye", true)
	s.clients[1].reset()
	cl.lines = nil
	s.conWorldEvent(ev(world.EvKillMsg, 1, 1, world.WeaponGame, 0, 0))
	if got := strings.Join(cl.lines, "|"); got != "2 [game]: kill killer='1:0:bob' victim='1:0:bob' weapon=-3 special=0" {
		t.Errorf("kill after the drop: %q", got)
	}
}

// TestConsoleLinesOff: without a sink nothing is formatted (no allocation
// per event), and a sink at level 1 gets no level-2 lines.
func TestConsoleLinesOff(t *testing.T) {
	s, err := New(Options{Config: config.Default(), Conn: mustListen(t), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := world.Event{Kind: world.EvKillMsg, To: -1, Args: [5]int32{0, 0, -2, 0, 0}}
	if n := testing.AllocsPerRun(100, func() { s.conWorldEvent(e) }); n != 0 {
		t.Errorf("%v allocations per event without a sink", n)
	}
	var cl conLog
	s.OnConsoleLine(console.LevelAddInfo, cl.add)
	if n := testing.AllocsPerRun(100, func() { s.conWorldEvent(e) }); n != 0 || len(cl.lines) != 0 {
		t.Errorf("level 1 sink: %v allocations, lines %q", n, cl.lines)
	}
	s.con.ServerChat("x")
	if len(cl.lines) != 1 || cl.lines[0] != "1 [chat]: *** x" {
		t.Errorf("lines %q", cl.lines)
	}
}

// mustListen returns an in-memory socket for a server that is not run.
func mustListen(t *testing.T) sockio.PacketConn {
	t.Helper()
	c, err := sockio.NewMemNet().Listen(srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRunConsole: a line run for an admin page returns the lines it
// printed, which also reach the sinks and the log; a too long line and a
// stopped loop are errors.
func TestRunConsole(t *testing.T) {
	var mu sync.Mutex
	var sunk []string
	ts := startServerWith(t, nil, func(s *Server) {
		s.OnConsoleLine(console.LevelStandard, func(l console.Line) { mu.Lock(); sunk = append(sunk, l.Text); mu.Unlock() })
	})
	ctx := context.Background()
	got, err := ts.RunConsole(ctx, console.Caller{Kind: console.Admin}, `echo "a <b>"; sv_scorelimit 7; sv_scorelimit; kick 5`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a <b>", "Value: 7", "invalid client id to kick"}
	if !slices.Equal(got, want) {
		t.Errorf("RunConsole: %q, want %q", got, want)
	}
	mu.Lock()
	if !slices.Equal(sunk, want) {
		t.Errorf("sinks got %q, want %q", sunk, want)
	}
	mu.Unlock()
	if !strings.Contains(ts.logs.String(), "invalid client id to kick") {
		t.Errorf("the admin's output is not in the log")
	}
	if _, err := ts.RunConsole(ctx, console.Caller{Kind: console.Admin}, strings.Repeat("x", MaxConsoleLine+1)); err != console.ErrLineTooLong {
		t.Errorf("long line: %v, want console.ErrLineTooLong", err)
	}
	ts.stop(t)
	if _, err := ts.RunConsole(ctx, console.Caller{Kind: console.Admin}, "echo late"); err != console.ErrStopped {
		t.Errorf("after the loop: %v, want console.ErrStopped", err)
	}
}
