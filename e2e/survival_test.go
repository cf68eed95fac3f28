package e2e

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/internal/netns"
	"twserver/internal/testenv"
	"twserver/loadclient"
	"twserver/snap"
	"twserver/world"
)

// lms1Path is the stock LMS map of the Debian teeworlds-data package.
const lms1Path = "/usr/share/games/teeworlds/data/maps/lms1.map"

// TestRealClientSurvival: the real 0.7.5 client plays an LMS and an LTS
// round on the stock map lms1 with two synthetic players (package
// loadclient): it spawns with the survival weapons, dies by its kill
// command and spectates a player still in the round (a team mate in LTS),
// a synthetic player's kill request ends the round (the last man, or the
// last team, standing wins it), and the next round brings everybody back.
// Screenshots of each step are written to the output directory
// (TWSERVER_E2E_OUT): <mode>-1-round.png, -2-dead-spectating.png,
// -3-round-over.png, -4-next-round.png.
func TestRealClientSurvival(t *testing.T) {
	outer := func() {
		testenv.Stat(t, lms1Path, "teeworlds-data")
		testenv.LookPath(t, "import", "imagemagick") // the screenshots
	}
	realClientTest(t, outer, func(t *testing.T) {
		netns.RequireLoopbackOnly(t)
		for _, mode := range []string{"lms", "lts"} {
			t.Run(mode, func(t *testing.T) { playSurvival(t, mode) })
		}
	})
}

// focusClient moves the mouse into the client window and focuses it, so
// that keys reach it.
func focusClient(t *testing.T) {
	t.Helper()
	wid := xdo(t, "search", "--name", "^Teeworlds$")
	if i := strings.IndexByte(wid, '\n'); i >= 0 {
		wid = wid[:i]
	}
	if wid == "" {
		t.Logf("client window not found by name; sending keys to the focused window")
		return
	}
	xdo(t, "mousemove", "--window", wid, "400", "300")
	xdo(t, "windowfocus", wid)
}

// watcher collects what a synthetic player sees: the ids, the real
// client's player flags and the round ends.
type watcher struct {
	mu        sync.Mutex
	self      int32
	realID    int32
	realFlags int32         // PlayerInfo flags of the real client, latest
	sawDead   bool          // the real client was flagged DEAD
	watching  bool          // the real client was flagged WATCHING this player
	roundOver int           // snapshots with GAMESTATEFLAG_ROUNDOVER
	scores    map[int32]int // PlayerInfo scores, latest
	teamScore [2]int32
	kills     []gamemsg.SvKillMsg
}

func newWatcher() *watcher { return &watcher{self: -1, realID: -1, scores: map[int32]int{}} }

func (w *watcher) onMessage(m gamemsg.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m := m.(type) {
	case *gamemsg.SvClientInfo:
		if m.Local {
			w.self = m.ClientID
		}
		if m.Name == "e2ebot" {
			w.realID = m.ClientID
		}
	case *gamemsg.SvKillMsg:
		w.kills = append(w.kills, *m)
	}
}

func (w *watcher) onSnapshot(_ int32, s *snap.Snapshot) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i := s.Find(snap.Key(world.ObjGameData, 0)); i >= 0 && s.ItemData(i)[1]&world.GameStateFlagRoundOver != 0 {
		w.roundOver++
	}
	if i := s.Find(snap.Key(world.ObjGameDataTeam, 0)); i >= 0 {
		d := s.ItemData(i)
		w.teamScore = [2]int32{d[0], d[1]}
	}
	for i := 0; i < s.NumItems(); i++ {
		k := s.Key(i)
		if k>>16 != world.ObjPlayerInfo {
			continue
		}
		id, d := int32(k&0xffff), s.ItemData(i)
		w.scores[id] = int(d[1])
		if id == w.realID {
			w.realFlags = d[0]
			w.sawDead = w.sawDead || d[0]&world.PlayerFlagDead != 0
			w.watching = w.watching || d[0]&world.PlayerFlagWatching != 0
		}
	}
}

func (w *watcher) snapshot() *watcher {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := &watcher{self: w.self, realID: w.realID, realFlags: w.realFlags, sawDead: w.sawDead, watching: w.watching,
		roundOver: w.roundOver, teamScore: w.teamScore, scores: map[int32]int{}}
	for k, v := range w.scores {
		c.scores[k] = v
	}
	c.kills = append(c.kills, w.kills...)
	return c
}

// screenshot saves the Xvfb screen as out/name.
func screenshot(t *testing.T, display, out, name string) {
	t.Helper()
	p := filepath.Join(out, name)
	if b, err := exec.Command("import", "-display", display, "-window", "root", p).CombinedOutput(); err != nil {
		t.Errorf("screenshot %s: %v %s", name, err, b)
		return
	}
	t.Logf("screenshot %s", p)
}

