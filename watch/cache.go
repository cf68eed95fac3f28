package watch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"twserver/live"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
)

// Bounds of the cache.
const (
	// MaxFiles bounds the recordings whose frames are kept; the least
	// recently watched finished one makes room for another.
	MaxFiles = 32
	// MaxCacheBytes bounds the frames kept of all recordings (a 30-minute
	// game of four players takes about 2 MiB): beyond it the least
	// recently watched finished recordings are dropped.
	MaxCacheBytes = 128 << 20
	// MaxBuilds bounds the recordings replayed at the same time; more
	// wait their turn.
	MaxBuilds = 2
	// Rebuild is how long a recording whose file ended without FINISH (or
	// whose build failed) is kept before it is built again.
	Rebuild = 10 * time.Second
)

// ErrBusy is Cache.Get's error when MaxFiles recordings are kept and none
// of them can make room (all still building).
var ErrBusy = errors.New("watch: too many recordings being prepared")

// Recording is the frames of one file, filled by its build.
type Recording struct {
	Name string
	// Header fields shown by the page.
	MapName  string
	Start    time.Time
	GameType string

	done chan struct{} // closed when the build ended

	mu       sync.Mutex
	layer    []byte // the map layer's JSON
	teams    bool
	chunks   [][]byte // gzip'd chunk JSON by index (nil: not yet)
	bytes    int
	rough    [][]byte // gzip'd rough chunk JSON by index (rough.go)
	roughN   int      // bytes of rough
	end      int32    // the last frame's tick the rough pass read
	last     int32    // the newest frame's tick
	first    int32    // the first frame's tick (-1: none yet)
	events   []Event
	names    []PlayerName
	err      error
	finished bool
	used     time.Time // guarded by Cache.mu
	// unfinished: the file ended without FINISH (a game still being
	// written, or a server that died); it is built again after Rebuild.
	unfinished bool
	doneAt     time.Time
	hdr        *teehist.Header
	m          *twmap.Map
	ckpts      []ckptRef      // the checkpoints the rough pass found (seek.go)
	seeks      map[int][]byte // chunks made by seeks (seek.go)
	seekN      int            // bytes of seeks
}

func newRecording(name string, h *teehist.Header) *Recording {
	return &Recording{Name: name, MapName: h.MapName, Start: h.StartTime, GameType: h.GameType,
		done: make(chan struct{}), first: -1, hdr: h}
}

// sink receives what a build makes of a file: a Recording, or the pipe
// of a build child (child.go) to the Recording of its parent.
type sink interface {
	setLayer(layer []byte, teams bool)
	setLast(tick int32)
	addChunk(k int, z []byte) error
	setEnd(tick int32)
	addRough(k int, z []byte) error
	addEvent(e Event)
	addName(n PlayerName)
	setUnfinished(unfinished bool)
	addCheckpoint(c ckptRef)
}

// layerJSON is the map layer as the page asks for it.
func layerJSON(l *live.MapLayer) []byte {
	b, _ := json.Marshal(map[string]any{"version": APIVersion, "gen": l.Gen, "name": l.Name,
		"width": l.Width, "height": l.Height, "tiles": l.Tiles})
	return b
}

// teamGame says whether a game type has teams.
func teamGame(gameType world.GameType) bool {
	return gameType == world.GameTDM || gameType == world.GameCTF
}

func (r *Recording) setLayer(layer []byte, teams bool) {
	r.mu.Lock()
	r.layer, r.teams = layer, teams
	r.mu.Unlock()
}

func (r *Recording) setUnfinished(unfinished bool) {
	r.mu.Lock()
	r.unfinished = unfinished
	r.mu.Unlock()
}

func (r *Recording) setLast(tick int32) {
	r.mu.Lock()
	r.last = tick
	if r.first < 0 {
		r.first = tick
	}
	r.mu.Unlock()
}

func (r *Recording) addChunk(k int, z []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bytes+len(z) > MaxFileBytes {
		return ErrTooLarge
	}
	for len(r.chunks) <= k {
		r.chunks = append(r.chunks, nil)
	}
	r.chunks[k] = append([]byte(nil), z...)
	r.bytes += len(z)
	return nil
}

