package snap

// SizeTable is a protocol's table of pre-agreed ("static") item sizes in
// ints. Deltas omit the size field for item types with a static size and
// carry it for every other type (net.md A4.7, B4). A size of 0 in the table
// means "no static size", exactly as in the reference.
type SizeTable struct {
	// Name identifies the protocol in messages and tests.
	Name  string
	sizes []int32
}

// NewSizeTable returns a table with the given static sizes, indexed by type.
func NewSizeTable(name string, sizes []int32) *SizeTable {
	return &SizeTable{Name: name, sizes: append([]int32(nil), sizes...)}
}

// Static returns the static size of typ and whether it has one.
func (t *SizeTable) Static(typ int32) (int, bool) {
	if t == nil || typ < 0 || int(typ) >= len(t.sizes) || t.sizes[typ] == 0 {
		return 0, false
	}
	return int(t.sizes[typ]), true
}

// Sizes7 is the 0.7 table: types 0..22 (the 0.7.0 object set,
// OLD_NUM_NETOBJTYPES = 23) have static sizes (net.md A4.7, A5.3; world.md
// 5.1). Type 0 has none; types 23 and up always carry their size.
var Sizes7 = NewSizeTable("0.7", []int32{
	0,  // 0 invalid
	10, // 1 PlayerInput
	6,  // 2 Projectile
	5,  // 3 Laser
	3,  // 4 Pickup
	3,  // 5 Flag
	3,  // 6 GameData
	2,  // 7 GameDataTeam
	4,  // 8 GameDataFlag
	15, // 9 CharacterCore
	22, // 10 Character
	3,  // 11 PlayerInfo
	4,  // 12 SpectatorInfo
	58, // 13 De_ClientInfo
	5,  // 14 De_GameInfo
	32, // 15 De_TuneParams
	2,  // 16 Event Common
	2,  // 17 Event Explosion
	2,  // 18 Event Spawn
	2,  // 19 Event HammerHit
	3,  // 20 Event Death
	3,  // 21 Event SoundWorld
	7,  // 22 Event Damage (the C struct: 2 inherited + 5 own ints)
})

// Sizes6 is the 0.6 table: types 1..20 (all vanilla 0.6 objects and events)
// have static sizes (net.md B4, B5.2). Type 0 (DDNet's EX type-UUID item) and
// everything from 21 on carry their size.
var Sizes6 = NewSizeTable("0.6", []int32{
	0,  // 0 invalid / DDNet EX
	10, // 1 PlayerInput
	6,  // 2 Projectile
	5,  // 3 Laser
	4,  // 4 Pickup
	3,  // 5 Flag
	8,  // 6 GameInfo
	4,  // 7 GameData
	15, // 8 CharacterCore
	22, // 9 Character
	5,  // 10 PlayerInfo
	17, // 11 ClientInfo
	3,  // 12 SpectatorInfo
	2,  // 13 Event Common
	2,  // 14 Event Explosion
	2,  // 15 Event Spawn
	2,  // 16 Event HammerHit
	3,  // 17 Event Death
	3,  // 18 Event SoundGlobal
	3,  // 19 Event SoundWorld
	3,  // 20 Event DamageInd
})
