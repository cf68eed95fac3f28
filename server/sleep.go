package server

import (
	"time"

	"twserver/session"
	"twserver/tickclock"
)

// Sleeping through an empty game. A game with no client in any state whose
// world has nothing to do (world.IdleTicks: no player, projectiles gone,
// pickups respawned, flags home, no running timer) does not tick. Its loop
// waits for a datagram the reader hands it (a CONNECT), a console or rcon
// line, or its own heartbeat, SleepHeartbeat, which keeps the health stamp
// (TickTiming.LastTick) fresh. Each wake-up first brings the world to the
// wall clock (catchUp): the ticks the world would have spent doing nothing
// are skipped with SkipIdle, which is n calls of Tick to the bit, and any
// tick that does something (a pickup respawning, a match ending at its time
// limit) is simulated as it would have been. So a client joining after an
// hour sees the tick, match timer and pickups of a game that ticked the
// whole hour, and a teehistorian recording holds the same bytes (its
// TICK_SKIP covers the gap either way). What a sleeping game does not do:
// write server demo snapshots of the empty map, so a game recording a demo
// never sleeps.
//
// The reader keeps answering server-info and token requests while the
// game sleeps, and the socket stays with the reader: a paced reader
// (paced.go) would otherwise leave datagrams on the socket until the
// loop's next tick, which a sleeping loop does not have.

// Bounds of a sleeping game's wake-ups.
const (
	// SleepHeartbeat is how often a sleeping game's loop wakes without a
	// datagram or a console line: it refreshes the health stamp and
	// catches the world up. Before it sleeps the loop publishes when it
	// will wake (TickTiming.WakeBy), and /healthz and the Agones health
	// pings allow 2 s past that instant, as past each tick of a ticking
	// game; the stall alert of deploy/prometheus allows 10 s since the
	// last wake-up. The heartbeats of every game in the process fall on
	// the same instants (tickclock.HeartbeatIn), so the runtime wakes once for all
	// of them, not once per game.
	SleepHeartbeat = 5 * time.Second
)

// sleepState is the loop's state of sleeping (loop only).
type sleepState struct {
	asleep bool // the game sleeps: no tick is scheduled
}

// canSleep reports whether the game may stop ticking now: nobody in any
// state, no map change or shutdown pending, no demo being recorded, no one
// wanting live frames (live.go), and a world whose next tick does nothing.
func (s *Server) canSleep() bool {
	if s.pendingMap != "" || s.pendingShutdown || s.rec.DemoRecording() || s.live.hub.Wanted(time.Now()) {
		return false
	}
	for _, c := range s.clients {
		if c.state != session.Empty {
			return false
		}
	}
	return s.world.IdleTicks() > 0
}

// nextWake decides whether the game sleeps and returns how long the loop
// waits for its timer: until the start of the next tick (of the next
// snapshot tick while ticking in pairs, pairs.go), or while asleep until
// the next heartbeat instant (tickclock.HeartbeatIn).
func (s *Server) nextWake() time.Duration {
	was := s.sleep.asleep
	s.sleep.asleep = s.canSleep()
	s.pace.SetSleeping(s.sleep.asleep)
	if !s.sleep.asleep {
		if was {
			s.log.Debug().Int32("tick", s.world.CurrentTick()).Msg("game awake")
		}
		s.pairs.wakeAt = s.wakeTick()
		return max(time.Until(s.sched.TickStart(s.pairs.wakeAt)), 0)
	}
	s.pairs.wakeAt = 0
	if !was {
		s.gauges.Sleeps.Add(1)
		s.log.Debug().Int32("tick", s.world.CurrentTick()).Msg("game asleep: nobody here and nothing to do")
	}
	now := time.Now()
	d := tickclock.HeartbeatIn(now, SleepHeartbeat)
	s.ticks.WakeBy.Store(now.Add(d).UnixNano()) // first: a health check between the two stores sees the newer promise
	s.ticks.LastTick.Store(now.UnixNano())      // the loop is alive
	s.freeReader()
	return d
}

// freeReader hands a paced reader's state back to the reader goroutine for
// the sleep (loop only): the reader waits on the socket again, so every
// datagram is read (and a server-info request answered) as it comes. While
// the game sleeps the reader does not hand its state over (paceWait).
func (s *Server) freeReader() {
	s.pace.Release()
}

// catchUp brings a sleeping game's world to the wall clock, before the
// wake-up handles anything: every tick whose start has passed is skipped
// when the world is idle and simulated when it is not.
func (s *Server) catchUp() {
	if !s.sleep.asleep {
		return
	}
	now := time.Now()
	target := s.sched.TickAt(now)
	for s.world.CurrentTick() < target && s.pendingMap == "" {
		if k := min(s.world.IdleTicks(), target-s.world.CurrentTick()); k > 0 {
			s.world.SkipIdle(k)
			s.ticks.Slept.Add(uint64(k))
			// What the recording would have done after the last skipped
			// tick (after the others it records nothing in an empty
			// game): what comes next is recorded at this tick, behind
			// a TICK_SKIP over the gap.
			s.rec.AfterTick()
			continue
		}
		s.doTick() // nobody to send snapshots to; events and recordings as always
		s.ticks.Ticks.Add(1)
	}
	s.ticks.LastTick.Store(now.UnixNano())
}