func (r *Recording) setEnd(tick int32) {
	r.mu.Lock()
	r.end = tick
	r.mu.Unlock()
}

func (r *Recording) addRough(k int, z []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.roughN+len(z) > MaxRoughBytes {
		return errRoughFull
	}
	for len(r.rough) <= k {
		r.rough = append(r.rough, nil)
	}
	r.rough[k] = append([]byte(nil), z...)
	r.roughN += len(z)
	return nil
}

// Rough returns rough chunk k (gzip'd JSON) and whether it is there.
func (r *Recording) Rough(k int) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k < 0 || k >= len(r.rough) || r.rough[k] == nil {
		return nil, false
	}
	return r.rough[k], true
}

func (r *Recording) addEvent(e Event) {
	r.mu.Lock()
	if len(r.events) < MaxEvents {
		r.events = append(r.events, e)
	}
	r.mu.Unlock()
}

func (r *Recording) addName(n PlayerName) {
	r.mu.Lock()
	if len(r.names) < MaxPlayerNames {
		r.names = append(r.names, n)
	}
	r.mu.Unlock()
}

func (r *Recording) finish(err error) {
	r.mu.Lock()
	r.err, r.finished, r.doneAt = err, true, time.Now()
	r.rough, r.roughN = nil, 0 // the built chunks replace them
	r.seeks, r.seekN = nil, 0
	r.mu.Unlock()
	close(r.done)
}

// Done is closed when the recording's build ended (Info says how).
func (r *Recording) Done() <-chan struct{} { return r.done }

// Chunk returns chunk k (gzip'd JSON) and whether it is ready; a chunk
// is ready once the build moved past it.
func (r *Recording) Chunk(k int) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k < 0 || k >= len(r.chunks) || r.chunks[k] == nil {
		return nil, false
	}
	return r.chunks[k], true
}

// Layer returns the map layer's JSON (nil before the build started).
func (r *Recording) Layer() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.layer
}

// Info is the state of a recording for the page.
type Info struct {
	Version   int    `json:"version"`
	Name      string `json:"name"`
	Map       string `json:"map"`
	GameType  string `json:"game_type"`
	Start     int64  `json:"start"` // Unix ms
	Teams     bool   `json:"teams"`
	FirstTick int32  `json:"first_tick"`
	LastTick  int32  `json:"last_tick"` // the newest frame built
	// EndTick is the last frame's tick as far as the rough pass read the
	// file (rough frames up to there; at least LastTick).
	EndTick    int32        `json:"end_tick"`
	Chunks     int          `json:"chunks"` // chunks ready (0..Chunks-1, a missing one is empty)
	Done       bool         `json:"done"`
	Error      string       `json:"error,omitempty"`
	FrameTicks int          `json:"frame_ticks"`
	ChunkTicks int          `json:"chunk_ticks"`
	Events     []Event      `json:"events"`
	Names      []PlayerName `json:"names"`
	// Demo is the address of the recording's demo download (Options.Demos;
	// "" when there is none): the page adds ddnet=1, view=CID, from=TICK
	// and to=TICK.
	Demo string `json:"demo,omitempty"`
}

// Info returns the recording's state; chat lines are left out unless chat.
func (r *Recording) Info(chat bool) Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := Info{Version: APIVersion, Name: r.Name, Map: r.MapName, GameType: r.GameType, Start: r.Start.UnixMilli(),
		Teams: r.teams, FirstTick: r.first, LastTick: r.last, EndTick: max(r.end, r.last), Chunks: len(r.chunks), Done: r.finished,
		FrameTicks: FrameTicks, ChunkTicks: ChunkTicks, Events: make([]Event, 0, len(r.events)),
		Names: append(make([]PlayerName, 0, len(r.names)), r.names...)} // [] before the first name, never null
	if r.finished && r.err != nil {
		in.Error = r.err.Error()
	}
	for _, e := range r.events {
		if e.Kind != EventChat || chat {
			in.Events = append(in.Events, e)
		}
	}
	return in
}

