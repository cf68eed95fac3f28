package agones

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Timing and bounds of the Agent.
const (
	// DefaultHealthPeriod is Agones' default health.periodSeconds.
	DefaultHealthPeriod = 5 * time.Second
	// RetryMin and RetryMax bound the wait between attempts while the
	// sidecar is not reachable yet (it may start after the game server).
	RetryMin = 100 * time.Millisecond
	RetryMax = 2 * time.Second
	// PlayerQueueLen bounds player events waiting for the agent; more are dropped.
	PlayerQueueLen = 256
	// PortName is the GameServer port whose allocated host port is announced.
	PortName = "game"
)

// HealthInterval returns the ping interval for a health period: more often
// than the period (two fifths of it, 2 s for the default 5 s), so one late
// ping never counts as a miss.
func HealthInterval(period time.Duration) time.Duration {
	if period <= 0 {
		period = DefaultHealthPeriod
	}
	return period * 2 / 5
}

// AgentOptions configure an Agent.
type AgentOptions struct {
	// Client talks to the sidecar.
	Client *Client
	// HealthPeriod is the GameServer's health.periodSeconds (0: the
	// period the sidecar reports, else DefaultHealthPeriod).
	HealthPeriod time.Duration
	// Alive reports whether the game loop is ticking; health pings are sent
	// only while it is, so a stuck loop makes the GameServer Unhealthy.
	Alive func() bool
	// Capacity is the player capacity set for player tracking (max clients).
	Capacity int
	// Logger receives one line per change of the integration's state.
	Logger zerolog.Logger
}

// Agent runs the server's side of the Agones lifecycle in its own
// goroutine (Run). The game loop tells it what happens through Started,
// PlayerJoined and PlayerLeft, which never block.
type Agent struct {
	c        *Client
	period   time.Duration
	alive    func() bool
	capacity int
	log      zerolog.Logger

	started   chan struct{}
	startOnce sync.Once
	players   chan playerEvent
	hostPort  chan int

	// Dropped counts player events dropped because the queue was full.
	Dropped atomic.Uint64
	// Ready is set once the sidecar accepted Ready.
	Ready atomic.Bool
}

// StateAllocated is the GameServer state of a server given to a match.
const StateAllocated = "Allocated"

type playerEvent struct {
	join bool
	cid  int
	name string
}

// NewAgent returns an agent; nothing is sent before Run.
func NewAgent(o AgentOptions) *Agent {
	a := &Agent{c: o.Client, period: o.HealthPeriod, alive: o.Alive, capacity: o.Capacity, log: o.Logger,
		started: make(chan struct{}), players: make(chan playerEvent, PlayerQueueLen), hostPort: make(chan int, 1)}
	if a.alive == nil {
		a.alive = func() bool { return true }
	}
	return a
}

// Started tells the agent the game runs (socket bound, map loaded): it may
// mark the GameServer Ready. Safe to call more than once.
func (a *Agent) Started() { a.startOnce.Do(func() { close(a.started) }) }

// PlayerJoined reports a player entering the game (slot cid).
func (a *Agent) PlayerJoined(cid int, name string) {
	a.push(playerEvent{join: true, cid: cid, name: name})
}

// PlayerLeft reports the player of slot cid leaving.
func (a *Agent) PlayerLeft(cid int) { a.push(playerEvent{cid: cid}) }

func (a *Agent) push(e playerEvent) {
	select {
	case a.players <- e:
	default:
		a.Dropped.Add(1)
	}
}

// HostPort delivers the allocated host port of the game port once the
// sidecar told it (nothing if it never does).
func (a *Agent) HostPort() <-chan int { return a.hostPort }

