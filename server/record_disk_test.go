package server

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"twserver/config"
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
	defer func(f func(string, teehist.FileOptions) (*teehist.FileWriter, error)) { createRecordFile = f }(createRecordFile)
	createRecordFile = func(path string, o teehist.FileOptions) (*teehist.FileWriter, error) {
		limit := 6000 // the teehistorian fills it after about 3 s
		if strings.HasSuffix(path, ".demo") {
			limit = 3000 // header and map take about 2200 bytes
		}
		return teehist.NewFileWriter(&fullDisk{limit: limit}, o), nil
	}
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) {
			c.Record.Teehistorian = true
			c.Record.Demo = true
			c.Record.Dir = t.TempDir()
		})
		a := join(t, ts, cl1Addr, "alice")
		a.direction = 1
		a.run(6 * time.Second)
		if got := ts.RecordCounters()["record_stopped"]; got != 2 {
			t.Errorf("record_stopped = %d, want 2 (teehistorian and demo)", got)
		}
		logs := ts.logs.String()
		if n := strings.Count(logs, "teehistorian write failed"); n != 1 {
			t.Errorf("%d teehistorian failure lines, want 1:\n%s", n, logs)
		}
		if n := strings.Count(logs, "demo write failed"); n != 1 {
			t.Errorf("%d demo failure lines, want 1", n)
		}
		before := a.snaps
		a.run(time.Second)
		if a.snaps-before < 20 {
			t.Errorf("game stalled after the disk filled: %d snapshots in 1 s", a.snaps-before)
		}
	})
}
