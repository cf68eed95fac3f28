package web

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"

	"twserver/teehist"
	"twserver/watch"
	"twserver/world/twmap"
)

// The recorded-game viewer (package watch) over the games' finished
// teehistorian recordings: /watch/{name}, linked from the recordings list.

// WatchBuilds bounds the recordings the page replays for its viewers at
// once: one, so that the games' loops keep the other core.
const WatchBuilds = 1

// WatchNice is the scheduling priority (nice) of the child processes
// (Options.WatchChild) or threads that replay recordings for the viewers:
// the lowest (watch.MaxNice), so that a burst of viewers leaves the games'
// tick timing as it is (docs/performance.md, "A burst of viewers on the
// game server").
const WatchNice = watch.MaxNice

// watchSource opens the finished recordings of every game.
type watchSource struct{ h *Handler }

// Open implements watch.Source: a finished recording of a game's
// RecordDir (not the one being written).
func (s watchSource) Open(name string) (io.ReadCloser, error) {
	for _, g := range s.h.games {
		if g.RecordDir == "" {
			continue
		}
		if f, err := (watch.DirSource{Dir: g.RecordDir}).Open(name); err == nil {
			if g.Server.RecordingBusy(filepath.Join(g.RecordDir, name)) {
				f.Close()
				return nil, fs.ErrNotExist
			}
			return f, nil
		}
	}
	return nil, fs.ErrNotExist
}

// Map implements watch.Source: the embedded map or one of a game's MapDir.
func (s watchSource) Map(h *teehist.Header) (*twmap.Map, error) {
	var err error
	for _, g := range s.h.games {
		var m *twmap.Map
		if m, err = (watch.DirSource{MapDir: g.MapDir}).Map(h); err == nil {
			return m, nil
		}
	}
	return nil, err
}

// watchAllowed says whether a request may watch the recordings: as it
// may download them ([web] recordings: anyone when public, an admin with
// a session or the token when "admin", nobody when off).
func (h *Handler) watchAllowed(r *http.Request) bool {
	if h.opt.Recordings == RecordingsPublic {
		return true
	}
	if h.admin == nil {
		return false
	}
	k, _, _ := h.auth(r)
	return h.recordingsAllowed(k != authNone)
}

// mountWatch mounts the viewer when a game records.
func (h *Handler) mountWatch() {
	for _, g := range h.games {
		if g.RecordDir != "" {
			c := watch.NewCache(context.Background(), watchSource{h}, WatchBuilds)
			c.SetNice(WatchNice)
			c.SetChild(h.opt.WatchChild)
			watch.NewHandler(c, watch.Options{Allowed: h.watchAllowed, Chat: h.opt.PublicChat}).Register(h.mux, false)
			return
		}
	}
}
