package loadclient

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"
	"twserver/snap"
)

// MaxClients bounds the number of clients of one run (a server has at most
// 64 slots).
const MaxClients = 64

// RunConfig describes a load run.
type RunConfig struct {
	Server  netip.AddrPort
	Clients int           // 1..MaxClients
	RampUp  time.Duration // clients start evenly spread over this time
	// Duration is how long the run goes on after the ramp-up; every client
	// stops then.
	Duration time.Duration
	Pattern  Pattern
	Pace     Pace   // when clients send INPUTs (PaceReal, the zero value, or PaceTick)
	Seed     uint64 // client i uses Seed+i
	// Sources is the number of loopback source addresses to spread clients
	// over, starting at SourceBase (client i uses SourceBase + i mod Sources).
	// 0 lets the system choose the source address.
	Sources      int
	SourceBase   netip.Addr
	NamePrefix   string // names are NamePrefix + index
	Password     string
	Maps         *MapCache
	EnterTimeout time.Duration
	// Netem, when active, impairs every client's own traffic (see Netem).
	Netem *Netem
	// FreshMaps makes every client download the map even when another
	// client of the run (or MapCache.Dir) already has it.
	FreshMaps bool
	// Status, when set, is called about twice a second with live totals.
	Status func(Status)
	// StartAt, when not nil, is every client's start time after the start
	// of the run (a scenario's ramps; RampUp is then not used to spread
	// them) and LeaveAt the time each leaves (closes its connection
	// itself; 0: stays to the end). Both have Clients entries.
	StartAt, LeaveAt []time.Duration
	// Proto is the dialect of the clients: Proto07 (zero value), Proto06
	// (DDNet's 0.6 with the security token) or ProtoMix (even indices 0.7,
	// odd 0.6).
	Proto string
	// OnSnapshot, when set, is called with every snapshot client i
	// receives, on that client's goroutine (Config.OnSnapshot).
	OnSnapshot func(i int, tick int32, s *snap.Snapshot)
}

// Dialects of a run (RunConfig.Proto).
const (
	Proto07  = "07"
	Proto06  = "06"
	ProtoMix = "mix"
	// Proto06Vanilla: vanilla 0.6 clients (no token; the server's
	// anti-spoof handshake).
	Proto06Vanilla = "06vanilla"
)

// Is6 reports whether client i of the run speaks 0.6.
func (rc *RunConfig) Is6(i int) bool {
	return rc.Proto == Proto06 || rc.Proto == Proto06Vanilla || rc.Proto == ProtoMix && i%2 == 1
}

// Status is a live snapshot of a run for a status line.
type Status struct {
	Elapsed time.Duration
	// Total is how long the run lasts (ramp-up plus duration).
	Total     time.Duration
	Started   int
	InGame    int
	Failed    int
	Snapshots int64   // total so far
	SnapRate  float64 // snapshots per second per in-game client since the last status
	CRCErrors int64
	BytesIn   int64
	BytesOut  int64
}

// String renders the status as one line: time elapsed and left, clients
// in game of those started, snapshots per second per client, errors
// (failed clients and snapshots that failed their CRC) and traffic.
func (s Status) String() string {
	left := max(s.Total-s.Elapsed, 0)
	return fmt.Sprintf("%5.1fs (%.0fs left)  in game %d/%d  %.1f snaps/s/client  errors %d (failed %d, crc %d)  rx %.1f MB tx %.1f MB",
		s.Elapsed.Seconds(), left.Seconds(), s.InGame, s.Started, s.SnapRate, int64(s.Failed)+s.CRCErrors, s.Failed, s.CRCErrors,
		float64(s.BytesIn)/1e6, float64(s.BytesOut)/1e6)
}

// Add adds o's counts to s (the status of several runs at once); the
// snapshot rate becomes the mean over both runs' clients in game.
func (s *Status) Add(o Status) {
	if n := s.InGame + o.InGame; n > 0 {
		s.SnapRate = (s.SnapRate*float64(s.InGame) + o.SnapRate*float64(o.InGame)) / float64(n)
	}
	s.Elapsed, s.Total = max(s.Elapsed, o.Elapsed), max(s.Total, o.Total)
	s.Started += o.Started
	s.InGame += o.InGame
	s.Failed += o.Failed
	s.Snapshots += o.Snapshots
	s.CRCErrors += o.CRCErrors
	s.BytesIn += o.BytesIn
	s.BytesOut += o.BytesOut
}

// Validate checks the configuration.
func (rc *RunConfig) Validate() error {
	switch {
	case !rc.Server.IsValid():
		return errors.New("server address missing")
	case !rc.Server.Addr().IsLoopback():
		return fmt.Errorf("server address %s is not a loopback address: load runs stay on this machine", rc.Server.Addr())
	case rc.Clients < 1 || rc.Clients > MaxClients:
		return fmt.Errorf("clients must be 1..%d", MaxClients)
	case rc.RampUp < 0 || rc.Duration <= 0:
		return errors.New("ramp-up must be >= 0 and duration > 0")
	case rc.Sources < 0 || rc.Sources > 250:
		return errors.New("sources must be 0..250")
	case rc.Sources > 0 && !rc.SourceBase.Is4():
		return errors.New("source base must be an IPv4 address")
	case !rc.Server.Addr().Unmap().IsLoopback():
		return fmt.Errorf("server %v is not a loopback address: load clients only run against this machine", rc.Server)
	case rc.Sources > 0 && !rc.SourceBase.IsLoopback():
		return errors.New("source base must be a loopback address")
	case rc.StartAt != nil && len(rc.StartAt) != rc.Clients || rc.LeaveAt != nil && len(rc.LeaveAt) != rc.Clients:
		return errors.New("StartAt and LeaveAt need one entry per client")
	case rc.Proto != "" && rc.Proto != Proto07 && rc.Proto != Proto06 && rc.Proto != ProtoMix && rc.Proto != Proto06Vanilla:
		return errors.New("proto must be 07, 06, 06vanilla or mix")
	}
	if rc.Netem != nil {
		return rc.Netem.Validate()
	}
	return nil
}

