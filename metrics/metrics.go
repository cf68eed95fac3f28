package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
	"golang.org/x/net/netutil"

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
	// MaxInFlightScrapes bounds concurrent /metrics requests (more get 503).
	MaxInFlightScrapes = 4
	// MaxConnections bounds the open HTTP connections; more wait to be accepted.
	MaxConnections = 16
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
	srcs []Source
	reg  *prometheus.Registry
	mux  *http.ServeMux
	now  func() time.Time
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

// New returns the endpoint of src with its own registry: the server's
// collector, build info, and the Go runtime and process collectors.
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
	e := &Endpoint{reg: prometheus.NewRegistry(), mux: http.NewServeMux(), now: o.Now}
	if e.now == nil {
		e.now = time.Now
	}
	if o.Version == "" {
		o.Version = "unknown"
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "twserver_build_info",
		Help:        "Always 1; the labels name the twserver and Go versions.",
		ConstLabels: prometheus.Labels{"version": o.Version, "go": runtime.Version()},
	})
	build.Set(1)
	seen := map[string]bool{}
	for _, g := range games {
		e.srcs = append(e.srcs, g.Source)
		var r prometheus.Registerer = e.reg
		if len(games) > 1 {
			if g.Name == "" || seen[g.Name] {
				return nil, errors.New("metrics: games need distinct names")
			}
			seen[g.Name] = true
			r = prometheus.WrapRegistererWith(prometheus.Labels{GameLabel: g.Name}, e.reg)
		}
		if err := r.Register(newCollector(g.Source, g.Register)); err != nil {
			return nil, err
		}
	}
	for _, c := range []prometheus.Collector{
		build,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := e.reg.Register(c); err != nil {
			return nil, err
		}
	}
	e.mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		MaxRequestsInFlight: MaxInFlightScrapes,
		Timeout:             WriteTimeout / 2,
	}))
	e.mux.HandleFunc("/healthz", e.healthz)
	return e, nil
}

// Registry returns the endpoint's registry (tests gather from it).
func (e *Endpoint) Registry() *prometheus.Registry { return e.reg }

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

// ServeListener is Serve on an open listener.
func (e *Endpoint) ServeListener(ctx context.Context, ln net.Listener, log zerolog.Logger) error {
	hs := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadHeaderTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
	log.Info().Str("addr", ln.Addr().String()).Msg("metrics listening (/metrics, /healthz)")
	ln = netutil.LimitListener(ln, MaxConnections)
	return httpserve.Serve(ctx, hs, ln, ShutdownTimeout)
}
