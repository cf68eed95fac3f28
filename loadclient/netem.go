package loadclient

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"twserver/netproto"
)

// Bounds of the network impairments a load client injects into its own
// traffic (twload -loss, -delay, -jitter, -reorder, -dup, -blackout).
const (
	// MaxNetDelay bounds Delay+Jitter of one direction: a datagram is never
	// held longer than MaxNetDelay+ReorderHold.
	MaxNetDelay = 2 * time.Second
	// MaxBlackout bounds the length of a blackout.
	MaxBlackout = time.Minute
	// ReorderHold is the extra time a reordered datagram is held beyond its
	// delay: more than a snapshot interval (40 ms at 25/s) and two input
	// intervals, so the datagrams sent after it overtake it.
	ReorderHold = 50 * time.Millisecond
	// MaxHeld bounds the datagrams held (delayed) per direction and client;
	// one more is dropped and counted as overflow. At 50 inputs/s and 25
	// snapshots/s plus a map download window this covers delays of about
	// a second; beyond that the overflow counter says so.
	MaxHeld = 256
	// heldSlot is the size of one held datagram's buffer: larger datagrams
	// are invalid (netproto.MaxPacketSize) and pass without impairment.
	heldSlot = netproto.MaxPacketSize
)

// Impair is the impairment of one direction of a client's traffic. Each
// datagram is dropped with probability Loss; a kept one is sent twice with
// probability Dup (each copy with its own delay), and is delayed by Delay
// plus a uniform random -Jitter..+Jitter (at least 0). Jitter keeps the
// order, as a queue on the path would: a datagram never leaves before the
// one offered before it. With probability Reorder a datagram is instead held
// ReorderHold longer than its delay, and the datagrams after it overtake it. The random draws come from a generator seeded
// with the run's seed and the client's index, so a run is repeatable up to
// the order the datagrams happen to come in.
type Impair struct {
	Loss    float64       // share of datagrams dropped, 0..1
	Delay   time.Duration // one-way delay added to every datagram
	Jitter  time.Duration // the delay varies uniformly by ±Jitter
	Reorder float64       // share of datagrams held ReorderHold longer, 0..1
	Dup     float64       // share of datagrams sent twice, 0..1
}

// Active reports whether the impairment changes anything.
func (m Impair) Active() bool {
	return m.Loss > 0 || m.Delay > 0 || m.Jitter > 0 || m.Reorder > 0 || m.Dup > 0
}

// Validate checks the bounds.
func (m Impair) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"loss", m.Loss}, {"reorder", m.Reorder}, {"dup", m.Dup}} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("%s must be 0..100%%", p.name)
		}
	}
	if m.Delay < 0 || m.Jitter < 0 || m.Delay+m.Jitter > MaxNetDelay {
		return fmt.Errorf("delay and jitter must be >= 0 and together at most %v", MaxNetDelay)
	}
	return nil
}

// String renders the impairment in the syntax ParseImpair reads.
func (m Impair) String() string {
	return fmt.Sprintf("loss=%s,delay=%v,jitter=%v,reorder=%s,dup=%s",
		pct(m.Loss), m.Delay, m.Jitter, pct(m.Reorder), pct(m.Dup))
}

func pct(p float64) string { return strconv.FormatFloat(p*100, 'f', -1, 64) + "%" }

// ParsePercent reads "5%" (or the fraction "0.05") as 0.05.
func ParsePercent(s string) (float64, error) {
	var v float64
	var err error
	if t, ok := strings.CutSuffix(s, "%"); ok {
		v, err = strconv.ParseFloat(t, 64)
		v /= 100
	} else {
		v, err = strconv.ParseFloat(s, 64)
	}
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q is not a share 0%%..100%% (e.g. 5%% or 0.05)", s)
	}
	return v, nil
}

// ParseImpair applies a comma-separated list of key=value settings to m:
// loss, reorder, dup take a share (5% or 0.05), delay and jitter a
// duration (40ms). Keys not named keep their value.
func ParseImpair(m Impair, spec string) (Impair, error) {
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return m, fmt.Errorf("%q: want key=value", kv)
		}
		var err error
		switch k {
		case "loss":
			m.Loss, err = ParsePercent(v)
		case "reorder":
			m.Reorder, err = ParsePercent(v)
		case "dup":
			m.Dup, err = ParsePercent(v)
		case "delay":
			m.Delay, err = time.ParseDuration(v)
		case "jitter":
			m.Jitter, err = time.ParseDuration(v)
		default:
			return m, fmt.Errorf("unknown key %q (loss, delay, jitter, reorder, dup)", k)
		}
		if err != nil {
			return m, fmt.Errorf("%s: %w", k, err)
		}
	}
	return m, m.Validate()
}

