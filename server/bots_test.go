package server

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/teehist"
	"twserver/world"
)

// botRows reads the 0.7 server info's client rows: how many, and how many
// of them have the bot type bit (2).
func botRows(t *testing.T, ts *testServer) (players, clients, bots int, names []string) {
	t.Helper()
	u := queryInfo(t, ts.mn, netipFrom("127.0.0.9:50009"))
	for range 5 {
		u.GetString()
	}
	u.GetInt()
	u.GetInt()
	players, _, clients, _ = int(u.GetInt()), u.GetInt(), int(u.GetInt()), u.GetInt()
	for range clients {
		name, _, _, _, typ := u.GetString(), u.GetString(), u.GetInt(), u.GetInt(), u.GetInt()
		if typ&2 != 0 {
			bots++
			names = append(names, name)
		}
	}
	if u.Err() != nil {
		t.Fatalf("info: %v", u.Err())
	}
	return players, clients, bots, names
}

// gameState returns the game state flags of tc's newest snapshot (-1: no
// GameData).
func gameState(tc *testClient) int32 {
	if sn, _ := tc.recv.Latest(); sn != nil {
		for i := range sn.NumItems() {
			if it := sn.Item(i); it.Type == world.ObjGameData && len(it.Data) >= 2 {
				return it.Data[1]
			}
		}
	}
	return -1
}

// snapBots counts the PlayerInfo items of tc's newest snapshot, and those
// with PLAYERFLAG_BOT.
func snapBots(tc *testClient) (players, bots int) {
	sn, _ := tc.recv.Latest()
	if sn == nil {
		return 0, 0
	}
	for i := range sn.NumItems() {
		it := sn.Item(i)
		if it.Type == world.ObjPlayerInfo {
			players++
			if it.Data[0]&world.PlayerFlagBot != 0 {
				bots++
			}
		}
	}
	return players, bots
}

// TestBotsFill: with bots.fill = 4 an empty server has no bot; a lone
// human is in the game within 2 s and finds three bots there, marked as
// bots in its snapshots (PLAYERFLAG_BOT) and in the 0.7 server info (type
// bit 2); a human arriving when every slot is taken gets in and a bot
// leaves; the teehistorian holds the bots' joins, bot markers and inputs
// and replays without divergence.
func TestBotsFill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, func(c *config.Config) {
			c.Bots.Fill = 4
			c.Server.MaxClients = 4
			c.Record.Teehistorian = true
			c.Record.Dir = dir
		})
		time.Sleep(500 * time.Millisecond)
		if p, c, b, _ := botRows(t, ts); p != 0 || c != 0 || b != 0 {
			t.Fatalf("empty server: %d players, %d clients, %d bots in the info; want none", p, c, b)
		}
		a := join(t, ts, cl1Addr, "alice") // fails unless in game within 2 s
		a.direction = 1
		a.run(time.Second)
		if p, b := snapBots(a); p != 4 || b != 3 {
			t.Fatalf("alice's snapshot: %d players, %d with PLAYERFLAG_BOT; want 4 and 3", p, b)
		}
		if f := gameState(a); f != 0 { // a game, not the warmup of a lone player
			t.Errorf("alice's game state flags %#x, want 0 (a running match)", f)
		}
		if p, c, b, names := botRows(t, ts); p != 4 || c != 4 || b != 3 {
			t.Fatalf("info: %d players, %d clients, %d bots (%v); want 4, 4, 3", p, c, b, names)
		} else {
			for _, n := range names {
				if !slices.Contains(config.DefaultBotNames, n) {
					t.Errorf("bot name %q not from bots.names", n)
				}
			}
		}
		botInfos := 0
		for _, ci := range a.clientInfos {
			if ci.ClientID != a.localID && slices.Contains(config.DefaultBotNames, ci.Name) {
				botInfos++
			}
		}
		if botInfos != 3 {
			t.Errorf("alice got %d bot client infos, want 3", botInfos)
		}
		a.run(5 * time.Second) // the bots play

		// The server is full (alice and three bots in four slots): bob
		// takes a bot's place.
		b := join(t, ts, cl2Addr, "bob")
		b.run(500 * time.Millisecond)
		a.run(500 * time.Millisecond)
		if p, bt := snapBots(b); p != 4 || bt != 2 {
			t.Errorf("bob's snapshot: %d players, %d bots; want 4 and 2", p, bt)
		}
		if len(a.drops) != 1 || !slices.Contains(config.DefaultBotNames, nameOf(a, a.drops[0].ClientID)) {
			t.Errorf("alice saw drops %+v, want one bot's", a.drops)
		}
		if _, err := io.WriteString(ts.cons, "status\n"); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			a.run(time.Second)
			b.run(time.Second)
		}
		if l := ts.logs.String(); !strings.Contains(l, "addr=(bot) name='Pebble'") || !strings.Contains(l, "bot has entered the game") {
			t.Errorf("status does not list bot Pebble, or no log line says a bot entered")
		}
		ts.stop(t)

		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d recordings, want 1", len(files))
		}
		marked, moved := botRecords(t, files[0])
		if marked != 3 || moved < 3 {
			t.Errorf("recording: %d PLAYER_BOT, %d bots with a moving input; want 3 and 3", marked, moved)
		}
		if os.Getenv("TWSERVER_UPDATE_TESTDATA") == "1" { // the recording the index and twhist tests read
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile("../teehist/testdata/twserver_bots.teehistorian", b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, res := replayFile(t, files[0])
		t.Logf("replay: %d ticks, %d positions compared", res.Ticks, res.Compared)
		if res.Divergence != nil || !res.Finished || res.Compared < 1000 {
			t.Errorf("replay: divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
		}
	})
}

