package web

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"twserver/internal/httpserve"
	"twserver/live"
	"twserver/minimap"
	"twserver/netproto"
	"twserver/pagejs"
	"twserver/server"
)

// Bounds of the web endpoint.
const (
	// MaxBodyBytes bounds a request body (the admin forms).
	MaxBodyBytes = 8 << 10
	// MaxHeaderBytes bounds the request headers.
	MaxHeaderBytes = 8 << 10
	// ReadTimeout bounds the time to read one request.
	ReadTimeout = 5 * time.Second
	// WriteTimeout bounds the time to write one answer (live streams and
	// downloads have their own).
	WriteTimeout = 10 * time.Second
	// DownloadStallTimeout bounds the time to write each DownloadChunk of
	// a recording's download: the download's deadline moves on with its
	// progress.
	DownloadStallTimeout = 30 * time.Second
	// DownloadChunk is the unit of a download's progress.
	DownloadChunk = 64 << 10
	// IdleTimeout closes a keep-alive connection idle this long.
	IdleTimeout = 30 * time.Second
	// StreamMaxAge ends a live stream after this long (the page reconnects).
	StreamMaxAge = 30 * time.Minute
	// StreamWriteTimeout bounds the time to write one message of a live
	// stream; a viewer that cannot take it is dropped.
	StreamWriteTimeout = 5 * time.Second
	// GameEvery is the shortest interval between two "game" messages of a
	// live stream (pings change with nearly every frame).
	GameEvery = time.Second
	// FrameWait is how long a one-off request waits for a fresh frame: a
	// sleeping empty game wakes within server.SleepHeartbeat and ticks
	// while frames are wanted.
	FrameWait = server.SleepHeartbeat + 500*time.Millisecond
	// ShutdownTimeout bounds the graceful shutdown of the HTTP server.
	ShutdownTimeout = time.Second
)

// APIVersion is the "version" field of every JSON answer; it changes when
// a field changes meaning or goes away (new fields do not change it).
const APIVersion = 1

// Game is one game served by the page.
type Game struct {
	// Port is the game's UDP port: it names the game in the API's paths.
	Port int
	// Server is the game.
	Server *server.Server
	// RecordDir is the directory of the game's recordings ([record] dir)
	// when it records; its finished recordings are listed and served.
	RecordDir string
	// MapDir is where the viewer finds the maps of the recordings (the
	// embedded map needs none).
	MapDir string
}

// Options configure a Handler.
type Options struct {
	// AdminToken opens /admin; empty = no admin page.
	AdminToken string
	// PublicChat shows chat lines on the public page and in the API.
	PublicChat bool
	// Recordings says who may list and download the recordings (the zero
	// value: only an admin); RecordingsPublic needs PublicChat, since a
	// recording holds the chat.
	Recordings RecordingsMode
	// TrustedProxies are the networks of the reverse proxies whose
	// X-Forwarded-For, -Proto and -Host headers are believed (proxy.go);
	// their connections are not bounded per address (MaxConnsPerAddr), as
	// they carry many clients.
	TrustedProxies []netip.Prefix
	// AdminHosts are the host names (no port) under which the admin page
	// is served besides IP addresses and localhost (adminhost.go): an
	// admin request asked for under another name is refused before any
	// token is counted.
	AdminHosts []string
	// SampleEvery is the interval of the plots' samples (0 = SampleInterval).
	SampleEvery time.Duration
	// Log receives the endpoint's lines.
	Log zerolog.Logger
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// WatchChild is the executable that replays recordings for the viewer
	// in child processes at WatchNice (watch.Cache.SetChild: its main runs
	// watch.RunChild when watch.IsChild); "" replays them in this process,
	// on a thread of its own at WatchNice.
	WatchChild string
}

// Handler serves the page, the API and the admin page of some games.
type Handler struct {
	games    []*gameView
	byPort   map[int]*gameView
	opt      Options
	mux      *http.ServeMux
	streams  *httpserve.Counter // live streams per client address (MaxStreamsPerAddr, MaxStreams)
	requests *httpserve.Counter // requests being answered (MaxRequestsPerAddr, MaxRequests)
	// downloads are the recordings being downloaded (MaxDownloadsPerAddr,
	// MaxDownloads), which count among the requests too.
	downloads *httpserve.Counter
	admin     *admin
	static    fs.FS
	// the admin page's two pages, read once (routes)
	loginHTML, adminHTML http.HandlerFunc
	// conns is the listener's connection count (nil until ServeListener).
	conns atomic.Pointer[httpserve.Listener]
}

// gameView is one game as the handler sees it.
type gameView struct {
	Game
	hist history

	mu       sync.Mutex
	mapLayer *live.MapLayer
	mapJSON  []byte

	stream *streamer // writes the live stream to the game's viewers

	recs recList // the last listing of the recordings
}

//go:embed static
var staticFS embed.FS

