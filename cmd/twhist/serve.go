package main

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"twserver/internal/httpserve"
	"twserver/teehist"
	"twserver/teehist/index"
	"twserver/teehist/replay"
	"twserver/watch"
)

// Bounds of twhist serve.
const (
	// ServeListLimit bounds the games one archive answer lists.
	ServeListLimit = 200
	// ServeDemoBuilds bounds the demos made at the same time; more get 503.
	ServeDemoBuilds = 2
	// ServePollEvery is how often the directory is indexed again (new
	// recordings appear in the list within it).
	ServePollEvery = 10 * time.Second
	// ServeIndexTimeout bounds one indexing pass.
	ServeIndexTimeout = 5 * time.Minute
	// ServeMaxConnections bounds the open HTTP connections: at the bound
	// the connection idle longest is closed for a new one, and with none
	// idle the new one is refused at once (httpserve.Listener).
	ServeMaxConnections = 128
	// ServeMaxConnsPerAddr bounds the open HTTP connections of one client
	// address (IPv4 address, IPv6 /64); over it a connection is refused
	// at once.
	ServeMaxConnsPerAddr = 24
	// ServeReadTimeout bounds reading one request.
	ServeReadTimeout = 5 * time.Second
	// ServeWriteTimeout bounds writing one answer other than a demo: a
	// client that does not read holds its connection no longer.
	ServeWriteTimeout = 10 * time.Second
	// ServeDemoWriteTimeout bounds making and writing one demo (it is made
	// first, within ServeDemoTimeout, then written).
	ServeDemoWriteTimeout = ServeDemoTimeout + 30*time.Second
	// ServeDemoTimeout bounds making one demo.
	ServeDemoTimeout = 2 * time.Minute
)

// serveCSP is the archive's Content-Security-Policy: no inline script.
const serveCSP = watch.CSP

//go:embed static
var serveStatic embed.FS

// serveRoot is serveStatic's static directory, the archive page's files.
var serveRoot, _ = fs.Sub(serveStatic, "static")

// archive is twhist serve's state.
type archive struct {
	dir, mapDir string
	demos       chan struct{}
	mu          sync.Mutex // one indexing pass at a time; guards dbFile and lastErr

	dbMu    sync.RWMutex // held for reading by a query, for writing by the swap of db
	db      *sql.DB
	dbFile  os.FileInfo   // the index file db has open, to notice it removed or replaced; under dbMu
	lastErr string        // the kind of the last problem logged, not logged again until it clears
	kick    chan struct{} // a query found the index gone: index now, not at the next poll
}

// serveCmd is "twhist serve -dir DIR [-mapdir DIR] [-listen ADDR]".
func serveCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", "", "directory of the recordings (*.teehistorian)")
	mapDir := fs.String("mapdir", "", "directory holding the recordings' maps (NAME.map)")
	listen := fs.String("listen", "127.0.0.1:8399", "address to serve on (loopback unless told otherwise)")
	chat := fs.Bool("chat", true, "show the recordings' public chat")
	if err := fs.Parse(args); err != nil {
		return usageError(stderr, "%v", err)
	}
	if *dir == "" || fs.NArg() != 0 {
		return usageError(stderr, "serve takes -dir DIR [-mapdir DIR] [-listen ADDR]")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	if ap, err := netip.ParseAddrPort(ln.Addr().String()); err != nil || !ap.Addr().Unmap().IsLoopback() {
		fmt.Fprintf(stderr, "twhist: serving %s beyond loopback: anyone who reaches it sees the games (and their chat unless -chat=false)\n", ln.Addr())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "twhist: serving %s on http://%s/\n", *dir, ln.Addr())
	if err := serveArchive(ctx, ln, *dir, *mapDir, *chat, ServePollEvery, stderr); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "twhist:", err)
		return 2
	}
	return 0
}

// serveArchive serves the archive of dir on ln until ctx ends, indexing
// the directory every poll.
func serveArchive(ctx context.Context, ln net.Listener, dir, mapDir string, chat bool, poll time.Duration, stderr io.Writer) error {
	a := &archive{dir: dir, mapDir: mapDir, demos: make(chan struct{}, ServeDemoBuilds), kick: make(chan struct{}, 1)}
	if err := a.open(); err != nil {
		return err
	}
	defer func() { // after the last pass: update is not called with ctx done
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.db != nil { // nil when it could not be made again
			a.db.Close()
		}
	}()
	a.update(ctx, stderr)
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.update(ctx, stderr)
			case <-a.kick:
				a.update(ctx, stderr)
			}
		}
	}()
	mux := http.NewServeMux()
	cache := watch.NewCache(ctx, watch.DirSource{Dir: dir, MapDir: mapDir}, 0)
	watch.NewHandler(cache, watch.Options{Chat: chat, Demos: "/demo/"}).Register(mux, true)
	mux.HandleFunc("GET /{$}", httpserve.FSFile(serveRoot, "archive.html"))
	mux.HandleFunc("GET /archive.js", httpserve.FSFile(serveRoot, "archive.js"))
	mux.HandleFunc("GET /api/games", a.games)
	mux.HandleFunc("GET /demo/{name}", a.demo)
	bl := httpserve.NewListener(ln, ServeMaxConnsPerAddr, ServeMaxConnections, nil)
	hs := &http.Server{Handler: secure(mux), ReadHeaderTimeout: ServeReadTimeout, ReadTimeout: ServeReadTimeout,
		IdleTimeout: time.Minute, MaxHeaderBytes: 8 << 10, ConnState: bl.ConnState,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	return httpserve.Serve(ctx, hs, bl, time.Second)
}

