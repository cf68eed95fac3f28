package record

import (
	"testing"
	"time"

	"twserver/config"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
	"twserver/worldstate"
)

// TestCheckpoints: a game recorded with a checkpoint every second (players
// firing, latencies changing within seconds, a loop catching up, a player
// leaving and another joining) replays with every checkpoint equal to the
// simulated world; a checkpoint of another world (one player's rcon login
// flipped) is a divergence the replay reports.
func TestCheckpoints(t *testing.T) {
	for _, bad := range []bool{false, true} {
		g := newGame(t, 4, nil, func(c *config.Config) { c.Record.CheckpointInterval = 1 })
		g.fire, g.latency = true, true
		g.catchUp = func(tick int32) bool { return tick%10 == 4 }
		for i := range 800 {
			switch i {
			case 300:
				g.drop(2, "left")
			case 420:
				g.join(t, 5)
			case 610:
				if bad {
					g.badCheckpoint(t)
				}
			}
			g.step()
			if i%10 == 0 {
				time.Sleep(time.Millisecond) // the writer's pace
			}
		}
		path := g.r.Status().TeehistPath
		g.r.Stop()
		_, res, counts := readTeehist(t, path)
		switch {
		case !bad && (res.Divergence != nil || res.Checkpoints != 16 || counts["CHECKPOINT"] < 16):
			t.Errorf("divergence %v, %d checkpoints checked of %d", res.Divergence, res.Checkpoints, counts["CHECKPOINT"])
		case bad && (res.Divergence == nil || res.Divergence.State == "" || res.Checkpoints != 12):
			t.Errorf("a wrong checkpoint: divergence %v after %d checkpoints", res.Divergence, res.Checkpoints)
		case bad:
			t.Logf("a wrong checkpoint: %v", res.Divergence)
		}
	}
}

// badCheckpoint records a checkpoint of the game's world with client 1's
// rcon login flipped.
func (g *game) badCheckpoint(t *testing.T) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 42)
	if err != nil {
		t.Fatal(err)
	}
	if err := worldstate.Read(w, worldstate.Append(nil, g.w)); err != nil {
		t.Fatal(err)
	}
	w.SetAuthed(1, true)
	g.r.enc.RecordCheckpoint(worldstate.Append(nil, w))
}

// TestCheckpointSize reports the size of a checkpoint of a 16-player game
// and the file's growth with checkpoints every 30 s (record.checkpoint_interval's
// default) against none, and checks it stays a small part of the file.
func TestCheckpointSize(t *testing.T) {
	sizes := map[int]int64{}
	var state, coded int
	for _, iv := range []int{0, 30} {
		g := newGame(t, 16, nil, func(c *config.Config) { c.Record.CheckpointInterval, c.Record.Demo = iv, false })
		g.fire = true
		for i := range 3000 {
			g.step()
			if i%20 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		st := worldstate.Append(nil, g.w)
		state, coded = len(st), len(teehist.AppendZeroRuns(nil, st))
		sizes[iv] = g.r.Status().TeehistBytes
		g.r.Stop()
	}
	growth := float64(sizes[30]-sizes[0]) / float64(sizes[0])
	t.Logf("16 players, 60 s: a checkpoint's state %d bytes, %d in the file; file %d bytes without checkpoints, %d with one every 30 s (+%.1f%%)",
		state, coded, sizes[0], sizes[30], 100*growth)
	if sizes[30] <= sizes[0] || growth > 0.5 {
		t.Errorf("file %d bytes with checkpoints, %d without", sizes[30], sizes[0])
	}
}

// BenchmarkCheckpoint16Players is the game loop's cost of one checkpoint of
// a 16-player game (the state appended and recorded).
func BenchmarkCheckpoint16Players(b *testing.B) {
	g := newGame(b, 16, nil, func(c *config.Config) { c.Record.Demo = false })
	g.fire = true
	for range 600 {
		g.step()
	}
	b.ReportAllocs()
	for b.Loop() {
		g.r.state = g.r.ckpt.AppendRecorded(g.r.state[:0], g.w)
		g.r.enc.RecordCheckpoint(g.r.state)
		g.r.enc.Clear()
	}
	g.r.Stop()
}
