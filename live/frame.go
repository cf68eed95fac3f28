package live

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of a frame.
const (
	// MaxEvents is how many of the last chat, kill, join and leave lines a
	// frame carries (the page shows them when it opens).
	MaxEvents = 50
	// MaxItemWords bounds the entity data of one frame (int32 words); a
	// full 64-player CTF game with every projectile needs a few thousand.
	MaxItemWords = 1 << 16
	// MaxMapTiles bounds the game layer a frame carries (tiles); larger
	// maps are shown without their layer.
	MaxMapTiles = 4 << 20
)

// Client kinds of Player.Client.
const (
	Client07    = "0.7"
	Client06    = "0.6"
	ClientDDNet = "ddnet"
	ClientBot   = "bot" // a bot: no connection
)

// ClientKind is Player.Client of a connected client: the 0.7 protocol, else
// DDNet (a DDNet version was announced), else 0.6.
func ClientKind(is07, ddnet bool) string {
	switch {
	case is07:
		return Client07
	case ddnet:
		return ClientDDNet
	}
	return Client06
}

// EventKind says what an Event is.
type EventKind uint8

// Event kinds.
const (
	// EventChat is a public chat line (Client, Name, Text); Client -1 is the server.
	EventChat EventKind = iota + 1
	// EventKill is a kill (Client killed Victim with Weapon; Client == Victim: suicide).
	EventKill
	// EventJoin is a player entering the game.
	EventJoin
	// EventLeave is a player leaving the game.
	EventLeave
	// EventBroadcast is a server broadcast (Text).
	EventBroadcast
)

// EventNames are the names of the event kinds (index = kind).
var EventNames = [...]string{"", "chat", "kill", "join", "leave", "broadcast"}

// Event is one line of the chat and kill feed. Seq numbers the events of a
// game from 1, without gaps.
type Event struct {
	Seq        uint64
	Tick       int32
	Kind       EventKind
	Client     int
	Name       string
	Victim     int
	VictimName string
	Weapon     int
	Text       string
}

// Player is one client in game.
type Player struct {
	ID       int
	Name     string
	Clan     string
	Country  int
	Score    int
	Team     int // -1 spectators, 0 red (or everyone), 1 blue
	Ping     int // milliseconds
	Client   string
	IsPlayer bool
	Bot      bool // a bot (Client is ClientBot)
}

// Game is the state of the game itself.
type Game struct {
	ServerName string
	Map        string
	GameType   string
	MaxClients int
	ScoreLimit int
	TimeLimit  int // minutes, 0 = none
	// StartTick is the tick the round started; StateFlags are the 0.7
	// GAMESTATEFLAG_* bits (warmup 1, sudden death 2, round over 4, game
	// over 8, paused 16, countdown 32); EndTick is when a timed state ends.
	StartTick, StateFlags, EndTick int32
	// TeamScore is red's and blue's score in team games.
	TeamScore [2]int
	Teams     bool
	// Recording are the paths of the teehistorian and the demo being
	// written ("" when none).
	Recording [2]string
}

// MapLayer is a game layer: one collision value per tile, row-major
// (solid 1, death 2, unhookable 4). Never modified once published.
type MapLayer struct {
	Gen           uint32 // changes with every map change
	Name          string
	Width, Height int
	Tiles         []byte
}

// NewMapLayer returns the game layer of a map of w×h tiles, tile(x, y)
// giving each tile's collision value; a map beyond MaxMapTiles gets no
// tiles.
func NewMapLayer(gen uint32, name string, w, h int, tile func(x, y int) byte) *MapLayer {
	m := &MapLayer{Gen: gen, Name: name, Width: w, Height: h}
	if w > 0 && h > 0 && w*h <= MaxMapTiles {
		m.Tiles = make([]byte, w*h)
		for y := range h {
			for x := range w {
				m.Tiles[y*w+x] = tile(x, y)
			}
		}
	}
	return m
}

// Item is one entity of the frame's snapshot: its 0.7 object type and id
// and its words in Frame.Words.
type Item struct {
	Type, ID uint16
	Off, Len int32
}

