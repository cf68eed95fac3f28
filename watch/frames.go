package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"twserver/gamemsg"
	"twserver/live"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/collision"
	"twserver/world/twmap"
	"twserver/world/vmath"
)

// Frame layout. A frame is a flat array of ints:
//
//	tick,
//	n tees, then per tee TeeInts ints: id, x, y, angle (1/256 rad), direction,
//	  weapon, hook state, hook x, hook y, team, health, armor
//	n projectiles, then x, y, type each
//	n lasers, then x, y, from x, from y each
//	n pick-ups, then x, y, type each
//	n flags, then x, y, team each
//	red flag carrier, blue flag carrier (a client id, or world.FlagAtStand,
//	  FlagTaken, FlagMissing), red score, blue score,
//	n players, then id, score, team each
//
// Positions are world units (32 per tile); a tee's x and y are its true
// position (World.CharacterPos rounded as the recorder rounds it), not the
// snapshot's dead-reckoning core.
const (
	// TeeInts is the size of one tee in a frame.
	TeeInts = 12
	// FrameTicks is the ticks between two frames (the demos' snapshot rate).
	FrameTicks = 2
	// ChunkTicks is the ticks of game one chunk covers (5 s).
	ChunkTicks = 250
)

// Bounds of one file's frames.
const (
	// MaxFileBytes bounds the compressed chunks kept of one file; a longer
	// recording is shown up to there.
	MaxFileBytes = 32 << 20
	// MaxEvents bounds the events (kills, captures, chat, joins) kept of
	// one file; later ones are left out of the feed.
	MaxEvents = 100000
	// MaxPlayerNames bounds the name changes kept of one file.
	MaxPlayerNames = 10000
	// MaxChatBytes bounds one chat line kept.
	MaxChatBytes = 256
)

// ErrTooLarge is a build's error when it reached MaxFileBytes.
var ErrTooLarge = errors.New("watch: recording larger than the viewer keeps")

// Event kinds of Event.Kind.
const (
	EventKill    = "kill"
	EventCapture = "capture"
	EventChat    = "chat"
	EventJoin    = "join"
	EventLeave   = "leave"
)

// Event is one line of the feed with its tick. For a kill, Client killed
// Victim with Weapon; for a capture, Client carried the flag of Team home
// in Ticks; for chat, Client (-1: the server) said Text.
type Event struct {
	Tick   int32  `json:"tick"`
	Kind   string `json:"kind"`
	Client int    `json:"client"`
	Victim int    `json:"victim"`
	Weapon int    `json:"weapon"`
	Team   int    `json:"team"`
	Ticks  int    `json:"ticks,omitempty"`
	Text   string `json:"text,omitempty"`
}

// PlayerName says that client ID is called Name from tick From on (and
// is a bot, twserver's own: the viewer writes [bot] after its name).
type PlayerName struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	From int32  `json:"from"`
	Bot  bool   `json:"bot,omitempty"`
}

// snapItems keeps the items of one all-seeing snapshot (world.SnapBuilder).
type snapItems struct {
	words []int32
	items []live.Item
}

func (s *snapItems) reset() { s.words, s.items = s.words[:0], s.items[:0] }

func (s *snapItems) NewItem(typ, id uint16, size int) ([]int32, error) {
	if size < 0 || len(s.words)+size > live.MaxItemWords {
		return nil, live.ErrFull
	}
	off := len(s.words)
	s.words = append(s.words, make([]int32, size)...)
	s.items = append(s.items, live.Item{Type: typ, ID: id, Off: int32(off), Len: int32(size)})
	return s.words[off : off+size : off+size], nil
}

func (s *snapItems) data(it live.Item) []int32 { return s.words[it.Off : it.Off+it.Len] }

// builder is the replay's observer that makes the frames of one file.
type builder struct {
	out    sink
	items  snapItems
	frame  []int32
	chunk  bytes.Buffer // the JSON of the chunk being filled
	gz     *gzip.Writer
	chunkN int // frames in chunk
	k      int // index of the chunk being filled
	names  [world.MaxClients]string
	bots   [world.MaxClients]bool // names[cid] is a bot's
	w      *world.World
	err    error
}

