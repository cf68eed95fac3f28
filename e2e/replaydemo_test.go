package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"twserver/config"
	"twserver/demo"
	"twserver/gamemsg"
	"twserver/internal/netns"
	"twserver/internal/recordtest"
	"twserver/loadclient"
	"twserver/netproto"
	"twserver/snap"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
)

// demoPlayErrRe matches the demo player's error lines (both clients).
var demoPlayErrRe = regexp.MustCompile(`(?i)demo_?player.*(error|empty demo|could not|failed)`)

// clientReadyRe matches the line both clients log when their start is done.
var clientReadyRe = regexp.MustCompile(`gameclient\]?: initialisation finished`)

// demoStartedRe matches a client entering demo playback (STATE_DEMOPLAYBACK).
var demoStartedRe = regexp.MustCompile(`state change\. last=[0-9] current=4`)

// TestRealClientPlaysReplayDemos: a DM game of four synthetic clients (two
// 0.7, two 0.6; two moving at random, two jumping and firing) is recorded as a teehistorian file; the demos twhist makes
// of it (0.7 free view from a second before the first kill, 0.7 from one
// player's view, DDNet free view) play in the real Teeworlds 0.7.5 and DDNet
// 16.4 clients with no error lines. The game has chat lines and a vote, so
// the demos hold them. Screenshots (once the game draws: projectiles in
// flight before the kill, then the kill message; the scoreboard held open
// with Tab) are kept in TWSERVER_E2E_OUT.
func TestRealClientPlaysReplayDemos(t *testing.T) {
	realClientTest(t, nil, innerReplayDemos)
}

func innerReplayDemos(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out := os.Getenv(outEnv)
	th, m := recordReplayGame(t, filepath.Join(out, "recordings"))

	// the first kill of the game, from the free-view demo of the whole game
	_, whole := recordtest.Demo(t, th, m, filepath.Join(out, "whole.demo"), replay.DemoOptions{View: replay.FreeView})
	// a clip from killLead before the kill, at least 8 s long so that it
	// plays to the end of the test (kill messages stay 10 s on screen)
	kill, last := firstKill(t, whole)
	from := max(min(kill-int32(killLead/(20*time.Millisecond)), last-400), 0) // 50 ticks a second
	t.Logf("first kill at tick %d; clips start at tick %d", kill, from)
	r, _ := recordtest.Open(t, th)
	p0, err := replay.FindPlayer(r, "p0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rc   realClient
		opt  replay.DemoOptions
	}{
		{"free07", client07, replay.DemoOptions{View: replay.FreeView, From: from}},
		{"pov07", client07, replay.DemoOptions{View: p0, From: from}},
		{"free06", clientDDNet, replay.DemoOptions{View: replay.FreeView, From: from, DDNet: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(out, tc.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "twhist_"+tc.name+".demo")
			recordtest.Demo(t, th, m, path, tc.opt)
			playDemo(t, tc.rc, dir, path)
		})
	}
}

// recordReplayGame plays the game on the embedded map with an in-process
// server recording into dir and returns the teehistorian file and the map.
func recordReplayGame(t *testing.T, dir string) (string, *twmap.Map) {
	t.Helper()
	os.RemoveAll(dir) // a kept output directory's earlier run
	cfg := config.Default()
	cfg.Game.InactiveKickTime = 0
	cfg.Record = config.RecordConfig{Teehistorian: true, Dir: dir, MaxFileMB: 64}
	players := make([]recordtest.Player, 4)
	for i := range players {
		players[i] = recordtest.Player{Proto6: i%2 == 1, Stay: 25 * time.Second,
			Pattern: []loadclient.Pattern{loadclient.PatternRandom, loadclient.PatternJumpFire}[i/2]}
	}
	players[0].Started = func(c *loadclient.Client) { // a kill in the game for sure: p0 kills itself after 10 s
		time.AfterFunc(10*time.Second, func() { c.Send(&gamemsg.ClKill{}) })
	}
	// chat and a vote in the demos: p2 calls a vote after 8 s (in the clips;
	// it runs 25 s, to the game's end) and says a line every 2 s
	cfg.Votes = []config.VoteOption{{Description: "greet everybody", Command: "say hello from the vote"}}
	players[2].Started = func(c *loadclient.Client) {
		time.AfterFunc(8*time.Second, func() { c.Send(&gamemsg.ClCallVote{Type: "option", Value: "greet everybody", Reason: "demo test"}) })
		for i := range 12 {
			time.AfterFunc(time.Duration(2*i+1)*time.Second, func() {
				c.Send(&gamemsg.ClSay{Mode: 1, Target: -1, Message: fmt.Sprintf("chat line %d from p2", i+1)})
			})
		}
	}
	recordtest.Game(t, cfg, players, nil)
	files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
	if len(files) != 1 {
		t.Fatalf("%d teehistorian files", len(files))
	}
	return files[0], twmap.Default()
}

