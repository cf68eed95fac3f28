package loadclient

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"twserver/netproto"
)

// HoldStage is where a slot-holding client stalls on its way into the game.
type HoldStage uint8

// Hold stages.
const (
	// HoldNone: a normal client.
	HoldNone HoldStage = iota
	// HoldConnect: the connection is accepted, INFO is never sent.
	HoldConnect
	// HoldMap: INFO sent, the map download started; after the first window
	// of chunks (or before the last chunk of a smaller map) no more are requested.
	HoldMap
	// HoldReady: map loaded, READY and start info sent, Sv_ReadyToEnter
	// received; ENTERGAME is never sent.
	HoldReady
)

var holdNames = [...]string{"none", "connect", "map", "ready"}

func (h HoldStage) String() string {
	if int(h) < len(holdNames) {
		return holdNames[h]
	}
	return fmt.Sprintf("HoldStage(%d)", h)
}

// ParseHoldStage parses connect, map or ready.
func ParseHoldStage(s string) (HoldStage, error) {
	for i, n := range holdNames[1:] {
		if s == n {
			return HoldStage(i + 1), nil
		}
	}
	return HoldNone, fmt.Errorf("unknown hold stage %q (connect, map, ready)", s)
}

// holdAt stalls the client when its hold stage is st and reports whether
// it did. A silent client's conn is muted from now on (no acks, no
// keep-alives); with HoldKeepAlive the conn keeps answering.
func (c *Client) holdAt(st HoldStage) bool {
	if c.cfg.Hold != st || c.held {
		return false
	}
	c.held, c.heldAt = true, c.now
	if c.cfg.HoldLive != nil {
		c.cfg.HoldLive.Held.Add(1)
	}
	c.stage = "held:" + st.String()
	if !c.cfg.HoldKeepAlive {
		c.holdSend = c.conn.send
		c.conn.send = func([]byte) {}
	}
	return true
}

// holdPingInterval is how often a kept-alive stalled client sends a
// non-vital PING: a server counts control KEEPALIVEs alone as no sign of
// life before the first data packet, and the PING also makes the server
// answer (and so acknowledge) now and then.
const holdPingInterval = 2 * time.Second

// holdKeepAlive sends the kept-alive stalled client's PING when due.
func (c *Client) holdKeepAlive(now time.Duration) {
	if !c.cfg.HoldKeepAlive || now-c.holdPing < holdPingInterval {
		return
	}
	c.holdPing = now
	c.pk.Reset()
	c.pk.AddMsgHeader(netproto.NetmsgPing, true)
	c.sendMsg(false)
}

// Bounds of a hold run (twload hold).
const (
	// MaxHoldClients bounds the stalling clients of one run (each is a
	// socket and a reader goroutine).
	MaxHoldClients = 1000
	// MaxHoldConnectRate bounds how fast a hold run opens connections
	// (per second): RampUp must be at least Clients / MaxHoldConnectRate.
	MaxHoldConnectRate = 500
	// MaxHoldDuration bounds the length of a hold run.
	MaxHoldDuration = 10 * time.Minute
)

// HoldConfig describes a slot-holding run: Clients connections from as many
// loopback source addresses (SourceBase, SourceBase+1, ...), started evenly
// over RampUp, each stalling at Stage, observed for Duration after the
// ramp-up.
type HoldConfig struct {
	Server     netip.AddrPort
	Clients    int
	Stage      HoldStage
	KeepAlive  bool
	SourceBase netip.Addr // default 127.10.0.1
	RampUp     time.Duration
	Duration   time.Duration
	Maps       *MapCache
	// Live, when set, counts the run's progress while it runs (for a
	// status line).
	Live *HoldLive
}

// HoldLive is a hold run's progress so far: connections started, those
// that reached their stage and those the server dropped or refused.
type HoldLive struct {
	Started, Held, Dropped atomic.Int64
}

// String renders the progress for a status line.
func (h *HoldLive) String() string {
	return fmt.Sprintf("started %d  held %d  dropped or refused %d", h.Started.Load(), h.Held.Load(), h.Dropped.Load())
}

// DefaultHoldSourceBase is the first source address of a hold run.
var DefaultHoldSourceBase = netip.AddrFrom4([4]byte{127, 10, 0, 1})

// Validate checks the configuration: loopback only, bounded size, rate and time.
func (hc *HoldConfig) Validate() error {
	if !hc.SourceBase.IsValid() {
		hc.SourceBase = DefaultHoldSourceBase
	}
	switch {
	case !hc.Server.IsValid() || !hc.Server.Addr().IsLoopback():
		return errors.New("hold: the server must be a loopback address")
	case !hc.SourceBase.Is4() || !hc.SourceBase.IsLoopback():
		return errors.New("hold: the source base must be an IPv4 loopback address (127.x.y.z)")
	case hc.Clients < 1 || hc.Clients > MaxHoldClients:
		return fmt.Errorf("hold: clients must be 1..%d", MaxHoldClients)
	case hc.Stage == HoldNone || hc.Stage > HoldReady:
		return errors.New("hold: a stage is needed (connect, map, ready)")
	case hc.Duration <= 0 || hc.RampUp+hc.Duration > MaxHoldDuration:
		return fmt.Errorf("hold: duration must be > 0 and ramp-up + duration at most %v", MaxHoldDuration)
	case hc.RampUp < time.Duration(hc.Clients)*time.Second/MaxHoldConnectRate:
		return fmt.Errorf("hold: ramp-up must be at least %v for %d clients (at most %d connections/s)",
			time.Duration(hc.Clients)*time.Second/MaxHoldConnectRate, hc.Clients, MaxHoldConnectRate)
	}
	last := hc.SourceBase.As4()
	n := uint32(last[1])<<16 | uint32(last[2])<<8 | uint32(last[3])
	if n+uint32(hc.Clients) > 1<<24 {
		return errors.New("hold: the source addresses leave 127.0.0.0/8")
	}
	return nil
}