// open opens the directory's index (creating it if needed) in place of
// the one open before, which it closes first. An index file removed while
// open leaves its journal behind (-journal, -wal, -shm), which SQLite
// would take for the new file's and fail on ("disk I/O error"): with no
// index file, those are removed before it is made again.
func (a *archive) open() error {
	path := filepath.Join(a.dir, index.DBName)
	a.dbMu.Lock()
	defer a.dbMu.Unlock()
	if a.db != nil {
		a.db.Close()
		a.db, a.dbFile = nil, nil
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		for _, suffix := range []string{"-journal", "-wal", "-shm"} {
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	db, err := index.Open(a.dir)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		db.Close()
		return err
	}
	a.db, a.dbFile = db, fi
	return nil
}

// errNoIndex: no index is open (it was removed and could not be made again).
var errNoIndex = errors.New("no index open")

// gone reports whether the index file was removed or replaced since it
// was opened (or none is open).
func (a *archive) gone() bool {
	a.dbMu.RLock()
	defer a.dbMu.RUnlock()
	fi, err := os.Stat(filepath.Join(a.dir, index.DBName))
	return a.db == nil || err != nil || !os.SameFile(fi, a.dbFile)
}

// update indexes the directory's new and changed files. When the index
// file was removed (or replaced) since it was opened, which SQLite would
// answer on every write with "attempt to write a readonly database", it
// opens the file anew, creating it, so that this pass indexes every
// recording again; it says so once. A problem is logged when it first
// happens, not again at every pass while it lasts.
func (a *archive) update(ctx context.Context, stderr io.Writer) {
	if !a.mu.TryLock() {
		return
	}
	defer a.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	path := filepath.Join(a.dir, index.DBName)
	if a.gone() {
		if err := a.open(); err != nil {
			a.problem(stderr, "reopen", fmt.Sprintf("twhist: index %s is gone and cannot be made again: %v", path, err))
			return
		}
		fmt.Fprintf(stderr, "twhist: index %s was removed or replaced while serving: indexing every recording into it again\n", path)
	}
	ctx, cancel := context.WithTimeout(ctx, ServeIndexTimeout)
	defer cancel()
	st, err := index.Update(ctx, a.db, a.dir, a.mapDir)
	switch {
	case err != nil && ctx.Err() == nil:
		a.problem(stderr, "update", fmt.Sprint("twhist: index: ", err))
	case err == nil:
		a.lastErr = ""
	}
	if st != nil && st.Indexed+st.Removed > 0 {
		fmt.Fprintf(stderr, "twhist: indexed %d, removed %d\n", st.Indexed, st.Removed)
	}
}

// problem logs line unless a problem of the same kind was the last one
// logged and has not cleared (update only): a lasting problem whose
// error's text changes from pass to pass is still logged once.
func (a *archive) problem(stderr io.Writer, kind, line string) {
	if kind == a.lastErr {
		return
	}
	a.lastErr = kind
	fmt.Fprintln(stderr, line)
}

// secure adds the security headers to every answer and sets its write
// deadline: ServeWriteTimeout, a demo's ServeDemoWriteTimeout.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := ServeWriteTimeout
		if strings.HasPrefix(r.URL.Path, "/demo/") {
			d = ServeDemoWriteTimeout
		}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
		hd := w.Header()
		hd.Set("Content-Security-Policy", serveCSP)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// archiveGame is one game of the archive's list.
type archiveGame struct {
	Name    string   `json:"name"`
	Map     string   `json:"map"`
	Type    string   `json:"type"`
	Start   int64    `json:"start"` // Unix ms
	Seconds int      `json:"seconds"`
	Players []string `json:"players"`
	Watch   string   `json:"watch"`
	Demo    string   `json:"demo"`
}

// games lists the games newest first: ?player=, map=, type=, since=, until=
// (dates as twhist find takes them).
func (a *archive) games(w http.ResponseWriter, r *http.Request) {
	q := index.Query{Player: r.FormValue("player"), Map: r.FormValue("map"), Type: r.FormValue("type"), Limit: index.MaxResults}
	for _, d := range []struct {
		key string
		to  *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		if v := r.FormValue(d.key); v != "" {
			t, err := parseDate(v)
			if err != nil {
				writeServeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
				return
			}
			*d.to = t
		}
	}
	var res []index.Result
	err := errNoIndex
	a.dbMu.RLock()
	if a.db != nil {
		res, err = index.Find(r.Context(), a.db, q)
	}
	a.dbMu.RUnlock()
	if a.gone() {
		select { // the index was removed: the indexing makes it again now
		case a.kick <- struct{}{}:
		default:
		}
	}
	if err != nil && a.gone() {
		w.Header().Set("Retry-After", "5")
		writeServeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "the index is being made again: try again in a few seconds"})
		return
	}
	if err != nil {
		writeServeJSON(w, http.StatusInternalServerError, map[string]any{"error": "the index cannot be read"})
		return
	}
	out := []archiveGame{}
	for i := len(res) - 1; i >= 0 && len(out) < ServeListLimit; i-- { // newest first
		g := res[i]
		if watch.CheckName(g.File) != nil {
			continue
		}
		out = append(out, archiveGame{Name: g.File, Map: g.Map, Type: g.Type, Start: g.Start.UnixMilli(), Seconds: int(g.Ticks / 50),
			Players: g.Players, Watch: "/watch/" + g.File, Demo: "/demo/" + g.File})
	}
	writeServeJSON(w, http.StatusOK, map[string]any{"version": watch.APIVersion, "games": out})
}

