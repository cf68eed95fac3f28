package procs

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// fake is a process whose CPU time and Ps the test sets.
type fake struct {
	cpu     time.Duration
	ok      bool
	procs   int
	changes []Change
}

func (f *fake) read() (time.Duration, bool) { return f.cpu, f.ok }

func (f *fake) gomaxprocs(n int) int {
	old := f.procs
	if n > 0 {
		f.procs = n
	}
	return old
}

// TestSizer: one P at the start, the ceiling as soon as a reading shows
// Up, one P again after DownAfter below Down, nothing in between, and a
// reading at most once per Every.
func TestSizer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	f := &fake{ok: true, procs: 2}
	s := newSizer(4, t0, f.read, f.gomaxprocs, func(c Change) { f.changes = append(f.changes, c) })
	if f.procs != 1 || s.Procs() != 1 || s.Ceiling() != 4 {
		t.Fatalf("start: runtime %d, Procs %d, Ceiling %d; want 1, 1, 4", f.procs, s.Procs(), s.Ceiling())
	}
	steps := []struct {
		at   time.Duration // since t0
		cpu  time.Duration // CPU used since the previous step
		want int
	}{
		{500 * time.Millisecond, 400 * time.Millisecond, 1}, // not due: no reading
		{time.Second, 0, 4},                          // 0.4 s over 1 s: up
		{2 * time.Second, 150 * time.Millisecond, 4}, // between Down and Up: stays
		{3 * time.Second, 50 * time.Millisecond, 4},  // low from here
		{8 * time.Second, 250 * time.Millisecond, 4}, // 0.05 over 5 s: still low
		{12900 * time.Millisecond, 100 * time.Millisecond, 4},
		{13 * time.Second, 0, 4},                             // not due (reading at 12.9 s)
		{13900 * time.Millisecond, 10 * time.Millisecond, 1}, // 10.9 s low: down
		{15 * time.Second, 200 * time.Millisecond, 1},        // 0.18: stays
		{16 * time.Second, 90 * time.Millisecond, 1},
		{23 * time.Second, 2100 * time.Millisecond, 4}, // 0.3 over 7 s (a sleeping process's gap): up
		{24 * time.Second, 150 * time.Millisecond, 4},  // 0.15 breaks the low spell...
		{25 * time.Second, 50 * time.Millisecond, 4},
		{34 * time.Second, 100 * time.Millisecond, 4}, // ...9 s since it began again
		{35 * time.Second, 10 * time.Millisecond, 1},
	}
	for _, st := range steps {
		f.cpu += st.cpu
		s.Note(t0.Add(st.at))
		if f.procs != st.want || s.Procs() != st.want {
			t.Fatalf("at %v: runtime %d, Procs %d; want %d", st.at, f.procs, s.Procs(), st.want)
		}
	}
	want := []Change{{2, 1, 0}, {1, 4, 0.4}, {4, 1, 0.01}, {1, 4, 0.3}, {4, 1, 0.01}}
	if len(f.changes) != len(want) {
		t.Fatalf("changes %v, want %v", f.changes, want)
	}
	for i, c := range f.changes {
		if c.From != want[i].From || c.To != want[i].To || c.Share < want[i].Share-1e-9 || c.Share > want[i].Share+1e-9 {
			t.Errorf("change %d: %+v, want %+v", i, c, want[i])
		}
	}
}

// TestSizerInert: with one CPU, or no CPU clock, the Ps are left alone.
func TestSizerInert(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name    string
		ceiling int
		ok      bool
	}{{"ceiling 1", 1, true}, {"no clock", 4, false}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{ok: tc.ok, procs: 3}
			s := newSizer(tc.ceiling, t0, f.read, f.gomaxprocs, nil)
			for i := 1; i <= 30; i++ {
				f.cpu += time.Second // a busy process
				s.Note(t0.Add(time.Duration(i) * time.Second))
			}
			if f.procs != 3 || s.Procs() != 3 {
				t.Errorf("runtime %d, Procs %d; want 3 untouched", f.procs, s.Procs())
			}
		})
	}
}

// TestSizerConcurrent: loops of several games call Note at once; one of
// them takes each reading (run with -race).
func TestSizerConcurrent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var mu sync.Mutex
	readings := 0
	cpu := func() (time.Duration, bool) {
		mu.Lock()
		defer mu.Unlock()
		readings++
		return time.Duration(readings) * 300 * time.Millisecond, true
	}
	var procs int
	var pmu sync.Mutex
	set := func(n int) int {
		pmu.Lock()
		defer pmu.Unlock()
		old := procs
		if n > 0 {
			procs = n
		}
		return old
	}
	s := newSizer(2, t0, cpu, set, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				s.Note(t0.Add(time.Duration(i)*time.Millisecond*10 + time.Duration(g)))
			}
		})
	}
	wg.Wait()
	// 10 s of Notes: a reading at most once per Every after the first.
	if readings < 2 || readings > 11 {
		t.Errorf("%d readings of the CPU clock in 10 s, want 2..11", readings)
	}
	if s.Procs() != 2 {
		t.Errorf("Procs %d after a busy spell, want 2", s.Procs())
	}
}

// TestNewReal: the real process's CPU clock and runtime. A goroutine that
// spins for over Every makes the next Note give the ceiling.
func TestNewReal(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: nothing to size")
	}
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	var changes []Change
	start := time.Now()
	s := New(2, start, func(c Change) { changes = append(changes, c) })
	if runtime.GOMAXPROCS(0) != 1 || s.Procs() != 1 {
		t.Fatalf("GOMAXPROCS %d after New, want 1", runtime.GOMAXPROCS(0))
	}
	for time.Since(start) < Every+100*time.Millisecond {
		// busy: the process uses about one core
	}
	s.Note(time.Now())
	if runtime.GOMAXPROCS(0) != 2 || s.Procs() != 2 {
		t.Fatalf("GOMAXPROCS %d after a busy second (changes %+v), want 2", runtime.GOMAXPROCS(0), changes)
	}
	if len(changes) != 2 || changes[1].Share < Up {
		t.Errorf("changes %+v, want 1 then 2 at a share >= %v", changes, Up)
	}
}

// TestNilSizer: a game without a Sizer notes its wake-ups on nil.
func TestNilSizer(t *testing.T) {
	var none *Sizer
	none.Note(time.Now())
}
