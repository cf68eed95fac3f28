package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"twserver/edge"
	"twserver/internal/httpserve"
)

// Bounds of the HTTP endpoint.
const (
	// HealthMaxTickAge is how long ago the loop may have ticked for /healthz
	// to answer 200 (the loop ticks every 20 ms).
	HealthMaxTickAge = 2 * time.Second
	// ReadHeaderTimeout bounds the time a client may take to send its request headers.
	ReadHeaderTimeout = 5 * time.Second
	// WriteTimeout bounds the time to write one response.
	WriteTimeout = 10 * time.Second
	// MaxHeaderBytes bounds the request headers.
	MaxHeaderBytes = 8 << 10
	// MaxInFlightScrapes bounds concurrent /metrics requests (more get
	// 503); each has its own scratch buffers, kept for the next scrape.
	MaxInFlightScrapes = 4
	// MaxConnections bounds the open HTTP connections. At the bound the
	// connection idle longest (kept alive between requests, or not yet
	// sent a whole request) is closed for a new one; with none idle the new
	// one is refused at once. No connection waits to be accepted
	// (httpserve.Listener), so idle connections cannot keep /healthz, the
	// liveness probe, from answering.
	MaxConnections = 16
	// MaxConnsPerAddr bounds the open HTTP connections of one client
	// address (httpserve.AddrKey); more are refused at once: one address
	// cannot take the places of the scraper and the health probe.
	MaxConnsPerAddr = 4
	// ShutdownTimeout bounds the graceful shutdown of the HTTP server.
	ShutdownTimeout = time.Second
)

// Source is what the endpoint reads; *server.Server implements it. Every
// method must be safe to call from another goroutine than the loop's.
type Source interface {
	// Counters are the reader's packet counters.
	Stats() *edge.Stats
	// Gauges are the loop's published gauges and counters.
	Gauges() *Gauges
	// TickTiming is the loop's tick measurements.
	TickTiming() *TickTiming
	// RecordCounters are the recording counters by name.
	RecordCounters() map[string]uint64
}

// Options configure an Endpoint.
type Options struct {
	// Version is the twserver version reported in twserver_build_info.
	Version string
	// Upgrades, if set, are the process's live upgrades by result
	// (twserver_upgrades_total; cmd/twserver counts them).
	Upgrades *Upgrades
	// Now is the clock of /healthz (nil = time.Now).
	Now func() time.Time
	// Register, if set, reports the master registration per protocol at
	// scrape time (cmd/twserver adapts package register's getters; it must
	// be safe to call from any goroutine and must not block).
	Register func() []RegisterState
}

// RegisterState is the master registration of one protocol.
type RegisterState struct {
	// Protocol names the registration, e.g. "tw-0.7+udp" over IPv4.
	Protocol string
	// Registered is true while the master lists the server.
	Registered bool
	// Errors counts failed registration attempts since start.
	Errors uint64
}

// Endpoint is the HTTP handler of /metrics and /healthz for one server
// process (one game, or several: NewGames).
type Endpoint struct {
	srcs    []Source
	games   []Game
	version string
	ups     *Upgrades
	mux     *http.ServeMux
	now     func() time.Time
	// scratch holds MaxInFlightScrapes scrape buffers (nil until first
	// used): a scrape takes one or answers 503.
	scratch chan *scrape
}

// scrape is the scratch space of one /metrics request.
type scrape struct {
	x  expo
	rt runtimeStats
}

// GameLabel is the label that tells the games of one process apart
// (NewGames): its value is the game's name, e.g. its UDP port.
const GameLabel = "game"

// Game is one of several games served by one process.
type Game struct {
	// Name is the value of the GameLabel label on the game's metrics.
	Name string
	// Source is the game's server.
	Source Source
	// Register reports the game's master registration (nil: none).
	Register func() []RegisterState
}

// New returns the endpoint of src: the server's figures, build info, and
// the Go runtime's and the process's.
func New(src Source, o Options) (*Endpoint, error) {
	return NewGames([]Game{{Source: src, Register: o.Register}}, o)
}