// New returns the handler of games (at least one, distinct ports).
func New(games []Game, o Options) (*Handler, error) {
	if len(games) == 0 {
		return nil, errors.New("web: no game")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Recordings == RecordingsPublic && !o.PublicChat {
		return nil, errors.New("web: public recordings with the chat private: a recording holds the chat")
	}
	if o.Recordings < RecordingsAdmin || o.Recordings > RecordingsPublic {
		return nil, errors.New("web: unknown recordings mode")
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = SampleInterval
	}
	h := &Handler{byPort: map[int]*gameView{}, opt: o, mux: http.NewServeMux(),
		streams: httpserve.NewCounter(MaxStreamsPerAddr, MaxStreams), requests: httpserve.NewCounter(MaxRequestsPerAddr, MaxRequests),
		downloads: httpserve.NewCounter(MaxDownloadsPerAddr, MaxDownloads)}
	for _, g := range games {
		if g.Server == nil || g.Port <= 0 || g.Port > 65535 || h.byPort[g.Port] != nil {
			return nil, errors.New("web: games need a server and distinct ports")
		}
		v := &gameView{Game: g, stream: newStreamer(g.Server.Live(), g.Port, encodeFrame, o.PublicChat)}
		h.games = append(h.games, v)
		h.byPort[g.Port] = v
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.static = sub
	if o.AdminToken != "" {
		h.admin = newAdmin(o.AdminToken, o.Now)
	}
	h.routes()
	h.mountWatch()
	return h, nil
}

// ServeHTTP serves the page, the API and the admin page, with the
// security headers on every answer, a write deadline (WriteTimeout; a
// download's moves on with its progress), and within the bounds of
// requests per client address (MaxRequestsPerAddr, MaxRequests; the live
// streams count apart, MaxStreamsPerAddr; downloads count among the
// requests and within their own bounds, MaxDownloadsPerAddr).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, pattern := h.mux.Handler(r)
	download := pattern == downloadPattern || pattern == adminDownloadPattern
	if pattern != eventsPattern {
		key := httpserve.AddrKey(h.clientAddr(r))
		if h.requests.Acquire(key, false) != httpserve.Admitted {
			overBound(w, "too many requests")
			return
		}
		defer h.requests.Release(key)
		if download {
			if h.downloads.Acquire(key, false) != httpserve.Admitted {
				overBound(w, "too many downloads")
				return
			}
			defer h.downloads.Release(key)
		}
	}
	w = boundWrites(w, download, WriteTimeout, DownloadStallTimeout)
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer would make a form post's Origin "null"
	hd.Set("X-Frame-Options", "DENY")
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	h.mux.ServeHTTP(w, r)
}

// Patterns of the routes the bounds tell apart.
const (
	eventsPattern   = "GET /api/games/{port}/events"
	downloadPattern = "GET /api/games/{port}/recordings/{name}"
	// adminDownloadPattern is a download for the admin: its write deadline
	// moves on with progress like downloadPattern's.
	adminDownloadPattern = "GET /admin/api/games/{port}/recordings/{name}"
)

// overBound answers 503 with Retry-After: a bound is full.
func overBound(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	writeError(w, http.StatusServiceUnavailable, msg)
}

// streamCount is the number of live streams.
func (h *Handler) streamCount() int {
	_, n := h.streams.Count(netip.Prefix{})
	return n
}

// boundWrites sets w's write deadline to d from now; a download's
// (progress) instead moves on by stall before each DownloadChunk.
func boundWrites(w http.ResponseWriter, progress bool, d, stall time.Duration) http.ResponseWriter {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Now().Add(d))
	if progress {
		return &progressWriter{ResponseWriter: w, rc: rc, stall: stall}
	}
	return w
}

// progressWriter writes a download in chunks of DownloadChunk, each within
// DownloadStallTimeout: a reader that keeps reading gets the whole file,
// one that stalls is dropped.
type progressWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

// Write writes p a chunk at a time, moving the deadline on before each.
func (p *progressWriter) Write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		_ = p.rc.SetWriteDeadline(time.Now().Add(p.stall))
		k, err := p.ResponseWriter.Write(b[n:min(len(b), n+DownloadChunk)])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Unwrap is the ResponseWriter written to (for http.ResponseController).