// firstKill returns the tick of the first Sv_KillMsg of a 0.7 demo with a
// weapon or a self-kill (not a player leaving or changing team), and the
// demo's last tick.
func firstKill(t *testing.T, data []byte) (kill, last int32) {
	t.Helper()
	_, ticks, err := demo.ReadAll(data, snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	var u netproto.Unpacker
	for _, tk := range ticks {
		for _, msg := range tk.Messages {
			id, sys, n, err := netproto.ParseMsgHeader(msg)
			if err != nil || sys || id != gamemsg.MsgSvKillMsg {
				continue
			}
			u.Reset(msg[n:])
			_, _, weapon := u.GetInt(), u.GetInt(), u.GetInt()
			if u.Err() == nil && weapon != world.WeaponGame {
				return tk.Tick, ticks[len(ticks)-1].Tick
			}
		}
	}
	t.Fatal("no kill in the game")
	return 0, 0
}

// killLead is how long before the first kill the clips start.
const killLead = 3 * time.Second

// playDemo plays a demo in the real client rc under Xvfb, takes
// screenshots before and after the kill and one with the scoreboard open, and checks the
// client's log for demo player, snapshot and (DDNet) error lines.
func playDemo(t *testing.T, rc realClient, out, path string) {
	t.Helper()
	display := startXvfb(t, out)
	home := filepath.Join(out, "home")
	demos := filepath.Join(home, rc.userDir, "demos")
	if err := os.MkdirAll(demos, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(demos, filepath.Base(path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := slicesWithout(append(os.Environ(), "HOME="+home, "DISPLAY="+display), "XDG_DATA_HOME=")
	clientLog := filepath.Join(out, "client.log")
	args := append([]string{rc.bin}, rc.args...)
	client := start(t, filepath.Base(rc.bin), clientLog, nil, env, out, args...)
	// a demo plays from the client's state change on, also while a client
	// just started still shows its loading screen (seconds on a busy
	// machine): start the demo from the console once the client is ready
	if !waitLog(clientLog, clientReadyRe, 90*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the client did not finish its start; client log tail:\n%s", tail(b, 30))
	}
	time.Sleep(time.Second) // its first menu frames
	if wid, _, _ := strings.Cut(xdo(t, "search", "--name", rc.windowRe), "\n"); wid != "" {
		xdo(t, "windowfocus", wid)
	}
	xdo(t, "key", "F1")
	time.Sleep(300 * time.Millisecond)
	xdo(t, "type", "--delay", "30", "play demos/"+filepath.Base(path))
	xdo(t, "key", "Return")
	if !waitLog(clientLog, demoStartedRe, 40*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("demo playback did not start; client log tail:\n%s", tail(b, 30))
	}
	started := time.Now()
	xdo(t, "key", "F1") // the console closes
	// projectiles in flight before the kill (once the client, a few frames
	// a second here, drew the game), the kill message after it (with the
	// chat lines and the vote)
	time.Sleep(killLead / 2)
	screenshot(t, display, out, "shot_projectile.png")
	if d := time.Since(started); d > killLead {
		t.Logf("shot_projectile.png taken %v after the playback started, after the kill", d)
	}
	time.Sleep(time.Until(started.Add(killLead + 700*time.Millisecond)))
	screenshot(t, display, out, "shot_kill.png")
	xdo(t, "keydown", "Tab")
	time.Sleep(400 * time.Millisecond)
	screenshot(t, display, out, "shot_scoreboard.png")
	xdo(t, "keyup", "Tab")
	time.Sleep(2 * time.Second)
	client.stop(t)
	log, _ := os.ReadFile(clientLog)
	for _, re := range []*regexp.Regexp{demoPlayErrRe, snapshotErrRe} {
		if m := re.FindAll(log, -1); len(m) > 0 {
			t.Errorf("client logged %d error lines, first: %s", len(m), m[0])
		}
	}
	if rc.map06 {
		if m := ddnetErrLineRe.FindAll(log, -1); len(m) > 0 {
			t.Errorf("DDNet logged %d error or warning lines, first: %s", len(m), m[0])
		}
	}
}
