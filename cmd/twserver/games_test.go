package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/encpool"
	"twserver/gamemsg"
	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testenv"
	"twserver/loadclient"
	"twserver/snap"
	"twserver/world"
)

// stockMaps is where Debian's teeworlds-data installs the 0.7.5 maps.
const stockMaps = "/usr/share/games/teeworlds/data/maps"

// gameWatch is what the synthetic clients of one game saw.
type gameWatch struct {
	mu         sync.Mutex
	maxPlayers int             // most PlayerInfo items in one snapshot
	chat       map[string]bool // chat lines
	options    map[string]bool // vote options offered
	votes      map[string]bool // votes started (SvVoteSet descriptions)
}

func (w *gameWatch) client(server netip.AddrPort, name string) *loadclient.Client {
	return loadclient.New(loadclient.Config{
		Server: server, Name: name, Pattern: loadclient.PatternRandom, Seed: uint64(len(name)),
		OnSnapshot: func(_ int32, s *snap.Snapshot) {
			n := 0
			for i := range s.NumItems() {
				if int(s.Key(i)>>16) == world.ObjPlayerInfo {
					n++
				}
			}
			w.mu.Lock()
			w.maxPlayers = max(w.maxPlayers, n)
			w.mu.Unlock()
		},
		OnGameMessage: func(m gamemsg.Message) {
			w.mu.Lock()
			defer w.mu.Unlock()
			switch m := m.(type) {
			case *gamemsg.SvChat:
				w.chat[m.Message] = true
			case *gamemsg.SvVoteOptionListAdd:
				for _, d := range m.Descriptions[:m.Num] {
					w.options[d] = true
				}
			case *gamemsg.SvVoteOptionAdd:
				w.options[m.Description] = true
			case *gamemsg.SvVoteSet:
				if m.Timeout > 0 {
					w.votes[m.Description] = true
				}
			}
		},
	})
}

