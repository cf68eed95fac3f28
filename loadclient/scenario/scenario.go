// Package scenario reads a load scenario (a TOML file) and turns it into
// the runs of package loadclient: a sequence of phases, each with a length
// and one job (clients ramping in, a steady stretch, a blackout, a loss
// and delay profile, a flood burst, connections stalling in the pre-game,
// clients leaving), so a reliability run is one file and one command
// (`twload -scenario FILE`).
//
// Parsing refuses unknown keys and keys that do not belong to a phase's
// kind, naming the line; every count, rate and length is bounded (Max*
// below and loadclient's own bounds). Parse never panics on any input
// (FuzzParse).
package scenario

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"twserver/loadclient"
)

// Bounds of a scenario.
const (
	// MaxFileSize bounds the scenario file.
	MaxFileSize = 64 << 10
	// MaxPhases bounds the phases of a scenario.
	MaxPhases = 32
	// MaxTotal bounds the length of a whole scenario (an hour's soak fits).
	MaxTotal = 2 * time.Hour
	// MaxText bounds the name and description.
	MaxText = 1024
)

// Kind is what a phase does.
type Kind string

// The kinds of phases.
const (
	// Ramp starts Clients more clients, spread evenly over the phase.
	Ramp Kind = "ramp"
	// Steady changes nothing: the clients play on.
	Steady Kind = "steady"
	// Blackout: no datagram in or out of any client for the phase (at most
	// loadclient.MaxBlackout).
	Blackout Kind = "blackout"
	// Loss impairs every client's traffic for the phase (loss, delay,
	// jitter, reorder, dup, and per direction up/down as twload's flags).
	Loss Kind = "loss"
	// Flood sends a bounded burst of unverified datagrams at the server for
	// the phase (loadclient.RunFlood), while the clients play.
	Flood Kind = "flood"
	// Hold opens Connections that stall at Stage on their way into the
	// game (loadclient.RunHold), watched until the end of the phase.
	Hold Kind = "hold"
	// Leave: Clients of the clients in game (the last ones started) close
	// their connections at the start of the phase; the rest play on.
	Leave Kind = "leave"
)

// keys lists, per kind, the keys a phase of that kind takes besides kind,
// name and duration.
var keys = map[Kind][]string{
	Ramp:     {"clients"},
	Steady:   nil,
	Blackout: nil,
	Loss:     {"loss", "delay", "jitter", "reorder", "dup", "up", "down"},
	Flood:    {"rate", "sources", "senders", "kinds"},
	Hold:     {"connections", "stage", "keepalive", "lasts"},
	Leave:    {"clients"},
}

// topKeys are the keys of the file outside its phases.
var topKeys = []string{"name", "description", "seed", "pattern", "pace", "proto", "fresh_maps", "enter_timeout", "sources", "network", "phase"}

// Scenario is a parsed scenario file.
type Scenario struct {
	Name        string
	Description string
	// Seed, Pattern, Pace, Proto, FreshMaps and EnterTimeout are the
	// clients' (twload's -seed, -pattern, -pace, -proto, -fresh-maps,
	// -enter-timeout).
	Seed         uint64
	Pattern      loadclient.Pattern
	Pace         loadclient.Pace
	Proto        string
	FreshMaps    bool
	EnterTimeout time.Duration
	// Sources is twload's -sources (-1: one loopback address per client).
	Sources int
	// Up and Down impair the clients' traffic for the whole run (the
	// [network] table, with a loss phase's keys); loss and blackout
	// phases replace them for their span.
	Up, Down loadclient.Impair
	Phases   []Phase
}

// Phase is one phase of a scenario.
type Phase struct {
	Name     string
	Kind     Kind
	Duration time.Duration
	// Line is the line of the phase's [[phase]] header (0 when unknown).
	Line int
	// Clients: the clients a ramp starts or a leave lets go.
	Clients int
	// Up and Down: a loss phase's impairment.
	Up, Down loadclient.Impair
	// A flood phase: datagrams per second, source addresses, sending
	// goroutines and the mix of kinds.
	Rate, FloodSources, Senders int
	Weights                     [len(loadclient.FloodKinds)]int
	// A hold phase: connections, their stage, kept alive or silent, and
	// how long they are held from the phase's start (Lasts, at least the
	// phase's Duration: the phases after it run meanwhile).
	Connections int
	Stage       loadclient.HoldStage
	KeepAlive   bool
	Lasts       time.Duration
}