// demo makes a demo of a recording: ?ddnet=1 for DDNet, view=CID for a
// player's view, from= and to= (ticks) for a clip.
func (a *archive) demo(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	opt := replay.DemoOptions{View: replay.FreeView, DDNet: r.FormValue("ddnet") == "1"}
	var bad bool
	num := func(key string, dst *int32) {
		if v := r.FormValue(key); v != "" {
			n, err := strconv.ParseInt(v, 10, 32)
			bad = bad || err != nil || n < 0
			*dst = int32(n)
		}
	}
	var view int32 = -1
	num("view", &view)
	num("from", &opt.From)
	num("to", &opt.To)
	if view >= 0 {
		opt.View = int(view)
	}
	if bad || opt.To > 0 && opt.To < opt.From || watch.CheckName(name) != nil {
		writeServeJSON(w, http.StatusBadRequest, map[string]any{"error": "bad demo request"})
		return
	}
	select { // the build's place, given back when the build ends (below)
	case a.demos <- struct{}{}:
	default:
		writeServeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "too many demos being made"})
		return
	}
	building := false
	defer func() {
		if !building {
			<-a.demos
		}
	}()
	src := watch.DirSource{Dir: a.dir, MapDir: a.mapDir}
	f, err := src.Open(name)
	if err != nil {
		writeServeJSON(w, http.StatusNotFound, map[string]any{"error": "no such recording"})
		return
	}
	defer f.Close()
	rd := teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		writeServeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "not a readable recording"})
		return
	}
	m, err := src.Map(h)
	if err != nil {
		writeServeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": "the recording's map is not here"})
		return
	}
	tmp, err := os.CreateTemp("", "twhist-demo-*.demo")
	if err != nil {
		writeServeJSON(w, http.StatusInternalServerError, map[string]any{"error": "no room for the demo"})
		return
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	// The build holds its place until it ends, not while the demo is
	// written to the client: a client that does not read keeps its
	// connection (within ServeDemoWriteTimeout), not a build's place. A
	// client that leaves, or a build over ServeDemoTimeout, ends the build:
	// returning closes the recording it reads and the file it writes.
	done := make(chan error, 1)
	building = true
	go func() {
		defer func() { <-a.demos }()
		_, err := replay.WriteDemo(tmp, rd, h, m, opt)
		done <- err
	}()
	select {
	case err = <-done:
	case <-r.Context().Done():
		return
	case <-time.After(ServeDemoTimeout):
		writeServeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "the demo took too long"})
		return
	}
	if err != nil {
		writeServeJSON(w, http.StatusUnprocessableEntity, map[string]any{"error": err.Error()})
		return
	}
	kind := "07"
	if opt.DDNet {
		kind = "ddnet"
	}
	out := fmt.Sprintf("%s_%s.demo", strings.TrimSuffix(filepath.Base(name), watch.Suffix), kind)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+out+`"`)
	if _, err := tmp.Seek(0, io.SeekStart); err == nil {
		_, _ = io.Copy(w, tmp)
	}
}

func writeServeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
