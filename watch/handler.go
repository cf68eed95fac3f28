package watch

import (
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"sync/atomic"

	"twserver/internal/httpserve"
	"twserver/minimap"
	"twserver/pagejs"
)

// Bounds of the handler.
const (
	// MaxRequests bounds the viewer API's requests being served at once
	// (every viewer asks for one chunk per ChunkTicks of play); more get
	// 503 at once.
	MaxRequests = 64
	// MaxChunk bounds the chunk index a request may name (a chunk is
	// ChunkTicks; replay.MaxTicks ticks at most).
	MaxChunk = 1 << 17
)

//go:embed static
var staticFS embed.FS

// staticRoot is staticFS's static directory, whose files the viewer serves.
var staticRoot, _ = fs.Sub(staticFS, "static")

// watchPage serves the viewer's page.
var watchPage = httpserve.FSFile(staticRoot, "watch.html")

// Options configure a Handler.
type Options struct {
	// Allowed says whether a request may watch recordings (nil: everyone).
	Allowed func(*http.Request) bool
	// Chat shows the recordings' public chat lines.
	Chat bool
	// Demos, when set, is the path the demos of a recording are downloaded
	// from, the recording's name appended (twhist serve's /demo/).
	Demos string
}

// Handler serves the viewer: the page /watch/{name} and its API
// /watch/{name}/info, /watch/{name}/map and /watch/{name}/chunk/{k}, and the
// page's files /watch.js, /watch.css, /draw.js and /common.js. It sets no security
// headers: the mux it is registered on does (a strict CSP without inline
// script suits the page).
type Handler struct {
	cache    *Cache
	opt      Options
	inflight atomic.Int32
}

// NewHandler returns the viewer of the recordings of c.
func NewHandler(c *Cache, o Options) *Handler { return &Handler{cache: c, opt: o} }

// Register adds the viewer's routes to mux; withShared adds the scripts
// the viewer shares with the live page, /draw.js and /common.js, too (a
// mux that serves the live page has them already).
func (h *Handler) Register(mux *http.ServeMux, withShared bool) {
	mux.HandleFunc("GET /watch/{name}", h.guard(h.page))
	mux.HandleFunc("GET /watch/{name}/info", h.guard(h.info))
	mux.HandleFunc("GET /watch/{name}/map", h.guard(h.layer))
	mux.HandleFunc("GET /watch/{name}/chunk/{k}", h.guard(h.chunk))
	mux.HandleFunc("GET /watch.js", httpserve.FSFile(staticRoot, "watch.js"))
	mux.HandleFunc("GET /watch.css", httpserve.FSFile(staticRoot, "watch.css"))
	if withShared {
		mux.HandleFunc("GET /draw.js", httpserve.File("draw.js", minimap.DrawJS))
		mux.HandleFunc("GET /common.js", httpserve.File("common.js", pagejs.CommonJS))
	}
}

// guard answers 404 to a request not Allowed or naming no recording and
// 503 beyond MaxRequests.
func (h *Handler) guard(next func(http.ResponseWriter, *http.Request, *Recording)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.opt.Allowed != nil && !h.opt.Allowed(r) {
			writeError(w, http.StatusNotFound, "no such recording")
			return
		}
		if h.inflight.Add(1) > MaxRequests {
			h.inflight.Add(-1)
			writeError(w, http.StatusServiceUnavailable, "too many viewers")
			return
		}
		defer h.inflight.Add(-1)
		name := r.PathValue("name")
		if CheckName(name) != nil {
			writeError(w, http.StatusNotFound, "no such recording")
			return
		}
		rec, err := h.cache.Get(name)
		switch {
		case errors.Is(err, ErrBusy):
			writeError(w, http.StatusServiceUnavailable, err.Error())
			return
		case err != nil:
			writeError(w, http.StatusNotFound, "no such recording")
			return
		}
		next(w, r, rec)
	}
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request, _ *Recording) {
	watchPage(w, r)
}

func (h *Handler) info(w http.ResponseWriter, r *http.Request, rec *Recording) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	in := rec.Info(h.opt.Chat)
	if h.opt.Demos != "" {
		in.Demo = h.opt.Demos + rec.Name
	}
	_ = json.NewEncoder(w).Encode(in)
}

func (h *Handler) layer(w http.ResponseWriter, r *http.Request, rec *Recording) {
	b := rec.Layer()
	if b == nil {
		writeError(w, http.StatusServiceUnavailable, "not ready yet")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// chunk answers chunk k, gzip'd (every browser takes it); while it is not
// built yet, the chunk replayed from a checkpoint (seek.go), else its rough
// frames (rough.go) when the rough pass read them, else 202; 404 past the
// end of a finished build.
func (h *Handler) chunk(w http.ResponseWriter, r *http.Request, rec *Recording) {
	k, err := strconv.Atoi(r.PathValue("k"))
	if err != nil || k < 0 || k > MaxChunk {
		writeError(w, http.StatusNotFound, "no such chunk")
		return
	}
	z, ok := rec.Chunk(k)
	if !ok {
		select {
		case <-rec.Done():
			if z, ok = rec.Chunk(k); !ok {
				writeError(w, http.StatusNotFound, "no such chunk")
				return
			}
		default:
			if z, ok = h.cache.Seek(r.Context(), rec, k); ok {
				break // replayed from a checkpoint: the chunk as the build makes it
			}
			if z, ok = rec.Rough(k); !ok {
				writeError(w, http.StatusAccepted, "not built yet")
				return
			}
			// the rough frames, until the chunk is built ("rough": true)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(z)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(z)
}

// writeError answers an error as JSON.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"version": APIVersion, "error": msg})
}

// CSP is the Content-Security-Policy the viewer page needs (no inline
// script or style; fetches to its own origin only).
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
