package record

import (
	"path/filepath"
	"sync"
)

// busyFiles are the recording files a Recorder is writing or closing (its
// writers flush, sync and patch them in goroutines after the game ended),
// by cleaned path, each with the channel closed when the file is done;
// safe from any goroutine. A reader of record.dir (the web page) must
// neither list nor serve them.
type busyFiles struct {
	mu    sync.Mutex
	paths map[string]<-chan struct{}
}

// set notes that path is busy until done is closed (replacing what was
// noted for it), and forgets the files that are done.
func (b *busyFiles) set(path string, done <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paths == nil {
		b.paths = map[string]<-chan struct{}{}
	}
	for p, c := range b.paths {
		if closed(c) {
			delete(b.paths, p)
		}
	}
	b.paths[filepath.Clean(path)] = done
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Busy reports whether the file at path is a recording the recorder is
// still writing or closing: the current game's teehistorian and demo, a
// finished game's files until they are synced (and a demo's header
// patched), and a demo clip being written. Safe from any goroutine.
func (r *Recorder) Busy(path string) bool {
	r.busy.mu.Lock()
	defer r.busy.mu.Unlock()
	c, ok := r.busy.paths[filepath.Clean(path)]
	return ok && !closed(c)
}
