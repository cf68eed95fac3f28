package watch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"twserver/teehist"
)

// FuzzBuild: a recording of any bytes builds rough and built frames or
// fails, never panics (the seeds: the test game cut at several lengths).
func FuzzBuild(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", testGame))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{100, 2000, 20000} {
		f.Add(data[:n])
	}
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
		err = build(context.Background(), rec, rd, h, m)
		rec.finish(err)
		_ = rec.Info(true)
	})
}