// TestTwoGamesIsolated runs two games in one process (as two -config files
// do) with synthetic clients in each: each game's clients see only their
// own players, chat, vote options and called votes; a chat line, a vote,
// a map change and a flood of garbage datagrams in game A leave game B's
// clients at 25 snapshots per second, missing no snapshot tick that B's own
// loop sent.
func TestTwoGamesIsolated(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	for _, m := range []string{"dm1", "dm2"} {
		testenv.Stat(t, filepath.Join(stockMaps, m+".map"), "teeworlds-data")
	}
	heavytest.Lock(t)
	cfgs := make([]config.Config, 2)
	for i, name := range []string{"A", "B"} {
		c := config.Default()
		c.Server.Bind, c.Server.Port = "127.0.0.1", refserver.FreeUDPPort(t)
		c.Server.Name = "game " + name
		c.Server.MaxClients, c.Server.MaxClientsPerIP = 8, 8
		c.Map.Dir, c.Map.Rotation = stockMaps, []string{"dm1", "dm2"}
		c.Game.InactiveKickTime = 0
		c.Votes = []config.VoteOption{{Description: "only in " + name, Command: "restart"}}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		cfgs[i] = c
	}
	if err := checkGames(cfgs, []string{"a.toml", "b.toml"}); err != nil {
		t.Fatal(err)
	}
	consoleA, toA := io.Pipe()
	defer toA.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := encpool.New(2) // the games share an encode pool, as in the process
	defer pool.Close()
	games, err := startGames(ctx, cfgs, []io.Reader{consoleA, nil}, pool, nil, zerolog.Nop())
	defer stopSides(games)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan int, 1)
	go func() { served <- serveGames(ctx, cancel, games, httpConfig{}, zerolog.Nop(), upgradeArgs{}) }()

	watch := make([]*gameWatch, 2)
	for g := range watch {
		watch[g] = &gameWatch{chat: map[string]bool{}, options: map[string]bool{}, votes: map[string]bool{}}
	}
	counts := []int{3, 2}
	const runFor = 10 * time.Second
	var stats [2][]loadclient.Stats
	var mu sync.Mutex
	var wg sync.WaitGroup
	cctx, ccancel := context.WithTimeout(ctx, runFor)
	defer ccancel()
	var callerA *loadclient.Client
	for g := range 2 {
		for i := range counts[g] {
			cl := watch[g].client(games[g].srv.Addr(), fmt.Sprintf("%c%d", 'a'+g, i))
			if g == 0 && i == 0 {
				callerA = cl
			}
			wg.Go(func() {
				st := cl.Run(cctx)
				mu.Lock()
				stats[g] = append(stats[g], st)
				mu.Unlock()
			})
		}
	}

	// Game A: a chat line, a vote, a map change and a garbage flood while B plays.
	time.Sleep(3 * time.Second)
	fmt.Fprintln(toA, "say hello from A")
	if !callerA.Send(&gamemsg.ClCallVote{Type: "option", Value: "only in A", Reason: "isolation"}) {
		t.Error("client a0 could not call the vote")
	}
	time.Sleep(time.Second)
	fmt.Fprintln(toA, "change_map dm2")
	flood, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(games[0].srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte("\x10\x00\x00garbage-not-a-teeworlds-packet")
	for range 2000 { // 1 s at 2000 datagrams/s
		_, _ = flood.Write(garbage)
		time.Sleep(500 * time.Microsecond)
	}
	flood.Close()
	wg.Wait()

	if games[0].srv.MapName() != "dm2" || games[1].srv.MapName() != "dm1" {
		t.Errorf("maps after the change in A: A %s, B %s", games[0].srv.MapName(), games[1].srv.MapName())
	}
	skippedB := games[1].srv.TickTiming().SnapsSkipped.Load()
	for g, name := range []string{"A", "B"} {
		w := watch[g]
		if w.maxPlayers != counts[g] {
			t.Errorf("game %s: clients saw up to %d players, want %d", name, w.maxPlayers, counts[g])
		}
		if got := w.chat["hello from A"]; got != (g == 0) {
			t.Errorf("game %s: chat from A seen = %v; chat %v", name, got, w.chat)
		}
		if !w.options["only in "+name] || w.options["only in "+string("BA"[g])] {
			t.Errorf("game %s: vote options %v", name, w.options)
		}
		if got := w.votes["only in A"]; got != (g == 0) || len(w.votes) > 1 {
			t.Errorf("game %s: votes started %v, want the one called in A only in A", name, w.votes)
		}
		for _, st := range stats[g] {
			if !st.Entered || st.Failure != "" || st.BadSnapshots() != 0 {
				t.Errorf("game %s client %s: entered %v failure %q bad %d", name, st.Name, st.Entered, st.Failure, st.BadSnapshots())
			}
			if g == 1 {
				// B's clients: every snapshot tick B's loop sent, through A's
				// chat, map change and flood. A gap is allowed only where B's
				// own loop woke too late to send that tick's snapshots (the
				// process starved on a busy machine), which B counts; a gap
				// B did not count is a snapshot lost to A's events.
				if r := st.SnapRateServerTime(); r < 24 || uint64(st.SnapGaps) > skippedB || st.MapDownloads != 1 {
					t.Errorf("game B client %s: %.2f snapshots/s, %d gaps (B's loop skipped %d snapshot ticks), %d map downloads", st.Name, r, st.SnapGaps, skippedB, st.MapDownloads)
				}
				t.Logf("game B client %s: %.2f snapshots/s over %v in game, %d gaps, B's loop skipped %d snapshot ticks", st.Name, st.SnapRateServerTime(), st.InGame.Round(time.Millisecond), st.SnapGaps, skippedB)
			} else if st.MapDownloads < 2 {
				t.Errorf("game A client %s: %d map downloads, want the change to dm2 too", st.Name, st.MapDownloads)
			}
		}
	}
	rejected := func(g int) uint64 {
		st := games[g].srv.Stats()
		return st.Malformed.Load() + st.BadToken.Load() + st.ConnlessDropped.Load() + st.Flood.Load() + st.QueueFull.Load()
	}
	if a, b := rejected(0), rejected(1); a < 1000 || b != 0 {
		t.Errorf("datagrams rejected: game A %d (the flood was 2000), game B %d (want 0)", a, b)
	}
	cancel()
	select {
	case code := <-served:
		if code != 0 {
			t.Errorf("serveGames exit code %d", code)
		}
	case <-time.After(shutdownGrace + time.Second):
		t.Fatal("games did not stop")
	}
}

