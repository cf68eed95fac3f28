package loadclient

import (
	"encoding/binary"
	"fmt"

	"twserver/netproto"
	"twserver/snap"
)

// Snapshot item checks of the 0.7.5 client (net.md A5.1, A5.3): it drops an
// item whose size differs from its type's struct size or whose own fields
// are out of range, and it indexes its 64-entry static-size table without
// bounds checks, so a type >= 64 must never reach it. The checks here are an
// independent table written from the spec, so they also catch a server whose
// object table is wrong.

// maxItemType7 is the number of entries of the 0.7.5 client's size table.
const maxItemType7 = 64

// fieldCheck is one range check on item data: lo <= data[idx] <= hi, or,
// when mask != 0, no bit outside mask.
type fieldCheck struct {
	idx    int
	lo, hi int32
	mask   int32
	name   string
}

type objRule struct {
	name   string
	size   int
	checks []fieldCheck
}

const tickMax = 1<<31 - 1

func rng(idx int, name string, lo, hi int32) fieldCheck {
	return fieldCheck{idx: idx, lo: lo, hi: hi, name: name}
}
func flags(idx int, name string, mask int32) fieldCheck {
	return fieldCheck{idx: idx, mask: mask, name: name}
}

// objRules7 is indexed by 0.7.5 object type (net.md A5.3). Inherited fields
// are not checked (the 0.7.5 generator checks only an object's own fields).
var objRules7 = [...]objRule{
	1: {"PlayerInput", 10, []fieldCheck{rng(0, "direction", -1, 1), rng(3, "jump", 0, 1), rng(5, "hook", 0, 1),
		flags(6, "player_flags", 0x7f), rng(7, "wanted_weapon", 0, 5)}},
	2:  {"Projectile", 6, []fieldCheck{rng(4, "type", 0, 5), rng(5, "start_tick", 0, tickMax)}},
	3:  {"Laser", 5, []fieldCheck{rng(4, "start_tick", 0, tickMax)}},
	4:  {"Pickup", 3, []fieldCheck{rng(2, "type", 0, 7)}},
	5:  {"Flag", 3, []fieldCheck{rng(2, "team", 0, 1)}},
	6:  {"GameData", 3, []fieldCheck{rng(0, "game_start_tick", 0, tickMax), flags(1, "game_state_flags", 0x3f), rng(2, "game_state_end_tick", 0, tickMax)}},
	7:  {"GameDataTeam", 2, nil},
	8:  {"GameDataFlag", 4, []fieldCheck{rng(0, "flag_carrier_red", -3, 63), rng(1, "flag_carrier_blue", -3, 63), rng(2, "flag_drop_tick_red", 0, tickMax), rng(3, "flag_drop_tick_blue", 0, tickMax)}},
	9:  {"CharacterCore", 15, []fieldCheck{rng(0, "tick", 0, tickMax), rng(6, "direction", -1, 1), rng(7, "jumped", 0, 3), rng(8, "hooked_player", 0, 63), rng(9, "hook_state", -1, 5), rng(10, "hook_tick", 0, tickMax)}},
	10: {"Character", 22, []fieldCheck{rng(15, "health", 0, 10), rng(16, "armor", 0, 10), rng(18, "weapon", 0, 5), rng(19, "emote", 0, 5), rng(20, "attack_tick", 0, tickMax), flags(21, "triggered_events", 0x1f)}},
	11: {"PlayerInfo", 3, []fieldCheck{flags(0, "player_flags", 0x7f)}},
	12: {"SpectatorInfo", 4, []fieldCheck{rng(0, "spec_mode", 0, 3), rng(1, "spectator_id", -1, 63)}},
	13: {"De_ClientInfo", 58, nil},
	14: {"De_GameInfo", 5, nil},
	15: {"De_TuneParams", 32, nil},
	16: {"Common", 2, nil},
	17: {"Explosion", 2, nil},
	18: {"Spawn", 2, nil},
	19: {"HammerHit", 2, nil},
	20: {"Death", 3, []fieldCheck{rng(2, "client_id", 0, 63)}},
	21: {"SoundWorld", 3, []fieldCheck{rng(2, "sound_id", 0, 40)}},
	22: {"Damage", 7, []fieldCheck{rng(2, "client_id", 0, 63), rng(4, "health_amount", 0, 9), rng(5, "armor_amount", 0, 9), rng(6, "self", 0, 1)}},
	23: {"PlayerInfoRace", 1, []fieldCheck{rng(0, "race_start_tick", -1, tickMax)}},
	24: {"GameDataRace", 3, []fieldCheck{rng(0, "best_time", -1, tickMax), rng(1, "precision", 0, 3), flags(2, "race_flags", 0x7)}},
}

