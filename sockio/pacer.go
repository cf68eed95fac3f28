package sockio

import (
	"sync/atomic"
	"time"
)

// Paced reads. A reader that waits on the socket wakes once per datagram:
// with 1024 clients in one process that is about 51,000 wake-ups a second,
// each a thread woken from epoll or a futex, and a CPU profile of
// scripts/bench1024.sh put a fifth of the process's time in those
// context switches. But an in-game client's datagrams (inputs, chat,
// votes) are only needed at the game's next tick, which handles every
// queued datagram before it simulates. So while a game is quiet, its
// reader goroutine does not read: it hands its state to the game loop,
// which at each tick reads what the socket holds itself (ReadPaced: without
// waiting, in batches, with the kernel's arrival stamps, so the game's
// timing figures stay exact) with the reader's screening. A quiet game thus
// costs one wake-up per tick, its loop's timer, and no goroutine switch.
// For that the socket must also stay out of the runtime's poller, which
// would wake an idle thread for each datagram even with nobody reading:
// the paced socket (KindPaced); with another socket the reader is never
// paced.
//
// Anything that wants an answer sooner than the next tick makes the reader
// wait on the socket again (read each datagram as it comes) for PacedHold:
// a datagram the caller marks urgent (MarkUrgent: for the game, one of a
// peer not in game), or more than PacedBusyDatagrams in one tick's read or
// in one tick's time of reading as they come (a flood: the socket buffer
// must not overflow and drop the players' datagrams).

// Bounds of paced reading.
const (
	// PacedBusyDatagrams: a tick's read that finds this many datagrams stops
	// there, and the reader reads each datagram as it comes for PacedHold
	// (64 clients send about 64 per tick).
	PacedBusyDatagrams = 256
	// PacedHold is how long a reader reads each datagram as it comes after
	// a datagram that wanted an early answer or a busy tick.
	PacedHold = time.Second
)

// Pacer couples a game loop and its reader goroutine for paced reads. The
// reader's state (whatever the caller's reader reads with, and the
// Pacer's own reading state: At, the urgent mark, the hold) has one owner
// at a time: the reader, or, while Paced reports true, the loop, which
// reads with it at each tick and hands it back with EndTick. The hand-over
// orders every access, so the state needs no lock.
//
// Who calls what: Start, BeginTick, EndTick, SetSleeping, Release and Stop
// the loop; Wait and AfterRead the reader; MarkUrgent and At the current
// owner.
type Pacer struct {
	on atomic.Bool // the loop owns the reader state (set by the reader, cleared by the loop)
	// sleeping: the loop has no ticks to read at (its game sleeps), so the
	// reader keeps reading (set by the loop). Whoever clears on with a
	// CompareAndSwap owns the state: the loop hands it back (Release), or
	// the reader keeps it (Wait).
	sleeping atomic.Bool
	req      chan struct{} // loop -> reader: read each datagram as it comes again (closed when the loop ends)
	tick     time.Duration // the loop's tick: the window of AfterRead's count

	// At holds ReadPaced's arrival times for one batch.
	At [ReadBatchSize]time.Time

	urgent    bool      // a datagram read wanted the loop at once
	contUntil time.Time // read each datagram as it comes until then
	winStart  time.Time // reading as they come: start of the current tick window
	winCount  int       // and the datagrams read in it
}

// Start prepares the pacer for a loop ticking every tick, before the
// reader starts.
func (p *Pacer) Start(tick time.Duration) {
	p.req = make(chan struct{}, 1)
	p.tick = tick
}

// Stop tells a reader waiting for the loop that the loop has ended: Wait
// returns false and the reader goes back to the socket (closed next).
func (p *Pacer) Stop() { close(p.req) }

// Paced reports whether the loop owns the reader state and reads at its
// ticks.
func (p *Pacer) Paced() bool { return p.on.Load() }

// Wait is the reader's choice before a read: once PacedHold has passed
// since it last had to read each datagram as it comes, it hands its state
// to the loop and waits until the loop hands it back (true: the loop read
// meanwhile); false: read the next datagram now, or the loop has ended.
func (p *Pacer) Wait() bool {
	if time.Now().Before(p.contUntil) || p.sleeping.Load() {
		return false // a sleeping loop has no ticks to read at
	}
	p.on.Store(true)
	if p.sleeping.Load() && p.on.CompareAndSwap(true, false) {
		return false // the loop fell asleep meanwhile and did not take the state
	}
	_, ok := <-p.req
	return ok
}

// SetSleeping tells the pacer whether the loop sleeps (loop only): while it
// does, the reader does not hand its state over (Wait).
func (p *Pacer) SetSleeping(asleep bool) { p.sleeping.Store(asleep) }

// Release hands a paced reader's state back to the reader goroutine (loop
// only), as the loop falls asleep: the reader waits on the socket again.
func (p *Pacer) Release() {
	if p.req != nil && p.on.CompareAndSwap(true, false) {
		p.req <- struct{}{}
	}
}

// MarkUrgent records that a datagram just read wants the loop at once; it
// reports whether it is the first since the last check (whose sender the
// caller may note for its log).
func (p *Pacer) MarkUrgent() (first bool) {
	first = !p.urgent
	p.urgent = true
	return first
}

// AfterRead updates the pacing after the reader read n datagrams as they
// came, at now: a datagram marked urgent, or PacedBusyDatagrams in one
// tick's time, keeps it reading each datagram as it comes for PacedHold (a
// full batch does not: a reader thread that waited for a CPU finds one).
// It reports whether the hold started, and the datagrams in the window.
func (p *Pacer) AfterRead(n int, now time.Time) (hold bool, urgent bool, count int) {
	if now.Sub(p.winStart) >= p.tick {
		p.winStart, p.winCount = now, 0
	}
	p.winCount += n
	urgent = p.urgent
	hold = p.winCount >= PacedBusyDatagrams || urgent
	if hold {
		p.contUntil = now.Add(PacedHold)
	}
	p.urgent = false
	return hold, urgent, p.winCount
}

// BeginTick starts the loop's read at a tick: false when the reader reads
// itself (the loop must not read).
func (p *Pacer) BeginTick() bool {
	if !p.on.Load() {
		return false
	}
	p.urgent = false
	return true
}

// EndTick ends the loop's read at a tick that found count datagrams, the
// last at now: after a datagram marked urgent, or a busy read, it hands the
// reading back to the reader for PacedHold and reports true (and whether a
// datagram was urgent).
func (p *Pacer) EndTick(count int, now time.Time) (handed bool, urgent bool) {
	urgent = p.urgent
	if count < PacedBusyDatagrams && !urgent {
		return false, false
	}
	p.contUntil = now.Add(PacedHold)
	p.urgent = false
	p.on.Store(false)
	p.req <- struct{}{}
	return true, urgent
}
