package encpool

import (
	"sync/atomic"
	"testing"
	"time"
)

// counter is an Encoder that counts how often each item was done.
type counter struct{ done []atomic.Int32 }

func (c *counter) Encode(_ *Worker, i int) { c.done[i].Add(1) }

// TestRunEveryItemOnce: whatever the pool (none, no worker, a few, more
// workers than shares) and the number of items, Run does every item
// exactly once, tick after tick with the jobs reused.
func TestRunEveryItemOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int // -1: no pool
	}{{"no pool", -1}, {"no worker", 0}, {"one", 1}, {"three", 3}, {"many", 20}} {
		t.Run(tc.name, func(t *testing.T) {
			var p *Pool
			if tc.workers >= 0 {
				p = &Pool{jobs: make(chan *job, QueueLen)} // workers 0: New would take GOMAXPROCS
				if tc.workers > 0 {
					p.Close()
					p = New(tc.workers)
				}
				defer p.Close()
			}
			f := NewFan(p)
			for _, n := range []int{0, 1, 7, 8, 9, 63, 64} {
				for range 3 {
					c := &counter{done: make([]atomic.Int32, n)}
					f.Run(c, n)
					for i := range n {
						if d := c.done[i].Load(); d != 1 {
							t.Fatalf("%d items: item %d done %d times", n, i, d)
						}
					}
				}
			}
		})
	}
}

// TestRunQueueFull: shares that find the queue full are done by the loop.
func TestRunQueueFull(t *testing.T) {
	p := &Pool{jobs: make(chan *job), workers: 4} // no goroutine reads: every send finds it full
	p.Limit(4)
	f := NewFan(p)
	c := &counter{done: make([]atomic.Int32, 40)}
	f.Run(c, 40)
	for i := range c.done {
		if d := c.done[i].Load(); d != 1 {
			t.Fatalf("item %d done %d times", i, d)
		}
	}
}

// TestLimit: a tick is cut into at most Usable+1 shares (the loop's and one
// per usable worker), and with no usable worker it never fans out.
func TestLimit(t *testing.T) {
	for _, tc := range []struct{ limit, usable, queued int }{
		{-1, 0, 0}, {0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {4, 4, 4}, {9, 4, 4},
	} {
		p := &Pool{jobs: make(chan *job, QueueLen), workers: 4} // no goroutine: shares stay queued
		p.Limit(tc.limit)
		if p.Usable() != tc.usable {
			t.Errorf("Limit(%d): Usable %d, want %d", tc.limit, p.Usable(), tc.usable)
		}
		f := NewFan(p)
		c := &counter{done: make([]atomic.Int32, 40)}
		f.Run(c, 40)
		if len(p.jobs) != tc.queued {
			t.Errorf("Limit(%d): %d shares queued, want %d", tc.limit, len(p.jobs), tc.queued)
		}
		for i := range c.done {
			if d := c.done[i].Load(); d != 1 {
				t.Fatalf("Limit(%d): item %d done %d times", tc.limit, i, d)
			}
		}
		f.Note(time.Second)
		if got := f.Use(MinParallel); got != (tc.usable > 0) {
			t.Errorf("Limit(%d): Use after a long tick %v", tc.limit, got)
		}
	}
}

// TestNote: the fan-out switches on above FanOutAbove and off below
// FanOutBelow, never without workers, and stays put when pinned.
func TestNote(t *testing.T) {
	p := New(2)
	defer p.Close()
	f := NewFan(p)
	for _, st := range []struct {
		d    time.Duration
		want bool
	}{
		{FanOutAbove, false}, {FanOutAbove + 1, true}, {FanOutBelow, true}, {FanOutBelow - 1, false}, {time.Millisecond, false},
	} {
		f.Note(st.d)
		if got := f.Use(MinParallel); got != st.want {
			t.Errorf("after %v: Use %v, want %v", st.d, got, st.want)
		}
	}
	if f.Use(MinParallel - 1) {
		t.Error("fans out below MinParallel")
	}
	none := NewFan(nil)
	none.Note(time.Second)
	if none.Use(64) {
		t.Error("fans out without a pool")
	}
	none.Pin(true)
	if none.Use(64) {
		t.Error("pinned on without a pool")
	}
	f.Pin(true)
	f.Note(0)
	if !f.Use(MinParallel) {
		t.Error("pinned fan-out switched off")
	}
}

// TestOut: Keep copies an encoder's messages, Skip empties it.
func TestOut(t *testing.T) {
	var o Out
	if o.Len() != 0 {
		t.Fatal("zero Out holds messages")
	}
	o.data, o.ends, o.ok = []byte("abcdef"), []int{2, 6}, true
	if o.Len() != 2 || string(o.Msg(0)) != "ab" || string(o.Msg(1)) != "cdef" {
		t.Errorf("Out %d %q %q", o.Len(), o.Msg(0), o.Msg(1))
	}
	o.Skip()
	if o.Len() != 0 {
		t.Error("Skip kept messages")
	}
}