// AfterTick implements replay.Observer: a frame every FrameTicks.
func (b *builder) AfterTick(w *world.World, _ bool) {
	tick := w.CurrentTick()
	if tick%FrameTicks != 0 || b.err != nil {
		return
	}
	b.names07(w, tick)
	b.items.reset()
	_ = w.Snap(-1, &b.items)
	b.frame = appendFrame(b.frame[:0], w, &b.items)
	if k := int(tick / ChunkTicks); k != b.k || b.chunkN == 0 {
		if b.chunkN > 0 {
			b.flush()
		}
		b.k = k
		b.chunk.Reset()
		b.chunk.WriteString(`{"from":`)
		b.chunk.WriteString(strconv.Itoa(k * ChunkTicks))
		b.chunk.WriteString(`,"frames":[`)
	}
	if b.chunkN > 0 {
		b.chunk.WriteByte(',')
	}
	b.chunk.WriteByte('[')
	var num [12]byte
	for i, v := range b.frame {
		if i > 0 {
			b.chunk.WriteByte(',')
		}
		b.chunk.Write(strconv.AppendInt(num[:0], int64(v), 10))
	}
	b.chunk.WriteByte(']')
	b.chunkN++
	b.out.setLast(tick)
}

// flush compresses the chunk being filled and hands it to the recording.
func (b *builder) flush() {
	if b.chunkN == 0 {
		return
	}
	b.chunk.WriteString(`]}`)
	if err := b.out.addChunk(b.k, compress(&b.gz, b.chunk.Bytes())); err != nil {
		b.err = err
	}
	b.chunkN = 0
}

// compress gzips b with *gz (made on first use) into a new slice.
func compress(gz **gzip.Writer, b []byte) []byte {
	var z bytes.Buffer
	if *gz == nil {
		*gz, _ = gzip.NewWriterLevel(&z, gzip.BestSpeed)
	} else {
		(*gz).Reset(&z)
	}
	_, _ = (*gz).Write(b)
	_ = (*gz).Close()
	return z.Bytes()
}

// names07 notes the players' names (and bot marks) that changed.
func (b *builder) names07(w *world.World, tick int32) {
	for cid := range world.MaxClients {
		info, ok := w.Info(cid)
		if !ok || !w.InGame(cid) || info.Name == b.names[cid] && info.Bot == b.bots[cid] {
			continue
		}
		b.names[cid], b.bots[cid] = info.Name, info.Bot
		b.out.addName(PlayerName{ID: cid, Name: info.Name, From: tick, Bot: info.Bot})
	}
}

// Event implements replay.Observer: kills and captures. A character
// removed with WEAPON_GAME (its player left or changed team) is no kill:
// the leave has its line, as on the server's page.
func (b *builder) Event(e world.Event) {
	switch {
	case e.FeedKill():
		b.out.addEvent(Event{Tick: b.w.CurrentTick(), Kind: EventKill, Client: int(e.Args[0]), Victim: int(e.Args[1]), Weapon: int(e.Args[2])})
	case e.Kind == world.EvGameMsg && e.Args[0] == world.GameMsgCTFCapture:
		b.out.addEvent(Event{Tick: b.w.CurrentTick(), Kind: EventCapture, Team: int(e.Args[1]), Client: int(e.Args[2]), Ticks: int(e.Args[3])})
	}
}

// Message implements replay.Observer: public chat.
func (b *builder) Message(m gamemsg.Message) {
	if c, ok := m.(*gamemsg.SvChat); ok && c.Mode == gamemsg.ChatAll {
		b.out.addEvent(Event{Tick: b.w.CurrentTick(), Kind: EventChat, Client: int(c.ClientID), Text: gamemsg.TruncUTF8(c.Message, MaxChatBytes)})
	}
}

// Enter implements replay.Observer.
func (b *builder) Enter(cid int) {
	b.out.addEvent(Event{Tick: b.w.CurrentTick(), Kind: EventJoin, Client: cid})
}

// Leave implements replay.Observer.
func (b *builder) Leave(cid int, _, _ string) {
	b.out.addEvent(Event{Tick: b.w.CurrentTick(), Kind: EventLeave, Client: cid})
	b.names[cid] = ""
}

