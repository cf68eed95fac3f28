package dialect6

import (
	"fmt"
	"slices"
	"testing"

	"twserver/gamemsg"
	"twserver/snap"
)

// crowd returns Infos with players 0..n-1 ("p0", "p1", ...).
func crowd(n int) *Infos {
	in := &Infos{}
	for i := range n {
		in.SetPlayer(i, Player{Name: fmt.Sprintf("p%d", i)})
	}
	return in
}

func TestIDMap(t *testing.T) {
	infos := crowd(30)
	var p Peer
	p.Reset(20, false)
	p.ids.update(p.ID, infos)
	want := map[int]int{20: 4, 0: 0, 3: 3, 4: 5, 14: 15}
	for real, id := range want {
		if got, ok := p.Visible(real); !ok || got != id {
			t.Errorf("Visible(%d) = %d, %v; want %d", real, got, ok, id)
		}
		if got, ok := p.GameID(id); !ok || got != real {
			t.Errorf("GameID(%d) = %d, %v; want %d", id, got, ok, real)
		}
	}
	for _, real := range []int{15, 16, 29, 63, -1, 64} {
		if id, ok := p.Visible(real); ok {
			t.Errorf("%d visible as %d", real, id)
		}
	}
	// a leaving player frees its slot for the lowest id without one; the
	// others keep theirs
	infos.Remove(3)
	p.ids.update(p.ID, infos)
	if id, ok := p.Visible(15); !ok || id != 3 {
		t.Errorf("15 → %d, %v", id, ok)
	}
	if id, _ := p.Visible(14); id != 15 {
		t.Errorf("14 moved to %d", id)
	}
	if _, ok := p.Visible(3); ok {
		t.Error("3 still visible")
	}
	// DDNet peers and peers never Reset see every id
	var d Peer
	d.Reset(20, true)
	if id, ok := d.Visible(63); !ok || id != 63 {
		t.Errorf("DDNet: %d, %v", id, ok)
	}
	if id, ok := (&Peer{}).GameID(40); !ok || id != 40 {
		t.Errorf("zero Peer: %d, %v", id, ok)
	}
}

func TestSnapPeerVanilla(t *testing.T) {
	infos := crowd(20)
	var p Peer
	p.Reset(18, false) // slot 2
	var items []item7
	for i := range 20 {
		items = append(items, item7{obj7PlayerInfo, uint16(i), []int32{0, int32(i), 0}})
	}
	hooking := char7(0)
	hooking[charHookedPlayer] = 19 // no slot for 19
	hooked := char7(0)
	hooked[charHookedPlayer] = 18
	items = append(items,
		item7{obj7Character, 18, hooking},
		item7{obj7Character, 19, char7(coreEvHookPlayer)}, // hidden, its sound still plays
		item7{obj7Character, 5, hooked},
		item7{obj7SpectatorInfo, 18, []int32{specMode7Player, 0, 1, 2}},
		item7{obj7GameDataTeam, 0, []int32{0, 0}},
		item7{obj7GameDataFlag, 0, []int32{19, 18, 0, 0}},
		item7{event7Death, 0, []int32{1, 2, 19}},
		item7{event7Death, 1, []int32{1, 2, 18}},
	)
	var b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	if err := tr.SnapPeer(&b6, build7(t, items...), &p, 0, infos); err != nil {
		t.Fatal(err)
	}
	for i := range b6.NumItems() {
		it := b6.Item(i)
		switch it.Type {
		case ObjPlayerInfo, ObjClientInfo, ObjCharacter, ObjSpectatorInfo:
			if it.ID >= MaxClientsVanilla {
				t.Errorf("type %d with id %d", it.Type, it.ID)
			}
		}
	}
	if n := len(ofType(&b6, ObjPlayerInfo)); n != MaxClientsVanilla {
		t.Errorf("%d players", n)
	}
	// the peer itself: slot 2, local, its score
	if got := find(&b6, ObjPlayerInfo, 2); !slices.Equal(got, []int32{1, 2, 0, 18, 0}) {
		t.Errorf("own PlayerInfo %v", got)
	}
	if got := snap.IntsToStr(find(&b6, ObjClientInfo, 2)[:4]); got != "p18" {
		t.Errorf("own name %q", got)
	}
	if got := find(&b6, ObjCharacter, 2)[charHookedPlayer]; got != -1 {
		t.Errorf("hook on a hidden player: %d", got)
	}
	five, _ := p.Visible(5) // slot 6: 2 is the peer's
	if got := find(&b6, ObjCharacter, uint16(five))[charHookedPlayer]; five != 6 || got != 2 {
		t.Errorf("hook on the peer: %d", got)
	}
	if len(ofType(&b6, ObjCharacter)) != 2 || len(ofType(&b6, EventSoundWorld)) != 1 {
		t.Errorf("characters %d, sounds %d", len(ofType(&b6, ObjCharacter)), len(ofType(&b6, EventSoundWorld)))
	}
	if got := find(&b6, ObjSpectatorInfo, 2); got == nil || got[0] != 0 {
		t.Errorf("SpectatorInfo %v", got)
	}
	if got := find(&b6, ObjGameData, 0); !slices.Equal(got, []int32{0, 0, flagTaken, 2}) {
		t.Errorf("GameData %v", got)
	}
	deaths := ofType(&b6, EventDeath)
	if len(deaths) != 1 || deaths[0][2] != 2 {
		t.Errorf("deaths %v", deaths)
	}
}