// Label is the phase's name, or its kind when it has none.
func (p *Phase) Label() string {
	if p.Name != "" {
		return p.Name
	}
	return string(p.Kind)
}

// Total is the length of the scenario: the sum of its phases.
func (s *Scenario) Total() time.Duration {
	var t time.Duration
	for _, p := range s.Phases {
		t += p.Duration
	}
	return t
}

// Start returns when phase i starts, after the start of the run.
func (s *Scenario) Start(i int) time.Duration {
	var t time.Duration
	for _, p := range s.Phases[:i] {
		t += p.Duration
	}
	return t
}

// Clients is the number of clients the scenario's ramps start.
func (s *Scenario) Clients() int {
	n := 0
	for _, p := range s.Phases {
		if p.Kind == Ramp {
			n += p.Clients
		}
	}
	return n
}

// lines finds the line of a key in the file: before the first [[phase]]
// header for the top-level keys, after the i-th one for a phase's.
type lines struct {
	text    []string
	headers []int // index into text of each [[phase]] header
}

func newLines(data []byte) *lines {
	l := &lines{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxFileSize+1)
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(s, "[[") && strings.Trim(strings.TrimSpace(strings.Trim(s, "[] \t")), `"`) == "phase" {
			l.headers = append(l.headers, len(l.text))
		}
		l.text = append(l.text, s)
	}
	return l
}

// of returns the 1-based line of key in phase i (-1: the top level), or
// that of the phase's header when the key is not found, or 0.
func (l *lines) of(phase int, key string) int {
	from, to := 0, len(l.text)
	if len(l.headers) > 0 {
		to = l.headers[0]
	}
	if phase >= 0 {
		if phase >= len(l.headers) {
			return 0
		}
		from, to = l.headers[phase], len(l.text)
		if phase+1 < len(l.headers) {
			to = l.headers[phase+1]
		}
	}
	for i := from; i < to; i++ {
		k, _, ok := strings.Cut(l.text[i], "=")
		if ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1
		}
	}
	if phase >= 0 {
		return from + 1
	}
	return 0
}

// table reads typed values out of one decoded TOML table, remembering
// which keys were read, and words errors with the key's line.
type table struct {
	m     map[string]any
	where string // "" or "phase 3 (loss): "
	line  func(key string) int
}

func (t *table) errf(key, format string, a ...any) error {
	msg := t.where + fmt.Sprintf(format, a...)
	if n := t.line(key); n > 0 {
		return fmt.Errorf("line %d: %s", n, msg)
	}
	return errors.New(msg)
}

func (t *table) str(key string) (string, bool, error) {
	v, ok := t.m[key]
	if !ok {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", true, t.errf(key, "%s: want a string, not %s", key, typeName(v))
	}
	if len(s) > MaxText {
		return "", true, t.errf(key, "%s: longer than %d bytes", key, MaxText)
	}
	return s, true, nil
}

func (t *table) integer(key string, lo, hi int64) (int64, bool, error) {
	v, ok := t.m[key]
	if !ok {
		return 0, false, nil
	}
	n, isInt := v.(int64)
	if !isInt {
		return 0, true, t.errf(key, "%s: want an integer, not %s", key, typeName(v))
	}
	if n < lo || n > hi {
		return 0, true, t.errf(key, "%s: %d is outside %d..%d", key, n, lo, hi)
	}
	return n, true, nil
}

// required reads an integer key that must be there.
func (t *table) required(key string, lo, hi int64, what string) (int, error) {
	n, ok, err := t.integer(key, lo, hi)
	if err == nil && !ok {
		err = t.errf(key, "no %s (%s, %d..%d)", key, what, lo, hi)
	}
	return int(n), err
}

