package session

import (
	"twserver/dialect6"
	"twserver/snap"
	"twserver/world"
)

// Where a client sees its character: the server knows positions only as
// the snapshots it sent, and the console's player list reports what the
// client was last shown, extrapolated as the client does.

// maxEvolveTicks bounds the ticks a character core is extrapolated (the
// reference re-sends a character at least every 3 s).
const maxEvolveTicks = 3 * 50

// ShownPos returns the position at tick of client cid's character as the
// client sees it: the character core in the newest snapshot of st (stored
// for a 0.6 client when six) extrapolated from its tick the way clients do
// (the server sends a character only when its motion deviates from that
// extrapolation). ok is false without a character.
func ShownPos(st *snap.Storage, six bool, cid int, tick int32, w *world.World) (x, y int32, ok bool) {
	sn, _, found := st.Get(st.Newest())
	if !found {
		return 0, 0, false
	}
	typ := uint16(world.ObjCharacter)
	if six {
		typ = dialect6.ObjCharacter // its first ints are the same character core
	}
	return CharPosAt(sn, typ, cid, tick, w)
}

// CharPosAt extrapolates the Character item (of type typ) of client cid in
// sn to tick, at most maxEvolveTicks.
func CharPosAt(sn *snap.Snapshot, typ uint16, cid int, tick int32, w *world.World) (x, y int32, ok bool) {
	i := sn.Find(snap.Key(typ, uint16(cid)))
	if i < 0 || len(sn.ItemData(i)) < world.NetCoreSize {
		return 0, 0, false
	}
	var nc world.NetCore
	nc.Get(sn.ItemData(i))
	x, y = w.Extrapolate(&nc, tick, maxEvolveTicks)
	return x, y, true
}