// Frame is what a game showed at one tick. The loop fills a frame from
// NewFrame, publishes it and never touches it again while a reader holds
// it; readers get it from Acquire, must not modify it and Release it when
// done (its buffers are then reused for a later frame).
type Frame struct {
	Seq   uint64 // numbers the published frames of a hub from 1
	Tick  int32
	Time  time.Time
	Game  Game
	Map   *MapLayer
	Items []Item
	Words []int32
	// Players are the clients in game, by id.
	Players []Player
	// Events are the last MaxEvents events, oldest first.
	Events []Event

	refs atomic.Int32 // readers holding the frame (Acquire)

	encOnce sync.Once
	enc     any
}

// NewItem adds an entity of size words (world.SnapBuilder): the loop builds
// the frame's entities with the world's all-seeing snapshot.
func (f *Frame) NewItem(typ, id uint16, size int) ([]int32, error) {
	if size < 0 || len(f.Words)+size > MaxItemWords {
		return nil, ErrFull
	}
	off := len(f.Words)
	f.Words = append(f.Words, make([]int32, size)...)
	f.Items = append(f.Items, Item{Type: typ, ID: id, Off: int32(off), Len: int32(size)})
	return f.Words[off : off+size : off+size], nil
}

// Data returns the words of item it.
func (f *Frame) Data(it Item) []int32 { return f.Words[it.Off : it.Off+it.Len] }

// Encoded returns enc(f), computed once per frame and shared by every
// reader (enc must be the same function for every caller). The result
// must not refer to the frame's buffers: it outlives the frame's Release.
func (f *Frame) Encoded(enc func(*Frame) any) any {
	f.encOnce.Do(func() { f.enc = enc(f) })
	return f.enc
}

// Release ends a reader's hold of f (from Acquire).
func (f *Frame) Release() { f.refs.Add(-1) }

// reset empties f for reuse, keeping its buffers.
func (f *Frame) reset(seq uint64) {
	f.Seq, f.Tick, f.Time, f.Game, f.Map = seq, 0, time.Time{}, Game{}, nil
	f.Items, f.Words = f.Items[:0], f.Words[:0]
	clear(f.Players) // drop the strings of the last use
	f.Players = f.Players[:0]
	clear(f.Events)
	f.Events = f.Events[:0]
	f.encOnce, f.enc = sync.Once{}, nil
}

// errFull is NewItem's error when MaxItemWords is reached.
type errFull struct{}

func (errFull) Error() string { return "live: frame full" }

// ErrFull is returned by NewItem when the frame holds MaxItemWords.
var ErrFull error = errFull{}

// Feed is the loop's ring of the last MaxEvents events. The zero Feed is
// empty and ready; it never allocates.
type Feed struct {
	events [MaxEvents]Event
	seq    uint64 // Seq of the newest event
}

// Add numbers e (Seq) and keeps it as the newest event.
func (fd *Feed) Add(e Event) {
	fd.seq++
	e.Seq = fd.seq
	fd.events[fd.seq%MaxEvents] = e
}

// AppendTo appends the kept events to dst, oldest first.
func (fd *Feed) AppendTo(dst []Event) []Event {
	n := min(fd.seq, MaxEvents)
	for q := fd.seq - n + 1; q <= fd.seq && n > 0; q++ {
		dst = append(dst, fd.events[q%MaxEvents])
	}
	return dst
}

// Bounds of a hub.
const (
	// PoolFrames is how many frames a hub reuses: the newest, one or two
	// still held by readers and the one being built. When every pooled
	// frame is held the loop allocates a fresh one (a reader that holds a
	// frame for long costs an allocation, never a wait).
	PoolFrames = 4
	// MaxReaders bounds the attached readers of one hub.
	MaxReaders = 256
)

// Hub hands the newest frame of one game to its readers. The zero Hub is
// not ready: use NewHub.
type Hub struct {
	latest    atomic.Pointer[Frame]
	wantUntil atomic.Int64 // unix ns until which frames are published without readers
	nreaders  atomic.Int32

	pool [PoolFrames]*Frame // the loop's frames to reuse (loop only)
	last int                // pool index of the newest published frame

	mu      sync.Mutex // guards readers
	readers []*Reader
}

