package dialect6

import (
	"testing"

	"twserver/gamemsg"
	"twserver/snap"
	"twserver/world"
	"twserver/world/twmap"
)

// worldGame is a real world on the embedded default map with n players in
// game, their Infos set as the server would, ticked until every player has a
// character.
func worldGame(t testing.TB, cfg world.Config, n int) (*world.World, *Infos) {
	t.Helper()
	w, err := world.New(twmap.Default(), cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var infos Infos
	gi := w.GameInfo()
	infos.Observe(&gamemsg.SvGameInfo{GameFlags: gi[0], ScoreLimit: gi[1], TimeLimit: gi[2], MatchNum: gi[3], MatchCurrent: gi[4]})
	for i := range n {
		name := string(rune('A'+i)) + "player"
		if err := w.AddPlayer(i, world.PlayerInfo{Name: name}); err != nil {
			t.Fatal(err)
		}
		infos.Observe(&gamemsg.SvClientInfo{ClientID: int32(i), Team: int32(w.Team(i)), Name: name, Skin: gamemsg.DefaultSkin})
	}
	for range 200 {
		w.Tick()
		w.DrainEvents(func(world.Event) {})
		all := true
		for i := range n {
			if _, ok := w.CharacterPos(i); !ok {
				all = false
			}
		}
		if all {
			break
		}
	}
	return w, &infos
}

func TestWorldSnapshotTranslates(t *testing.T) {
	w, infos := worldGame(t, world.DefaultConfig(), 3)
	var b7, b6 snap.Builder
	b6.Sizes = snap.Sizes6
	if err := w.Snap(1, &b7); err != nil {
		t.Fatal(err)
	}
	var tr Translator
	if err := tr.Snap(&b6, &b7, 1, w.CurrentTick(), infos); err != nil {
		t.Fatal(err)
	}
	count := map[uint16]int{}
	for i := range b6.NumItems() {
		count[b6.Item(i).Type]++
	}
	if count[ObjGameInfo] != 1 || count[ObjPlayerInfo] != 3 || count[ObjClientInfo] != 3 || count[ObjCharacter] < 1 {
		t.Fatalf("item counts %v", count)
	}
}