func playSurvival(t *testing.T, mode string) {
	out := filepath.Join(os.Getenv(outEnv), mode)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := os.Getenv(binEnv)
	cfgPath := filepath.Join(out, "server.toml")
	cfg := fmt.Sprintf(`[server]
name = "e2e %s"
bind = "127.0.0.1"
port = %s
[map]
file = %q
[game]
type = %q
score_limit = 5
inactive_kick_time = 0
`, mode, e2ePort, lms1Path, mode)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	serverLog := filepath.Join(out, "server.log")
	consoleR, console, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer console.Close()
	srv := start(t, "twserver", serverLog, consoleR, nil, out, bin, "-config", cfgPath, "-log-level", "debug")
	consoleR.Close()
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}

	client, clientLog, _ := startRealClient(t, out, "127.0.0.1:"+e2ePort, "bind f6 kill", "bind f9 quit")
	display := os.Getenv("DISPLAY") // the client's Xvfb
	if !waitLog(clientLog, regexp.MustCompile(`state change\. last=2 current=3`), 40*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("client never reached the online state; client exited=%v; client log tail:\n%s", client.exited(), tail(b, 40))
	}
	focusClient(t)

	// two synthetic players
	port, _ := strconv.Atoi(e2ePort)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bots [2]*loadclient.Client
	var seen [2]*watcher
	var wg sync.WaitGroup
	for i := range bots {
		seen[i] = newWatcher()
		bots[i] = loadclient.New(loadclient.Config{
			Server: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)),
			Name:   fmt.Sprintf("e2eload%d", i+1), Pattern: loadclient.PatternIdle,
			OnSnapshot: seen[i].onSnapshot, OnGameMessage: seen[i].onMessage,
		})
		wg.Add(1)
		go func() { defer wg.Done(); bots[i].Run(ctx) }()
		// one after the other: the first starts the match (LTS: blue)
		for k := 0; k < 200 && !bots[i].Entered(); k++ {
			time.Sleep(50 * time.Millisecond)
		}
		if !bots[i].Entered() {
			t.Fatalf("synthetic player %d did not enter the game", i+1)
		}
	}
	defer func() { cancel(); wg.Wait() }()

	// The second synthetic player joined during the first round and waits
	// as a dead spectator: start a new match with everybody (2 s warmup,
	// then the 3 s round countdown).
	fmt.Fprintln(console, "restart 2")
	time.Sleep(7 * time.Second)
	realID := seen[0].snapshot().realID
	if _, _, ok := playerPos(t, console, serverLog); !ok || realID < 0 {
		t.Fatalf("the real client (id %d) has no tee in the round", realID)
	}
	screenshot(t, display, out, mode+"-1-round.png")

	// The real client dies by its kill command and spectates.
	focusClient(t)
	xdo(t, "key", "F6")
	time.Sleep(4500 * time.Millisecond)
	screenshot(t, display, out, mode+"-2-dead-spectating.png")
	s1, s2 := seen[0].snapshot(), seen[1].snapshot()
	if !s1.sawDead {
		t.Errorf("the synthetic player never saw the real client flagged DEAD (flags now %#x)", s1.realFlags)
	}
	// LMS: it follows one of the two; LTS: its red team mate, the second
	// synthetic player (the first is blue)
	watched := s1.watching || s2.watching
	if mode == "lts" {
		watched = s2.watching
	}
	if !watched {
		t.Errorf("no synthetic player saw the real client watching it (flags %#x, %#x)", s1.realFlags, s2.realFlags)
	}
	if _, _, ok := playerPos(t, console, serverLog); ok {
		t.Errorf("the real client's tee is back within the round")
	}

	// The first synthetic player dies too: the second one (LMS) or the red
	// team (LTS) wins the round.
	if !bots[0].Send(&gamemsg.ClKill{}) {
		t.Fatal("could not send the kill request")
	}
	time.Sleep(1500 * time.Millisecond)
	screenshot(t, display, out, mode+"-3-round-over.png")
	s2 = seen[1].snapshot()
	if s2.roundOver == 0 {
		t.Errorf("no snapshot with GAMESTATEFLAG_ROUNDOVER")
	}
	if mode == "lms" {
		if got := s2.scores[s2.self]; got != 1 {
			t.Errorf("the last man standing has score %d, want 1; scores %v", got, s2.scores)
		}
	} else if s2.teamScore != [2]int32{1, 0} {
		t.Errorf("team scores %v, want red 1 blue 0", s2.teamScore)
	}
	t.Logf("%s: kill messages %v, scores %v, team scores %v", mode, s2.kills, s2.scores, s2.teamScore)

	// 5 s round end, 3 s countdown, then everybody plays again.
	time.Sleep(9 * time.Second)
	if _, _, ok := playerPos(t, console, serverLog); !ok {
		t.Errorf("the real client's tee did not come back in the next round")
	}
	screenshot(t, display, out, mode+"-4-next-round.png")

	cancel()
	wg.Wait()
	quitClient(t, client, clientLog)
	if err := srv.stop(t); err != nil {
		t.Errorf("twserver exit: %v", err)
	}
}
