package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/cienv"
	"twserver/loadclient"
	"twserver/netproto"
	"twserver/sockio"
)

// wallTick is the tick a game started at start should be at now.
func wallTick(start time.Time) int32 { return int32(time.Since(start) / netproto.TickDuration) }

// TestSleepEmptyGame: an empty game performs no ticks for 10 s while
// server-info requests and console lines (the econ and rcon path,
// SubmitConsole) keep being answered; the health stamp stays fresh and
// the skipped ticks are counted.
func TestSleepEmptyGame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		time.Sleep(time.Second) // fall asleep
		ticks, slept := ts.ticks.Ticks.Load(), ts.ticks.Slept.Load()
		for i := range 10 {
			time.Sleep(time.Second)
			if got := ts.ticks.Ticks.Load(); got != ticks {
				t.Fatalf("after %d s empty: %d ticks simulated, want none", i+1, got-ticks)
			}
			if d, ok := ts.ticks.Overdue(time.Now()); !ok || d > 0 {
				t.Fatalf("loop %v behind its schedule while asleep (ok %v)", d, ok)
			}
			name := "sleepy" + itoa(i)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			if err := ts.SubmitConsole(ctx, "sv_name "+name); err != nil {
				t.Fatalf("console line while asleep: %v", err)
			}
			cancel()
			u := queryInfo(t, ts.mn, netip.MustParseAddrPort("10.9.9.9:4000"))
			u.GetString() // version
			if got := u.GetString(); got != name {
				t.Fatalf("info while asleep: name %q, want %q", got, name)
			}
		}
		if got := ts.ticks.Slept.Load() - slept; got < 10*50-5 {
			t.Fatalf("%d ticks slept over 10 s, want about 500", got)
		}
		// Nothing but the heartbeats: the loop wakes at each one it
		// promised, and no more often.
		wakes, last := 0, ts.ticks.LastTick.Load()
		for i := range 3 * int(SleepHeartbeat/time.Second) {
			time.Sleep(time.Second)
			if d, ok := ts.ticks.Overdue(time.Now()); !ok || d > 0 {
				t.Fatalf("%d s without a datagram: loop %v behind its heartbeat", i+1, d)
			}
			if l := ts.ticks.LastTick.Load(); l != last { // each wake-up stamps it
				wakes, last = wakes+1, l
			}
		}
		if wakes < 2 || wakes > 4 {
			t.Fatalf("%d wake-ups in 3 heartbeats", wakes)
		}
		if ts.gauges.Sleeps.Load() == 0 {
			t.Fatal("Sleeps gauge not counted")
		}
	})
}

// joinTime connects a client and runs it until its first snapshot; it
// returns the client and how long that took.
func joinTime(t *testing.T, ts *testServer, addr netip.AddrPort, name string) (*testClient, time.Duration) {
	t.Helper()
	start := time.Now()
	tc := newTestClient(t, ts.mn, addr, srvAddr, name)
	tc.connect()
	for tc.snaps < 1 && time.Since(start) < 3*time.Second {
		tc.run(10 * time.Millisecond)
	}
	if tc.snaps < 1 {
		t.Fatalf("%s not in game after 3 s: %v %q", name, tc.conn.State(), tc.conn.Reason())
	}
	return tc, time.Since(start)
}