// validateItem returns a description of the first check item fails, or "".
// Types the 0.7.5 client does not know (25..63) pass: it skips them.
func validateItem(it snap.Item, rules []objRule) string {
	if it.Type == 0 || int(it.Type) >= maxItemType7 {
		return fmt.Sprintf("item type %d (id %d) is outside 1..63", it.Type, it.ID)
	}
	if int(it.Type) >= len(rules) {
		return ""
	}
	r := &rules[it.Type]
	if len(it.Data) != r.size {
		return fmt.Sprintf("%s (id %d) has %d ints, want %d", r.name, it.ID, len(it.Data), r.size)
	}
	for _, c := range r.checks {
		v := it.Data[c.idx]
		if c.mask != 0 {
			if v&^c.mask != 0 {
				return fmt.Sprintf("%s (id %d) %s = %#x has bits outside %#x", r.name, it.ID, c.name, v, c.mask)
			}
		} else if v < c.lo || v > c.hi {
			return fmt.Sprintf("%s (id %d) %s = %d outside %d..%d", r.name, it.ID, c.name, v, c.lo, c.hi)
		}
	}
	return ""
}

// DDNet's extended snapshot items (net.md B4, B5.2), which a DDNet client
// reads and the 0.7.5 and vanilla 0.6 clients must never see: an extended
// type travels under an internal type number from exTypeMin up to
// snap.MaxType, announced in the same snapshot by an item of type 0 whose id
// is that number and whose four ints are the type's UUID (big-endian
// words). The client skips extended types it does not know; the one it
// knows here is gameinfo@netobj.ddnet.tw (flags, version, flags2).
const (
	exTypeMin      = 0x4000 // OFFSET_UUID_TYPE
	exSize         = 4
	gameInfoExSize = 3
	maxExTypes     = 16 // announcements checked per snapshot
)

// gameInfoExUUID is the UUID of gameinfo@netobj.ddnet.tw as four ints.
var gameInfoExUUID = func() (w [exSize]int32) {
	u := netproto.DDNetUUID("gameinfo@netobj.ddnet.tw")
	for i := range w {
		w[i] = int32(binary.BigEndian.Uint32(u[4*i:]))
	}
	return w
}()

// validateSnapshot counts the items of s that a client checking by rules
// (objRules7: the 0.7.5 client; objRules6: 0.6) would drop and returns the
// first problem; ex allows DDNet's extended items (a DDNet client).
func validateSnapshot(s *snap.Snapshot, rules []objRule, ex bool) (bad int, first string) {
	var exTypes [maxExTypes]int32 // the announced types; -1 past the end
	var exKnown [maxExTypes]bool  // whether it is GameInfoEx
	nEx := 0
	if ex {
		for i := range s.NumItems() {
			it := s.Item(i)
			if it.Type == 0 && it.ID >= exTypeMin && it.ID <= snap.MaxType && len(it.Data) == exSize && nEx < maxExTypes {
				exTypes[nEx] = int32(it.ID)
				exKnown[nEx] = [exSize]int32(it.Data) == gameInfoExUUID
				nEx++
			}
		}
	}
	for i := range s.NumItems() {
		it := s.Item(i)
		msg := ""
		if ex && (it.Type == 0 || it.Type >= exTypeMin) {
			msg = validateEx(it, exTypes[:nEx], exKnown[:nEx])
		} else {
			msg = validateItem(it, rules)
		}
		if msg != "" {
			if bad == 0 {
				first = msg
			}
			bad++
		}
	}
	return bad, first
}

// validateEx checks an extended item of a DDNet client's snapshot against
// the types the snapshot announced.
func validateEx(it snap.Item, types []int32, known []bool) string {
	if it.Type == 0 {
		if it.ID < exTypeMin || it.ID > snap.MaxType || len(it.Data) != exSize {
			return fmt.Sprintf("extended type announcement (id %d, %d ints) is not an id in %#x..%#x with a UUID", it.ID, len(it.Data), exTypeMin, snap.MaxType)
		}
		return ""
	}
	for i, t := range types {
		if t == int32(it.Type) {
			if known[i] && len(it.Data) != gameInfoExSize {
				return fmt.Sprintf("GameInfoEx (id %d) has %d ints, want %d", it.ID, len(it.Data), gameInfoExSize)
			}
			return ""
		}
	}
	return fmt.Sprintf("item type %#x (id %d) is an extended type the snapshot does not announce", it.Type, it.ID)
}
