package teehist

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// fullSink accepts limit bytes, then fails like a full disk (after a partial write).
type fullSink struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	limit  int
	synced bool
	closed bool
}

func (s *fullSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	room := s.limit - s.buf.Len()
	if len(p) > room {
		s.buf.Write(p[:max(room, 0)])
		return max(room, 0), syscall.ENOSPC
	}
	return s.buf.Write(p)
}
func (s *fullSink) Truncate(n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Truncate(int(n))
	return nil
}
func (s *fullSink) Sync() error  { s.synced = true; return nil }
func (s *fullSink) Close() error { s.closed = true; return nil }

// TestFileWriterDiskFull runs in a synctest bubble: the sleeps advance a
// fake clock once the writer goroutine is idle, so the flushes happen
// exactly where the comments say, however loaded the machine is.
func TestFileWriterDiskFull(t *testing.T) {
	synctest.Test(t, testFileWriterDiskFull)
}

func testFileWriterDiskFull(t *testing.T) {
	s := &fullSink{limit: 25}
	var calls int
	w := NewFileWriter(s, FileOptions{FlushInterval: 5 * time.Millisecond, OnError: func(error) { calls++ }})
	chunk := bytes.Repeat([]byte{7}, 10)
	for range 2 {
		if err := w.Submit(chunk); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond) // flushed: 20 bytes
	if err := w.Submit(chunk); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // third chunk fails after 5 bytes
	if !w.Failed() || !errors.Is(w.Err(), syscall.ENOSPC) {
		t.Fatalf("failed=%v err=%v", w.Failed(), w.Err())
	}
	if err := w.Submit(chunk); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("submit after failure: %v", err)
	}
	_ = w.Close()
	if s.buf.Len() != 20 || w.Written() != 20 || calls != 1 {
		t.Fatalf("file %d bytes, written %d, OnError calls %d; want 20, 20, 1", s.buf.Len(), w.Written(), calls)
	}
}

func TestFileWriterFlushAndClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.teehistorian")
	w, err := CreateFile(path, FileOptions{FlushInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Submit([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		d, _ := os.ReadFile(path)
		if string(d) == "abc" {
			break // visible before Close: flushed by the interval
		}
		if time.Now().After(deadline) {
			t.Fatalf("not flushed: %q", d)
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = w.Submit([]byte("def"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if d, _ := os.ReadFile(path); string(d) != "abcdef" {
		t.Fatalf("got %q", d)
	}
	if _, err := CreateFile(path, FileOptions{}); err == nil {
		t.Fatal("CreateFile overwrote an existing file")
	}
}

// blockSink blocks every write until released: the queue fills, Submit refuses.
type blockSink struct{ release chan struct{} }

func (b *blockSink) Write(p []byte) (int, error) { <-b.release; return len(p), nil }
func (b *blockSink) Truncate(int64) error        { return nil }
func (b *blockSink) Sync() error                 { return nil }
func (b *blockSink) Close() error                { return nil }

func TestFileWriterQueueFull(t *testing.T) {
	s := &blockSink{release: make(chan struct{})}
	w := NewFileWriter(s, FileOptions{QueueLen: 4, FlushInterval: time.Millisecond})
	full := false
	for range 100 {
		if err := w.Submit(make([]byte, WriteBatchSize)); errors.Is(err, ErrQueueFull) {
			full = true
			break
		}
	}
	if !full {
		t.Fatal("queue never reported full")
	}
	if err := w.Submit(make([]byte, MaxChunkSize+1)); !errors.Is(err, ErrChunkTooLarge) && !errors.Is(err, ErrQueueFull) {
		t.Fatal(err)
	}
	close(s.release)
	_ = w.Close()
}
