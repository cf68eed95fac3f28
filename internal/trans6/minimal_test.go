package trans6

import (
	"testing"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
	"twserver/world/twmap"
)

// newWorld returns a world on the embedded map with two players that have
// spawned and moved for a second.
func newWorld(t testing.TB) *world.World {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for cid := range 2 {
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		w.SetInput(0, world.Input{Direction: 1})
		w.Tick()
	}
	return w
}

// withPlayers records n players named "player".
func withPlayers(t *Minimal, n int) {
	for i := range n {
		t.SetPlayer(i, Player{Name: "player", Clan: "clan"}, true)
	}
}

// TestSnapshot translates a real world snapshot: every item has a 0.6
// type with its static size, the viewer's PlayerInfo is local, each player
// has a ClientInfo with its name, and GameInfo is there.
func TestSnapshot(t *testing.T) {
	w := newWorld(t)
	var b7, b6 snap.Builder
	var s7, s6 snap.Snapshot
	if err := w.Snap(0, &b7); err != nil {
		t.Fatal(err)
	}
	b7.Finish(&s7)
	b6.Sizes = snap.Sizes6
	var tr Minimal
	withPlayers(&tr, 2)
	if err := tr.Snapshot(&b6, &s7, 0, 50); err != nil {
		t.Fatal(err)
	}
	b6.Finish(&s6)
	count := map[uint16]int{}
	for i := range s6.NumItems() {
		it := s6.Item(i)
		count[it.Type]++
		if n, ok := snap.Sizes6.Static(int32(it.Type)); !ok || n != len(s6.ItemData(i)) {
			t.Errorf("item type %d has %d ints, static size %d", it.Type, len(s6.ItemData(i)), n)
		}
		d := s6.ItemData(i)
		switch it.Type {
		case obj6PlayerInfo:
			if (d[0] == 1) != (it.ID == 0) || d[1] != int32(it.ID) {
				t.Errorf("PlayerInfo %d = %v", it.ID, d)
			}
		case obj6ClientInfo:
			if got := snap.IntsToStr(d[0:4]); got != "player" {
				t.Errorf("name %q", got)
			}
			if got := snap.IntsToStr(d[8:14]); got != "default" {
				t.Errorf("skin %q", got)
			}
		}
	}
	if count[obj6GameInfo] != 1 || count[obj6PlayerInfo] != 2 || count[obj6ClientInfo] != 2 || count[obj6Character] == 0 || count[obj6Pickup] == 0 {
		t.Fatalf("items by type %v", count)
	}
	if a := testing.AllocsPerRun(20, func() {
		b6.Reset()
		_ = tr.Snapshot(&b6, &s7, 1, 50)
	}); a != 0 {
		t.Errorf("Snapshot allocates %.1f times", a)
	}
}

// TestMessages checks the message layouts that differ between 0.7 and 0.6.
func TestMessages(t *testing.T) {
	var tr Minimal
	var p netproto.Packer
	pack := func(m gamemsg.Message) []int32 {
		o, err := tr.ServerMessage(m, 0)
		if err != nil || o.Len() == 0 {
			return nil
		}
		var u netproto.Unpacker
		u.Reset(o.Msg(0))
		var out []int32
		for u.Remaining() > 0 && u.Err() == nil {
			out = append(out, u.GetInt())
		}
		return out
	}
	if got := pack(&gamemsg.SvKillMsg{Killer: -1, Victim: 3, Weapon: 2}); len(got) != 5 || got[0] != msg6SvKillMsg<<1 || got[1] != 3 || got[2] != 3 {
		t.Errorf("killmsg %v", got)
	}
	var tp gamemsg.SvTuneParams
	for i := range tp.Params {
		tp.Params[i] = int32(i)
	}
	if got := pack(&tp); len(got) != 34 || got[31] != 500 || got[32] != 30 || got[33] != 31 {
		t.Errorf("tune params %v", got)
	}
	if pack(&gamemsg.SvClientInfo{}) != nil || pack(&gamemsg.SvTeam{}) != nil {
		t.Error("0.7-only messages translated")
	}
	// Cl_Say team=1 → team chat; Cl_SetSpectatorMode -1 → free view.
	p.Reset()
	p.AddInt(1)
	p.AddString("hi")
	m, err := tr.ClientMessage(0, msg6ClSay, p.Bytes())
	if say, ok := m.(*gamemsg.ClSay); err != nil || !ok || say.Mode != gamemsg.ChatTeam || say.Message != "hi" {
		t.Errorf("say %#v %v", m, err)
	}
	p.Reset()
	p.AddInt(-1)
	m, _ = tr.ClientMessage(0, msg6ClSetSpectatorMode, p.Bytes())
	if sp, ok := m.(*gamemsg.ClSetSpectatorMode); !ok || sp.SpecMode != world.SpecFreeview {
		t.Errorf("spectate %#v", m)
	}
	if m, err := tr.ClientMessage(0, msg6ClSay, nil); m != nil || err == nil {
		t.Errorf("truncated say: %v %v", m, err)
	}
	in := []int32{1, 0, 0, 0, 0, 0, playerFlag6Chatting | playerFlag6Playing, 0, 0, 0}
	tr.Input(in)
	if in[6] != world.PlayerFlagChatting || in[0] != 1 {
		t.Errorf("input %v", in)
	}
}

