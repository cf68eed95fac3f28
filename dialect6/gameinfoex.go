package dialect6

import (
	"encoding/binary"

	"twserver/netproto"
	"twserver/snap"
)

// DDNet's extended game info (net.md B4, B5.2): the snapshot object
// gameinfo@netobj.ddnet.tw tells a DDNet client how to treat the game —
// above all whether the scoreboard shows scores as points or as race times.
// Without it DDNet guesses from the game type name of the server info, and
// a demo it plays has no server info of the game: it showed the points of a
// twserver demo as times ("00:01"). Extended types travel under an internal
// type number counted down from 0x7FFF, announced in the same snapshot by a
// type-0 item with that number as id whose four ints are the type's UUID
// (big-endian words).
const (
	// ObjEx is the type of the items announcing an extended type's UUID.
	ObjEx = 0
	// SizeEx is their size in ints (the UUID).
	SizeEx = 4
	// ObjGameInfoEx is the internal type number of gameinfo@netobj.ddnet.tw
	// (the first and only extended type the translation sends).
	ObjGameInfoEx = snap.MaxType
	// SizeGameInfoEx is its size in ints: flags, version, flags2.
	SizeGameInfoEx = 3
	// GameInfoExVersion is the version the item declares: the flags below
	// are what DDNet reads up to that version (8: flags2 up to NO_WEAK_HOOK).
	GameInfoExVersion = 8
)

// GAMEINFOFLAG_* bits DDNet reads from GameInfoEx flags (bit i is the i-th
// name of DDNet's GameInfoFlags list, net.md B5.1). Only the ones the
// translation sets are named.
const (
	GameInfoFlagTimeScore        = 1 << 0  // TIMESCORE: scores are race times
	GameInfoFlagVanilla          = 1 << 7  // GAMETYPE_VANILLA
	GameInfoFlagBugVanillaBounce = 1 << 20 // BUG_VANILLA_BOUNCE
	GameInfoFlagPredictVanilla   = 1 << 24 // PREDICT_VANILLA
	GameInfoFlagEntitiesVanilla  = 1 << 29 // ENTITIES_VANILLA
	GameInfoFlagDontMaskEntities = 1 << 30 // DONT_MASK_ENTITIES
)

// GAMEINFOFLAG2_* bits (DDNet's GameInfoFlags2 list).
const (
	GameInfoFlag2HudHealthArmor = 1 << 4 // HUD_HEALTH_ARMOR
	GameInfoFlag2HudAmmo        = 1 << 5 // HUD_AMMO
)

// GameInfoExName is the extended type's name, from which its UUID is made.
const GameInfoExName = "gameinfo@netobj.ddnet.tw"

// VanillaGameInfoEx is the GameInfoEx of every twserver game type (DM, TDM,
// CTF, LMS, LTS): vanilla physics and prediction, points (not times) on the
// scoreboard, vanilla entities, health, armor and ammo in the HUD — what
// DDNet assumes for a server whose game type is "DM", "TDM" or "CTF", said
// explicitly so that it holds for LMS and LTS and in demos too.
var VanillaGameInfoEx = [SizeGameInfoEx]int32{
	GameInfoFlagVanilla | GameInfoFlagBugVanillaBounce | GameInfoFlagPredictVanilla | GameInfoFlagEntitiesVanilla |
		GameInfoFlagDontMaskEntities,
	GameInfoExVersion,
	GameInfoFlag2HudHealthArmor | GameInfoFlag2HudAmmo,
}

// gameInfoExUUID is the type-0 item announcing ObjGameInfoEx.
var gameInfoExUUID = uuidInts(netproto.DDNetUUID(GameInfoExName))

// uuidInts reads a UUID as four big-endian 32-bit words.
func uuidInts(u [16]byte) (w [SizeEx]int32) {
	for i := range w {
		w[i] = int32(binary.BigEndian.Uint32(u[4*i:]))
	}
	return w
}

// gameInfoExType adds the announcement of DDNet's extended game info type
// (type 0: the first key of a snapshot).
func (t *Translator) gameInfoExType(dst *snap.Builder) {
	if d := t.add(dst, ObjEx, ObjGameInfoEx, SizeEx); d != nil {
		copy(d, gameInfoExUUID[:])
	}
}

// gameInfoEx adds DDNet's extended game info (type snap.MaxType: the last
// key of a snapshot).
func (t *Translator) gameInfoEx(dst *snap.Builder) {
	if d := t.add(dst, ObjGameInfoEx, 0, SizeGameInfoEx); d != nil {
		copy(d, VanillaGameInfoEx[:])
	}
}