// Netem is the impairment of a run's traffic, per direction (Up: client to
// server, Down: server to client), and an optional blackout: from
// BlackoutAt after the start of the run, for Blackout, every datagram in
// either direction is dropped (also ones held for a delay that fall due in
// it).
type Netem struct {
	Up, Down   Impair
	BlackoutAt time.Duration
	Blackout   time.Duration
	// Phases impair spans of the run (a scenario's loss and blackout
	// phases): from From to To after the start, a phase's Up and Down
	// replace the ones above, and a Blackout phase drops every datagram.
	// At most MaxNetemPhases; the first phase covering a time wins.
	Phases []NetemPhase
}

// MaxNetemPhases bounds Netem.Phases.
const MaxNetemPhases = 64

// NetemPhase is the impairment of one span of a run (see Netem.Phases).
type NetemPhase struct {
	From, To time.Duration
	Up, Down Impair
	Blackout bool
}

// Active reports whether anything is impaired.
func (n *Netem) Active() bool {
	return n != nil && (n.Up.Active() || n.Down.Active() || n.Blackout > 0 || len(n.Phases) > 0)
}

// Validate checks the bounds.
func (n *Netem) Validate() error {
	if err := n.Up.Validate(); err != nil {
		return fmt.Errorf("up: %w", err)
	}
	if err := n.Down.Validate(); err != nil {
		return fmt.Errorf("down: %w", err)
	}
	if n.Blackout < 0 || n.Blackout > MaxBlackout || n.BlackoutAt < 0 {
		return fmt.Errorf("blackout must be 0..%v, starting at >= 0", MaxBlackout)
	}
	if len(n.Phases) > MaxNetemPhases {
		return fmt.Errorf("at most %d impairment phases", MaxNetemPhases)
	}
	for i, p := range n.Phases {
		switch {
		case p.From < 0 || p.To <= p.From:
			return fmt.Errorf("impairment phase %d: its span %v..%v is empty", i+1, p.From, p.To)
		case p.Blackout && p.To-p.From > MaxBlackout:
			return fmt.Errorf("impairment phase %d: a blackout lasts at most %v", i+1, MaxBlackout)
		}
		if err := p.Up.Validate(); err != nil {
			return fmt.Errorf("impairment phase %d up: %w", i+1, err)
		}
		if err := p.Down.Validate(); err != nil {
			return fmt.Errorf("impairment phase %d down: %w", i+1, err)
		}
	}
	return nil
}

// String describes the impairment.
func (n *Netem) String() string {
	if !n.Active() {
		return ""
	}
	s := "up " + n.Up.String() + "; down " + n.Down.String()
	if n.Blackout > 0 {
		s += fmt.Sprintf("; blackout %v@%v", n.Blackout, n.BlackoutAt)
	}
	for _, p := range n.Phases {
		if p.Blackout {
			s += fmt.Sprintf("; %v..%v blackout", p.From, p.To)
		} else {
			s += fmt.Sprintf("; %v..%v up %v; down %v", p.From, p.To, p.Up, p.Down)
		}
	}
	return s
}

// ParseBlackout reads "2s@30s": 2 s without any datagram, starting 30 s
// into the run.
func ParseBlackout(s string) (length, at time.Duration, err error) {
	l, a, ok := strings.Cut(s, "@")
	if !ok {
		return 0, 0, fmt.Errorf("blackout %q: want LENGTH@START, e.g. 2s@30s", s)
	}
	if length, err = time.ParseDuration(l); err == nil {
		at, err = time.ParseDuration(a)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("blackout %q: %w", s, err)
	}
	if length <= 0 || length > MaxBlackout || at < 0 {
		return 0, 0, fmt.Errorf("blackout %q: length must be 0..%v, start >= 0", s, MaxBlackout)
	}
	return length, at, nil
}

// LinkStats counts what one direction's impairment did.
type LinkStats struct {
	Datagrams  int64 `json:"datagrams"`  // offered to the impairment
	Dropped    int64 `json:"dropped"`    // lost at random (Loss)
	Blackout   int64 `json:"blackout"`   // dropped in the blackout
	Delayed    int64 `json:"delayed"`    // held for a delay (copies included)
	Reordered  int64 `json:"reordered"`  // held ReorderHold longer
	Duplicated int64 `json:"duplicated"` // sent twice
	Overflow   int64 `json:"overflow"`   // dropped: MaxHeld already held
}

func (s *LinkStats) add(o *LinkStats) {
	s.Datagrams += o.Datagrams
	s.Dropped += o.Dropped
	s.Blackout += o.Blackout
	s.Delayed += o.Delayed
	s.Reordered += o.Reordered
	s.Duplicated += o.Duplicated
	s.Overflow += o.Overflow
}

// heldDgram is one datagram held for a delay.
type heldDgram struct {
	due  time.Duration // run time it goes out
	seq  uint64        // order of arrival, for equal due times
	slot int           // index of its buffer
	n    int
}