// TestGamesUsageErrors: what is ambiguous or impossible with several
// games is refused before anything starts, naming the file.
func TestGamesUsageErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.toml", "[server]\nport = 8401\n")
	b := write("b.toml", "[server]\nport = 8402\n")
	sameA := write("same.toml", "[server]\nport = 8401\n")
	m1 := write("m1.toml", "[server]\nport = 8403\n[metrics]\nlisten = \"127.0.0.1:9101\"\n")
	m2 := write("m2.toml", "[server]\nport = 8404\n[metrics]\nlisten = \"127.0.0.1:9102\"\n")
	ag := write("ag.toml", "[server]\nport = 8405\n[agones]\nenabled = true\n")
	bad := write("bad.toml", "[server]\nport = 8406\n[game]\ntype = \"race\"\n")
	e1 := write("e1.toml", "[server]\nport = 8407\n[econ]\nport = 9303\npassword = \"x\"\n")
	e2 := write("e2.toml", "[server]\nport = 8408\n[econ]\nport = 9303\npassword = \"y\"\n")
	f1 := write("f1.toml", "[server]\nport = 8409\ninput_fifo = \"/tmp/same\"\n")
	f2 := write("f2.toml", "[server]\nport = 8410\ninput_fifo = \"/tmp/same\"\n")
	r1 := write("r1.toml", "[server]\nport = 8411\n[record]\nteehistorian = true\ndir = \""+dir+"/rec\"\n")
	r2 := write("r2.toml", "[server]\nport = 8412\n[record]\ndemo = true\ndir = \""+dir+"/./rec/\"\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-config", a, "-config", b, "-port", "9000"}, "-port sets one game's setting"},
		{[]string{"-config", a, "-config", b, "-map", "x.map"}, "-map sets one game's setting"},
		{[]string{"-config", a, "-config", sameA}, "both use UDP :8401"},
		{[]string{"-config", m1, "-config", m2}, "one metrics endpoint"},
		{[]string{"-config", a, "-config", ag}, "one game per process"},
		{[]string{"-config", a, "-config", bad}, "bad.toml: "},
		{[]string{"-config", e1, "-config", e2}, "every game needs its own econ.port"},
		{[]string{"-config", f1, "-config", f2}, "every game needs its own"},
		{[]string{"-config", r1, "-config", r2}, "every game needs its own record.dir"},
	} {
		var errb lockedBuf
		if code := run(tt.args, strings.NewReader(""), &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
	// the controls: distinct directories, or one game not recording, pass
	c1, c2 := config.Default(), config.Default()
	c1.Server.Port, c2.Server.Port = 8411, 8412
	c1.Record.Teehistorian, c1.Record.Dir = true, filepath.Join(dir, "rec")
	c2.Record.Demo, c2.Record.Dir = true, filepath.Join(dir, "rec2")
	if err := checkGames([]config.Config{c1, c2}, []string{"r1", "r2"}); err != nil {
		t.Errorf("distinct record.dir: %v", err)
	}
	c2.Record.Dir = c1.Record.Dir
	if err := checkGames([]config.Config{c1, c2}, []string{"r1", "r2"}); err == nil {
		t.Error("shared record.dir accepted")
	}
	c2.Record.Demo = false
	if err := checkGames([]config.Config{c1, c2}, []string{"r1", "r2"}); err != nil {
		t.Errorf("shared record.dir, one game not recording: %v", err)
	}
}
