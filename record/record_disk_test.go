package record

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"twserver/teehist"
)

// fullDisk is a recording sink that fails like a full disk after limit bytes.
type fullDisk struct {
	mu    sync.Mutex
	n     int
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n+len(p) > d.limit {
		k := d.limit - d.n
		d.n = d.limit
		return k, syscall.ENOSPC
	}
	d.n += len(p)
	return len(p), nil
}
func (d *fullDisk) Truncate(size int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n = int(size)
	return nil
}
func (d *fullDisk) Sync() error  { return nil }
func (d *fullDisk) Close() error { return nil }

// TestRecordDiskFull: when the disk fills up, the game's recordings stop
// with one log line each and a counter, and the game goes on.
func TestRecordDiskFull(t *testing.T) {
	create := func(path string, o teehist.FileOptions) (*teehist.FileWriter, error) {
		limit := 6000 // the teehistorian fills it after about 3 s
		if strings.HasSuffix(path, ".demo") {
			limit = 3000 // header and map take about 2200 bytes
		}
		return teehist.NewFileWriter(&fullDisk{limit: limit}, o), nil
	}
	synctest.Test(t, func(t *testing.T) {
		g := newGame(t, 1, create, nil)
		run := func(d time.Duration) {
			for end := time.Now().Add(d); time.Now().Before(end); {
				g.step()
				time.Sleep(20 * time.Millisecond) // the loop waits for the next tick
			}
		}
		run(6 * time.Second)
		if got := g.r.Counters()["record_stopped"]; got != 2 {
			t.Errorf("record_stopped = %d, want 2 (teehistorian and demo)", got)
		}
		if n := g.logs.count("teehistorian write failed"); n != 1 {
			t.Errorf("%d teehistorian failure lines, want 1: %q", n, g.logs.msgs)
		}
		if n := g.logs.count("demo write failed"); n != 1 {
			t.Errorf("%d demo failure lines, want 1", n)
		}
		if st := g.r.Status(); st.TeehistActive || st.DemoActive {
			t.Errorf("still recording after the disk filled: %+v", st)
		}
		before := g.w.CurrentTick()
		run(time.Second)
		if ticks := g.w.CurrentTick() - before; ticks < 45 {
			t.Errorf("game stalled after the disk filled: %d ticks in 1 s", ticks)
		}
		g.r.Stop()
	})
}