func TestEncodeServerVanillaIDs(t *testing.T) {
	infos := crowd(20)
	var p Peer
	p.Reset(18, false)
	p.ids.update(p.ID, infos)
	for _, tc := range []struct {
		name string
		m    gamemsg.Message
		want [][]byte
	}{
		{"chat of a mapped player", &gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: 18, TargetID: -1, Message: "hi"},
			[][]byte{pack(MsgSvChat, 0, 2, "hi")}},
		{"chat of a hidden player", &gamemsg.SvChat{Mode: gamemsg.ChatTeam, ClientID: 19, TargetID: -1, Message: "hi"},
			[][]byte{pack(MsgSvChat, 1, -1, "p19: hi")}},
		{"whisper from a hidden player", &gamemsg.SvChat{Mode: gamemsg.ChatWhisper, ClientID: 19, TargetID: 18, Message: "psst"},
			[][]byte{pack(MsgSvChat, 0, -1, "p19: (whisper) psst")}},
		{"kill", &gamemsg.SvKillMsg{Killer: 18, Victim: 1, Weapon: 1}, [][]byte{pack(MsgSvKillMsg, 2, 1, 1, 0)}},
		{"kill by a hidden player", &gamemsg.SvKillMsg{Killer: 19, Victim: 1, Weapon: 1}, nil},
		{"suicide of a hidden player", &gamemsg.SvKillMsg{Killer: -2, Victim: 19, Weapon: -2}, nil},
		{"emoticon", &gamemsg.SvEmoticon{ClientID: 18, Emoticon: 2}, [][]byte{pack(MsgSvEmoticon, 2, 2)}},
		{"emoticon of a hidden player", &gamemsg.SvEmoticon{ClientID: 19, Emoticon: 2}, nil},
	} {
		checkMsgs(t, tc.name, encodeAll(t, tc.m, &p, infos), tc.want...)
	}
}

func TestDecodePeerVanillaIDs(t *testing.T) {
	infos := crowd(20)
	var p Peer
	p.Reset(18, false)
	p.ids.update(p.ID, infos)
	var d Decoder
	m, err := d.DecodePeer(&p, MsgClSetSpectatorMode, body(2), infos)
	if err != nil || *m.(*gamemsg.ClSetSpectatorMode) != (gamemsg.ClSetSpectatorMode{SpecMode: 1, SpectatorID: 18}) {
		t.Errorf("spectate slot 2: %v %v", m, err)
	}
	m, err = d.DecodePeer(&p, MsgClSetSpectatorMode, body(-1), infos)
	if err != nil || m.(*gamemsg.ClSetSpectatorMode).SpectatorID != -1 {
		t.Errorf("free view: %v %v", m, err)
	}
	p.ids.to7[7], p.ids.to6[8] = -1, -1 // slot 7 empty
	if _, err = d.DecodePeer(&p, MsgClSetSpectatorMode, body(7), infos); err == nil {
		t.Error("spectating an empty slot")
	}
	m, err = d.DecodePeer(&p, MsgClCallVote, body("kick", "2", "x"), infos)
	if err != nil || m.(*gamemsg.ClCallVote).Value != "18" {
		t.Errorf("kick slot 2: %v %v", m, err)
	}
	m, err = d.DecodePeer(&p, MsgClCallVote, body("Spectate", "7", "x"), infos)
	if err != nil || m.(*gamemsg.ClCallVote).Value != "-1" {
		t.Errorf("spectate vote on an empty slot: %v %v", m, err)
	}
	m, err = d.DecodePeer(&p, MsgClCallVote, body("option", "7", "x"), infos)
	if err != nil || m.(*gamemsg.ClCallVote).Value != "7" {
		t.Errorf("option vote: %v %v", m, err)
	}
}

// Vanilla clients accept vote counts up to 16: larger games keep the
// proportions.
func TestEncodeServerVanillaVoteStatus(t *testing.T) {
	infos := crowd(40)
	var p Peer
	p.Reset(18, false)
	m := &gamemsg.SvVoteStatus{Yes: 20, No: 10, Pass: 10, Total: 40}
	checkMsgs(t, "vanilla", encodeAll(t, m, &p, infos), pack(MsgSvVoteStatus, 8, 4, 4, 16))
	p.Reset(18, true)
	checkMsgs(t, "ddnet", encodeAll(t, m, &p, infos), pack(MsgSvVoteStatus, 20, 10, 10, 40))
	p.Reset(18, false)
	small := &gamemsg.SvVoteStatus{Yes: 1, No: 2, Pass: 3, Total: 6}
	checkMsgs(t, "small", encodeAll(t, small, &p, infos), pack(MsgSvVoteStatus, 1, 2, 3, 6))
}