func (p *progressWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("GET /{$}", httpserve.FSFile(h.static, "index.html"))
	m.HandleFunc("GET /app.js", httpserve.FSFile(h.static, "app.js"))
	m.HandleFunc("GET /draw.js", httpserve.File("draw.js", minimap.DrawJS))
	m.HandleFunc("GET /common.js", httpserve.File("common.js", pagejs.CommonJS))
	m.HandleFunc("GET /style.css", httpserve.FSFile(h.static, "style.css"))
	m.HandleFunc("GET /admin.js", httpserve.FSFile(h.static, "admin.js"))
	h.loginHTML, h.adminHTML = httpserve.FSFile(h.static, "login.html"), httpserve.FSFile(h.static, "admin.html")
	m.HandleFunc("GET /api/games", h.apiGames)
	m.HandleFunc("GET /api/games/{port}", h.apiGame)
	m.HandleFunc(eventsPattern, h.apiEvents)
	m.HandleFunc("GET /api/games/{port}/map", h.apiMap)
	m.HandleFunc("GET /api/games/{port}/history", h.apiHistory)
	m.HandleFunc("GET /api/games/{port}/recordings", h.apiRecordings)
	m.HandleFunc(downloadPattern, h.apiRecording)
	m.HandleFunc("GET /admin", h.adminHost(h.adminPage))
	m.HandleFunc("POST /admin/login", h.adminHost(h.adminLogin))
	m.HandleFunc("POST /admin/logout", h.adminHost(h.adminLogout))
	m.HandleFunc("GET /admin/api/session", h.adminHost(h.adminSession))
	m.HandleFunc("POST /admin/api/action", h.adminHost(h.adminAction))
	m.HandleFunc("GET /admin/api/games/{port}/recordings", h.adminHost(h.adminRecordings))
	m.HandleFunc(adminDownloadPattern, h.adminHost(h.adminRecording))
}

// ErrBadPort is parsePort's error.
var ErrBadPort = errors.New("web: not a game port")

// parsePort reads a game port from a path segment: 1..65535 in decimal,
// without sign, spaces or leading zeros.
func parsePort(s string) (int, error) {
	if len(s) == 0 || len(s) > 5 || s[0] == '0' {
		return 0, ErrBadPort
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, ErrBadPort
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, ErrBadPort
	}
	return n, nil
}

// game returns the game named by the request's {port}, or answers 404.
func (h *Handler) game(w http.ResponseWriter, r *http.Request) *gameView {
	p, err := parsePort(r.PathValue("port"))
	if err == nil {
		if g := h.byPort[p]; g != nil {
			return g
		}
	}
	writeError(w, http.StatusNotFound, "no such game")
	return nil
}

// frame returns a recent frame of g, held until the caller's Release: the
// newest if it is fresh, else it asks the loop for frames and waits up to
// FrameWait for one.
func (h *Handler) frame(ctx context.Context, g *gameView) *live.Frame {
	return h.frameBy(ctx, g, time.Now().Add(FrameWait))
}

// frameBy is frame waiting until deadline at most.
func (h *Handler) frameBy(ctx context.Context, g *gameView, deadline time.Time) *live.Frame {
	hub := g.Server.Live()
	now := h.opt.Now()
	hub.Demand(now)
	f := hub.Acquire()
	if f.Seq != 0 && now.Sub(f.Time) < 4*FrameEvery() {
		return f
	}
	seq := f.Seq
	f.Release()
	r, err := hub.Attach()
	if err != nil {
		return hub.Acquire()
	}
	defer r.Detach()
	t := time.NewTimer(max(time.Until(deadline), 0))
	defer t.Stop()
	for hub.Seq() == seq {
		select {
		case <-r.C():
		case <-t.C:
			return hub.Acquire()
		case <-ctx.Done():
			return hub.Acquire()
		}
	}
	return hub.Acquire()
}

// FrameEvery is the interval of the loop's frames.
func FrameEvery() time.Duration { return server.FrameEvery * netproto.TickDuration }

// Run samples the games' figures for the plots until ctx ends.
func (h *Handler) Run(ctx context.Context) {
	t := time.NewTicker(h.opt.SampleEvery)
	defer t.Stop()
	for _, g := range h.games {
		g.hist.sample(g.Server, h.opt.Now())
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			now := h.opt.Now()
			for _, g := range h.games {
				g.hist.sample(g.Server, now)
			}
		}
	}
}

// ServeListener serves h on ln until ctx ends (and samples the plots);
// it returns once the listener is closed. It warns about what a
// non-loopback address exposes (warnExposed).
func (h *Handler) ServeListener(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return ctx }, // ends the live streams
	}
	bl := httpserve.NewListener(ln, MaxConnsPerAddr, MaxConnections, h.opt.TrustedProxies)
	hs.ConnState = bl.ConnState
	h.conns.Store(bl)
	addr := ln.Addr().String()
	h.logListening(addr)
	h.warnExposed(addr)
	go h.Run(ctx)
	return httpserve.Serve(ctx, hs, bl, ShutdownTimeout)
}

// logListening says where the page listens and which pages it serves:
// /admin only with an admin token.
func (h *Handler) logListening(addr string) {
	if h.admin != nil {
		h.opt.Log.Info().Str("addr", addr).Bool("admin", true).Msg("web page listening (/, /api/games, /admin)")
		return
	}
	h.opt.Log.Info().Str("addr", addr).Bool("admin", false).Msg("web page listening (/, /api/games; no /admin: web.admin_token is not set)")
}

// Loopback reports whether a listen address is on a loopback interface.
func Loopback(addr string) bool {
	ap, err := netip.ParseAddrPort(addr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