// Reader is an attached live reader: C is signalled (coalesced) when a
// frame is published.
type Reader struct {
	c    chan struct{}
	hub  *Hub
	once sync.Once
}

// C is signalled once a frame newer than the last signal is published
// (one pending signal at most: a slow reader skips frames).
func (r *Reader) C() <-chan struct{} { return r.c }

// Detach stops counting r as a live reader (idempotent).
func (r *Reader) Detach() {
	r.once.Do(func() {
		h := r.hub
		h.mu.Lock()
		for i, x := range h.readers {
			if x == r {
				last := len(h.readers) - 1
				h.readers[i], h.readers[last] = h.readers[last], nil
				h.readers = h.readers[:last]
				break
			}
		}
		h.mu.Unlock()
		h.nreaders.Add(-1)
	})
}

// NewHub returns a hub whose newest frame is an empty one (Seq 0).
func NewHub() *Hub {
	h := &Hub{}
	for i := range h.pool {
		h.pool[i] = &Frame{}
	}
	h.latest.Store(h.pool[0])
	return h
}

// DemandFor is how long frames are published after a one-off request
// (Demand) without a live reader.
const DemandFor = 10 * time.Second

// Wanted reports whether the loop should publish a frame at now: while a
// live reader is attached, or within DemandFor of a Demand. It does not
// allocate.
func (h *Hub) Wanted(now time.Time) bool {
	if h.nreaders.Load() > 0 {
		return true
	}
	until := h.wantUntil.Load()
	return until != 0 && now.UnixNano() < until
}

// Demand asks for frames for the next DemandFor (a request that reads one
// frame, as GET /api/games does).
func (h *Hub) Demand(now time.Time) {
	h.wantUntil.Store(now.Add(DemandFor).UnixNano())
}

// ErrTooManyReaders is Attach's error beyond MaxReaders.
var ErrTooManyReaders = errors.New("live: too many readers")

// Attach counts a live reader until its Detach.
func (h *Hub) Attach() (*Reader, error) {
	r := &Reader{c: make(chan struct{}, 1), hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.readers) >= MaxReaders {
		return nil, ErrTooManyReaders
	}
	h.readers = append(h.readers, r)
	h.nreaders.Add(1)
	return r, nil
}

// Readers is the number of attached live readers.
func (h *Hub) Readers() int { return int(h.nreaders.Load()) }

// Acquire returns the newest frame (Seq 0 before the first), held until
// its Release: the loop does not reuse it meanwhile.
func (h *Hub) Acquire() *Frame {
	for {
		f := h.latest.Load()
		f.refs.Add(1)
		// The loop reuses a frame only once a newer one is published and
		// no reader holds it; a frame still newest after the hold is safe.
		if h.latest.Load() == f {
			return f
		}
		f.refs.Add(-1)
	}
}

// Seq is the Seq of the newest frame.
func (h *Hub) Seq() uint64 {
	f := h.Acquire()
	defer f.Release()
	return f.Seq
}

// NewFrame returns an empty frame for the loop to fill: a pooled one that
// no reader holds, its buffers kept (a fresh one when all are held). Only
// the loop calls it, and Publishes the frame before the next NewFrame.
func (h *Hub) NewFrame() *Frame {
	seq := h.latest.Load().Seq + 1
	for k := 1; k < PoolFrames; k++ {
		i := (h.last + k) % PoolFrames
		if f := h.pool[i]; f.refs.Load() == 0 {
			f.reset(seq)
			h.last = i
			return f
		}
	}
	i := (h.last + 1) % PoolFrames
	h.pool[i] = &Frame{Seq: seq}
	h.last = i
	return h.pool[i]
}

// Publish makes f (from NewFrame) the newest frame and signals the
// attached readers.
func (h *Hub) Publish(f *Frame) {
	h.latest.Store(f)
	h.mu.Lock()
	for _, r := range h.readers {
		select {
		case r.c <- struct{}{}:
		default:
		}
	}
	h.mu.Unlock()
}
