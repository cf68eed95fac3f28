package world

import (
	"twserver/world/vmath"
)

// Bounds of the per-snapshot event buffer (the reference CEventHandler).
const (
	MaxSnapEvents = 128 // MAX_EVENTS: further events in the same snapshot window are dropped
	maxEventWords = SizeEventDamage
)

// eventRange is the view distance within which an event is sent to a client.
const eventRange = 1500

// snapEvent is one transient snapshot item (explosion, sound, ...).
type snapEvent struct {
	typ  uint16
	size uint8
	mask uint64 // client mask; all ones = everybody
	data [maxEventWords]int32
}

// eventBuffer collects the events of the ticks since the last PostSnap.
type eventBuffer struct {
	n      int
	types  uint64 // a bit for each type among the events (all below 64)
	events [MaxSnapEvents]snapEvent
}

const maskAll = ^uint64(0)

func (b *eventBuffer) create(typ uint16, size int, mask uint64) []int32 {
	if b.n == MaxSnapEvents {
		return nil
	}
	e := &b.events[b.n]
	b.n++
	b.types |= 1 << typ
	e.typ = typ
	e.size = uint8(size)
	e.mask = mask
	e.data = [maxEventWords]int32{}
	return e.data[:size]
}

func (b *eventBuffer) clear() { b.n, b.types = 0, 0 }

func (w *World) createExplosionEvent(pos vmath.Vec2) {
	if d := w.events.create(EventExplosion, SizeEventExplosion, maskAll); d != nil {
		d[0], d[1] = int32(pos.X), int32(pos.Y)
	}
}

func (w *World) createHammerHit(pos vmath.Vec2) {
	if d := w.events.create(EventHammerHit, SizeEventHammerHit, maskAll); d != nil {
		d[0], d[1] = int32(pos.X), int32(pos.Y)
	}
}

func (w *World) createPlayerSpawn(pos vmath.Vec2) {
	if d := w.events.create(EventSpawn, SizeEventSpawn, maskAll); d != nil {
		d[0], d[1] = int32(pos.X), int32(pos.Y)
	}
}

func (w *World) createDeath(pos vmath.Vec2, cid int) {
	if d := w.events.create(EventDeath, SizeEventDeath, maskAll); d != nil {
		d[0], d[1], d[2] = int32(pos.X), int32(pos.Y), int32(cid)
	}
}

func (w *World) createSound(pos vmath.Vec2, sound int, mask uint64) {
	if sound < 0 {
		return
	}
	if d := w.events.create(EventSoundWorld, SizeEventSound, mask); d != nil {
		d[0], d[1], d[2] = int32(pos.X), int32(pos.Y), int32(sound)
	}
}

func (w *World) createDamage(pos vmath.Vec2, cid int, source vmath.Vec2, health, armor int, self bool) {
	a := vmath.Angle(source)
	if d := w.events.create(EventDamage, SizeEventDamage, maskAll); d != nil {
		d[0], d[1], d[2] = int32(pos.X), int32(pos.Y), int32(cid)
		d[3] = int32(a * 256)
		d[4], d[5] = int32(health), int32(armor)
		if self {
			d[6] = 1
		}
	}
}

// EventKind says which game-layer message the server must send for an Event.
type EventKind uint8

// Event kinds. Args are listed in the order of the message fields.
const (
	// EvKillMsg: Sv_KillMsg{killer, victim, weapon, mode_special} to every in-game
	// client. Args[0..3]; Args[4] is the victim's team at its death (for the
	// console line: a team change kills before it changes the team). The reference sends killer 0 / weapon WORLD to clients
	// older than 0x0704 when killer < 0; that is the server's business.
	EvKillMsg EventKind = iota + 1
	// EvTeam: Sv_Team{client_id, team, silent, cooldown_tick} to all.
	// Args[0..3]; Args[4] is the team before the change (console line).
	EvTeam
	// EvGameMsg: Sv_GameMsg with id Args[0] followed by GameMsgNumArgs[id]
	// ints from Args[1..3]; to To (-1 = all).
	EvGameMsg
	// EvWeaponPickup: Sv_WeaponPickup{weapon = Args[0]} to To.
	EvWeaponPickup
	// EvGameInfo: Sv_GameInfo{game_flags, score_limit, time_limit, match_num,
	// match_current} = Args[0..4] to all in-game clients (the game info changed).
	EvGameInfo
	// EvCycleMap: the match ended and the map rotation (Config.MatchesPerMap)
	// says the next map is due; the server loads it and builds a new World.
	EvCycleMap
	// EvKick: drop client To with the reason "Kicked for inactivity"
	// (Config.InactiveKick*); authenticated clients (SetAuthed) are exempt.
	EvKick
	// EvFlagGrab: no message; client Args[0] of team Args[1] took a flag
	// (the reference prints a flag_grab console line).
	EvFlagGrab
	// EvFlagReturn: no message; client Args[0] of team Args[1] returned
	// its flag, or Args[0] = -1 when the flag returned by itself (lying too
	// long, death tile); the reference prints a flag_return console line.
	EvFlagReturn
	// EvPickup: no message; client Args[0] picked up a pickup of type
	// Args[1] (Pickup*; the reference prints a pickup console line).
	EvPickup
)

// MaxPendingEvents bounds the queue of events waiting for DrainEvents; older
// events are kept and newer ones dropped when it is full (Dropped counts them).
const MaxPendingEvents = 1024

// Event is something the server turns into a game-layer message. The 0.7.5
// game logic itself sends no chat lines or broadcasts (join and team-change
// notices are printed by the clients from Sv_ClientInfo and Sv_Team), so all
// events carry only ints.
type Event struct {
	Kind EventKind
	To   int // receiving client id, -1 = all in-game clients
	Args [5]int32
}

// FeedKill reports whether e is a kill for a kill feed: a kill message not
// sent for a player who left or changed team (weapon WeaponGame).
func (e *Event) FeedKill() bool { return e.Kind == EvKillMsg && e.Args[2] != WeaponGame }

type eventQueue struct {
	n       int
	dropped int
	q       [MaxPendingEvents]Event
}

func (q *eventQueue) push(e Event) {
	if q.n == MaxPendingEvents {
		q.dropped++
		return
	}
	q.q[q.n] = e
	q.n++
}

func (w *World) emit(kind EventKind, to int, args ...int32) {
	e := Event{Kind: kind, To: to}
	copy(e.Args[:], args)
	w.out.push(e)
}

func (w *World) sendGameMsg(id int32, to int, args ...int32) {
	e := Event{Kind: EvGameMsg, To: to}
	e.Args[0] = id
	copy(e.Args[1:], args)
	w.out.push(e)
}

// DrainEvents calls fn for every pending message event in creation order and
// empties the queue. fn must not call back into the World.
func (w *World) DrainEvents(fn func(Event)) {
	for i := 0; i < w.out.n; i++ {
		fn(w.out.q[i])
	}
	w.out.n = 0
}

// DroppedEvents returns how many message events were lost because the
// pending queue was full (not drained often enough).
func (w *World) DroppedEvents() int { return w.out.dropped }