// Source opens recordings by name and finds their maps.
type Source interface {
	// Open opens the teehistorian called name (a checked name).
	Open(name string) (io.ReadCloser, error)
	// Map returns the map the header names (checked by the replay).
	Map(h *teehist.Header) (*twmap.Map, error)
}

// Cache keeps the frames of the recordings being watched.
type Cache struct {
	src    Source
	ctx    context.Context
	builds chan struct{}
	seeks  chan struct{} // MaxSeeks
	nice   int           // the builds' scheduling priority (SetNice)
	child  string        // the executable of the build children (SetChild)
	// onChild, when set, is called with each build child's process id
	// (tests)
	onChild func(pid int)
	// childMem, when above 0, is the build children's memory bound
	// instead of MaxChildMemory (tests)
	childMem int64
	// childSelfNice starts the build children at this process's priority,
	// as from the main thread: they lower themselves (tests)
	childSelfNice bool

	mu    sync.Mutex
	files map[string]*Recording
}

// NewCache returns a cache of src's recordings whose builds stop when ctx
// ends; builds bounds the concurrent builds (0: MaxBuilds).
func NewCache(ctx context.Context, src Source, builds int) *Cache {
	if builds <= 0 || builds > MaxBuilds {
		builds = MaxBuilds
	}
	return &Cache{src: src, ctx: ctx, builds: make(chan struct{}, builds), seeks: make(chan struct{}, MaxSeeks), files: map[string]*Recording{}}
}

// Get returns the recording called name, starting its build when it is
// not kept yet.
func (c *Cache) Get(name string) (*Recording, error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.files[name]; r != nil {
		r.mu.Lock()
		stale := r.finished && (r.unfinished || r.err != nil) && now.Sub(r.doneAt) > Rebuild
		r.mu.Unlock()
		if !stale {
			r.used = now
			return r, nil
		}
		delete(c.files, name)
	}
	for c.size() > MaxCacheBytes && c.evict() {
	}
	if len(c.files) >= MaxFiles && !c.evict() {
		return nil, ErrBusy
	}
	f, err := c.src.Open(name)
	if err != nil {
		return nil, err
	}
	rd := teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		f.Close()
		return nil, err
	}
	m, err := c.src.Map(h)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := newRecording(name, h)
	r.used, r.m = now, m
	c.files[name] = r
	go func() {
		defer f.Close()
		select {
		case c.builds <- struct{}{}:
		case <-c.ctx.Done():
			r.finish(c.ctx.Err())
			return
		}
		var err error
		if file, ok := f.(*os.File); ok && c.child != "" && len(m.Data) <= MaxChildMap {
			err = c.buildChild(r, file, m)
		} else {
			if c.nice > 0 {
				// the build's thread yields (SetNice); it ends with this
				// goroutine. Where the kernel refuses, it builds as it is.
				_ = lowerPriority(c.nice)
			}
			c.roughPass(r)
			err = build(c.ctx, r, rd, h, m)
		}
		<-c.builds
		r.finish(err)
	}()
	return r, nil
}

// roughPass reads r's file a second time for its rough frames, so that
// the page can show any moment at once while the build goes on; the
// rough frames are a help, and a file that fails them is still built.
func (c *Cache) roughPass(r *Recording) {
	f, err := c.src.Open(r.Name)
	if err != nil {
		return
	}
	defer f.Close()
	rd := teehist.NewReader(f)
	if h, err := rd.ReadHeader(); err == nil {
		_ = roughPass(c.ctx, r, rd, h)
	}
}

// size is the bytes of frames kept (c.mu held).
func (c *Cache) size() int {
	n := 0
	for _, r := range c.files {
		r.mu.Lock()
		n += r.bytes + r.roughN + r.seekN
		r.mu.Unlock()
	}
	return n
}

// evict drops the least recently used finished recording (c.mu held).
func (c *Cache) evict() bool {
	var old *Recording
	for _, r := range c.files {
		select {
		case <-r.done:
		default:
			continue
		}
		if old == nil || r.used.Before(old.used) {
			old = r
		}
	}
	if old == nil {
		return false
	}
	delete(c.files, old.Name)
	return true
}
