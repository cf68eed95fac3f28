// Package procs sizes the Go runtime's parallelism (GOMAXPROCS) of a
// twserver process to the CPU it uses.
//
// With several runtime threads (Ps), every wake-up of a game loop also
// wakes a second, spinning thread that finds nothing to do: on a server
// with a few players that is most of what a tick costs (measured with 4
// clients: 1.16 % of a core with 2 Ps, 0.82 % with one). A Sizer therefore
// keeps the process on one P while it uses little CPU and gives it its
// ceiling of Ps as soon as it uses more, when the games' ticks gain from
// running side by side.
//
// The Sizer has no goroutine of its own: the game loops call Note after
// their wake-ups, and at most once per Every one of them reads the
// process's CPU time (one getrusage) and decides. A process whose games
// all sleep reads nothing.
package procs

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The Sizer's thresholds, as shares of one core over the time between two
// readings.
const (
	// Every is the least time between two readings of the CPU time.
	Every = time.Second
	// Up is the CPU share at or above which the process gets its ceiling
	// of Ps at once.
	Up = 0.25
	// Down is the CPU share below which, held for DownAfter, the process
	// goes back to one P.
	Down = 0.10
	// DownAfter is how long the share must stay below Down.
	DownAfter = 10 * time.Second
)

// Sizer chooses the process's GOMAXPROCS between 1 and a ceiling. Its
// methods are safe from any goroutine.
type Sizer struct {
	ceiling int
	start   time.Time
	due     atomic.Int64 // time since start (ns) when the next reading is due
	procs   atomic.Int32 // the Ps set

	set func(n int)                  // applies a number of Ps and calls onChange
	cpu func() (time.Duration, bool) // the process's CPU time (false: unknown)

	mu       sync.Mutex // held by the goroutine taking a reading
	lastAt   time.Duration
	lastCPU  time.Duration
	lowSince time.Duration // -1: the share is not below Down
	share    float64       // of the latest reading
}

// Change describes one change of the Ps, for the OnChange function.
type Change struct {
	// From and To are the Ps before and after.
	From, To int
	// Share is the CPU share of one core that led to it.
	Share float64
}

// New returns a Sizer between 1 and ceiling Ps that starts the process on
// one P (a new server is empty) and calls onChange (if not nil) after
// every change, from the goroutine that called Note. With ceiling <= 1, or
// where the process's CPU time cannot be read, it changes nothing.
func New(ceiling int, now time.Time, onChange func(Change)) *Sizer {
	return newSizer(ceiling, now, processCPU, runtime.GOMAXPROCS, onChange)
}

// newSizer is New with the CPU clock and the runtime's setter given.
func newSizer(ceiling int, now time.Time, cpu func() (time.Duration, bool), gomaxprocs func(int) int, onChange func(Change)) *Sizer {
	s := &Sizer{ceiling: max(ceiling, 1), start: now, lowSince: -1, cpu: cpu}
	s.set = func(n int) {
		from := gomaxprocs(n)
		s.procs.Store(int32(n))
		if onChange != nil && from != n {
			onChange(Change{From: from, To: n, Share: s.share})
		}
	}
	c, ok := cpu()
	if !ok || s.ceiling == 1 {
		s.due.Store(math.MaxInt64) // never
		s.procs.Store(int32(gomaxprocs(0)))
		return s
	}
	s.lastCPU = c
	s.due.Store(int64(Every))
	s.set(1)
	return s
}

// Procs returns the Ps the Sizer set (the runtime's GOMAXPROCS when it
// sizes nothing).
func (s *Sizer) Procs() int { return int(s.procs.Load()) }

// Ceiling returns the most Ps the Sizer gives.
func (s *Sizer) Ceiling() int { return s.ceiling }

// Note is called by a game loop after a wake-up at now: when a reading is
// due and no other goroutine is taking one, it reads the CPU time and
// sets the Ps. It costs one atomic load when no reading is due. A nil
// Sizer does nothing.
func (s *Sizer) Note(now time.Time) {
	if s == nil {
		return
	}
	at := now.Sub(s.start)
	if int64(at) < s.due.Load() || !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	if int64(at) < s.due.Load() {
		return
	}
	s.due.Store(int64(at + Every))
	cpu, ok := s.cpu()
	if !ok {
		return
	}
	share := float64(cpu-s.lastCPU) / float64(at-s.lastAt)
	s.lastAt, s.lastCPU, s.share = at, cpu, share
	n := s.Procs()
	switch {
	case share >= Up:
		s.lowSince = -1
		if n != s.ceiling {
			s.set(s.ceiling)
		}
	case share >= Down:
		s.lowSince = -1
	case s.lowSince < 0:
		s.lowSince = at
		fallthrough
	default:
		if n != 1 && at-s.lowSince >= DownAfter {
			s.set(1)
		}
	}
}