// holdSource returns the source address of client i: SourceBase + i.
func (hc *HoldConfig) holdSource(i int) netip.Addr {
	b := hc.SourceBase.As4()
	n := uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) + uint32(i)
	return netip.AddrFrom4([4]byte{127, byte(n >> 16), byte(n >> 8), byte(n)})
}

// HoldResult is what happened to one stalling client.
type HoldResult struct {
	Index  int    `json:"index"`
	Source string `json:"source"`
	// Held: it reached its stage and stalled there; HeldAfterS is when
	// (seconds since its start).
	Held       bool    `json:"held"`
	HeldAfterS float64 `json:"held_after_s,omitempty"`
	// Dropped: the server closed or timed out the connection; DroppedAfterS
	// is how long after stalling (or after the start, when it never
	// stalled), Reason the server's CLOSE reason or the client's error.
	Dropped       bool    `json:"dropped"`
	DroppedAfterS float64 `json:"dropped_after_s,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	Stage         string  `json:"stage"`
}

// HoldSummary is the report of a hold run.
type HoldSummary struct {
	Server    string  `json:"server"`
	Stage     string  `json:"stage"`
	KeepAlive bool    `json:"keepalive"`
	Clients   int     `json:"clients"`
	RampUpS   float64 `json:"rampup_s"`
	DurationS float64 `json:"duration_s"`
	// Held counts clients that reached their stage; Dropped those the
	// server then dropped (by reason); StillHeld those holding at the end.
	Held          int            `json:"held"`
	NeverHeld     int            `json:"never_held"`
	Dropped       int            `json:"dropped"`
	StillHeld     int            `json:"still_held_at_end"`
	Reasons       map[string]int `json:"reasons"`
	DroppedAfterS Dist           `json:"dropped_after_s"` // over the dropped held clients
	PerClient     []HoldResult   `json:"per_client,omitempty"`
}

// RunHold runs a slot-holding test and reports what the server did with
// each stalled client.
func RunHold(ctx context.Context, hc HoldConfig) (HoldSummary, error) {
	if err := hc.Validate(); err != nil {
		return HoldSummary{}, err
	}
	if hc.Maps == nil {
		hc.Maps = &MapCache{}
	}
	runCtx, cancel := context.WithTimeout(ctx, hc.RampUp+hc.Duration)
	defer cancel()
	res := make([]HoldResult, hc.Clients)
	var mu sync.Mutex
	startAt := func(i int) time.Duration {
		if hc.Clients > 1 {
			return hc.RampUp * time.Duration(i) / time.Duration(hc.Clients-1)
		}
		return 0
	}
	newClient := func(i int) *Client {
		maps := hc.Maps
		if hc.Stage == HoldMap {
			maps = &MapCache{} // always download (and stall in it)
		}
		if hc.Live != nil {
			hc.Live.Started.Add(1)
		}
		return New(Config{
			Server: hc.Server, Source: hc.holdSource(i), Name: fmt.Sprintf("hold%d", i), HoldLive: hc.Live,
			Pattern: PatternIdle, Maps: maps, Index: i,
			EnterTimeout: hc.RampUp + hc.Duration + time.Minute, // the run's end stops them
			Hold:         hc.Stage, HoldKeepAlive: hc.KeepAlive,
		})
	}
	done := func(i int, st Stats) {
		r := HoldResult{Index: i, Source: st.Source, Held: st.Held, Stage: st.Stage}
		if st.Held {
			r.HeldAfterS = st.HeldAt.Seconds()
		}
		if st.Failure != "" {
			if hc.Live != nil {
				hc.Live.Dropped.Add(1)
			}
			r.Dropped = true
			r.Reason = strings.TrimPrefix(st.Failure, "closed by server: ")
			from := time.Duration(0)
			if st.Held {
				from = st.HeldAt
			}
			r.DroppedAfterS = (st.FailAt - from).Seconds()
		}
		mu.Lock()
		res[i] = r
		mu.Unlock()
	}
	drive(runCtx, hc.Clients, startAt, newClient, done, nil)
	return summarizeHold(hc, res), nil
}

func summarizeHold(hc HoldConfig, res []HoldResult) HoldSummary {
	s := HoldSummary{
		Server: hc.Server.String(), Stage: hc.Stage.String(), KeepAlive: hc.KeepAlive,
		Clients: len(res), RampUpS: hc.RampUp.Seconds(), DurationS: hc.Duration.Seconds(),
		Reasons: map[string]int{}, PerClient: res,
	}
	var after []float64
	for _, r := range res {
		if r.Held {
			s.Held++
		} else {
			s.NeverHeld++
		}
		switch {
		case r.Dropped:
			s.Dropped++
			s.Reasons[r.Reason]++
			if r.Held {
				after = append(after, r.DroppedAfterS)
			}
		case r.Held:
			s.StillHeld++
		}
	}
	s.DroppedAfterS = distOf(after)
	return s
}
