package server

import "time"

// Ticking in pairs. With few clients, what a tick costs is mostly its
// wake-up: the loop's timer wakes a runtime thread (which wakes a second,
// spinning one) and the runtime's sysmon thread, once at the timer and
// once 10 ms later, for some tens of microseconds of game work. Clients
// see the game only through snapshots, sent at every second tick (the
// snapshot rate of 25 per second), so the loop's timer waits for the
// start of the next snapshot tick only, and that wake-up simulates the tick before it and the
// snapshot tick back to back: half the wake-ups, the same snapshots at the
// same times. What stays exact: every tick is simulated with the inputs
// that arrived before its start, since the datagrams queued at the wake-up
// are handled in arrival order up to each tick's start before it is
// simulated (advance); the input timing each client is told is measured
// from the kernel's arrival stamp, not from when the loop reads it. What
// moves: messages the first tick of a pair sends (chat, votes, broadcasts)
// leave with its snapshot tick, up to one tick later, as they would from a
// loop woken late. With snapshot_rate 50 or a server demo being recorded
// the loop wakes at every tick. A datagram of a peer not in game still
// wakes the loop at once (the reader's hand-over). Up to the 64 clients of
// a full game the halved wake-ups outweigh the pair's longer burst (-17 %
// CPU at 63 clients, docs/performance.md); several games of a process
// spread their phases over the pair (tickclock.PairPeriod), so their
// bursts do not bunch into one tick of it.

// pairState is the loop's state of ticking in pairs (loop only).
type pairState struct {
	wakeAt int32 // the tick whose start the loop's timer waits for; 0 when not ticking
	// held is a queued packet that arrived after the start of the tick
	// being simulated, handled before the next (drainRxBefore).
	held *rxPacket
}

// pairTicks reports whether the game ticks in pairs now.
func (s *Server) pairTicks() bool {
	return s.cfg.Server.SnapshotRate != 50 && !s.rec.DemoRecording()
}

// wakeTick returns the tick whose start the loop's timer waits for: the
// next tick, or while the game ticks in pairs the next snapshot tick.
func (s *Server) wakeTick() int32 {
	next := s.world.CurrentTick() + 1
	if next%2 != 0 && s.pairTicks() {
		next++
	}
	return next
}

// plannedTicks returns how many ticks a wake-up at now was planned to run
// (2 when it is the timer's wake-up at the snapshot tick of a pair, else
// 1): the ticks beyond them are a late loop's catch-up.
func (s *Server) plannedTicks(now time.Time) int {
	cur := s.world.CurrentTick()
	if s.pairs.wakeAt == cur+2 && !now.Before(s.sched.TickStart(cur+2)) {
		return 2
	}
	return 1
}
