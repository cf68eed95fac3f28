package server

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/gamemsg"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
)

// TestRecordConsoleAndReload: world-changing console commands (match
// restart with warmup, pause, set_team, lock/shuffle/swap teams) replay
// exactly; "reload" starts a new game and so a new file that names the
// previous game; both files end with FINISH and replay without divergence.
func TestRecordConsoleAndReload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts, dir := startRecording(t)
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		a.direction, b.direction = 1, -1
		play := func(d time.Duration) {
			for end := time.Now().Add(d); time.Now().Before(end); {
				a.run(100 * time.Millisecond)
				b.run(100 * time.Millisecond)
			}
		}
		play(2 * time.Second)
		for _, cmd := range []string{"restart 1", "pause 1", "set_team 1 -1", "lock_teams", "set_team 1 0", "lock_teams",
			"shuffle_teams", "swap_teams", "status", "reload"} {
			if _, err := io.WriteString(ts.cons, cmd+"\n"); err != nil {
				t.Fatal(err)
			}
			play(1500 * time.Millisecond)
		}
		play(3 * time.Second)
		ts.stop(t)

		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 2 {
			t.Fatalf("%d files, want 2\n%s", len(files), ts.logs.String())
		}
		var headers []*teehist.Header
		var results []*replay.Result
		for _, f := range files {
			h, res := replayFile(t, f)
			headers, results = append(headers, h), append(results, res)
		}
		first, second := 0, 1
		if headers[0].PrevGameUUID == headers[1].GameUUID {
			first, second = 1, 0
		}
		if headers[second].PrevGameUUID != headers[first].GameUUID || headers[first].PrevGameUUID != (teehist.UUID{}) {
			t.Fatalf("prev_game_uuid: first %v (prev %v), second prev %v", headers[first].GameUUID,
				headers[first].PrevGameUUID, headers[second].PrevGameUUID)
		}
		for i, res := range results {
			t.Logf("file %d: %d ticks, %d positions, ignored %v", i, res.Ticks, res.Compared, res.Ignored)
			if res.Divergence != nil || !res.Finished || res.Compared < 100 {
				t.Errorf("file %d: divergence %v, finished %v, %d compared", i, res.Divergence, res.Finished, res.Compared)
			}
		}
		if ig := results[first].Ignored; ig["reload"] != 1 || ig["status"] != 1 || len(ig) != 2 {
			t.Errorf("ignored commands in the first game: %v", ig)
		}
	})
}

// startRecording runs a server that records a teehistorian into the
// directory it returns.
func startRecording(t *testing.T) (*testServer, string) {
	dir := t.TempDir()
	return startServer(t, func(c *config.Config) {
		c.Record.Teehistorian = true
		c.Record.Dir = dir
	}), dir
}

func replayFile(t *testing.T, path string) (*teehist.Header, *replay.Result) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(r, h, twmap.Default())
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return h, res
}

// replayDir replays the one teehistorian file of dir (the test fails
// unless there is exactly one).
func replayDir(t *testing.T, dir string) *replay.Result {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
	if len(files) != 1 {
		t.Fatalf("%d recordings, want 1", len(files))
	}
	_, res := replayFile(t, files[0])
	return res
}

// TestRecordAdminCommands: the team commands with their reference
// arguments (set_team with a rejoin delay that blocks the player's own
// team change, set_team_all, force_teambalance), lenient integers, upper
// case names, several commands per line, and tune (which leaves the pure
// tuning alone) replay exactly.
func TestRecordAdminCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, func(c *config.Config) {
			c.Record.Teehistorian = true
			c.Record.Dir = dir
			c.Game.Type = "tdm"
		})
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		c := join(t, ts, netipFrom("127.0.0.4:50003"), "carol")
		a.direction, b.direction, c.direction = 1, -1, 1
		play := func(d time.Duration) { runClients(d, a, b, c) }
		play(time.Second)
		for _, step := range []struct {
			cmd   string
			after func()
		}{
			{"set_team 1 -1 2", func() { // bob may not rejoin for 2 minutes
				play(3 * time.Second)                   // past the 3 s between own team changes
				b.sendGame(&gamemsg.ClSetTeam{Team: 1}) // blue is empty: allowed but for the delay
				play(time.Second)
				if ts.world.Team(1) != world.TeamSpectators {
					t.Errorf("bob rejoined team %d despite the delay", ts.world.Team(1))
				}
			}},
			{"set_team_all 1", nil},
			{"force_teambalance", nil},
			{"tune gravity 2; tune_reset", nil},
			{`say "a;b"; SET_TEAM 2 -1`, func() { c.sendGame(&gamemsg.ClSetTeam{Team: 1}) }},
			{"restart abc", nil},
			{"pause; pause", nil},
			{"set_team 0 0 x", nil},
		} {
			if _, err := io.WriteString(ts.cons, step.cmd+"\n"); err != nil {
				t.Fatal(err)
			}
			play(500 * time.Millisecond)
			if step.after != nil {
				step.after()
			}
			play(time.Second)
		}
		ts.stop(t)
		res := replayDir(t, dir)
		t.Logf("%d ticks, %d positions, ignored %v", res.Ticks, res.Compared, res.Ignored)
		if res.Divergence != nil || !res.Finished || res.Compared < 100 {
			t.Errorf("divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
		}
		if ig := res.Ignored; ig["tune"] != 1 || ig["tune_reset"] != 1 || ig["say"] != 1 || len(ig) != 3 {
			t.Errorf("ignored %v", ig)
		}
	})
}
