package loadclient

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"twserver/netproto"
)

// driverPhases spreads the clients of a run over this many equal slices of
// a tick: the driver wakes every TickDuration/driverPhases and serves the
// clients of one slice, so the server sees inputs spread over the tick (as
// from independent players) instead of one burst.
const driverPhases = 4

// phaseDuration is the driver's wake-up interval.
const phaseDuration = netproto.TickDuration / driverPhases

// drive runs n clients: one goroutine (the caller's) owns the schedule,
// one reader goroutine per client receives. Client i is created by newClient
// and opened at startAt(i) after the start; it is served every tick at
// phase i mod driverPhases: timers, handshake resends, the enter timeout,
// and the input of each tick (an INPUT when the Pace sends it) on an absolute schedule (wake-up k is at
// start + k*phaseDuration; a late wake-up catches up, it does not drift).
// When ctx is done or a client fails, the client is closed and done(i, stats)
// is called. leaveAt, when not nil, gives the time client i leaves (closes
// its connection cleanly, Stats.Left) before the end; 0 is never.
func drive(ctx context.Context, n int, startAt func(int) time.Duration, newClient func(int) *Client,
	done func(int, Stats), leaveAt func(int) time.Duration) {
	clients := make([]*Client, n)
	busy := make([]int, n) // clients whose reader held the lock (hold runs have more than MaxClients)
	finished := make([]bool, n)
	var readers sync.WaitGroup
	opened, left := 0, n
	start := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()

	finish := func(i int) {
		c := clients[i]
		c.mu.Lock()
		st := c.finishLocked()
		c.mu.Unlock()
		if c.sock != nil {
			c.sock.Close()
		}
		finished[i] = true
		left--
		done(i, st)
	}
	var due time.Time // the wake-up being served
	// serve runs one client's tick; c.mu is held and released here.
	serve := func(i int) {
		c := clients[i]
		failed := c.tickLocked(due.Sub(c.start))
		c.mu.Unlock()
		if failed {
			finish(i)
		}
	}
	stopping := false
	for k := int64(0); left > 0; k++ {
		due = start.Add(time.Duration(k) * phaseDuration)
		if !stopping {
			if d := time.Until(due); d > 0 {
				timer.Reset(d)
				select {
				case <-ctx.Done():
				case <-timer.C:
				}
			}
			stopping = ctx.Err() != nil
		}
		if stopping {
			for i := range opened {
				if !finished[i] {
					finish(i)
				}
			}
			for i := opened; i < n; i++ {
				left--
				done(i, Stats{Index: i, Stage: "not started", Failure: "not started (run cancelled)"})
			}
			break
		}
		for opened < n && startAt(opened) <= due.Sub(start) {
			i := opened
			c := newClient(i)
			clients[i] = c
			opened++
			if !c.open() {
				finished[i] = true
				left--
				done(i, c.stats)
				continue
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				c.readLoop()
			}()
		}
		if leaveAt != nil {
			for i := range opened {
				if at := leaveAt(i); !finished[i] && at > 0 && at <= due.Sub(start) {
					c := clients[i]
					c.mu.Lock()
					c.stats.Left = true
					c.mu.Unlock()
					finish(i)
				}
			}
		}
		// Impaired datagrams that fell due go out (or in) at every wake-up.
		for i := range opened {
			if c := clients[i]; !finished[i] && c.upLink != nil {
				c.mu.Lock()
				c.pumpLocked()
				c.mu.Unlock()
			}
		}
		// A reader holding its client's lock may have been preempted: serve
		// the free clients first and wait for the busy ones afterwards.
		nbusy := 0
		for i := int(k % driverPhases); i < opened; i += driverPhases {
			if finished[i] {
				continue
			}
			if !clients[i].mu.TryLock() {
				busy[nbusy] = i
				nbusy++
				continue
			}
			serve(i)
		}
		for _, i := range busy[:nbusy] {
			clients[i].mu.Lock()
			serve(i)
		}
	}
	readers.Wait()
}

// TickSet records which snapshot ticks any client of a run received (a
// ring of TickSetSize ticks, safe for concurrent use), so each client's
// snapshots can be compared with what the server sent at all.
type TickSet struct {
	bits [TickSetSize / 64]atomic.Uint64
}

// TickSetSize is the span of ticks a TickSet tells apart (about 87 minutes
// at 50 ticks per second); runs spanning more are not compared.
const TickSetSize = 1 << 18

// Add records tick.
func (s *TickSet) Add(tick int32) {
	i := uint32(tick) % TickSetSize
	s.bits[i/64].Or(1 << (i % 64))
}

// Count returns how many ticks in [from, to] were recorded (0 when the span
// is empty or larger than TickSetSize).
func (s *TickSet) Count(from, to int32) int64 {
	if from < 0 || to < from || int64(to)-int64(from) >= TickSetSize {
		return 0
	}
	var n int64
	for t := from; t <= to; t++ {
		i := uint32(t) % TickSetSize
		n += int64(s.bits[i/64].Load() >> (i % 64) & 1)
	}
	return n
}
