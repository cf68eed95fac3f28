package dialect6

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"twserver/gamemsg"
	"twserver/snap"
)

// TestSnapGameInfoEx: DDNet viewers (Snap, as 0.6 demos use it, and a
// DDNet peer) get gameinfo@netobj.ddnet.tw under internal type 0x7FFF,
// announced by a type-0 item with the UUID net.md B5.2 gives, whose flags
// make DDNet show points (no TIMESCORE) and treat the game as vanilla, for
// every game type; vanilla 0.6 peers get neither item.
func TestSnapGameInfoEx(t *testing.T) {
	spec, err := hex.DecodeString(strings.ReplaceAll("933dea6a-da79-30ea-a98f-8af03689a945", "-", ""))
	if err != nil {
		t.Fatal(err)
	}
	wantUUID := uuidInts([16]byte(spec))
	if wantUUID != [4]int32{-0x6cc21596, -0x2586cf16, -0x56707510, 0x3689a945} {
		t.Fatalf("uuid words %x", wantUUID)
	}
	for _, tc := range []struct {
		name  string
		flags int32 // game flags of the game type
		peer  *Peer // nil: Snap
		want  bool
	}{
		{"DM demo", 0, nil, true},
		{"TDM demo", gamemsg.GameFlagTeams, nil, true},
		{"CTF demo", gamemsg.GameFlagTeams | gamemsg.GameFlagFlags, nil, true},
		{"LMS DDNet peer", gamemsg.GameFlagSurvival, peer(3, true), true},
		{"LTS DDNet peer", gamemsg.GameFlagTeams | gamemsg.GameFlagSurvival, peer(3, true), true},
		{"DM vanilla peer", 0, peer(3, false), false},
		{"CTF vanilla peer", gamemsg.GameFlagTeams | gamemsg.GameFlagFlags, peer(3, false), false},
	} {
		infos := &Infos{GameInfo: gamemsg.SvGameInfo{GameFlags: tc.flags}}
		var b snap.Builder
		b.Sizes = snap.Sizes6
		var tr Translator
		src := build7(t, item7{obj7GameData, 0, []int32{0, 0, 0}}, item7{obj7PlayerInfo, 3, []int32{0, 0, 0}})
		if tc.peer == nil {
			err = tr.Snap(&b, src, 3, 100, infos)
		} else {
			err = tr.SnapPeer(&b, src, tc.peer, 100, infos)
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ex, info := find(&b, ObjEx, ObjGameInfoEx), find(&b, ObjGameInfoEx, 0)
		if !tc.want {
			if ex != nil || info != nil {
				t.Errorf("%s: %v %v, want no extended game info", tc.name, ex, info)
			}
			continue
		}
		if !slices.Equal(ex, wantUUID[:]) {
			t.Errorf("%s: type item %x, want %x", tc.name, ex, wantUUID)
		}
		if len(info) != 3 || info[0]&GameInfoFlagTimeScore != 0 || info[0]&GameInfoFlagVanilla == 0 ||
			info[0]&GameInfoFlagPredictVanilla == 0 || info[1] != GameInfoExVersion || info[2] != VanillaGameInfoEx[2] {
			t.Errorf("%s: GameInfoEx %x", tc.name, info)
		}
	}
	// the extended type and the type-0 item carry their size in deltas
	for _, typ := range []int32{ObjEx, ObjGameInfoEx} {
		if _, static := snap.Sizes6.Static(typ); static {
			t.Errorf("type %#x has a static 0.6 size", typ)
		}
	}
}

func peer(id int, ddnet bool) *Peer {
	var p Peer
	p.Reset(id, ddnet)
	return &p
}