// TestSleepJoinAfterIdle: a client joining a game that slept for 30 s
// gets in game as fast as on a busy game, and the tick it sees is the
// wall clock's (the world was brought to it, not restarted or left behind);
// the game sleeps again once the clients are gone.
func TestSleepJoinAfterIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ts := startServer(t, nil)
		time.Sleep(30 * time.Second)
		if n := ts.ticks.Ticks.Load(); n > 5 {
			t.Fatalf("%d ticks simulated in 30 s of an empty game", n)
		}
		a, idleJoin := joinTime(t, ts, cl1Addr, "first")
		if d := a.lastTick - wallTick(start); d < -2 || d > 2 {
			t.Fatalf("first snapshot at tick %d, wall clock at tick %d", a.lastTick, wallTick(start))
		}
		a.run(time.Second)
		b, busyJoin := joinTime(t, ts, cl2Addr, "second")
		t.Logf("join: %v on the sleeping game, %v on the busy one", idleJoin, busyJoin)
		if idleJoin > busyJoin+netproto.TickDuration {
			t.Fatalf("joining the sleeping game took %v, the busy one %v", idleJoin, busyJoin)
		}
		b.run(time.Second)
		if d := b.lastTick - wallTick(start); d < -2 || d > 2 {
			t.Fatalf("busy game at tick %d, wall clock at tick %d", b.lastTick, wallTick(start))
		}
		for _, c := range []*testClient{a, b} {
			c.conn.Disconnect(c.now(), "bye")
			c.flush()
		}
		time.Sleep(2 * time.Second)
		ticks := ts.ticks.Ticks.Load()
		time.Sleep(5 * time.Second)
		if n := ts.ticks.Ticks.Load() - ticks; n != 0 {
			t.Fatalf("%d ticks simulated after everybody left", n)
		}
	})
}

// TestSleepRecordingGap: a teehistorian recording of a game that emptied,
// slept for a minute and filled again replays without divergence, over as
// many ticks as the wall clock counted.
func TestSleepRecordingGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		start := time.Now()
		ts := startServer(t, func(c *config.Config) {
			c.Record.Teehistorian = true
			c.Record.Dir = dir
			c.Game.TimeLimit = 1 // the match ends during the gap
		})
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.direction, b.direction = 1, -1
		play := func(a, b *testClient, d time.Duration) {
			for end := time.Now().Add(d); time.Now().Before(end); {
				a.run(100 * time.Millisecond)
				b.run(100 * time.Millisecond)
			}
		}
		play(a, b, 3*time.Second)
		for _, c := range []*testClient{a, b} {
			c.conn.Disconnect(c.now(), "bye")
			c.flush()
		}
		time.Sleep(90 * time.Second)
		if n := ts.ticks.Slept.Load(); n < 60*50 {
			t.Fatalf("only %d ticks slept in 90 s", n)
		}
		a = join(t, ts, netip.AddrPortFrom(cl1Addr.Addr(), cl1Addr.Port()+1), "alice2")
		b = join(t, ts, netip.AddrPortFrom(cl2Addr.Addr(), cl2Addr.Port()+1), "bob2")
		a.direction, b.direction = -1, 1
		play(a, b, 3*time.Second)
		wall := wallTick(start)
		ts.stop(t)

		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d files, want 1", len(files))
		}
		_, res := replayFile(t, files[0])
		t.Logf("%d ticks, %d positions compared, wall clock %d ticks", res.Ticks, res.Compared, wall)
		if res.Divergence != nil || !res.Finished || res.Compared < 200 {
			t.Fatalf("divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
		}
		if d := res.Ticks - wall; d < -5 || d > 5 {
			t.Fatalf("replay ends at tick %d, the wall clock at %d", res.Ticks, wall)
		}
	})
}

// TestSleepNotWithDemo: a game recording a server demo keeps ticking while
// empty (the demo holds a snapshot of every snapshot tick).
func TestSleepNotWithDemo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			c.Record.Demo = true
			c.Record.Dir = t.TempDir()
		})
		time.Sleep(2 * time.Second)
		if n := ts.ticks.Ticks.Load(); n < 90 {
			t.Fatalf("%d ticks in 2 s of an empty game recording a demo", n)
		}
		if ts.gauges.Sleeps.Load() != 0 {
			t.Fatal("the game slept while recording a demo")
		}
	})
}

