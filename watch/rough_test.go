package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"twserver/teehist"
)

// TestRough: the rough pass's frames are the built frames' ticks, and
// their tees the built tees' ids and positions, in every chunk of the
// committed game; it reads the file in a small part of the build's time.
func TestRough(t *testing.T) {
	r0 := time.Now()
	b := built(t, "testdata", testGame)
	buildTime := time.Since(r0)
	rd, h := openTestGame(t)
	rec := newRecording(testGame, h)
	r1 := time.Now()
	if err := roughPass(context.Background(), rec, rd, h); err != nil {
		t.Fatal(err)
	}
	roughTime := time.Since(r1)
	in := b.Info(false)
	if got := rec.Info(false).EndTick; got != in.LastTick {
		t.Errorf("rough pass ends at tick %d, the build at %d", got, in.LastTick)
	}
	compared, tees := 0, 0
	for k := 0; k < in.Chunks; k++ {
		z, ok := rec.Rough(k)
		if !ok {
			t.Fatalf("rough chunk %d missing", k)
		}
		rfrom, rough := decodeChunk(t, z)
		from, frames := chunkFrames(t, b, k)
		if rfrom != from || len(rough) != len(frames) {
			t.Fatalf("chunk %d: rough from %d with %d frames (%v..%v), built from %d with %d (%v..%v)", k, rfrom, len(rough), rough[0][:1], rough[len(rough)-1][:1], from, len(frames), frames[0][:1], frames[len(frames)-1][:1])
		}
		for i, fr := range frames {
			rf := rough[i]
			want := [][3]int32{}
			for j, n := 0, int(fr[1]); j < n; j++ {
				tee := fr[2+j*TeeInts:]
				want = append(want, [3]int32{tee[0], tee[1], tee[2]})
			}
			got := [][3]int32{}
			for j, n := 0, int(rf[1]); j < n; j++ {
				tee := rf[2+j*RoughTeeInts:]
				got = append(got, [3]int32{tee[0], tee[1], tee[2]})
			}
			if rf[0] != fr[0] || len(got) != len(want) {
				t.Fatalf("chunk %d frame %d: rough tick %d tees %v, built tick %d tees %v", k, i, rf[0], got, fr[0], want)
			}
			sortTees(got)
			sortTees(want)
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("tick %d: rough tees %v, built %v", fr[0], got, want)
				}
			}
			compared++
			tees += len(want)
		}
	}
	if compared < 100 || tees < 4*compared/2 {
		t.Fatalf("only %d frames with %d tees compared", compared, tees)
	}
	t.Logf("%d frames, %d tees equal; rough pass %v, build %v", compared, tees, roughTime, buildTime)
}

// sortTees orders tees by id (a built frame has them in snapshot order).
func sortTees(v [][3]int32) {
	slices.SortFunc(v, func(a, b [3]int32) int { return int(a[0] - b[0]) })
}

// TestRoughServed: a chunk not built yet is answered with its rough frames
// (not to be kept), a built one with its frames; once the build ended the
// rough ones are gone (202 before the rough pass reached a chunk).
func TestRoughServed(t *testing.T) {
	rd, h := openTestGame(t)
	c := NewCache(context.Background(), testSource{"testdata"}, 1)
	rec := newRecording(testGame, h)
	c.files[testGame] = rec
	mux := http.NewServeMux()
	NewHandler(c, Options{}).Register(mux, false)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(k int) (int, string, bool) {
		t.Helper()
		resp, err := http.Get(fmt.Sprintf("%s/watch/%s/chunk/%d", srv.URL, testGame, k))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var j struct {
			Rough bool `json:"rough"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&j)
		return resp.StatusCode, resp.Header.Get("Cache-Control"), j.Rough
	}
	if s, _, _ := get(3); s != http.StatusAccepted {
		t.Fatalf("before the rough pass: %d, want 202", s)
	}
	if err := roughPass(context.Background(), rec, rd, h); err != nil {
		t.Fatal(err)
	}
	if s, cc, rough := get(3); s != http.StatusOK || !rough || cc != "no-store" {
		t.Fatalf("after the rough pass: %d %q rough %v, want 200 no-store rough", s, cc, rough)
	}
	if in := rec.Info(false); in.EndTick < 4*ChunkTicks || in.LastTick != 0 {
		t.Fatalf("info: end %d last %d", in.EndTick, in.LastTick)
	}
	b := built(t, "testdata", testGame)
	z, _ := b.Chunk(3)
	if err := rec.addChunk(3, z); err != nil {
		t.Fatal(err)
	}
	if s, cc, rough := get(3); s != http.StatusOK || rough || cc == "no-store" {
		t.Fatalf("built: %d %q rough %v, want 200, kept, not rough", s, cc, rough)
	}
	if s, _, rough := get(4); s != http.StatusOK || !rough {
		t.Fatalf("chunk 4 before the build's end: %d rough %v", s, rough)
	}
	rec.finish(nil)
	if s, _, _ := get(4); s != http.StatusNotFound {
		t.Fatalf("chunk 4 after the build's end without it: %d, want 404", s)
	}
}

// openTestGame opens the committed game past its header.
func openTestGame(t *testing.T) (*teehist.Reader, *teehist.Header) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", testGame))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	rd := teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	return rd, h
}

// TestInfoBeforeNames: the info of a recording whose build has not named
// anyone yet has empty lists, not null (the page walks them at once).
func TestInfoBeforeNames(t *testing.T) {
	_, h := openTestGame(t)
	rec := newRecording(testGame, h)
	b, err := json.Marshal(rec.Info(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"names":[]`, `"events":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("info %s: no %s", b, want)
		}
	}
	rec.addName(PlayerName{ID: 1, Name: "ada"})
	if b, _ := json.Marshal(rec.Info(true)); !strings.Contains(string(b), `"names":[{"id":1,"name":"ada"`) {
		t.Errorf("info after a name: %s", b)
	}
}