// Run connects to the sidecar (retrying while it starts), reads the
// GameServer, marks it Ready once Started was called, pings Health every
// HealthInterval while the game loop ticks and tracks players, until ctx is
// done; then it calls Shutdown (bounded by RequestTimeout) and returns.
func (a *Agent) Run(ctx context.Context) {
	gs, ok := a.connect(ctx)
	if !ok {
		return
	}
	defer a.shutdown()
	period := a.period
	if period == 0 && gs.Spec.Health.PeriodSeconds > 0 {
		period = time.Duration(gs.Spec.Health.PeriodSeconds) * time.Second
	}
	if p := gs.HostPort(PortName); p > 0 {
		a.hostPort <- p
	}
	a.log.Info().Str("gameserver", gs.ObjectMeta.Name).Int("host_port", gs.HostPort(PortName)).
		Dur("health_interval_ms", HealthInterval(period)).Msg("connected to the Agones SDK sidecar")

	select {
	case <-a.started:
	case <-ctx.Done():
		return
	}
	if gs.Status.State == StateAllocated {
		// Players are in it (this process took over from the one before,
		// a live upgrade): Ready would hand it to the next allocation.
		a.log.Info().Msg("Agones GameServer is Allocated: it stays so (not marked Ready)")
	} else if !a.retry(ctx, "ready", a.c.Ready) {
		return
	} else {
		a.log.Info().Msg("Agones GameServer marked Ready")
	}
	a.Ready.Store(true)
	tracking := true
	if err := a.c.SetPlayerCapacity(ctx, a.capacity); err != nil {
		tracking = false
		a.log.Info().Err(err).Msg("Agones player tracking unavailable; player counts are not reported")
	}

	ids := map[int]string{}
	tick := time.NewTicker(HealthInterval(period))
	defer tick.Stop()
	healthy, paused := true, false
	a.ping(ctx, &healthy)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !a.alive() {
				if !paused {
					a.log.Warn().Msg("game loop stalled: Agones health pings paused")
				}
				paused = true
				continue
			}
			if paused {
				a.log.Info().Msg("game loop ticks again: Agones health pings resumed")
			}
			paused = false
			a.ping(ctx, &healthy)
		case e := <-a.players:
			if !tracking {
				continue
			}
			if e.join {
				id := strconv.Itoa(e.cid) + ":" + e.name
				ids[e.cid] = id
				if _, err := a.c.PlayerConnect(ctx, id); err != nil {
					a.log.Warn().Err(err).Int("cid", e.cid).Msg("Agones player connect failed")
				}
			} else if id, ok := ids[e.cid]; ok {
				delete(ids, e.cid)
				if _, err := a.c.PlayerDisconnect(ctx, id); err != nil {
					a.log.Warn().Err(err).Int("cid", e.cid).Msg("Agones player disconnect failed")
				}
			}
		}
	}
}

// connect reads the GameServer, retrying while the sidecar is not up.
func (a *Agent) connect(ctx context.Context) (*GameServer, bool) {
	var gs *GameServer
	ok := a.retry(ctx, "gameserver", func(ctx context.Context) error {
		var err error
		gs, err = a.c.GameServer(ctx)
		return err
	})
	return gs, ok
}

// retry calls f until it succeeds or ctx is done, waiting RetryMin,
// doubling up to RetryMax; the first failure is logged, not every one.
func (a *Agent) retry(ctx context.Context, what string, f func(context.Context) error) bool {
	wait := RetryMin
	for n := 0; ; n++ {
		err := f(ctx)
		if err == nil {
			if n > 0 {
				a.log.Info().Str("call", what).Int("attempts", n+1).Msg("Agones SDK sidecar answered")
			}
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		if n == 0 {
			a.log.Warn().Str("call", what).Err(err).Msg("Agones SDK sidecar not reachable yet; retrying")
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return false
		}
		wait = min(wait*2, RetryMax)
	}
}

// ping sends one health ping and logs changes of its outcome.
func (a *Agent) ping(ctx context.Context, healthy *bool) {
	err := a.c.Health(ctx)
	switch {
	case err != nil && *healthy && ctx.Err() == nil:
		a.log.Warn().Err(err).Msg("Agones health ping failed")
	case err == nil && !*healthy:
		a.log.Info().Msg("Agones health pings answered again")
	}
	*healthy = err == nil
}

// shutdown tells the sidecar the game server is done.
func (a *Agent) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), RequestTimeout)
	defer cancel()
	if err := a.c.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
		a.log.Warn().Err(err).Msg("Agones shutdown failed")
		return
	}
	a.log.Info().Msg("Agones GameServer shut down")
}
