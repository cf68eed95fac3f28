package watch

import (
	"context"
	"io"
	"sync"
	"syscall"
	"testing"
)

// niceSource is testSource whose files note the scheduling priority
// (nice) of the threads that read them.
type niceSource struct {
	testSource
	mu   sync.Mutex
	seen map[int]bool
}

type niceFile struct {
	io.ReadCloser
	s *niceSource
}

func (f niceFile) Read(p []byte) (int, error) {
	// the raw getpriority answers 20-nice
	if prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid()); err == nil {
		f.s.mu.Lock()
		f.s.seen[20-prio] = true
		f.s.mu.Unlock()
	}
	return f.ReadCloser.Read(p)
}

func (s *niceSource) Open(name string) (io.ReadCloser, error) {
	f, err := s.testSource.Open(name)
	if err != nil {
		return nil, err
	}
	return niceFile{f, s}, nil
}

// TestSetNice: a cache's builds read their file on a thread of the
// priority SetNice gave (the positive control: without SetNice they run
// at the priority of the test, 0), and the test's own thread keeps its.
func TestSetNice(t *testing.T) {
	base, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil || 20-base != 0 {
		t.Skipf("the test runs at nice %d (%v): want 0", 20-base, err)
	}
	for _, nice := range []int{0, 7, MaxNice} {
		src := &niceSource{testSource: testSource{"testdata"}, seen: map[int]bool{}}
		c := NewCache(context.Background(), src, 1)
		c.SetNice(nice)
		r, err := c.Get(testGame)
		if err != nil {
			t.Fatal(err)
		}
		<-r.Done()
		if in := r.Info(false); in.Error != "" || in.Chunks == 0 {
			t.Fatalf("nice %d: the build: %+v", nice, in.Error)
		}
		src.mu.Lock()
		// the header is read by Get (the caller's thread, nice 0), the
		// rest by the build
		want := map[int]bool{0: true, nice: true}
		if len(src.seen) != len(want) || !src.seen[0] || !src.seen[nice] {
			t.Errorf("SetNice(%d): the file was read at nice %v, want %v", nice, src.seen, want)
		}
		src.mu.Unlock()
	}
	if prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0); 20-prio != 0 {
		t.Errorf("the process's main thread is at nice %d after the builds", 20-prio)
	}
}
