package server

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// TestRecordMapRestart: a restart starts a new game and so a new file that
// names the previous game; both files end with FINISH and replay without
// divergence, including the console command and the player re-entering.
func TestRecordMapRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ts := startServer(t, func(c *config.Config) {
			c.Record.Teehistorian = true
			c.Record.Dir = dir
		})
		a := join(t, ts, cl1Addr, "alice")
		a.direction = 1
		a.run(2 * time.Second)
		if _, err := io.WriteString(ts.cons, "restart\n"); err != nil {
			t.Fatal(err)
		}
		a.direction = -1
		a.run(4 * time.Second)
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
		// order by start: the second game names the first
		idx := []int{0, 1}
		sort.Slice(idx, func(i, j int) bool { return headers[idx[j]].PrevGameUUID == headers[idx[i]].GameUUID })
		first, second := headers[idx[0]], headers[idx[1]]
		if second.PrevGameUUID != first.GameUUID || first.PrevGameUUID != (teehist.UUID{}) {
			t.Fatalf("prev_game_uuid: first %v (prev %v), second prev %v", first.GameUUID, first.PrevGameUUID, second.PrevGameUUID)
		}
		for i, res := range results {
			if res.Divergence != nil || !res.Finished || res.Compared < 50 {
				t.Errorf("file %d: %+v", i, res)
			}
		}
		if n := results[idx[0]].Ignored["restart"]; n != 1 {
			t.Errorf("restart command recorded %d times in the first game", n)
		}
	})
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
