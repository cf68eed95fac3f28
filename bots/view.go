package bots

import (
	"errors"

	"twserver/world"
	"twserver/world/vmath"
)

// Bounds of a bot's snapshot buffer (one per bot, allocated once).
const (
	// MaxViewItems is the most snapshot items a bot reads per tick; the
	// world's snapshot of one viewer holds far fewer (64 players, 64
	// characters, a few hundred projectiles at most in view).
	MaxViewItems = 1024
	// MaxViewWords is the size in int32 words of a bot's snapshot buffer.
	MaxViewWords = 16384
	// MaxViewPickups is the most pickups a bot keeps from one snapshot.
	MaxViewPickups = 128
)

// errViewFull is returned to the world when a bot's snapshot buffer is full;
// the world then leaves the item out, as with a full client snapshot.
var errViewFull = errors.New("bots: snapshot buffer full")

type itemRef struct {
	typ, id uint16
	off     int32
	size    int32
}

// snapBuf is the bot's own world.SnapBuilder: it stores the items in a
// preallocated buffer, so building a snapshot allocates nothing.
type snapBuf struct {
	words [MaxViewWords]int32
	items [MaxViewItems]itemRef
	nw    int
	ni    int
}

func (s *snapBuf) reset() { s.nw, s.ni = 0, 0 }

// NewItem implements world.SnapBuilder.
func (s *snapBuf) NewItem(typ, id uint16, size int) ([]int32, error) {
	if size < 0 || s.ni >= MaxViewItems || s.nw+size > MaxViewWords {
		return nil, errViewFull
	}
	d := s.words[s.nw : s.nw+size : s.nw+size]
	clear(d)
	s.items[s.ni] = itemRef{typ: typ, id: id, off: int32(s.nw), size: int32(size)}
	s.nw += size
	s.ni++
	return d, nil
}

// charView is what a snapshot says about one character.
type charView struct {
	seen   bool
	net    world.NetCore
	weapon int32
	health int32
	armor  int32
	ammo   int32
}

// pickupView is one visible pickup.
type pickupView struct {
	pos vmath.Vec2
	typ int32
}

// view is the parsed snapshot of one tick, as the bot's client would see it.
type view struct {
	chars      [world.MaxClients]charView
	players    [world.MaxClients]bool
	scores     [world.MaxClients]int32
	pickups    [MaxViewPickups]pickupView
	npickups   int
	flagSeen   [2]bool
	flagPos    [2]vmath.Vec2
	carrier    [2]int32 // GameDataFlag: carrier cid or world.FlagAtStand/FlagTaken/FlagMissing
	stateFlags int32
}

// parse fills v from the items in s.
func (v *view) parse(s *snapBuf) {
	for i := range v.chars {
		v.chars[i].seen = false
		v.players[i] = false
	}
	v.npickups = 0
	v.flagSeen = [2]bool{}
	v.carrier = [2]int32{world.FlagMissing, world.FlagMissing}
	v.stateFlags = 0
	for i := 0; i < s.ni; i++ {
		it := &s.items[i]
		d := s.words[it.off : it.off+it.size]
		switch it.typ {
		case world.ObjCharacter:
			if int(it.id) >= world.MaxClients || len(d) < world.SizeCharacter {
				continue
			}
			c := &v.chars[it.id]
			c.seen = true
			c.net.Get(d)
			c.weapon = d[world.CharWeapon]
			c.health = d[world.CharHealth]
			c.armor = d[world.CharArmor]
			c.ammo = d[world.CharAmmoCount]
		case world.ObjPlayerInfo:
			if int(it.id) >= world.MaxClients || len(d) < world.SizePlayerInfo {
				continue
			}
			v.players[it.id] = true
			v.scores[it.id] = d[1]
		case world.ObjPickup:
			if v.npickups < MaxViewPickups && len(d) >= world.SizePickup {
				v.pickups[v.npickups] = pickupView{pos: vmath.V(float32(d[0]), float32(d[1])), typ: d[2]}
				v.npickups++
			}
		case world.ObjFlag:
			if len(d) >= world.SizeFlag && (d[2] == world.TeamRed || d[2] == world.TeamBlue) {
				v.flagSeen[d[2]] = true
				v.flagPos[d[2]] = vmath.V(float32(d[0]), float32(d[1]))
			}
		case world.ObjGameData:
			if len(d) >= world.SizeGameData {
				v.stateFlags = d[1]
			}
		case world.ObjGameDataFlag:
			if len(d) >= world.SizeGameDataFlag {
				v.carrier[0], v.carrier[1] = d[0], d[1]
			}
		}
	}
}

// tracked follows one character between snapshots: the dead-reckoned core
// evolved to the current tick (as a client's prediction does) and the
// velocity seen from consecutive snapshots.
type tracked struct {
	valid    bool
	lastNet  world.NetCore
	core     world.CharacterCore
	coreTick int32
	pos      vmath.Vec2
	vel      vmath.Vec2 // units per tick
	prevPos  vmath.Vec2
	prevTick int32
	seenFrom int32 // first tick of the current sighting
}

// maxEvolve bounds the ticks a tracked core is extrapolated per update (the
// world re-sends a character at least every 3 s).
const maxEvolve = 3*50 + 2

// update evolves the tracked core to tick now from the snapshot's core.
// Only the bot's own core is simulated (it needs the ground and hook
// state); the others are extrapolated along their sent velocity, which is
// far cheaper and close enough to aim and choose targets.
func (t *tracked) update(c *charView, now int32, wc *world.WorldCore, bot *Bot, self bool) {
	n := c.net
	if !t.valid || n != t.lastNet {
		fresh := !t.valid
		t.lastNet = n
		t.core.Init(wc, bot.nav.col)
		t.core.Reset()
		t.core.Read(&n)
		t.coreTick = n.Tick
		if n.Tick == 0 || now-n.Tick > maxEvolve || n.Tick > now {
			t.coreTick = now
		}
		if fresh {
			t.seenFrom = now
			t.prevPos = t.core.Pos
			t.prevTick = now
		}
		t.valid = true
	}
	var pos vmath.Vec2
	if self {
		for t.coreTick < now {
			t.core.Tick(false)
			t.core.Move()
			t.core.Quantize()
			t.coreTick++
		}
		pos = t.core.Pos
	} else {
		dt := float32(now - t.coreTick)
		pos = t.core.Pos.Add(t.core.Vel.Scale(dt))
	}
	if now > t.prevTick {
		t.vel = pos.Sub(t.prevPos).Scale(1 / float32(now-t.prevTick))
	}
	t.prevPos, t.prevTick = pos, now
	t.pos = pos
}