// TestSleepAnswersAtOnce: on a paced UDP socket, a sleeping game's
// server-info answers come as fast as an awake game's - the reader keeps
// the socket while the game sleeps instead of leaving the datagrams for a
// tick that does not come - also right after a datagram that woke the loop
// (a CONNECT refused for its bad token).
func TestSleepAnswersAtOnce(t *testing.T) {
	pc, err := sockio.ListenPaced("127.0.0.1:0")
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		cienv.Unavailable(t, "the paced socket cannot be set up: %v", err)
	}
	s, err := New(Options{Config: config.Default(), Conn: pc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(pc.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var buf [RecvBufSize]byte
	// exchange sends a token request and waits for its answer.
	exchange := func() time.Duration {
		t.Helper()
		start := time.Now()
		if _, err := c.Write(netproto.AppendTokenRequest(nil, 0x0a0b0c0d)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(start.Add(3 * time.Second))
		if _, err := c.Read(buf[:]); err != nil {
			t.Fatalf("no token answer: %v", err)
		}
		return time.Since(start)
	}
	time.Sleep(2*sockio.PacedHold + 500*time.Millisecond) // asleep, the reader past its hold
	if s.ticks.Ticks.Load() > 5 {
		t.Fatalf("%d ticks: the empty game did not sleep", s.ticks.Ticks.Load())
	}
	var worst time.Duration
	for i := range 30 {
		if i == 10 { // a datagram for the loop: CONNECT with a made-up token
			_, _ = c.Write(netproto.AppendPacket(nil, netproto.PacketHeader{Flags: netproto.FlagControl, Token: 0x12345678},
				[]byte{byte(netproto.CtrlConnect), 1, 2, 3, 4}))
		}
		worst = max(worst, exchange())
		time.Sleep(sockio.PacedHold / 8)
	}
	t.Logf("slowest token answer while asleep: %v", worst)
	// A tick-paced read would take up to 20 ms; a sleeping loop's, up to
	// SleepHeartbeat. The answer comes from the reader at once.
	if worst > 250*time.Millisecond {
		t.Fatalf("a token answer took %v while the game slept", worst)
	}
	if n := s.ticks.Ticks.Load(); n > 5 {
		t.Fatalf("%d ticks simulated while asleep", n)
	}
}

// TestSleepJoinTimeUDP: over a real paced socket, the time from a client's
// start to in game is no longer on a sleeping game than on a busy one
// (medians of 5 joins each; a client of twload, which downloads nothing:
// the map is shared in memory).
func TestSleepJoinTimeUDP(t *testing.T) {
	if testing.Short() {
		t.Skip("real-socket timing skipped in -short mode")
	}
	pc, err := sockio.ListenPaced("127.0.0.1:0")
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		cienv.Unavailable(t, "the paced socket cannot be set up: %v", err)
	}
	cfg := config.Default()
	cfg.Server.MaxClientsPerIP = 8
	s, err := New(Options{Config: cfg, Conn: pc, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// join runs a client until it is in game and returns how long that took.
	join := func(name string, stay context.Context) time.Duration {
		t.Helper()
		cctx, ccancel := context.WithCancel(stay)
		cl := loadclient.New(loadclient.Config{Server: pc.LocalAddr(), Name: name, Pattern: loadclient.PatternIdle})
		start := time.Now()
		ended := make(chan struct{})
		go func() { defer close(ended); cl.Run(cctx) }()
		for !cl.Entered() {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s not in game after 5 s", name)
			}
			time.Sleep(time.Millisecond)
		}
		d := time.Since(start)
		if stay == ctx { // leave, after StressWindow (a quicker leave bans the address)
			time.Sleep(StressWindow + 200*time.Millisecond)
			ccancel()
			<-ended
		} else {
			context.AfterFunc(stay, func() { ccancel() })
		}
		return d
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var idle, busy []time.Duration
	for i := range 5 {
		time.Sleep(1500 * time.Millisecond) // everybody gone: asleep again
		if s.gauges.Sleeps.Load() < uint64(i+1) {
			t.Fatalf("the game did not fall asleep before join %d", i+1)
		}
		idle = append(idle, join("idle"+itoa(i), ctx))
	}
	stay, leave := context.WithCancel(ctx)
	defer leave()
	join("resident", stay) // keeps the game awake
	for i := range 5 {
		time.Sleep(200 * time.Millisecond)
		busy = append(busy, join("busy"+itoa(i), ctx))
	}
	t.Logf("join: sleeping game %v (median of %v), busy game %v (of %v)", median(idle), idle, median(busy), busy)
	if median(idle) > median(busy)+50*time.Millisecond {
		t.Fatalf("joining a sleeping game takes %v, a busy one %v", median(idle), median(busy))
	}
}
