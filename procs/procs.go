// Package procs sizes the Go runtime's parallelism (GOMAXPROCS) of a
// twserver process to the CPU it uses.
//
// With several runtime threads (Ps), every wake-up of a game loop also
// wakes a second, spinning thread that finds nothing to do: on a server
// with a few players that is most of what a tick costs (measured with 4
// clients: 1.16 % of a core with 2 Ps, 0.82 % with one), and with 16
// games and 1024 clients it is a quarter of the process's CPU (41-49 % of
// a core on the ceiling of 8 Ps, 32-33 % on one, its ticks as punctual).
// A Sizer therefore keeps the process on one P as long as one core
// carries it: until its share of a core reaches Up, or until in
// LateReadings readings in a row LateWakes of its game loops' wake-ups
// came LateWake or more after their tick's start (the one thread does not
// get the CPU in time, say on a busy machine; one stall of the whole
// process, which makes every game late once, is not enough). Then it
// gives the process its ceiling of Ps, where the games' ticks run side by
// side. It goes back to one P after DownAfter below Calm; after its loops
// were late on one P, only once LateHold has passed (doubling at each
// such escalation up to MaxLateHold), or below Down.
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
// readings, and its lateness.
const (
	// Every is the least time between two readings of the CPU time.
	Every = time.Second
	// Up is the CPU share at or above which the process gets its ceiling
	// of Ps at once: one core would soon not carry it.
	Up = 0.75
	// Calm is the CPU share below which, held for DownAfter, the process
	// goes back to one P, unless its loops were late on one P less than
	// its late hold ago (then Down). On its ceiling a process spends more
	// than on one P (spinning threads), so Calm lies below Up with room.
	Calm = 0.7
	// Down is the CPU share below which, held for DownAfter, a process
	// within its late hold goes back to one P (and forgets its lateness):
	// when nearly idle.
	Down = 0.10
	// DownAfter is how long the share must stay below Calm or Down.
	DownAfter = 10 * time.Second
	// LateWake is the lateness of a game loop's wake-up (after the start
	// of the tick it woke for) that counts as late: a whole tick, so the
	// loop skipped one. Wake-ups 10–20 ms late come by the hundred in a
	// 1024-client run on the ceiling as on one P, and cost nobody a
	// snapshot.
	LateWake = 20 * time.Millisecond
	// LateWakes is how many late wake-ups between two readings make the
	// reading late, and LateReadings how many late readings in a row give
	// a process on one P its ceiling: a few late wake-ups, or one stall
	// of the whole process, are the machine's hiccups (on the ceiling as
	// well); late readings in a row, a thread that does not get the CPU it
	// needs.
	LateWakes    = 5
	LateReadings = 2
	// LateHold is how long a process whose loops were late on one P keeps
	// its ceiling (unless nearly idle) the first time; each further
	// escalation doubles it, up to MaxLateHold, so on a machine too busy
	// for one thread the process swings between one P and its ceiling
	// ever more rarely.
	LateHold = 30 * time.Second
	// MaxLateHold bounds the late hold.
	MaxLateHold = time.Hour
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
	lowSince time.Duration // -1: the share is not below the threshold down
	share    float64       // of the latest reading
	lates    atomic.Int32  // wake-ups LateWake late since the last reading
	lateRun  int           // late readings in a row on one P
	hold     time.Duration // the late hold of the last escalation; 0: none since nearly idle
	lateTill time.Duration // time since start until which Down applies instead of Calm
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

// Note is called by a game loop after a wake-up at now, with the greatest
// lateness of its wake-ups since its last call (0 when none ran ticks).
// When a reading is due and no other goroutine is taking one, it reads the
// CPU time and sets the Ps. It costs one atomic load when no reading is due
// and the loop was not late. A nil Sizer does nothing.
func (s *Sizer) Note(now time.Time, late time.Duration) {
	if s == nil {
		return
	}
	if late >= LateWake {
		s.lates.Add(1)
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
	// Late on one P: one P is not enough (late on its ceiling, the
	// machine is busy; that says nothing of one P).
	n := s.Procs()
	s.lateRun++
	if s.lates.Swap(0) < LateWakes || n == s.ceiling {
		s.lateRun = 0
	}
	lateOnOne := s.lateRun >= LateReadings
	if lateOnOne {
		s.lateRun = 0
		s.hold = min(max(2*s.hold, LateHold), MaxLateHold)
		s.lateTill = at + s.hold
	}
	low := Calm
	if at < s.lateTill {
		low = Down
	}
	switch {
	case share >= Up || lateOnOne:
		s.lowSince = -1
		if n != s.ceiling {
			s.set(s.ceiling)
		}
	case share >= low:
		s.lowSince = -1
	case s.lowSince < 0:
		s.lowSince = at
		fallthrough
	default:
		if n != 1 && at-s.lowSince >= DownAfter {
			s.set(1)
			if low == Down {
				s.hold, s.lateTill = 0, 0
			}
		}
	}
}
