package world

import (
	"cmp"
	"math/bits"

	"twserver/snap"
	"twserver/world/vmath"
)

// SnapRound holds the items of a tick's snapshots that are the same for
// every viewer up to a field or two: each in-game player's PlayerInfo and
// each character's Character item. A server building many snapshots of one
// tick fills a SnapRound once with PrepareSnap and builds each snapshot
// with SnapWith, instead of computing those items again for every viewer
// (with 63 clients, 63 × 63 PlayerInfo items a snapshot tick). It is a
// plain value (about 7 kB) the caller owns; SnapWith only reads it, so the
// snapshots of several viewers may be built from one round at once.
type SnapRound struct {
	players uint64                             // the in-game players, by client id
	chars   uint64                             // the characters in the world, by client id
	info    [MaxClients * SizePlayerInfo]int32 // the players' PlayerInfo in client id order, latency 0
	watch   [MaxClients]int8                   // the client id each player watches, -1 for none
	char    [MaxClients][SizeCharacter]int32   // the Character items with health, armor and ammo
	pos     [MaxClients]vmath.Vec2             // the characters' positions, for clipping
}

// PrepareSnap fills r from the world as it is now. The snapshots SnapWith
// builds from r are those Snap builds as long as the world does not change
// in between (the server prepares after a tick and builds before the next
// message is handled).
func (w *World) PrepareSnap(r *SnapRound) {
	r.players, r.chars = 0, 0
	n := 0
	for _, p := range w.players {
		if p == nil || !p.ingame {
			continue
		}
		r.players |= 1 << uint(p.cid)
		r.info[n], r.info[n+1], r.info[n+2] = p.infoFlags(), int32(p.score), 0
		r.watch[p.cid] = int8(p.watching())
		n += SizePlayerInfo
	}
	for m := w.charMask(); m != 0; m &= m - 1 {
		cid := bits.TrailingZeros64(m)
		c := &w.charStore[cid]
		r.chars |= 1 << uint(cid)
		d := r.char[cid][:]
		clear(d)
		c.fill(d, true)
		r.pos[cid] = c.pos
	}
}

// SnapWith adds viewer's snapshot items to b as Snap does, taking the
// characters and player infos from r, which PrepareSnap filled from the
// world as it is (the player infos go in as one run, snap.Builder.NewItems).
// The demo's viewer -1 gets Snap's own build.
func (w *World) SnapWith(r *SnapRound, viewer int, b *snap.Builder) error {
	if viewer < 0 {
		r = nil
	}
	return w.snap(r, viewer, b, b)
}

// charMask returns the characters of w.chars in the world, by client id.
func (w *World) charMask() uint64 {
	var m uint64
	for _, c := range w.chars {
		if c.inWorld {
			m |= 1 << uint(c.p.cid)
		}
	}
	return m
}

// snapChars adds the characters of r within viewer's view (Character.snap).
func (r *SnapRound) snapChars(w *World, viewer int, b SnapBuilder) error {
	var first error
	for m := r.chars; m != 0; m &= m - 1 {
		cid := bits.TrailingZeros64(m)
		if w.networkClipped(viewer, r.pos[cid]) {
			continue
		}
		d, err := b.NewItem(ObjCharacter, uint16(cid), SizeCharacter)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		copy(d, r.char[cid][:])
		if !w.privileged(viewer, cid) {
			d[CharHealth], d[CharArmor], d[CharAmmoCount] = 0, 0, 0
		}
	}
	return first
}

// snapPlayers adds r's player infos as viewer sees them (Player.snap): its
// own latencies and the Watching flag of the players watching it.
func (r *SnapRound) snapPlayers(w *World, viewer int, b *snap.Builder) error {
	lat := &w.players[viewer].actLatency
	d, err := b.NewItems(ObjPlayerInfo, r.players, SizePlayerInfo)
	copy(d, r.info[:len(d)])
	m := r.players
	for k := 0; k < len(d); k += SizePlayerInfo {
		r.personal(d[k:k+SizePlayerInfo], bits.TrailingZeros64(m), viewer, lat)
		m &= m - 1
	}
	return err
}

// personal writes into player cid's PlayerInfo d what is viewer's own.
func (r *SnapRound) personal(d []int32, cid, viewer int, lat *[MaxClients]int32) {
	if int(r.watch[cid]) == viewer {
		d[0] |= PlayerFlagWatching
	}
	d[2] = lat[cid]
}