func (t *table) boolean(key string) (bool, error) {
	v, ok := t.m[key]
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, t.errf(key, "%s: want true or false, not %s", key, typeName(v))
	}
	return b, nil
}

func (t *table) duration(key string, max time.Duration) (time.Duration, bool, error) {
	s, ok, err := t.str(key)
	if !ok || err != nil {
		return 0, ok, err
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, true, t.errf(key, "%s: %q is not a duration like \"30s\" or \"2m\"", key, s)
	}
	if d <= 0 || d > max {
		return 0, true, t.errf(key, "%s: %v is outside (0, %v]", key, d, max)
	}
	return d, true, nil
}

// percent reads a share: a string like "5%" or a number like 0.05.
func (t *table) percent(key string) (float64, bool, error) {
	v, ok := t.m[key]
	if !ok {
		return 0, false, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = fmt.Sprint(x)
	case int64:
		s = fmt.Sprint(x)
	default:
		return 0, true, t.errf(key, "%s: want a share like \"5%%\" or 0.05, not %s", key, typeName(v))
	}
	p, err := loadclient.ParsePercent(s)
	if err != nil {
		return 0, true, t.errf(key, "%s: %v", key, err)
	}
	return p, true, nil
}

// unknown returns an error for the first key (in sorted order) not in allowed.
func (t *table) unknown(allowed []string, hint string) error {
	var bad []string
	for k := range t.m {
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		if !found {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return t.errf(bad[0], "unknown key %q (%s)", bad[0], hint)
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// Parse reads a scenario file. Errors name the line and the key.
func Parse(data []byte) (*Scenario, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("scenario file larger than %d bytes", MaxFileSize)
	}
	var raw map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return nil, err
	}
	ln := newLines(data)
	top := &table{m: raw, line: func(k string) int { return ln.of(-1, k) }}
	if err := top.unknown(topKeys, "a scenario takes "+strings.Join(topKeys, ", ")); err != nil {
		return nil, err
	}
	s := &Scenario{Pattern: loadclient.PatternRandom, Proto: loadclient.Proto07, Seed: 1,
		EnterTimeout: loadclient.DefaultEnterTimeout, Sources: -1}
	var err error
	if s.Name, _, err = top.str("name"); err != nil {
		return nil, err
	}
	if s.Description, _, err = top.str("description"); err != nil {
		return nil, err
	}
	if n, ok, err := top.integer("seed", 0, math.MaxInt64); err != nil {
		return nil, err
	} else if ok {
		s.Seed = uint64(n)
	}
	if p, ok, err := top.str("pattern"); err != nil {
		return nil, err
	} else if ok {
		if s.Pattern, err = loadclient.ParsePattern(p); err != nil {
			return nil, top.errf("pattern", "pattern: %v", err)
		}
	}
	if p, ok, err := top.str("pace"); err != nil {
		return nil, err
	} else if ok {
		if s.Pace, err = loadclient.ParsePace(p); err != nil {
			return nil, top.errf("pace", "pace: %v", err)
		}
	}
	if p, ok, err := top.str("proto"); err != nil {
		return nil, err
	} else if ok {
		switch p {
		case loadclient.Proto07, loadclient.Proto06, loadclient.Proto06Vanilla, loadclient.ProtoMix:
			s.Proto = p
		default:
			return nil, top.errf("proto", "proto: %q is not 07, 06, 06vanilla or mix", p)
		}
	}
	if s.FreshMaps, err = top.boolean("fresh_maps"); err != nil {
		return nil, err
	}
	if d, ok, err := top.duration("enter_timeout", MaxTotal); err != nil {
		return nil, err
	} else if ok {
		s.EnterTimeout = d
	}
	if n, ok, err := top.integer("sources", -1, 250); err != nil {
		return nil, err
	} else if ok {
		s.Sources = int(n)
	}
	if v, present := raw["network"]; present {
		m, isTable := v.(map[string]any)
		if !isTable {
			return nil, top.errf("network", "network: want a [network] table, not %s", typeName(v))
		}
		nt := &table{m: m, where: "[network]: ", line: top.line}
		if err := nt.unknown(keys[Loss], "[network] takes "+strings.Join(keys[Loss], ", ")); err != nil {
			return nil, err
		}
		var p Phase
		if err := parseLoss(nt, &p); err != nil {
			return nil, err
		}
		s.Up, s.Down = p.Up, p.Down
	}
	phases, ok := raw["phase"].([]map[string]any)
	if !ok {
		if _, present := raw["phase"]; present {
			return nil, top.errf("phase", "phase: want [[phase]] tables, not %s", typeName(raw["phase"]))
		}
		return nil, errors.New("no [[phase]]: a scenario needs at least a ramp phase")
	}
	if len(phases) > MaxPhases {
		return nil, fmt.Errorf("line %d: more than %d phases", ln.of(MaxPhases, ""), MaxPhases)
	}
	for i, m := range phases {
		p, err := parsePhase(i, m, ln)
		if err != nil {
			return nil, err
		}
		s.Phases = append(s.Phases, p)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// parsePhase reads phase i.
func parsePhase(i int, m map[string]any, ln *lines) (Phase, error) {
	t := &table{m: m, where: fmt.Sprintf("phase %d: ", i+1), line: func(k string) int { return ln.of(i, k) }}
	p := Phase{Line: ln.of(i, "")}
	k, ok, err := t.str("kind")
	if err != nil {
		return p, err
	}
	if !ok {
		return p, t.errf("kind", "no kind (ramp, steady, blackout, loss, flood, hold or leave)")
	}
	p.Kind = Kind(k)
	extra, known := keys[p.Kind]
	if !known {
		return p, t.errf("kind", "kind %q is not ramp, steady, blackout, loss, flood, hold or leave", k)
	}
	t.where = fmt.Sprintf("phase %d (%s): ", i+1, p.Kind)
	hint := "a " + k + " phase takes kind, name, duration"
	if len(extra) > 0 {
		hint += ", " + strings.Join(extra, ", ")
	}
	if err := t.unknown(append([]string{"kind", "name", "duration"}, extra...), hint); err != nil {
		return p, err
	}
	if p.Name, _, err = t.str("name"); err != nil {
		return p, err
	}
	if p.Duration, ok, err = t.duration("duration", MaxTotal); err != nil {
		return p, err
	} else if !ok {
		return p, t.errf("duration", "no duration (e.g. duration = \"30s\")")
	}
	switch p.Kind {
	case Ramp, Leave:
		if p.Clients, err = t.required("clients", 1, loadclient.MaxClients, "clients"); err != nil {
			return p, err
		}
	case Blackout:
		if p.Duration > loadclient.MaxBlackout {
			return p, t.errf("duration", "a blackout lasts at most %v", loadclient.MaxBlackout)
		}
	case Loss:
		return p, parseLoss(t, &p)
	case Flood:
		return p, parseFlood(t, &p)
	case Hold:
		return p, parseHold(t, &p)
	}
	return p, nil
}

// parseLoss reads a loss phase: both directions, then up and down on top.
func parseLoss(t *table, p *Phase) error {
	var both loadclient.Impair
	var err error
	for _, f := range []struct {
		key string
		to  *float64
	}{{"loss", &both.Loss}, {"reorder", &both.Reorder}, {"dup", &both.Dup}} {
		if *f.to, _, err = t.percent(f.key); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		to  *time.Duration
	}{{"delay", &both.Delay}, {"jitter", &both.Jitter}} {
		if *f.to, _, err = t.duration(f.key, loadclient.MaxNetDelay); err != nil {
			return err
		}
	}
	if err := both.Validate(); err != nil {
		return t.errf("loss", "%v", err)
	}
	for _, d := range []struct {
		key string
		to  *loadclient.Impair
	}{{"up", &p.Up}, {"down", &p.Down}} {
		spec, _, err := t.str(d.key)
		if err != nil {
			return err
		}
		if *d.to, err = loadclient.ParseImpair(both, spec); err != nil {
			return t.errf(d.key, "%s: %v", d.key, err)
		}
	}
	if !p.Up.Active() && !p.Down.Active() {
		return t.errf("loss", "impairs nothing: give loss, delay, jitter, reorder, dup, up or down")
	}
	return nil
}

// parseFlood reads a flood phase (loadclient.FloodConfig's bounds).
func parseFlood(t *table, p *Phase) error {
	if p.Duration > loadclient.MaxFloodDuration {
		return t.errf("duration", "a flood lasts at most %v", loadclient.MaxFloodDuration)
	}
	var err error
	if p.Rate, err = t.required("rate", 1, loadclient.MaxFloodRate, "datagrams per second"); err != nil {
		return err
	}
	p.FloodSources, p.Senders = 2000, 4
	if n, ok, err := t.integer("sources", 1, loadclient.MaxFloodSources); err != nil {
		return err
	} else if ok {
		p.FloodSources = int(n)
	}
	if n, ok, err := t.integer("senders", 1, 64); err != nil {
		return err
	} else if ok {
		p.Senders = int(n)
	}
	spec, _, err := t.str("kinds")
	if err != nil {
		return err
	}
	if p.Weights, err = loadclient.ParseFloodWeights(spec); err != nil {
		return t.errf("kinds", "kinds: %v", err)
	}
	return nil
}

// parseHold reads a hold phase: the connections start at the phase's
// start, at loadclient's highest connection rate, and are watched to its
// end.
func parseHold(t *table, p *Phase) error {
	var err error
	if p.Connections, err = t.required("connections", 1, loadclient.MaxHoldClients, "stalling connections"); err != nil {
		return err
	}
	st, ok, err := t.str("stage")
	if err != nil {
		return err
	}
	if !ok {
		return t.errf("stage", "no stage (connect, map or ready)")
	}
	if p.Stage, err = loadclient.ParseHoldStage(st); err != nil || p.Stage == loadclient.HoldNone {
		return t.errf("stage", "stage: %q is not connect, map or ready", st)
	}
	if p.KeepAlive, err = t.boolean("keepalive"); err != nil {
		return err
	}
	p.Lasts = p.Duration
	if d, ok, err := t.duration("lasts", loadclient.MaxHoldDuration); err != nil {
		return err
	} else if ok {
		if d < p.Duration {
			return t.errf("lasts", "lasts: %v is shorter than the phase (%v)", d, p.Duration)
		}
		p.Lasts = d
	}
	if r := holdRampUp(p.Connections); p.Lasts <= r || p.Lasts > loadclient.MaxHoldDuration {
		return t.errf("duration", "a hold of %d connections lasts more than their ramp-up %v and at most %v",
			p.Connections, r, loadclient.MaxHoldDuration)
	}
	return nil
}

// holdRampUp is the time n stalling connections take to start at
// loadclient's highest connection rate.
func holdRampUp(n int) time.Duration {
	return time.Duration(n) * time.Second / loadclient.MaxHoldConnectRate
}

// check validates the scenario as a whole: the total length, that the
// ramps start between 1 and loadclient.MaxClients clients before anything
// needs them, and that a leave never lets go more clients than are in.
func (s *Scenario) check() error {
	if len(s.Phases) == 0 {
		return errors.New("no [[phase]]: a scenario needs at least a ramp phase")
	}
	if s.Total() > MaxTotal {
		return fmt.Errorf("the phases last %v, more than %v", s.Total(), MaxTotal)
	}
	in, started := 0, 0
	for i, p := range s.Phases {
		switch p.Kind {
		case Ramp:
			started += p.Clients
			in += p.Clients
			if started > loadclient.MaxClients {
				return fmt.Errorf("line %d: phase %d (ramp): the ramps start %d clients, more than %d", p.Line, i+1, started, loadclient.MaxClients)
			}
		case Leave:
			if p.Clients > in {
				return fmt.Errorf("line %d: phase %d (leave): %d clients are to leave but only %d are in", p.Line, i+1, p.Clients, in)
			}
			in -= p.Clients
		}
	}
	if started == 0 {
		return errors.New("no ramp phase: a scenario needs clients")
	}
	for i, p := range s.Phases {
		if p.Kind == Hold && s.Start(i)+p.Lasts > s.Total() {
			return fmt.Errorf("line %d: phase %d (hold): lasts %v, past the end of the scenario", p.Line, i+1, p.Lasts)
		}
	}
	return nil
}

// Timed is a run that starts At after the start of the scenario.
type Timed[T any] struct {
	At     time.Duration
	Phase  int // index of its phase
	Config T
}

// Plan is a scenario turned into loadclient runs against one server.
type Plan struct {
	// Run is the clients' run: every client with its start and leave
	// times, the impairment of the loss and blackout phases. Its Sources
	// is the scenario's from 127.0.0.1 (-1: the caller decides).
	Run loadclient.RunConfig
	// Floods and Holds run beside the clients, each in its phase.
	Floods []Timed[loadclient.FloodConfig]
	Holds  []Timed[loadclient.HoldConfig]
}

// Plan turns the scenario into runs against server.
func (s *Scenario) Plan(server netip.AddrPort) Plan {
	n := s.Clients()
	pl := Plan{Run: loadclient.RunConfig{
		Server: server, Clients: n, Duration: s.Total(), Pattern: s.Pattern, Pace: s.Pace, Seed: s.Seed,
		Sources: s.Sources, SourceBase: netip.AddrFrom4([4]byte{127, 0, 0, 1}), Proto: s.Proto, FreshMaps: s.FreshMaps, EnterTimeout: s.EnterTimeout,
		StartAt: make([]time.Duration, 0, n), LeaveAt: make([]time.Duration, n),
	}}
	netem := &loadclient.Netem{Up: s.Up, Down: s.Down}
	var at time.Duration
	for i, p := range s.Phases {
		switch p.Kind {
		case Ramp:
			for j := range p.Clients {
				pl.Run.StartAt = append(pl.Run.StartAt, at+p.Duration*time.Duration(j)/time.Duration(p.Clients))
			}
		case Leave:
			// the last ones started that are still in
			left := 0
			for c := len(pl.Run.StartAt) - 1; c >= 0 && left < p.Clients; c-- {
				if pl.Run.LeaveAt[c] == 0 {
					pl.Run.LeaveAt[c] = max(at, 1)
					left++
				}
			}
		case Blackout:
			if netem.Blackout == 0 { // the first one gets the recovery figures
				netem.BlackoutAt, netem.Blackout = at, p.Duration
			} else {
				netem.Phases = append(netem.Phases, loadclient.NetemPhase{From: at, To: at + p.Duration, Blackout: true})
			}
		case Loss:
			netem.Phases = append(netem.Phases, loadclient.NetemPhase{From: at, To: at + p.Duration, Up: p.Up, Down: p.Down})
		case Flood:
			pl.Floods = append(pl.Floods, Timed[loadclient.FloodConfig]{At: at, Phase: i, Config: loadclient.FloodConfig{
				Server: server, Rate: p.Rate, Duration: p.Duration, Sources: p.FloodSources,
				SourceBase: loadclient.DefaultFloodSourceBase, Weights: p.Weights, Senders: p.Senders, Seed: s.Seed + uint64(i),
			}})
		case Hold:
			r := holdRampUp(p.Connections)
			pl.Holds = append(pl.Holds, Timed[loadclient.HoldConfig]{At: at, Phase: i, Config: loadclient.HoldConfig{
				Server: server, Clients: p.Connections, Stage: p.Stage, KeepAlive: p.KeepAlive,
				SourceBase: loadclient.DefaultHoldSourceBase, RampUp: r, Duration: p.Lasts - r,
			}})
		}
		at += p.Duration
	}
	if netem.Active() {
		pl.Run.Netem = netem
	}
	return pl
}
