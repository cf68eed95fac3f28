package server

import (
	"math/bits"
	"time"
)

// Ticking in pairs. With few clients, what a tick costs is mostly its
// wake-up: the loop's timer wakes a runtime thread (which wakes a second,
// spinning one) and the runtime's sysmon thread, once at the timer and
// once 10 ms later, for some tens of microseconds of game work. Clients
// see the game only through snapshots, sent at every second tick (the
// snapshot rate of 25 per second), so the loop's timer waits for the start
// of the next snapshot tick only, and that wake-up simulates the tick
// before it and the snapshot tick back to back: half the wake-ups, the
// same snapshots at the same times. What stays exact: every tick is
// simulated with the inputs that arrived before its start, since the
// datagrams queued at the wake-up are handled in arrival order up to each
// tick's start before it is simulated (advance); the input timing each
// client is told is measured from the kernel's arrival stamp. What moves:
// messages the first tick of a pair sends (chat, votes, broadcasts) leave
// with its snapshot tick, up to one tick later, as from a loop woken late.
// With snapshot_rate 50 or a server demo being recorded the loop wakes at
// every tick. A lone game ticks in pairs up to a full game (at 63 clients
// -9 to -23 % CPU), a game of a process of several (aligned schedule,
// phases spread over tickclock.PairPeriod) up to PairedTicksMaxClients.

// PairedTicksMaxClients is the most clients in game with which a game of a
// process of several ticks in pairs; above it, it wakes at every tick (at
// 1024 clients on 16 games the two-tick bursts delayed the wake-ups).
const PairedTicksMaxClients = 16

// pairState is the loop's state of ticking in pairs (loop only).
type pairState struct {
	wakeAt int32 // the tick whose start the loop's timer waits for; 0 when not ticking
	// held is a queued packet that arrived after the start of the tick
	// being simulated, handled before the next (drainRxBefore).
	held *rxPacket
}

// pairTicks reports whether the game ticks in pairs now.
func (s *Server) pairTicks() bool {
	return s.cfg.Server.SnapshotRate != 50 && !s.rec.DemoRecording() &&
		(!s.sched.Aligned() || bits.OnesCount64(s.ingame.Load()) <= PairedTicksMaxClients)
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
