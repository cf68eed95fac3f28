package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"twserver/internal/browsertest"
	"twserver/teehist"
	"twserver/watch/watchtest"
	"twserver/world"
)

// TestSeekCheckpoint: on a 3-minute game recorded with a checkpoint every
// 10 s, a seek to a moment the build has not reached replays the moment's
// chunk from the checkpoint before it: byte for byte the chunk the whole
// build later makes (every tee, projectile, laser, pick-up, flag and
// score of every frame), served by the handler as a built chunk. A file
// without checkpoints gives the rough frames as before.
func TestSeekCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path, err := watchtest.GameCheckpoints(dir, 3*60*50, 11, 10)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	c := NewCache(context.Background(), testSource{dir}, 1)
	rec := scanned(t, c, dir, name)
	if n := len(rec.ckpts); n != 18 {
		t.Fatalf("%d checkpoints found, want 18 (before every 10th second of 3 minutes)", n)
	}
	chunks := []int{2, 3, 7, 13, 22, 29, 35}
	seeks := map[int][]byte{}
	for _, k := range chunks {
		t0 := time.Now()
		z, ok := c.Seek(context.Background(), rec, k)
		if !ok {
			t.Fatalf("chunk %d: no seek", k)
		}
		t.Logf("chunk %d (tick %d): replayed from the checkpoint in %v", k, k*ChunkTicks, time.Since(t0).Round(time.Millisecond))
		seeks[k] = z
	}
	if _, ok := rec.Chunk(7); ok {
		t.Fatal("a seek made a built chunk")
	}
	if _, ok := c.Seek(context.Background(), rec, 37); ok { // from tick 9250: past the file's end
		t.Fatal("a seek past the file's end")
	}
	b := built(t, dir, name)
	projectiles, flags := 0, 0
	for _, k := range chunks {
		want, _ := b.Chunk(k)
		got, w := gunzip(t, seeks[k]), gunzip(t, want)
		if !bytes.Equal(got, w) {
			t.Errorf("chunk %d: the seek's frames differ from the build's:\n%.300s\n%.300s", k, got, w)
		}
		_, frames := decodeChunk(t, want)
		for _, f := range frames {
			projectiles += countOf(f, 1)
			flags += countOf(f, 4)
		}
	}
	if projectiles == 0 || flags == 0 {
		t.Errorf("the compared frames hold %d projectiles, %d flags: nothing to compare", projectiles, flags)
	}

	// served: a recording being built answers the seek's chunk as built
	c2 := NewCache(context.Background(), testSource{dir}, 1)
	rec2 := scanned(t, c2, dir, name)
	c2.files[name] = rec2
	if s, rough := getChunk(t, c2, name, 29); s != http.StatusOK || rough {
		t.Errorf("chunk 29 served %d, rough %v: want the seek's", s, rough)
	}

	// a file without checkpoints: rough frames
	old, err := watchtest.GameCheckpoints(dir, 60*50, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	c3 := NewCache(context.Background(), testSource{dir}, 1)
	rec3 := scanned(t, c3, dir, filepath.Base(old))
	c3.files[rec3.Name] = rec3
	if _, ok := c3.Seek(context.Background(), rec3, 7); ok || len(rec3.ckpts) != 0 {
		t.Error("a seek in a file without checkpoints")
	}
	if s, rough := getChunk(t, c3, rec3.Name, 7); s != http.StatusOK || !rough {
		t.Errorf("chunk 7 of a file without checkpoints served %d, rough %v", s, rough)
	}
}

// countOf returns the count of list i of frame f (0: tees, 1:
// projectiles, 2: lasers, 3: pick-ups, 4: flags).
func countOf(f []int32, list int) int {
	at := 1
	sizes := []int{TeeInts, 3, 4, 3, 3}
	for i := 0; i < list; i++ {
		at += 1 + int(f[at])*sizes[i]
	}
	return int(f[at])
}

// scanned returns the recording name of dir after its rough pass only
// (nothing built), as c would have it.
func scanned(t *testing.T, c *Cache, dir, name string) *Recording {
	t.Helper()
	f, err := c.src.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.src.Map(h)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecording(name, h)
	rec.m = m
	if err := roughPass(context.Background(), rec, rd, h); err != nil {
		t.Fatal(err)
	}
	return rec
}

// getChunk asks c's handler for chunk k of name: status and whether rough.
func getChunk(t *testing.T, c *Cache, name string, k int) (int, bool) {
	t.Helper()
	mux := http.NewServeMux()
	NewHandler(c, Options{}).Register(mux, false)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(fmt.Sprintf("%s/watch/%s/chunk/%d", srv.URL, name, k))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j struct {
		Rough  bool      `json:"rough"`
		Frames [][]int32 `json:"frames"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || len(j.Frames) == 0 {
		t.Fatalf("chunk %d: %v, %d frames", k, err, len(j.Frames))
	}
	return resp.StatusCode, j.Rough
}

func gunzip(t *testing.T, z []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBrowserSeekCheckpoint: in Chromium, the page opened at a moment of a
// recording with checkpoints that nothing has built shows that moment's
// whole frame (not rough); the same page on a file
// without checkpoints shows rough frames (the control).
func TestBrowserSeekCheckpoint(t *testing.T) {
	dir := t.TempDir()
	with, err := watchtest.GameCheckpoints(dir, 3*60*50, 11, 10)
	if err != nil {
		t.Fatal(err)
	}
	without, err := watchtest.GameCheckpoints(dir, 3*60*50, 11, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t, 60*time.Second)
	c := NewCache(context.Background(), testSource{dir}, 1)
	for _, p := range []string{with, without} { // scanned, never built
		rec := scanned(t, c, dir, filepath.Base(p))
		w, err := world.New(rec.m, world.DefaultConfig(), 1)
		if err != nil {
			t.Fatal(err)
		}
		setMapLayer(rec, w, rec.m)
		rec.setLast(0)
		c.files[rec.Name] = rec
	}
	mux := http.NewServeMux()
	NewHandler(c, Options{}).Register(mux, true)
	srv := httptest.NewServer(withCSP(mux))
	defer srv.Close()
	for _, tc := range []struct {
		path  string
		rough bool
	}{{with, false}, {without, true}} {
		t0 := time.Now()
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/watch/"+filepath.Base(tc.path)+"#t=2:20")); err != nil {
			t.Fatal(err)
		}
		browsertest.Wait(t, ctx, 10*time.Second, "the moment 2:20", fmt.Sprintf(`watchState().tick === 7000 && watchState().rough === %v`, tc.rough))
		t.Logf("checkpoints %v: 2:20 shown (rough %v) %v after the page was asked for", !tc.rough, tc.rough, time.Since(t0).Round(time.Millisecond))
		if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
	}
	browsertest.CheckDialogs(t, ctx)
}
