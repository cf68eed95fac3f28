package econ_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/console"
	"twserver/econ"
	"twserver/gamemsg"
	"twserver/loadclient"
	"twserver/metrics"
	"twserver/server"
)

// startGame runs a real server on a free loopback UDP port with an econ
// at output level on a free loopback TCP port (password "secret").
func startGame(t *testing.T, level int) (*server.Server, *econ.Server) {
	t.Helper()
	cfg := config.Default()
	cfg.Game.InactiveKickTime = 0
	return startGameWith(t, cfg, econ.Options{Password: "secret", AuthTimeout: 30 * time.Second,
		BanTime: 5 * time.Minute, OutputLevel: level})
}

// startGameWith runs a real server with cfg (bound to a free loopback UDP
// port) and an econ with o (on a free loopback TCP port), wired as
// cmd/twserver does (console lines in, commands out through the server's
// console queue); both stop with the test, within 5 s.
func startGameWith(t *testing.T, cfg config.Config, o econ.Options) (*server.Server, *econ.Server) {
	t.Helper()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", 0
	srv, err := server.New(server.Options{Config: cfg, Logger: zerolog.Nop(), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	o.Addr, o.Exec = "127.0.0.1:0", srv.SubmitConsole
	e, err := econ.Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	srv.OnConsoleLine(o.OutputLevel, func(l console.Line) { e.Print(econ.Line(l)) })
	ctx, cancel := context.WithCancel(context.Background())
	srvDone, econDone := make(chan error, 1), make(chan struct{})
	go func() { srvDone <- srv.Run(ctx) }()
	go func() { e.Run(ctx); close(econDone) }()
	t.Cleanup(func() {
		cancel()
		timeout := time.After(5 * time.Second)
		select {
		case <-srvDone:
		case <-timeout:
			t.Error("server did not stop within 5 s")
		}
		select {
		case <-econDone:
		case <-timeout:
			t.Error("econ did not stop within 5 s")
		}
	})
	return srv, e
}

// The regular expressions of the tools that parse econ output (ops-facts
// section 2), applied to a line without its time prefix or, for the bridge,
// to the whole line.
var (
	toolEnter   = regexp.MustCompile(`^\[server\]: player has entered the game. ClientID=(\d+) addr=(.+):(\d+)$`)
	toolChat    = regexp.MustCompile(`\[chat\]: .*`)
	toolKill    = regexp.MustCompile(`\[game\]: kill killer=.*`)
	bridgeChat  = regexp.MustCompile(`\[.*?]\[chat]: `)
	bridgeTeam  = regexp.MustCompile(`\[game]: team_join player=`)
	bridgeLeave = regexp.MustCompile(`\[game]: leave player=`)
	econModRdy  = regexp.MustCompile(`\[server\]: player is ready\. ClientID=`)
)

// strip removes the frame end and the time prefix.
func strip(t *testing.T, frame string) string {
	t.Helper()
	body, ok := strings.CutSuffix(frame, frameEnd)
	m := timePrefix.FindStringSubmatch(body)
	if !ok || m == nil {
		t.Fatalf("not a console line: %q", frame)
	}
	if now := time.Now(); m[1] != now.Format("15:04:05") && m[1] != now.Add(-time.Second).Format("15:04:05") &&
		m[1] != now.Add(-2*time.Second).Format("15:04:05") {
		t.Errorf("time %s is not now (%s)", m[1], now.Format("15:04:05"))
	}
	return body[len(m[1])+2:]
}

// TestGameEvents: a real TCP client logged into the econ of a real server
// sees, byte for byte, the lines of a synthetic client joining, chatting,
// killing itself, being moved to the spectators and leaving, and runs
// console commands (status, say, set_team) with their output.
func TestGameEvents(t *testing.T) {
	srv, e := startGame(t, 2)
	obs := dialEcon(t, e.Addr(), "")
	obs.login("secret")
	obs.awaitText("[econ]: cid=0 authed")

	ctx, stopAlice := context.WithCancel(context.Background())
	defer stopAlice()
	alice := loadclient.New(loadclient.Config{Server: srv.Addr(), Name: "alice", Pattern: loadclient.PatternIdle})
	aliceDone := make(chan struct{})
	go func() { alice.Run(ctx); close(aliceDone) }()

	ready := obs.await(regexp.MustCompile(`^\[server\]: player is ready\. ClientID=0 addr=127\.0\.0\.1:\d+$`))
	addr := strings.TrimPrefix(strip(t, ready), "[server]: player is ready. ClientID=0 addr=")
	enter := strip(t, obs.awaitText("[server]: player has entered the game. ClientID=0 addr="+addr))
	if m := toolEnter.FindStringSubmatch(enter); m == nil || m[1] != "0" || m[2]+":"+m[3] != addr {
		t.Errorf("enter line %q: tool regexp gives %q", enter, m)
	}
	if !econModRdy.MatchString(strip(t, ready)) {
		t.Errorf("ready line %q", ready)
	}
	team := obs.awaitText("[game]: team_join player='0:alice' team=0")
	if !bridgeTeam.MatchString(team) {
		t.Errorf("team line %q", team)
	}
	for !alice.Entered() {
		time.Sleep(10 * time.Millisecond)
	}

	// chat and team chat from the client
	if !alice.Send(&gamemsg.ClSay{Mode: 1, Target: -1, Message: "hello econ"}) {
		t.Fatal("send failed")
	}
	chat := obs.awaitText("[chat]: 1:0:alice: hello econ")
	if !toolChat.MatchString(chat) || !bridgeChat.MatchString(chat) {
		t.Errorf("chat line %q", chat)
	}
	time.Sleep(1100 * time.Millisecond) // chat spam protection: 1 s per line
	if !alice.Send(&gamemsg.ClSay{Mode: 2, Target: -1, Message: "team only"}) {
		t.Fatal("send failed")
	}
	obs.awaitText("[teamchat]: 2:0:0:alice: team only")

	// a kill: the client kills itself once its character is alive
	waitAlive(t, obs)
	if !alice.Send(&gamemsg.ClKill{}) {
		t.Fatal("send failed")
	}
	kill := obs.awaitText("[game]: kill killer='0:0:alice' victim='0:0:alice' weapon=-2 special=0")
	if !toolKill.MatchString(kill) {
		t.Errorf("kill line %q", kill)
	}

	// commands from the econ: say, and set_team (which kills in the old team)
	obs.send("say hi from econ\n")
	obs.awaitText("[server]: cid=0 cmd='say hi from econ'")
	obs.awaitText("[chat]: *** hi from econ")
	waitAlive(t, obs)
	obs.send("set_team 0 -1\n")
	obs.awaitText("[server]: cid=0 cmd='set_team 0 -1'")
	obs.awaitText("[game]: kill killer='0:0:alice' victim='0:0:alice' weapon=-3 special=0")
	obs.awaitText("[game]: team_join player='0:alice' team=0->-1")
	obs.send("status\n")
	obs.awaitText("[server]: cid=0 cmd='status'")
	obs.await(regexp.MustCompile(`^\[server\]: id=0 addr=` + regexp.QuoteMeta(addr) + ` client=705 name='alice' score=-?\d+ $`))

	// the client leaves
	stopAlice()
	<-aliceDone
	obs.awaitText("[server]: client dropped. cid=0 addr=" + addr + " reason=''")
	leave := obs.awaitText("[game]: leave player='0:alice'")
	if !bridgeLeave.MatchString(leave) {
		t.Errorf("leave line %q", leave)
	}
	// a command and logout in one write (as `printf 'pw\nplayers\nlogout\n' | nc`):
	// the command's output comes before the logout
	obs.send("players\nlogout\n")
	obs.awaitText("[server]: cid=0 cmd='players'")
	f, err := obs.frame(5 * time.Second)
	if err != nil || !regexp.MustCompile(`^\[\d\d:\d\d:\d\d\]\[server\]: 0 client\(s\), map twsrv_arena, tick \d+\n\x00\x00$`).MatchString(f) {
		t.Fatalf("after the players echo: %q %v", f, err)
	}
	obs.awaitText("[server]: cid=0 cmd='logout'")
	obs.awaitText("[econ]: client dropped. cid=0 addr=" + obs.nc.LocalAddr().String() + " reason='Logout'")
	if rest := obs.closed(5 * time.Second); rest != "Logout\n\x00\x00" {
		t.Fatalf("end %q", rest)
	}
}

// waitAlive polls the players command until client 0 has a character (a
// position).
//
// `players` reports the position of the character in the last snapshot
// sent to the client, which can be from the tick before a kill, so one
// sighting is not enough: the character must be seen in two answers 100 ms
// (5 ticks, more than a snapshot interval) apart.
func waitAlive(t *testing.T, obs *eclient) {
	t.Helper()
	end := regexp.MustCompile(`^\[server\]: \d+ client\(s\)`) // the last line of the answer
	seen := 0
	for range 60 {
		obs.send("players\n")
		alive := false
		for _, l := range obs.until(t, end) {
			alive = alive || strings.HasPrefix(l, "[server]: id=0 ") && strings.Contains(l, " pos=(")
		}
		if !alive {
			seen = 0
		} else if seen++; seen == 2 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("client 0 never had a character")
}

// until reads lines up to the one matching re (without its time prefix)
// and returns them all, prefixes stripped.
func (c *eclient) until(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	var out []string
	for {
		f, err := c.frame(10 * time.Second)
		if err != nil {
			t.Fatalf("waiting for %v: %v; got %q", re, err, out)
		}
		l := strip(t, f)
		out = append(out, l)
		if re.MatchString(l) {
			return out
		}
	}
}

// TestOutputLevels: at output level 0 the join and command replies are
// sent but not chat, commands echoes or "ready" (level 1) nor kills and team
// joins (level 2); at level 1 those of level 1 are sent too.
func TestOutputLevels(t *testing.T) {
	killIndex := -1
	for i, n := range metrics.GameEvents {
		if n == "kill" {
			killIndex = i
		}
	}
	for _, level := range []int{0, 1} {
		srv, e := startGame(t, level)
		obs := dialEcon(t, e.Addr(), "")
		obs.login("secret")
		ctx, stop := context.WithCancel(context.Background())
		alice := loadclient.New(loadclient.Config{Server: srv.Addr(), Name: "alice", Pattern: loadclient.PatternIdle})
		done := make(chan struct{})
		go func() { alice.Run(ctx); close(done) }()
		for !alice.Entered() {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Second) // the character spawns
		_ = alice.Send(&gamemsg.ClSay{Mode: 1, Target: -1, Message: "x"})
		deadline := time.Now().Add(10 * time.Second)
		for srv.Gauges().Events[killIndex].Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the client never killed itself")
			}
			_ = alice.Send(&gamemsg.ClKill{}) // until its character is there
			time.Sleep(200 * time.Millisecond)
		}
		obs.send("say marker\n")
		obs.send("players\n")
		got := strings.Join(obs.until(t, regexp.MustCompile(`^\[server\]: \d+ client\(s\)`)), "\n")
		stop()
		<-done
		has := func(sub string) bool { return strings.Contains(got, sub) }
		if !has("[server]: player has entered the game. ClientID=0") || !has("[server]: id=0 addr=") {
			t.Errorf("level %d: level 0 lines missing:\n%s", level, got)
		}
		for _, sub := range []string{"[chat]: 1:0:alice: x", "[chat]: *** marker", "[server]: cid=0 cmd='players'", "[server]: player is ready."} {
			if has(sub) != (level >= 1) {
				t.Errorf("level %d: %q sent = %v:\n%s", level, sub, has(sub), got)
			}
		}
		for _, sub := range []string{"[game]: kill ", "[game]: team_join "} {
			if has(sub) {
				t.Errorf("level %d: %q sent:\n%s", level, sub, got)
			}
		}
	}
}