// nameOf is the name tc was told for client id.
func nameOf(tc *testClient, id int32) string {
	for _, ci := range tc.clientInfos {
		if ci.ClientID == id {
			return ci.Name
		}
	}
	return ""
}

// botRecords reads a teehistorian file: its PLAYER_BOT records and how
// many of the marked slots have an input with a direction.
func botRecords(t *testing.T, path string) (marked, moved int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := teehist.NewReader(f)
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	bot := map[int32]bool{}
	dirs := map[int32]bool{}
	var last [teehist.MaxClients]int32 // the direction of each slot's input
	var m teehist.Message
	for {
		if err := r.Next(&m); err != nil {
			t.Fatal(err)
		}
		if m.Kind == teehist.KindFinish {
			break
		}
		if m.Kind == teehist.KindEx && m.Ex == teehist.ExPlayerBot {
			f, _ := teehist.AppendEx(nil, m.Ex, m.Data)
			bot[f[0].Int] = true
			marked++
		}
		switch m.Kind {
		case teehist.KindInputNew:
			last[m.CID] = m.Input[0]
		case teehist.KindInputDiff:
			last[m.CID] += m.Input[0]
		default:
			continue
		}
		if bot[m.CID] && last[m.CID] != 0 {
			dirs[m.CID] = true
		}
	}
	return marked, len(dirs)
}

// TestBotsMapChange: after a map change the bots are players of the new
// game (the human who comes back finds them, with PLAYERFLAG_BOT), and
// bot_add, bot_remove and bots_fill act on them.
func TestBotsMapChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Bots.Fill = 3 })
		a := join(t, ts, cl1Addr, "alice")
		go func() { _, _ = io.WriteString(ts.cons, "reload\n") }()
		a.run(3 * time.Second)
		if p, b := snapBots(a); a.mapRequests < 2 || p != 3 || b != 2 {
			t.Fatalf("after the reload: %d map requests, %d players, %d bots; want 2 bots among 3", a.mapRequests, p, b)
		}
		go func() { _, _ = io.WriteString(ts.cons, "bots_fill 0\nbot_add hard Ada\nbot_add nobody x\n") }()
		a.run(2 * time.Second)
		names := map[string]bool{}
		for _, ci := range a.clientInfos {
			names[ci.Name] = true
		}
		if p, b := snapBots(a); p != 3 || b != 2 || !names["Ada"] || !names["nobody x"] {
			t.Errorf("after bots_fill 0 and two bot_add: %d players, %d bots, names %v", p, b, names)
		}
		go func() { _, _ = io.WriteString(ts.cons, "bot_remove all\n") }()
		a.run(time.Second)
		if p, b := snapBots(a); p != 1 || b != 0 {
			t.Errorf("after bot_remove all: %d players, %d bots", p, b)
		}
	})
}

// TestLoneHumanWarmup is the control of TestBotsFill's running match:
// without bots a lone human waits in the warmup for a second player.
func TestLoneHumanWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		a.run(time.Second)
		if f := gameState(a); f < 0 || f&world.GameStateFlagWarmup == 0 {
			t.Errorf("a lone human's game state flags %#x, want the warmup", f)
		}
	})
}

// TestBotsCheckpoints: a game of one idle human and three hard bots that
// fight for 20 s, with a checkpoint every second, replays without
// divergence at any checkpoint. A bot fires in its DirectInput right after
// a tick; the replay gives it that input after the tick's snapshot round
// (PostSnap), so the server must too, or the shot's sound event of a bot
// firing after a snapshot tick is still pending in the replay's world at
// the next checkpoint and not in the recorded one.
func TestBotsCheckpoints(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, func(c *config.Config) {
			c.Bots.Fill, c.Bots.Skill = 4, "hard"
			c.Record.Teehistorian, c.Record.Dir, c.Record.CheckpointInterval = true, dir, 1
		})
		a := join(t, ts, cl1Addr, "alice")
		a.run(20 * time.Second)
		ts.stop(t)
		res := replayDir(t, dir)
		t.Logf("replay: %d ticks, %d positions and %d checkpoints compared", res.Ticks, res.Compared, res.Checkpoints)
		if res.Divergence != nil || !res.Finished || res.Checkpoints < 15 {
			t.Errorf("replay: divergence %v, finished %v, %d checkpoints", res.Divergence, res.Finished, res.Checkpoints)
		}
	})
}
