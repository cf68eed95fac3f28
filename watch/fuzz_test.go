package watch

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"twserver/teehist"
	"twserver/watch/watchtest"
	"twserver/world/twmap"
)

// bytesSource is a Source of one recording's bytes (no io.Seeker: a seek
// reads up to its checkpoint).
type bytesSource struct{ b []byte }

func (s bytesSource) Open(string) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(s.b)), nil
}

func (s bytesSource) Map(h *teehist.Header) (*twmap.Map, error) { return testSource{}.Map(h) }

// FuzzBuild: a recording of any bytes builds rough and built frames, and
// seeks from its checkpoints, or fails, never panics (the seeds: the test
// game cut at several lengths, a game with a checkpoint every second).
func FuzzBuild(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", testGame))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{100, 2000, 20000} {
		f.Add(data[:n])
	}
	path, err := watchtest.GameCheckpoints(f.TempDir(), 800, 3, 1)
	if err != nil {
		f.Fatal(err)
	}
	if data, err = os.ReadFile(path); err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := teehist.NewReader(bytes.NewReader(b))
		h, err := rd.ReadHeader()
		if err != nil {
			return
		}
		m, err := (testSource{}).Map(h)
		if err != nil {
			return
		}
		rec := newRecording("fuzz.teehistorian", h)
		rd2 := teehist.NewReader(bytes.NewReader(b))
		if _, err := rd2.ReadHeader(); err != nil {
			t.Fatalf("the header read once, not twice: %v", err)
		}
		_ = roughPass(context.Background(), rec, rd2, h)
		rec.m = m
		c := NewCache(context.Background(), bytesSource{b}, 1)
		for i, ck := range rec.ckpts {
			if i < 3 {
				c.Seek(context.Background(), rec, int(ck.tick/ChunkTicks)+1)
			}
		}
		err = build(context.Background(), rec, rd, h, m)
		rec.finish(err)
		_ = rec.Info(true)
	})
}
