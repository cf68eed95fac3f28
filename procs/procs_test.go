package procs

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"twserver/internal/heavytest"
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

// TestSizer: one P at the start; the ceiling as soon as a reading shows
// Up, or LateReadings readings in a row with LateWakes late wake-ups; one P again
// after DownAfter below Calm, or below Down once the loops were late on
// one P; nothing in between, and a reading at most once per Every.
func TestSizer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	f := &fake{ok: true, procs: 2}
	s := newSizer(4, t0, f.read, f.gomaxprocs, func(c Change) { f.changes = append(f.changes, c) })
	if f.procs != 1 || s.Procs() != 1 || s.Ceiling() != 4 {
		t.Fatalf("start: runtime %d, Procs %d, Ceiling %d; want 1, 1, 4", f.procs, s.Procs(), s.Ceiling())
	}
	const ms = time.Millisecond
	steps := []struct {
		at    time.Duration // since t0
		cpu   time.Duration // CPU used since the previous step
		lates int           // wake-ups of the loops LateWake late before the step's Note
		want  int
	}{
		{500 * ms, 400 * ms, 0, 1},               // not due: no reading
		{time.Second, 0, 0, 1},                   // 0.4 over 1 s: one core carries it
		{2 * time.Second, 800 * ms, 0, 4},        // 0.8: up
		{3 * time.Second, 720 * ms, 0, 4},        // between Calm and Up: stays
		{4 * time.Second, 400 * ms, 0, 4},        // below Calm from here
		{9 * time.Second, 2000 * ms, 0, 4},       // 0.4 over 5 s: still below
		{13900 * ms, 1960 * ms, 0, 4},            // 9.9 s below
		{14 * time.Second, 40 * ms, 0, 4},        // not due (reading at 13.9 s)
		{14900 * ms, 360 * ms, 0, 1},             // 10.9 s below Calm: down
		{15900 * ms, 300 * ms, LateWakes - 1, 1}, // a few late wake-ups: not a late reading
		{16900 * ms, 300 * ms, LateWakes, 1},     // a late reading: stays
		{17400 * ms, 150 * ms, 0, 1},             // not due
		{17900 * ms, 150 * ms, LateWakes - 1, 1}, // not late: the run is broken
		{18900 * ms, 300 * ms, LateWakes, 1},     // late
		{19900 * ms, 300 * ms, LateWakes, 4},     // late again: up, held LateHold
		{20900 * ms, 300 * ms, 0, 4},             // 0.3: below Calm, above Down: stays
		{49900 * ms, 8700 * ms, 0, 4},            // the hold is over: below Calm from here
		{59900 * ms, 3000 * ms, 0, 1},            // 10 s: down
		{60900 * ms, 300 * ms, LateWakes, 1},
		{61900 * ms, 300 * ms, LateWakes, 4}, // late again: up, held twice as long
		{90 * time.Second, 8430 * ms, 0, 4},  // 0.3 within the hold
		{93 * time.Second, 900 * ms, 0, 4},   // (a hold of 30 s would be over)
		{104 * time.Second, 3300 * ms, 0, 4}, // 11 s below Calm, still within the hold: stays
		{121 * time.Second, 5100 * ms, 0, 4},
		{122 * time.Second, 300 * ms, 0, 4},  // the hold is over at 121.9 s: below Calm from here
		{132 * time.Second, 3000 * ms, 0, 1}, // down
		{133 * time.Second, 300 * ms, LateWakes, 1},
		{134 * time.Second, 300 * ms, LateWakes, 4}, // late again: held 120 s
		{135 * time.Second, 50 * ms, 0, 4},          // below Down from here
		{144 * time.Second, 450 * ms, 0, 4},         // 9 s
		{145 * time.Second, 50 * ms, 0, 1},          // 10 s below Down: down, the hold forgotten
		{146 * time.Second, 300 * ms, 0, 1},         // 0.3: stays
		{147 * time.Second, 900 * ms, 0, 4},         // 0.9: up
		{148 * time.Second, 500 * ms, LateWakes, 4}, // late on the ceiling: a busy machine, not one P's fault
		{149 * time.Second, 500 * ms, LateWakes, 4},
		{158 * time.Second, 4500 * ms, 0, 1}, // 0.5 for 10 s: below Calm, down
		{159 * time.Second, 300 * ms, LateWakes, 1},
		{160 * time.Second, 300 * ms, LateWakes, 4}, // late on one P: held LateHold again, not 240 s
		{190 * time.Second, 9000 * ms, 0, 4},        // the hold is over: below Calm from here
		{200 * time.Second, 3000 * ms, 0, 1},
	}
	for _, st := range steps {
		f.cpu += st.cpu
		for range st.lates {
			s.Note(t0.Add(st.at-ms), LateWake)
		}
		s.Note(t0.Add(st.at), 0)
		if f.procs != st.want || s.Procs() != st.want {
			t.Fatalf("at %v: runtime %d, Procs %d; want %d", st.at, f.procs, s.Procs(), st.want)
		}
	}
	want := []Change{{2, 1, 0}, {1, 4, 0.8}, {4, 1, 0.4}, {1, 4, 0.3}, {4, 1, 0.3}, {1, 4, 0.3}, {4, 1, 0.3}, {1, 4, 0.3}, {4, 1, 0.05}, {1, 4, 0.9}, {4, 1, 0.5}, {1, 4, 0.3}, {4, 1, 0.3}}
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
				s.Note(t0.Add(time.Duration(i)*time.Second), LateWake)
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
		return time.Duration(readings) * 800 * time.Millisecond, true
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
				s.Note(t0.Add(time.Duration(i)*time.Millisecond*10+time.Duration(g)), 0)
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
// spins for over Every makes the next Note read the process's CPU time (a
// share of a core well above zero) and set the runtime's Ps by it: the
// ceiling at Up or more, one P below. A loaded machine (a CI run testing
// other packages beside this one) may give the spinning thread less than
// Up for all six busy seconds; then every reading must have kept one P and
// made no change beyond New's.
func TestNewReal(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: nothing to size")
	}
	heavytest.Lock(t) // the spinning thread wants a core of its own
	// From two Ps, New's change is 2 to 1 whatever GOMAXPROCS the run has.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var changes []Change
	start := time.Now()
	s := New(2, start, func(c Change) { changes = append(changes, c) })
	if runtime.GOMAXPROCS(0) != 1 || s.Procs() != 1 {
		t.Fatalf("GOMAXPROCS %d after New, want 1", runtime.GOMAXPROCS(0))
	}
	most := 0.0
	for i := 1; i <= 6 && s.Procs() == 1; i++ {
		for time.Since(start) < time.Duration(i)*(Every+100*time.Millisecond) {
			// busy: the process uses up to one core
		}
		s.Note(time.Now(), 0)
		s.mu.Lock()
		share := s.share
		s.mu.Unlock()
		most = max(most, share)
		if share < 0.2 {
			t.Fatalf("a busy second read as a share of %.2f of a core", share)
		}
		want := 1
		if share >= Up {
			want = 2
		}
		if runtime.GOMAXPROCS(0) != want || s.Procs() != want {
			t.Fatalf("GOMAXPROCS %d, Procs %d after a busy second at a share of %.2f (changes %+v), want %d",
				runtime.GOMAXPROCS(0), s.Procs(), share, changes, want)
		}
	}
	if len(changes) == 0 || changes[0].From != 2 || changes[0].To != 1 {
		t.Fatalf("changes %+v, want the first from 2 to 1 (New)", changes)
	}
	if s.Procs() == 1 {
		// Never given Up: the per-reading checks above held one P.
		t.Logf("six busy seconds at most %.2f of a core (< Up %v): the ceiling not reached on this machine", most, Up)
		if len(changes) != 1 {
			t.Errorf("changes %+v below Up, want only New's", changes)
		}
		return
	}
	if len(changes) != 2 || changes[1].From != 1 || changes[1].To != 2 || changes[1].Share < Up {
		t.Errorf("changes %+v, want 1 then 2 at a share >= %v", changes, Up)
	}
}

// TestNilSizer: a game without a Sizer notes its wake-ups on nil.
func TestNilSizer(t *testing.T) {
	var none *Sizer
	none.Note(time.Now(), LateWake)
}
