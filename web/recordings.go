package web

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"twserver/watch"
)

// The recordings of finished games (teehistorian and demo files of
// [record] dir): listed by /api/games/{port}/recordings and served
// read-only by /api/games/{port}/recordings/{name} (RecordingsPublic), or
// the same under /admin (RecordingsAdmin, the default). Only plain files
// named like the recorder names them are listed or served, opened through
// an os.Root of the directory (no "..", no absolute path, no symbolic link
// out of it); the files the recorder is writing or closing are left out.

// Bounds of the recordings.
const (
	// MaxRecordings bounds the recordings listed (the newest first).
	MaxRecordings = 100
	// MaxRecordingEntries bounds the directory entries read per listing.
	MaxRecordingEntries = 10000
	// MaxRecordingName bounds a recording's file name (the viewer's rule,
	// watch.CheckFile).
	MaxRecordingName = watch.MaxNameLen
	// RecordingsListEvery bounds how often a game's recordings are read
	// from its directory: listings asked for meanwhile get the last one.
	// A read costs a directory read and a stat of every recording (about
	// 15 ms at 5,000 files), so without this bound listings asked for
	// as fast as the request bounds let through would take the CPU of the
	// games.
	RecordingsListEvery = time.Second
)

// Recording kinds (apiRecording.Kind) and their file name suffixes.
const (
	KindTeehistorian = "teehistorian"
	KindDemo         = "demo"
)

// apiRecording is one finished recording.
type apiRecording struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Bytes    int64  `json:"bytes"`
	Modified int64  `json:"modified"` // Unix ms
	URL      string `json:"url"`
	// Watch is the viewer's address of a teehistorian ("" for a demo).
	Watch string `json:"watch,omitempty"`
}

// ErrBadRecordingName is recordingKind's error.
var ErrBadRecordingName = errors.New("web: not a recording's name")

// recordingKind returns the kind of a recording's file name: letters,
// digits, '-', '_' and '.' only, not starting with '.', ending in
// ".teehistorian" or ".demo".
func recordingKind(name string) (string, error) {
	for _, k := range []string{KindTeehistorian, KindDemo} {
		if watch.CheckFile(name, "."+k) == nil {
			return k, nil
		}
	}
	return "", ErrBadRecordingName
}

// RecordingsMode says who may list and download the recordings ([web]
// recordings).
type RecordingsMode int

const (
	// RecordingsAdmin (the zero value) lists and serves them only to an
	// admin: under /admin/api/games/{port}/recordings, with the session
	// cookie or the bearer token. The public API lists none.
	RecordingsAdmin RecordingsMode = iota
	// RecordingsOff lists and serves none, to anyone.
	RecordingsOff
	// RecordingsPublic lists and serves them to anyone who reaches the
	// page, under /api/games/{port}/recordings (and to the admin).
	RecordingsPublic
)