// link impairs one direction of one client. It is driven by the client's
// callers under the client's lock: admit for every datagram, release from
// the driver's wake-ups (every phaseDuration). Times are run times (since
// the start of the run). It allocates only in newLink.
type link struct {
	imp       Impair
	rng       rand.PCG
	blackFrom time.Duration
	blackTo   time.Duration
	phases    []NetemPhase // Netem.Phases (shared, read only)
	down      bool         // the server-to-client direction (the phases' Down)

	held  [MaxHeld]heldDgram
	nHeld int
	free  [MaxHeld]int // free slot indices, a stack
	nFree int
	seq   uint64
	last  time.Duration // due time of the last datagram held in order
	bufs  []byte        // MaxHeld slots of heldSlot bytes

	stats LinkStats
}

// newLink returns the impairment of one direction. seed and stream select
// its random sequence.
func newLink(imp Impair, n *Netem, seed, stream uint64) *link {
	l := &link{imp: imp, blackFrom: n.BlackoutAt, blackTo: n.BlackoutAt + n.Blackout, phases: n.Phases, down: stream == 2}
	l.rng.Seed(seed, stream)
	holds := imp.holds()
	for _, p := range n.Phases {
		holds = holds || p.Up.holds() || p.Down.holds()
	}
	if holds {
		l.bufs = make([]byte, MaxHeld*heldSlot)
		for i := range MaxHeld {
			l.free[i] = MaxHeld - 1 - i
		}
		l.nFree = MaxHeld
	}
	return l
}

// chance returns true with probability p.
func (l *link) chance(p float64) bool {
	if p <= 0 {
		return false
	}
	return float64(l.rng.Uint64()>>11)/(1<<53) < p
}

// holds reports whether the impairment holds datagrams back (needs buffers).
func (m Impair) holds() bool { return m.Delay > 0 || m.Jitter > 0 || m.Reorder > 0 }

// at returns the impairment at run time t and whether t is in a blackout.
func (l *link) at(t time.Duration) (Impair, bool) {
	if t >= l.blackFrom && t < l.blackTo {
		return l.imp, true
	}
	for i := range l.phases {
		if p := &l.phases[i]; t >= p.From && t < p.To {
			if l.down {
				return p.Down, p.Blackout
			}
			return p.Up, p.Blackout
		}
	}
	return l.imp, false
}

func (l *link) inBlackout(t time.Duration) bool {
	_, b := l.at(t)
	return b
}

// admit takes one datagram at run time now: it is dropped, passed to out at
// once, or held (copied) for release.
func (l *link) admit(now time.Duration, b []byte, out func([]byte)) {
	l.stats.Datagrams++
	imp, black := l.at(now)
	if black {
		l.stats.Blackout++
		return
	}
	if l.chance(imp.Loss) {
		l.stats.Dropped++
		return
	}
	copies := 1
	if l.chance(imp.Dup) {
		l.stats.Duplicated++
		copies = 2
	}
	for range copies {
		d := imp.Delay
		if imp.Jitter > 0 {
			d += time.Duration(l.rng.Uint64()%uint64(2*imp.Jitter+1)) - imp.Jitter
		}
		due := now + d
		if l.chance(imp.Reorder) {
			l.stats.Reordered++
			due += ReorderHold
		} else {
			due = max(due, l.last) // jitter keeps the order
			l.last = due
		}
		d = due - now
		if d <= 0 || len(b) > heldSlot || l.bufs == nil {
			out(b)
			continue
		}
		if l.nFree == 0 {
			l.stats.Overflow++
			continue
		}
		l.nFree--
		slot := l.free[l.nFree]
		n := copy(l.bufs[slot*heldSlot:(slot+1)*heldSlot], b)
		l.seq++
		l.held[l.nHeld] = heldDgram{due: due, seq: l.seq, slot: slot, n: n}
		l.nHeld++
		l.stats.Delayed++
	}
}

// release passes every held datagram due by now to out, in the order of
// their due times (ties in arrival order); those due in the blackout are
// dropped.
func (l *link) release(now time.Duration, out func([]byte)) {
	for l.nHeld > 0 {
		best := -1
		for i := range l.nHeld {
			h := &l.held[i]
			if h.due <= now && (best < 0 || h.due < l.held[best].due || h.due == l.held[best].due && h.seq < l.held[best].seq) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		h := l.held[best]
		l.nHeld--
		l.held[best] = l.held[l.nHeld]
		if l.inBlackout(h.due) {
			l.stats.Blackout++
		} else {
			out(l.bufs[h.slot*heldSlot : h.slot*heldSlot+h.n])
		}
		l.free[l.nFree] = h.slot
		l.nFree++
	}
}
