package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"twserver/config"
	"twserver/teehist"
	"twserver/watch/watchtest"
	"twserver/world"
	"twserver/world/twmap"
)

// testGame is the committed CTF recording (testdata/README.md).
const testGame = "ctf_capture.teehistorian"

var (
	mapOnce sync.Once
	testMap *twmap.Map
)

// testSource serves testdata with the generated map.
type testSource struct{ dir string }

func (s testSource) Open(name string) (io.ReadCloser, error) {
	return DirSource{Dir: s.dir}.Open(name)
}

func (s testSource) Map(h *teehist.Header) (*twmap.Map, error) {
	mapOnce.Do(func() {
		var err error
		if testMap, err = watchtest.Map(); err != nil {
			panic(err)
		}
	})
	if h.MapName == watchtest.MapName {
		return testMap, nil
	}
	return DirSource{}.Map(h)
}

// built returns the finished recording name of dir.
func built(t testing.TB, dir, name string) *Recording {
	t.Helper()
	c := NewCache(context.Background(), testSource{dir}, 1)
	r, err := c.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
	case <-time.After(60 * time.Second):
		t.Fatal("build did not end")
	}
	if in := r.Info(true); in.Error != "" {
		t.Fatal(in.Error)
	}
	return r
}

// chunkFrames decodes chunk k.
func chunkFrames(t testing.TB, r *Recording, k int) (from int32, frames [][]int32) {
	t.Helper()
	z, ok := r.Chunk(k)
	if !ok {
		t.Fatalf("chunk %d not ready", k)
	}
	return decodeChunk(t, z)
}

// decodeChunk decodes a gzip'd chunk (rough or built).
func decodeChunk(t testing.TB, z []byte) (from int32, frames [][]int32) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		From   int32     `json:"from"`
		Frames [][]int32 `json:"frames"`
	}
	if err := json.NewDecoder(zr).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.From, c.Frames
}

// TestFrames: the committed game's frames cover it every FrameTicks, hold
// its four players, and its events hold the capture, kills and chat.
func TestFrames(t *testing.T) {
	r := built(t, "testdata", testGame)
	in := r.Info(true)
	kinds := map[string]int{}
	for _, e := range in.Events {
		kinds[e.Kind]++
	}
	if kinds[EventCapture] == 0 || kinds[EventKill] == 0 || kinds[EventChat] == 0 || kinds[EventJoin] != 4 {
		t.Fatalf("events %v", kinds)
	}
	if len(in.Names) != 4 || in.Names[3].Name != watchtest.Names[3] {
		t.Fatalf("names %v", in.Names)
	}
	if len(r.Info(false).Events) != len(in.Events)-kinds[EventChat] {
		t.Fatal("chat not left out")
	}
	prev := int32(-1)
	for k := range in.Chunks {
		from, frames := chunkFrames(t, r, k)
		if from != int32(k*ChunkTicks) {
			t.Fatalf("chunk %d from %d", k, from)
		}
		for _, f := range frames {
			if prev >= 0 && f[0] != prev+FrameTicks || f[0] < from || f[0] >= from+ChunkTicks {
				t.Fatalf("chunk %d: frame of tick %d after %d", k, f[0], prev)
			}
			prev = f[0]
		}
	}
	if prev != in.LastTick {
		t.Fatalf("last frame %d, info %d", prev, in.LastTick)
	}
	t.Logf("%d chunks, %d bytes, ticks %d..%d, events %v", in.Chunks, r.bytes, in.FirstTick, in.LastTick, kinds)
}

// TestCheckName refuses paths and other files.
func TestCheckName(t *testing.T) {
	for _, n := range []string{"a.teehistorian", "0f-1_x.teehistorian"} {
		if CheckName(n) != nil {
			t.Errorf("%q refused", n)
		}
	}
	for _, n := range []string{"", ".teehistorian", "../a.teehistorian", "a/b.teehistorian", "a.demo", ".a.teehistorian", "a b.teehistorian"} {
		if CheckName(n) == nil {
			t.Errorf("%q accepted", n)
		}
	}
}

// TestGenerate writes the committed game with TWSERVER_UPDATE_TESTDATA=1.
func TestGenerate(t *testing.T) {
	if os.Getenv("TWSERVER_UPDATE_TESTDATA") != "1" {
		t.Skip("TWSERVER_UPDATE_TESTDATA=1 rewrites testdata/" + testGame)
	}
	dir := t.TempDir()
	path, err := watchtest.Game(dir, GameTicks, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watchtest.Check(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", testGame), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// GameTicks is the length of the committed game (90 s).
const GameTicks = 90 * 50

// TestFramesMarkBots: the names of a recording with bots mark the bots
// (the viewer's scoreboard writes [bot] after them) and no human.
func TestFramesMarkBots(t *testing.T) {
	r := built(t, "../teehist/testdata", "twserver_bots.teehistorian")
	bots, humans := 0, 0
	for _, n := range r.Info(true).Names {
		if n.Bot != slices.Contains(config.DefaultBotNames, n.Name) {
			t.Errorf("name %+v: bot mark wrong", n)
		}
		if n.Bot {
			bots++
		} else {
			humans++
		}
	}
	if bots == 0 || humans == 0 {
		t.Fatalf("%d bots and %d humans named, want both", bots, humans)
	}
}

// TestFramesNoLeaveKills: a player who leaves (here a bot making room for
// a human) adds a leave line, no kill.
func TestFramesNoLeaveKills(t *testing.T) {
	in := built(t, "../teehist/testdata", "twserver_bots.teehistorian").Info(true)
	leaves := 0
	for _, e := range in.Events {
		if e.Kind == EventLeave {
			leaves++
		}
		if e.Kind == EventKill && e.Weapon == world.WeaponGame {
			t.Errorf("a kill with WEAPON_GAME: %+v", e)
		}
	}
	if leaves == 0 {
		t.Fatal("no leave in the recording")
	}
}