// NewGames returns the endpoint of a process running several games: each
// game's figures carry the GameLabel label with its name (a single game's
// carry none, as with New); build info and the runtime and process
// figures are the process's. o.Register is ignored: each Game has its own.
// /healthz answers 200 only while every game's loop ticks.
func NewGames(games []Game, o Options) (*Endpoint, error) {
	if len(games) == 0 {
		return nil, errors.New("metrics: no game")
	}
	e := &Endpoint{mux: http.NewServeMux(), now: o.Now, version: o.Version, ups: o.Upgrades, scratch: make(chan *scrape, MaxInFlightScrapes)}
	if e.now == nil {
		e.now = time.Now
	}
	if e.version == "" {
		e.version = "unknown"
	}
	seen := map[string]bool{}
	for _, g := range games {
		if len(games) > 1 {
			if g.Name == "" || seen[g.Name] {
				return nil, errors.New("metrics: games need distinct names")
			}
			seen[g.Name] = true
		} else {
			g.Name = "" // a single game's figures carry no game label
		}
		e.srcs = append(e.srcs, g.Source)
		e.games = append(e.games, g)
	}
	for range MaxInFlightScrapes {
		e.scratch <- nil
	}
	e.mux.HandleFunc("/metrics", e.metrics)
	e.mux.HandleFunc("/healthz", e.healthz)
	return e, nil
}

// Exposition appends the current figures in the text format to dst: what
// /metrics serves.
func (e *Endpoint) Exposition(dst []byte) []byte {
	var s scrape
	return append(dst, e.expose(&s)...)
}

// expose collects every figure into s and returns the exposition, which
// lives in s's buffers.
func (e *Endpoint) expose(s *scrape) []byte {
	s.x.reset()
	for _, g := range e.games {
		s.x.game = g.Name
		(&collector{src: g.Source, reg: g.Register}).collect(&s.x)
	}
	s.x.game = ""
	s.rt.collect(&s.x, e.version)
	if e.ups != nil {
		for i, r := range UpgradeResults {
			s.x.uint(descUpgrades, e.ups[i].Load(), r)
		}
	}
	return s.x.finish()
}

// metrics serves /metrics (uncompressed: a scrape is about 15 kB).
func (e *Endpoint) metrics(w http.ResponseWriter, r *http.Request) {
	var s *scrape
	select {
	case s = <-e.scratch:
	default:
		http.Error(w, "too many concurrent scrapes", http.StatusServiceUnavailable)
		return
	}
	defer func() { e.scratch <- s }()
	if s == nil {
		s = new(scrape)
	}
	body := e.expose(s)
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// ServeHTTP serves /metrics and /healthz.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) { e.mux.ServeHTTP(w, r) }

// Healthy reports whether every game loop is on schedule: it ticked within
// HealthMaxTickAge, or its empty game sleeps and its heartbeat is not
// HealthMaxTickAge overdue (TickTiming.Overdue). age is how far the most
// overdue loop is behind (negative: one never ticked).
func (e *Endpoint) Healthy() (bool, time.Duration) {
	var worst time.Duration
	for _, src := range e.srcs {
		d, ok := src.TickTiming().Overdue(e.now())
		if !ok {
			return false, -1
		}
		worst = max(worst, d)
	}
	return worst <= HealthMaxTickAge, worst
}

func (e *Endpoint) healthz(w http.ResponseWriter, r *http.Request) {
	ok, age := e.Healthy()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case ok:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok\n"))
	case age < 0:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("game loop has not ticked yet\n"))
	default:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("game loop " + strconv.FormatFloat(age.Seconds(), 'f', 1, 64) + " s behind its schedule\n"))
	}
}

// Serve listens on addr ("127.0.0.1:9100") and serves until ctx ends; it
// returns once the listener is closed. A listen error is returned at once.
func (e *Endpoint) Serve(ctx context.Context, addr string, log zerolog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return e.ServeListener(ctx, ln, log)
}

// ServeListener is Serve on an open listener, whose connections it
// bounds (MaxConnsPerAddr, MaxConnections; httpserve.Listener).
func (e *Endpoint) ServeListener(ctx context.Context, ln net.Listener, log zerolog.Logger) error {
	hs := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadHeaderTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
	bl := httpserve.NewListener(ln, MaxConnsPerAddr, MaxConnections, nil)
	hs.ConnState = bl.ConnState
	log.Info().Str("addr", ln.Addr().String()).Msg("metrics listening (/metrics, /healthz)")
	return httpserve.Serve(ctx, hs, bl, ShutdownTimeout)
}
