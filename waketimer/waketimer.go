// Package waketimer is the game loop's timer: a one-shot timer whose
// expiry costs one thread wake-up.
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
// wakes the poller thread once. Re-arming it and consuming its expiry are
// raw system calls, which do not wake sysmon as the runtime's system call
// entry does. Elsewhere, or when a timerfd cannot be made, a Timer is a
// runtime timer.
//
// The game loop (package server) waits on a timerfd when its socket is the
// paced one, which leaves the timer the only thing that wakes the process
// in steady state, and on a runtime timer otherwise (the in-memory socket
// of the tests runs in a synctest bubble, whose fake clock a timerfd does
// not follow). A Timer belongs to one goroutine (the loop), which calls
// Reset and Stop and receives from C. Steady-state Resets and expiries
// allocate nothing.
package waketimer

import "time"

// Timer is a one-shot timer: after Reset(d), a value arrives on C once d
// has passed. A Reset drains a value left on C from an earlier expiry;
// one that the expiry's goroutine was about to send may still arrive
// after it (a spurious wake-up, which the loop tolerates as any other).
type Timer struct {
	// C receives a value at each expiry (buffered, one pending at most).
	C <-chan struct{}

	c   chan struct{}
	sys sysTimer    // the timerfd, when it could be made
	rt  *time.Timer // the runtime timer otherwise
}

// Kinds of Timer, as Kind reports them.
const (
	KindTimerfd = "timerfd" // a timerfd in the runtime's poller (Linux)
	KindRuntime = "runtime" // a runtime timer (time.AfterFunc)
)

// New returns a Timer armed to expire after d, as time.NewTimer: a timerfd
// where one can be made, else a runtime timer. It does not fail.
func New(d time.Duration) *Timer {
	t := newTimer()
	s, err := newSys(t.fire)
	if err != nil {
		return NewRuntime(d)
	}
	t.sys = s
	t.Reset(d)
	return t
}

// NewRuntime returns a Timer armed to expire after d on a runtime timer,
// whatever the system (the reference of the tests).
func NewRuntime(d time.Duration) *Timer {
	t := newTimer()
	t.rt = time.AfterFunc(d, t.fire)
	return t
}

func newTimer() *Timer {
	c := make(chan struct{}, 1)
	return &Timer{C: c, c: c}
}

// Kind returns KindTimerfd or KindRuntime.
func (t *Timer) Kind() string {
	if t.sys != nil {
		return KindTimerfd
	}
	return KindRuntime
}

// fire delivers an expiry, dropping it when one is already pending.
func (t *Timer) fire() {
	select {
	case t.c <- struct{}{}:
	default:
	}
}

// Reset arms the timer to expire after d (at once when d ≤ 0), replacing
// any earlier arming, and drains an expiry left on C.
func (t *Timer) Reset(d time.Duration) {
	select {
	case <-t.c:
	default:
	}
	if t.sys != nil {
		t.sys.arm(max(d, 1)) // a zero duration would disarm a timerfd
		return
	}
	t.rt.Reset(d)
}

// Stop disarms the timer and releases what it holds (the timerfd and its
// goroutine). The Timer is not used after Stop.
func (t *Timer) Stop() {
	if t.sys != nil {
		t.sys.close()
		return
	}
	t.rt.Stop()
}

// sysTimer is a system timer that calls its fire function at each expiry
// from a goroutine of its own.
type sysTimer interface {
	arm(d time.Duration)
	close()
}
