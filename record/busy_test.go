package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"twserver/teehist"
)

// gatedSink is a file whose Sync waits until gate is closed: a slow disk
// that keeps a finished game's files closing.
type gatedSink struct {
	*os.File
	gate chan struct{}
}

func (s gatedSink) Sync() error {
	<-s.gate
	return s.File.Sync()
}

// TestBusyWhileClosing: the recorder reports its files busy while it
// writes them and, after the game ended, until they are closed; then not.
func TestBusyWhileClosing(t *testing.T) {
	gate := make(chan struct{})
	create := func(path string, o teehist.FileOptions) (*teehist.FileWriter, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		o.QueueLen = 1 << 14
		return teehist.NewFileWriter(gatedSink{f, gate}, o), nil
	}
	g := newGame(t, 2, create, nil)
	st := g.r.Status()
	if st.TeehistPath == "" || st.DemoPath == "" {
		t.Fatalf("not recording: %+v", st)
	}
	old := []string{st.TeehistPath, st.DemoPath}
	for _, p := range old {
		if !g.r.Busy(p) || !g.r.Busy(filepath.Join(filepath.Dir(p), ".", filepath.Base(p))) {
			t.Errorf("%s being written is not busy", p)
		}
	}
	if other := filepath.Join(g.cfg.Record.Dir, "other.demo"); g.r.Busy(other) {
		t.Errorf("%s is busy", other)
	}
	g.newMap(t) // the old files now close, held up by Sync
	time.Sleep(50 * time.Millisecond)
	for _, p := range old {
		if !g.r.Busy(p) {
			t.Errorf("%s being closed is not busy", p)
		}
	}
	close(gate)
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range old {
		for g.r.Busy(p) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if g.r.Busy(p) {
			t.Errorf("%s still busy after it was closed", p)
		}
	}
	cur := g.r.Status()
	if !g.r.Busy(cur.TeehistPath) || !g.r.Busy(cur.DemoPath) {
		t.Errorf("the new game's files are not busy: %+v", cur)
	}
	g.r.Stop()
	if g.r.Busy(cur.TeehistPath) || g.r.Busy(cur.DemoPath) {
		t.Error("files busy after Stop")
	}
}
