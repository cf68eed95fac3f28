// Package waketimer is the game loop's only wait: a one-shot timer whose
// expiry costs one thread wake-up, which other goroutines can also fire at
// once (Poke) when they have work for the loop.
//
// Why not time.Timer. A runtime timer is waited for by a thread in the
// poller and by the runtime's monitor thread (sysmon), which sleeps until
// the next timer. At a timer's expiry the poller thread wakes twice (the
// poller waits in whole milliseconds, rounded down: a 39.6 ms wait is
// 39 ms, then 1 ms) and sysmon twice (at the timer, then 10 ms later):
// four context switches for a loop that wakes 25 times a second with a few
// tens of microseconds of work, which on a paravirtualised machine is most
// of what a small game costs. On Linux a Timer is a timerfd in the runtime's
// poller: with no runtime timer pending the poller thread waits without a
// timeout and sysmon sleeps, and the timerfd's expiry (to the nanosecond)
// wakes the poller thread once. Re-arming it is a raw system call, which
// does not wake sysmon as the runtime's system call entry does. Elsewhere,
// or when a timerfd cannot be made, a Timer is a runtime timer.
//
// Why Wait and Poke rather than a channel. The owner (the game loop) parks
// on the timerfd itself, so an expiry makes one goroutine runnable: no
// second goroutine reads the expiry and sends it on a channel, and the loop
// does not block in a select over every source of work (a select over n
// channels locks and queues on all n at each wait). Sources of rare work
// (console lines, a live upgrade's hold, the end of the context, a datagram
// that wants an answer now) leave it where the loop looks after each wake-up
// and Poke the timer.
//
// The game loop (package server) waits on a timerfd when its socket is the
// paced one, which leaves the timer the only thing that wakes the process
// in steady state, and on a runtime timer otherwise (the in-memory socket
// of the tests runs in a synctest bubble, whose fake clock a timerfd does
// not follow). Steady-state Resets, Waits and expiries allocate nothing.
package waketimer

import (
	"sync/atomic"
	"time"
)

// Timer is a one-shot timer with an owner: the goroutine that calls Reset
// and Wait. After Reset(d), Wait returns once d has passed, or earlier when
// another goroutine has called Poke since the last Wait returned. The owner
// Resets before each Wait: a Poke uses up the arming.
type Timer struct {
	poked atomic.Bool // a Poke since the last Wait returned

	sys *timerfd // the timerfd, when it could be made (Linux)

	// the runtime timer otherwise: it sends on c at each expiry; Stop
	// closes stopped
	c       chan struct{}
	stopped chan struct{}
	rt      *time.Timer
}

// Kinds of Timer, as Kind reports them.
const (
	KindTimerfd = "timerfd" // a timerfd in the runtime's poller (Linux)
	KindRuntime = "runtime" // a runtime timer (time.AfterFunc)
)

// New returns a Timer armed to expire after d: a timerfd where one can be
// made, else a runtime timer. It does not fail.
func New(d time.Duration) *Timer {
	s, err := newSys()
	if err != nil {
		return NewRuntime(d)
	}
	t := &Timer{sys: s}
	t.Reset(d)
	return t
}

// NewRuntime returns a Timer armed to expire after d on a runtime timer,
// whatever the system (the reference of the tests).
func NewRuntime(d time.Duration) *Timer {
	t := &Timer{c: make(chan struct{}, 1), stopped: make(chan struct{})}
	t.rt = time.AfterFunc(d, t.fire)
	return t
}

// Kind returns KindTimerfd or KindRuntime.
func (t *Timer) Kind() string {
	if t.sys != nil {
		return KindTimerfd
	}
	return KindRuntime
}

// fire delivers a runtime timer's expiry, dropping it when one is pending.
func (t *Timer) fire() {
	select {
	case t.c <- struct{}{}:
	default:
	}
}

// Reset arms the timer to expire after d (at once when d ≤ 0), replacing
// any earlier arming; an expiry of an earlier arming that Wait has not
// returned for is forgotten. A Poke is not: it still ends the next Wait.
// Owner only.
func (t *Timer) Reset(d time.Duration) {
	if t.sys != nil {
		t.sys.reset(d)
		return
	}
	select {
	case <-t.c:
	default:
	}
	t.rt.Reset(d)
	if t.poked.Load() {
		t.fire() // a Poke drained above must still end the next Wait
	}
}

// Wait blocks until the timer expires or a Poke that came after the last
// Wait returned, whichever is first; with both, one Wait returns for both.
// It returns at once after Stop. Owner only.
func (t *Timer) Wait() {
	if t.sys != nil {
		t.sys.wait(&t.poked)
		return
	}
	select {
	case <-t.c:
	case <-t.stopped:
	}
	// Any Poke before this point finds Wait returning now: its sender's
	// work, left before the Poke, is seen by what the owner does next.
	t.poked.Store(false)
}

// Poke makes the owner's current Wait return now, or its next one when it
// is not waiting. Any goroutine; a Poke while one is pending costs a load.
// What the poker leaves for the owner before Poke is seen by the owner
// after the Wait that Poke ends.
func (t *Timer) Poke() {
	if t.poked.Swap(true) {
		return // pending: that Wait has not returned yet
	}
	if t.sys != nil {
		t.sys.arm(0)
		return
	}
	t.fire()
}

// Stop disarms the timer and releases what it holds (the timerfd). Wait
// returns at once after Stop; nothing else is called after it.
func (t *Timer) Stop() {
	if t.sys != nil {
		t.sys.close()
		return
	}
	t.rt.Stop()
	close(t.stopped)
}
