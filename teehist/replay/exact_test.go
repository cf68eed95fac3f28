package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"twserver/config"
	"twserver/demo"
	"twserver/gamemsg"
	"twserver/internal/recordtest"
	"twserver/loadclient"
	"twserver/netproto"
	"twserver/server"
	"twserver/snap"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
)

// received collects the snapshots a client received, by tick, until stop.
type received struct {
	mu      sync.Mutex
	stopped bool
	snaps   map[int32]map[uint32][]int32
}

func (r *received) add(tick int32, s *snap.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		m := items(s)
		for k, d := range m {
			m[k] = slices.Clone(d) // the client reuses s
		}
		r.snaps[tick] = m
	}
}

func (r *received) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
}

// talk sends msgs from c once it is in the game, one every 300 ms.
func talk(t *testing.T, c *loadclient.Client, msgs ...gamemsg.Message) {
	go func() {
		for deadline := time.Now().Add(5 * time.Second); !c.Entered(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				return // the game's own checks report a client that never entered
			}
		}
		for _, m := range msgs {
			time.Sleep(300 * time.Millisecond)
			if !c.Send(m) {
				t.Errorf("could not send %T", m)
			}
		}
	}()
}

// recordGame runs a server recording both a teehistorian and a demo of
// every game (game type gameType, maps dm1 then second), with four
// synthetic clients (two 0.7, two 0.6) playing at random; on the first
// map the 0.7 ones chat (lines to all, one the spam rule drops, one to the
// team), show emoticons (one too soon), change skin and call a vote that
// the other votes for and the console passes; one 0.6 client leaves after
// 2 s, the map changes to second after 4 s, and the clients play 3 s more.
// It returns the recordings directory, the map directory and the
// snapshots client 0 (p0, 0.7) received on the first map.
func recordGame(t *testing.T, gameType, first, second string) (recDir, mapDir string, p0 *received) {
	t.Helper()
	recDir, mapDir = t.TempDir(), t.TempDir()
	for _, m := range []string{first, second} {
		data, err := os.ReadFile(filepath.Join("../../world/testdata", m+".map"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mapDir, m+".map"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.Game.Type = gameType
	cfg.Game.InactiveKickTime = 0
	cfg.Map.Dir, cfg.Map.Rotation = mapDir, []string{first, second}
	cfg.Record = config.RecordConfig{Teehistorian: true, Demo: true, Dir: recDir, MaxFileMB: 64}
	cfg.Votes = []config.VoteOption{{Description: "greet", Command: "say the vote passed"}}
	p0 = &received{snaps: map[int32]map[uint32][]int32{}}
	skin := gamemsg.Skin{PartNames: [gamemsg.NumSkinParts]string{"kitty", "", "", "standard", "standard", "standard"}}
	players := []recordtest.Player{
		{Stay: 9 * time.Second, Configure: func(c *loadclient.Config) { c.OnSnapshot = p0.add },
			Started: func(c *loadclient.Client) {
				talk(t, c, &gamemsg.ClSay{Mode: 1, Target: -1, Message: "hello <b>all</b> \u00e9  "},
					&gamemsg.ClCallVote{Type: "option", Value: "greet", Reason: "why not"},
					&gamemsg.ClSay{Mode: 1, Target: -1, Message: "too soon: the spam rule drops it"},
					&gamemsg.ClEmoticon{Emoticon: 2}, &gamemsg.ClEmoticon{Emoticon: 3}) // the second too soon
			}},
		{Proto6: true, Stay: 2 * time.Second}, // leaves mid-game
		{Stay: 9 * time.Second, Started: func(c *loadclient.Client) {
			talk(t, c, &gamemsg.ClSay{Mode: 2, Target: -1, Message: "to my team only"},
				&gamemsg.ClSkinChange{Skin: skin}, &gamemsg.ClEmoticon{Emoticon: 5},
				&gamemsg.ClSkinChange{}, // too soon
				&gamemsg.ClSay{Mode: 1, Target: -1, Message: "gg"}, &gamemsg.ClVote{Vote: 1})
		}},
		{Proto6: true, Stay: 9 * time.Second},
	}
	for i := range players {
		players[i].Pattern = loadclient.PatternRandom
	}
	recordtest.Game(t, cfg, players, func(srv *server.Server) {
		time.Sleep(3 * time.Second)
		if err := srv.SubmitConsole(context.Background(), "vote yes"); err != nil {
			t.Error(err)
		}
		time.Sleep(time.Second)
		p0.stop()
		if err := srv.SubmitConsole(context.Background(), "change_map "+second); err != nil {
			t.Error(err)
		}
	})
	return recDir, mapDir, p0
}

// items returns the items of s by key.
func items(s *snap.Snapshot) map[uint32][]int32 {
	m := make(map[uint32][]int32, s.NumItems())
	for i := range s.NumItems() {
		m[s.Key(i)] = s.ItemData(i)
	}
	return m
}

// itemDiff lists the differences of two item sets, sorted.
func itemDiff(got, want map[uint32][]int32) []string {
	var diff []string
	for k, wd := range want {
		if gd, ok := got[k]; !ok {
			diff = append(diff, fmt.Sprintf("missing type %d id %d", k>>16, k&0xffff))
		} else if !slices.Equal(gd, wd) {
			diff = append(diff, fmt.Sprintf("type %d id %d: %v, want %v", k>>16, k&0xffff, gd, wd))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("extra type %d id %d", k>>16, k&0xffff))
		}
	}
	slices.Sort(diff)
	return diff
}

// compareDemos checks that two demos hold the same ticks with the same
// snapshot items and messages, and returns the server demo's message
// counts by id.
func compareDemos(t *testing.T, name string, server, made []byte) map[int32]int {
	t.Helper()
	_, want, err := demo.ReadAll(server, snap.Sizes7)
	if err != nil {
		t.Fatalf("%s: server demo: %v", name, err)
	}
	_, got, err := demo.ReadAll(made, snap.Sizes7)
	if err != nil {
		t.Fatalf("%s: made demo: %v", name, err)
	}
	if len(want) < 50 {
		t.Fatalf("%s: server demo of %d ticks", name, len(want))
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d ticks (%d..%d), server demo %d (%d..%d)", name, len(got), got[0].Tick, got[len(got)-1].Tick,
			len(want), want[0].Tick, want[len(want)-1].Tick)
	}
	kinds := map[int32]int{}
	for _, tk := range want {
		for _, m := range tk.Messages {
			if id, _, _, err := netproto.ParseMsgHeader(m); err == nil {
				kinds[id]++
			}
		}
	}
	t.Logf("%s: server demo messages by id: %v", name, kinds)
	if kinds[gamemsg.MsgDeClientEnter] == 0 {
		t.Errorf("%s: no De_ClientEnter in the server demo", name)
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.Tick != w.Tick {
			t.Fatalf("%s: snapshot %d at tick %d, server demo's at %d", name, i, g.Tick, w.Tick)
		}
		diff := itemDiff(items(g.Snap), items(w.Snap))
		if !slices.EqualFunc(g.Messages, w.Messages, bytes.Equal) {
			diff = append(diff, fmt.Sprintf("messages %x, server %x", g.Messages, w.Messages))
		}
		if len(diff) > 0 {
			slices.Sort(diff)
			t.Fatalf("%s: tick %d differs:\n%s", name, g.Tick, strings.Join(diff, "\n"))
		}
	}
	return kinds
}

// TestDemoFromTeehistorianExact: a game recorded with record.demo and
// record.teehistorian, made into a demo with replay.WriteDemo (free view),
// has tick for tick the server demo's snapshot items: DM, CTF and LMS with
// 0.7 and 0.6 synthetic clients, a player leaving and a map change (two
// games, two pairs of files).
func TestDemoFromTeehistorianExact(t *testing.T) {
	if testing.Short() {
		t.Skip("plays three real-time games")
	}
	for _, tc := range []struct{ gameType, first, second string }{
		{"dm", "dm1", "ctf1"},
		{"ctf", "ctf1", "dm1"},
		{"lms", "dm1", "ctf1"},
	} {
		t.Run(tc.gameType, func(t *testing.T) {
			recDir, mapDir, p0 := recordGame(t, tc.gameType, tc.first, tc.second)
			files, _ := filepath.Glob(filepath.Join(recDir, "*.teehistorian"))
			if len(files) != 2 {
				t.Fatalf("%d teehistorian files, want 2 (one per map)", len(files))
			}
			for _, th := range files {
				h, kinds := checkExact(t, th, mapDir)
				if h.MapName != tc.first {
					continue
				}
				checkView(t, th, mapDir, "p0", p0)
				// the chat lines (p0's, p1's, the passed vote's say), vote
				// start, status and end, and emoticons are in the demos
				for id, least := range map[int32]int{gamemsg.MsgSvChat: 3, gamemsg.MsgSvVoteSet: 2,
					gamemsg.MsgSvVoteStatus: 1, gamemsg.MsgSvEmoticon: 2} {
					if kinds[id] < least {
						t.Errorf("%s: %d messages of id %d in the server demo, want at least %d", h.MapName, kinds[id], id, least)
					}
				}
			}
		})
	}
}

// loadMap loads the map of header h from mapDir.
func loadMap(t *testing.T, h *teehist.Header, mapDir string) *twmap.Map {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mapDir, h.MapName+".map"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load(h.MapName, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// makeDemo writes the demo of a recording with opt and returns its bytes.
func makeDemo(t *testing.T, th, mapDir string, opt replay.DemoOptions) ([]byte, *teehist.Header) {
	t.Helper()
	_, h := recordtest.Open(t, th)
	_, made := recordtest.Demo(t, th, loadMap(t, h, mapDir), filepath.Join(t.TempDir(), "made.demo"), opt)
	return made, h
}

// checkExact compares the free-view demo of a recording with the server's
// demo of the same game.
func checkExact(t *testing.T, th, mapDir string) (*teehist.Header, map[int32]int) {
	t.Helper()
	made, h := makeDemo(t, th, mapDir, replay.DemoOptions{View: replay.FreeView})
	server, err := os.ReadFile(strings.TrimSuffix(th, ".teehistorian") + ".demo")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// TWSERVER_KEEP=DIR keeps the files of a failed comparison
		if keep := os.Getenv("TWSERVER_KEEP"); t.Failed() && keep != "" {
			_ = os.MkdirAll(keep, 0o755)
			for _, f := range []string{th, strings.TrimSuffix(th, ".teehistorian") + ".demo"} {
				if b, err := os.ReadFile(f); err == nil {
					_ = os.WriteFile(filepath.Join(keep, filepath.Base(f)), b, 0o644)
				}
			}
			_ = os.WriteFile(filepath.Join(keep, filepath.Base(th)+".made.demo"), made, 0o644)
		}
	}()
	return h, compareDemos(t, filepath.Base(th), server, made)
}

// checkView compares the demo from player name's view with the snapshots
// that player's client received: at every tick the client got, the demo
// has the same items besides the demo-only De_ClientInfo and De_GameInfo.
func checkView(t *testing.T, th, mapDir, name string, got *received) {
	t.Helper()
	r, _ := recordtest.Open(t, th)
	cid, err := replay.FindPlayer(r, name)
	if err != nil {
		t.Fatal(err)
	}
	made, _ := makeDemo(t, th, mapDir, replay.DemoOptions{View: cid})
	_, ticks, err := demo.ReadAll(made, snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	byTick := map[int32]map[uint32][]int32{}
	for _, tk := range ticks {
		m := items(tk.Snap)
		for k := range m {
			if typ := k >> 16; typ == world.ObjDeClientInfo || typ == world.ObjDeGameInfo {
				delete(m, k)
			}
		}
		byTick[tk.Tick] = m
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.snaps) < 50 {
		t.Fatalf("client %s received %d snapshots", name, len(got.snaps))
	}
	for tick, want := range got.snaps {
		have, ok := byTick[tick]
		if !ok {
			t.Fatalf("view of %s (cid %d): the client received tick %d, the demo has no snapshot there", name, cid, tick)
		}
		if diff := itemDiff(have, want); len(diff) > 0 {
			t.Fatalf("view of %s (cid %d): tick %d differs from what the client received:\n%s", name, cid, tick, strings.Join(diff, "\n"))
		}
	}
	t.Logf("view of %s (cid %d): %d received snapshots equal the demo's", name, cid, len(got.snaps))
}