// recordingsOf lists the finished recordings of dir, newest first, at
// most MaxRecordings, with their URLs under prefix; busy reports the
// paths of files still being written or closed, which are left out.
func recordingsOf(dir, prefix string, busy func(path string) bool) ([]apiRecording, error) {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return []apiRecording{}, nil
		}
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(MaxRecordingEntries)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	out := []apiRecording{}
	for _, e := range ents {
		kind, err := recordingKind(e.Name())
		if err != nil || !e.Type().IsRegular() || busy(filepath.Join(dir, e.Name())) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		rec := apiRecording{Name: e.Name(), Kind: kind, Bytes: info.Size(), Modified: info.ModTime().UnixMilli(),
			URL: prefix + e.Name()}
		if kind == KindTeehistorian {
			rec.Watch = "/watch/" + e.Name()
		}
		out = append(out, rec)
	}
	slices.SortFunc(out, func(a, b apiRecording) int {
		if a.Modified != b.Modified {
			return int(b.Modified - a.Modified)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out[:min(len(out), MaxRecordings)], nil
}

// recordingsAllowed reports whether r may list and download recordings:
// never when they are off; with RecordingsAdmin only an admin (admin true:
// the /admin routes, which check the credentials first).
func (h *Handler) recordingsAllowed(admin bool) bool {
	switch h.opt.Recordings {
	case RecordingsPublic:
		return true
	case RecordingsAdmin:
		return admin
	}
	return false
}

// apiRecordings lists the public recordings (none unless [web] recordings
// is "public": the answer then says so in "access").
func (h *Handler) apiRecordings(w http.ResponseWriter, r *http.Request) {
	h.listRecordings(w, r, false)
}

// apiRecording serves a public recording.
func (h *Handler) apiRecording(w http.ResponseWriter, r *http.Request) {
	h.serveRecording(w, r, false)
}

// adminRecordings lists the recordings to an admin.
func (h *Handler) adminRecordings(w http.ResponseWriter, r *http.Request) {
	if h.adminOnly(w, r) {
		h.listRecordings(w, r, true)
	}
}

// adminRecording serves a recording to an admin.
func (h *Handler) adminRecording(w http.ResponseWriter, r *http.Request) {
	if h.adminOnly(w, r) {
		h.serveRecording(w, r, true)
	}
}

// accessName is the "access" field of a listing: who may download.
func (m RecordingsMode) accessName() string {
	return [...]string{"admin", "off", "public"}[m]
}

func (h *Handler) listRecordings(w http.ResponseWriter, r *http.Request, admin bool) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	access := h.opt.Recordings.accessName()
	if g.RecordDir == "" || !h.recordingsAllowed(admin) {
		writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "access": access, "recordings": []apiRecording{}})
		return
	}
	prefix := "/api/games/" + r.PathValue("port") + "/recordings/"
	if admin {
		prefix = "/admin" + prefix
	}
	list, err := g.recordings(h.opt.Now(), prefix)
	if err != nil {
		h.opt.Log.Warn().Err(err).Str("dir", g.RecordDir).Msg("web: recordings not listed")
		writeError(w, http.StatusInternalServerError, "recordings not readable")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"version": APIVersion, "access": access, "recordings": list})
}

// recList is the last listing of a game's recordings (gameView.recordings).
type recList struct {
	mu    sync.Mutex
	at    time.Time
	list  []apiRecording // URLs without their prefix
	err   error
	reads int // directory reads
}

// recordings lists g's finished recordings with their URLs under prefix,
// from a listing at most RecordingsListEvery old at now.
func (g *gameView) recordings(now time.Time, prefix string) ([]apiRecording, error) {
	c := &g.recs
	c.mu.Lock()
	if c.reads == 0 || now.Sub(c.at) >= RecordingsListEvery || now.Before(c.at) {
		c.list, c.err = recordingsOf(g.RecordDir, "", g.Server.RecordingBusy)
		c.at = now
		c.reads++
	}
	list, err := c.list, c.err
	c.mu.Unlock()
	out := make([]apiRecording, len(list))
	for i, r := range list {
		r.URL = prefix + r.URL
		out[i] = r
	}
	return out, err
}

func (h *Handler) serveRecording(w http.ResponseWriter, r *http.Request, admin bool) {
	g := h.game(w, r)
	if g == nil {
		return
	}
	name := r.PathValue("name")
	if _, err := recordingKind(name); err != nil || g.RecordDir == "" || !h.recordingsAllowed(admin) ||
		g.Server.RecordingBusy(filepath.Join(g.RecordDir, name)) {
		writeError(w, http.StatusNotFound, "no such recording")
		return
	}
	f, info, err := openRecording(g.RecordDir, name)
	if err != nil {
		writeError(w, http.StatusNotFound, "no such recording")
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, info.ModTime(), f)
}

// openRecording opens the plain file name (a checked recording's name) of
// dir, refusing anything else (a symbolic link, a directory, a path that
// leaves dir).
func openRecording(dir, name string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	if li, err := root.Lstat(name); err != nil || !li.Mode().IsRegular() {
		return nil, nil, ErrBadRecordingName
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, ErrBadRecordingName
	}
	return f, info, nil
}
