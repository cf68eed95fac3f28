package live

import (
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
)

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
}

// MapLayer is a game layer: one collision value per tile, row-major
// (solid 1, death 2, unhookable 4). Never modified once published.
type MapLayer struct {
	Gen           uint32 // changes with every map change
	Name          string
	Width, Height int
	Tiles         []byte
}

// Item is one entity of the frame's snapshot: its 0.7 object type and id
// and its words in Frame.Words.
type Item struct {
	Type, ID uint16
	Off, Len int32
}

// Frame is what a game showed at one tick. The loop fills a new Frame,
// publishes it and never touches it again; readers must not modify it.
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

	next chan struct{} // closed when the next frame is published

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
// reader (enc must be the same function for every caller).
func (f *Frame) Encoded(enc func(*Frame) any) any {
	f.encOnce.Do(func() { f.enc = enc(f) })
	return f.enc
}

// Next returns a channel closed once a newer frame than f is published.
func (f *Frame) Next() <-chan struct{} { return f.next }

// errFull is NewItem's error when MaxItemWords is reached.
type errFull struct{}

func (errFull) Error() string { return "live: frame full" }

// ErrFull is returned by NewItem when the frame holds MaxItemWords.
var ErrFull error = errFull{}

// Hub hands the newest frame of one game to its readers. The zero Hub is
// not ready: use NewHub.
type Hub struct {
	latest    atomic.Pointer[Frame]
	readers   atomic.Int32
	wantUntil atomic.Int64 // unix ns until which frames are published without readers
}

// NewHub returns a hub whose newest frame is an empty one (Seq 0).
func NewHub() *Hub {
	h := &Hub{}
	h.latest.Store(&Frame{next: make(chan struct{})})
	return h
}

// DemandFor is how long frames are published after a one-off request
// (Demand) without a live reader.
const DemandFor = 10 * time.Second

// Wanted reports whether the loop should publish a frame at now: while a
// live reader is attached, or within DemandFor of a Demand. It does not
// allocate.
func (h *Hub) Wanted(now time.Time) bool {
	if h.readers.Load() > 0 {
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

// Attach counts a live reader until the returned func is called.
func (h *Hub) Attach() (detach func()) {
	h.readers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { h.readers.Add(-1) }) }
}

// Readers is the number of attached live readers.
func (h *Hub) Readers() int { return int(h.readers.Load()) }

// Latest returns the newest frame (Seq 0 before the first).
func (h *Hub) Latest() *Frame { return h.latest.Load() }

// NewFrame returns an empty frame for the loop to fill, its buffers sized
// like the newest frame's.
func (h *Hub) NewFrame() *Frame {
	prev := h.latest.Load()
	return &Frame{
		Seq:     prev.Seq + 1,
		Items:   make([]Item, 0, cap(prev.Items)),
		Words:   make([]int32, 0, cap(prev.Words)),
		Players: make([]Player, 0, cap(prev.Players)),
		next:    make(chan struct{}),
	}
}

// Publish makes f the newest frame and wakes the readers waiting on the
// previous one. Only the loop calls it, with a frame from NewFrame.
func (h *Hub) Publish(f *Frame) {
	old := h.latest.Swap(f)
	close(old.next)
}