// FuzzClientMessage decodes arbitrary 0.6 client messages: no panic, and a
// decoded message is valid in 0.7.
func FuzzClientMessage(f *testing.F) {
	f.Add(int32(msg6ClStartInfo), []byte("name\x00clan\x00\x00default\x00\x00\x00\x00"))
	f.Add(int32(msg6ClCallVote), []byte("option\x00x\x00\x00"))
	f.Fuzz(func(t *testing.T, id int32, body []byte) {
		var tr Minimal
		m, err := tr.ClientMessage(0, id, body)
		if err == nil && m != nil && m.Validate() != nil {
			t.Fatalf("invalid message accepted: %#v", m)
		}
	})
}

// TestVanillaViewer: a vanilla 0.6 viewer gets no item, chat author or
// kill message of a client id it does not know (16 and up).
func TestVanillaViewer(t *testing.T) {
	var b7, b6 snap.Builder
	var s7, s6 snap.Snapshot
	for _, id := range []uint16{3, 20} {
		d, _ := b7.NewItem(world.ObjCharacter, id, world.SizeCharacter)
		d[1] = int32(id)
		pi, _ := b7.NewItem(world.ObjPlayerInfo, id, world.SizePlayerInfo)
		pi[1] = 1
	}
	b7.Finish(&s7)
	var tr Minimal
	withPlayers(&tr, 21)
	tr.Connect(3, false)
	if err := tr.Snapshot(&b6, &s7, 3, 50); err != nil {
		t.Fatal(err)
	}
	b6.Finish(&s6)
	for i := range s6.NumItems() {
		if it := s6.Item(i); it.ID >= VanillaMaxClients && it.Type != obj6GameInfo {
			t.Errorf("item type %d id %d sent to a vanilla client", it.Type, it.ID)
		}
	}
	if s6.Find(snap.Key(obj6Character, 3)) < 0 {
		t.Error("the viewer's own character is missing")
	}
	if o, _ := tr.ServerMessage(&gamemsg.SvKillMsg{Killer: 20, Victim: 3}, 3); o.Len() != 0 {
		t.Error("kill message naming id 20 sent to a vanilla client")
	}
	o, _ := tr.ServerMessage(&gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: 20, Message: "x"}, 3)
	var u netproto.Unpacker
	u.Reset(o.Msg(0))
	if u.GetInt(); u.GetInt() != 0 || u.GetInt() != -1 {
		t.Error("chat line of id 20 not shown as a server line")
	}
	// A DDNet viewer sees everybody.
	tr.Connect(3, true)
	b6.Reset()
	_ = tr.Snapshot(&b6, &s7, 3, 50)
	b6.Finish(&s6)
	if s6.Find(snap.Key(obj6Character, 20)) < 0 {
		t.Error("a DDNet client does not see id 20")
	}
}