// appendFrame appends the frame of w's current tick (its snapshot in s).
func appendFrame(f []int32, w *world.World, s *snapItems) []int32 {
	f = append(f, w.CurrentTick())
	n := len(f)
	f = append(f, 0)
	for _, it := range s.items {
		d := s.data(it)
		if it.Type != world.ObjCharacter || len(d) < 22 {
			continue
		}
		cid := int(it.ID)
		pos, ok := w.CharacterPos(cid)
		if !ok {
			continue
		}
		f = append(f, int32(cid), vmath.RoundToInt(pos.X), vmath.RoundToInt(pos.Y), d[5], d[6], d[18], d[9], d[11], d[12],
			int32(w.Team(cid)), d[15], d[16])
		f[n]++
	}
	f = appendList(f, s, world.ObjProjectile, 6, 0, 1, 4)
	f = appendList(f, s, world.ObjLaser, 4, 0, 1, 2, 3)
	f = appendList(f, s, world.ObjPickup, 3, 0, 1, 2)
	f = appendList(f, s, world.ObjFlag, 3, 0, 1, 2)
	carrier, score := [2]int32{world.FlagMissing, world.FlagMissing}, [2]int32{}
	for _, it := range s.items {
		d := s.data(it)
		switch {
		case it.Type == world.ObjGameDataFlag && len(d) >= 2:
			carrier = [2]int32{d[0], d[1]}
		case it.Type == world.ObjGameDataTeam && len(d) >= 2:
			score = [2]int32{d[0], d[1]}
		}
	}
	f = append(f, carrier[0], carrier[1], score[0], score[1])
	n = len(f)
	f = append(f, 0)
	for cid := range world.MaxClients {
		if w.InGame(cid) {
			f = append(f, int32(cid), int32(w.Score(cid)), int32(w.Team(cid)))
			f[n]++
		}
	}
	return f
}

// appendList appends the count and the listed words of the items of typ
// with at least need words.
func appendList(f []int32, s *snapItems, typ uint16, need int, words ...int) []int32 {
	n := len(f)
	f = append(f, 0)
	for _, it := range s.items {
		d := s.data(it)
		if it.Type != typ || len(d) < need {
			continue
		}
		for _, k := range words {
			f = append(f, d[k])
		}
		f[n]++
	}
	return f
}

// next reads the n-th message of r into msg: false at the file's end (a
// file cut short ends at its last whole message); the context is looked
// at every 4096 messages.
func next(ctx context.Context, r *teehist.Reader, msg *teehist.Message, n int) (bool, error) {
	if n%4096 == 0 && ctx.Err() != nil {
		return false, ctx.Err()
	}
	err := r.Next(msg)
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, teehist.ErrTruncated) {
		return false, nil
	}
	return err == nil, err
}

// setMapLayer gives rec the layer the page draws of map m (w's
// collision) and whether w's game has teams.
func setMapLayer(rec sink, w *world.World, m *twmap.Map) {
	col := w.Collision()
	rec.setLayer(layerJSON(live.NewMapLayer(1, m.Name, col.Width(), col.Height(), func(x, y int) byte {
		return byte(col.GetTile(x*collision.TileSize, y*collision.TileSize))
	})), teamGame(w.Config().GameType))
}

// build replays the file of r (after its header h) on map m into rec.
func build(ctx context.Context, rec sink, r *teehist.Reader, h *teehist.Header, m *twmap.Map) error {
	e, err := replay.New(h, m)
	if err != nil {
		return err
	}
	setMapLayer(rec, e.World(), m)
	b := &builder{out: rec, w: e.World()}
	e.SetObserver(b)
	var msg teehist.Message
	for n := 0; ; n++ {
		if more, err := next(ctx, r, &msg, n); err != nil {
			return err
		} else if !more {
			break
		}
		if msg.Tick < 0 || msg.Tick > replay.MaxTicks {
			return fmt.Errorf("%w: tick %d", replay.ErrTooLong, msg.Tick)
		}
		if e.Feed(&msg) {
			break // a divergence: what came before is shown
		}
		if b.err != nil {
			return b.err
		}
	}
	b.flush()
	rec.setUnfinished(!e.Result().Finished)
	if dv := e.Result().Divergence; dv != nil {
		return fmt.Errorf("%w at %v", replay.ErrDivergence, dv)
	}
	if err := e.Err(); err != nil { // over the file's budget (replay.TicksPerByte)
		return err
	}
	return b.err
}