// SourceAddr returns the source address of client i.
func (rc *RunConfig) SourceAddr(i int) netip.Addr {
	if rc.Sources == 0 {
		return netip.Addr{}
	}
	a := rc.SourceBase
	for range i % rc.Sources {
		a = a.Next()
	}
	return a
}

// Run runs the load test and returns its summary. It stops early when ctx
// is cancelled (clients disconnect cleanly and are reported as they are).
func Run(ctx context.Context, rc RunConfig) (Summary, error) {
	if err := rc.Validate(); err != nil {
		return Summary{}, err
	}
	if rc.Maps == nil {
		rc.Maps = &MapCache{}
	}
	if rc.NamePrefix == "" {
		rc.NamePrefix = "twload"
	}
	start := time.Now()
	end := start.Add(rc.RampUp + rc.Duration)
	runCtx, cancel := context.WithDeadline(ctx, end)
	defer cancel()

	clients := make([]*Client, rc.Clients)
	stats := make([]Stats, rc.Clients)
	var mu sync.Mutex
	started, done := 0, make([]bool, rc.Clients)
	ticks := new(TickSet)

	stopStatus := make(chan struct{})
	statusDone := make(chan struct{})
	go func() {
		defer close(statusDone)
		if rc.Status == nil {
			return
		}
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		var prevSnaps int64
		prevAt := time.Now()
		for {
			select {
			case <-stopStatus:
				return
			case <-t.C:
			}
			st := Status{Elapsed: time.Since(start), Total: rc.RampUp + rc.Duration}
			mu.Lock()
			st.Started = started
			for i, c := range clients[:started] {
				if done[i] {
					if stats[i].Failure != "" {
						st.Failed++
					}
				} else if c.Entered() {
					st.InGame++
				}
				l := c.Live()
				st.Snapshots += l.Snapshots.Load()
				st.CRCErrors += l.CRCErrors.Load()
				st.BytesIn += l.BytesIn.Load()
				st.BytesOut += l.BytesOut.Load()
			}
			mu.Unlock()
			if dt := time.Since(prevAt).Seconds(); dt > 0 && st.InGame > 0 {
				st.SnapRate = float64(st.Snapshots-prevSnaps) / dt / float64(st.InGame)
			}
			prevSnaps, prevAt = st.Snapshots, time.Now()
			rc.Status(st)
		}
	}()

	startAt := func(i int) time.Duration {
		if rc.StartAt != nil {
			return rc.StartAt[i]
		}
		if rc.Clients > 1 && rc.RampUp > 0 {
			return rc.RampUp * time.Duration(i) / time.Duration(rc.Clients-1)
		}
		return 0
	}
	newClient := func(i int) *Client {
		maps := rc.Maps
		if rc.FreshMaps {
			maps = &MapCache{}
		}
		var onSnap func(int32, *snap.Snapshot)
		if f := rc.OnSnapshot; f != nil {
			onSnap = func(tick int32, s *snap.Snapshot) { f(i, tick, s) }
		}
		c := New(Config{
			OnSnapshot:   onSnap,
			Server:       rc.Server,
			Source:       rc.SourceAddr(i),
			Name:         fmt.Sprintf("%s%d", rc.NamePrefix, i),
			Password:     rc.Password,
			Pattern:      rc.Pattern,
			Pace:         rc.Pace,
			Seed:         rc.Seed + uint64(i),
			Maps:         maps,
			EnterTimeout: rc.EnterTimeout,
			Index:        i,
			Ticks:        ticks,
			Netem:        rc.Netem,
			RunStart:     start,
			Proto6:       rc.Is6(i),
			Vanilla6:     rc.Proto == Proto06Vanilla,
		})

		mu.Lock()
		clients[i] = c
		started = i + 1
		mu.Unlock()
		return c
	}
	finished := func(i int, st Stats) {
		mu.Lock()
		stats[i], done[i] = st, true
		mu.Unlock()
	}
	var leaveAt func(int) time.Duration
	if rc.LeaveAt != nil {
		leaveAt = func(i int) time.Duration { return rc.LeaveAt[i] }
	}
	drive(runCtx, rc.Clients, startAt, newClient, finished, leaveAt)
	close(stopStatus)
	<-statusDone

	s := Summarize(stats)
	s.Server = rc.Server.String()
	s.Pattern = rc.Pattern.String()
	s.Seed = rc.Seed
	s.RampUpS = rc.RampUp.Seconds()
	s.DurationS = rc.Duration.Seconds()
	s.Sources = rc.Sources
	s.Netem = rc.Netem.String()
	s.Proto = rc.Proto
	if s.Proto == "" {
		s.Proto = Proto07
	}
	s.PerClient = stats
	s.addCoverage(ticks)
	return s, nil
}
