package dialect6

import (
	"slices"
	"sync"
	"testing"

	"twserver/gamemsg"
	"twserver/snap"
	"twserver/world"
)

// A server's whole use of Game: a DDNet and a vanilla client connect, send
// their start infos, are refreshed as players, get messages and snapshots.
func TestGameFlow(t *testing.T) {
	var g Game
	g.Connect(0, true)
	g.Connect(20, false)
	m, err := g.ClientMessage(0, MsgClStartInfo, body("ninja", "", 0, "x_ninja", 1, 0x10ff80, 0x20ff80))
	if err != nil {
		t.Fatal(err)
	}
	st0 := *m.(*gamemsg.ClStartInfo)
	m, err = g.ClientMessage(20, MsgClStartInfo, body("van", "", 0, "bluekitty", 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	st20 := *m.(*gamemsg.ClStartInfo)
	refresh := func() {
		for cid := range MaxClients {
			switch cid {
			case 0:
				g.SetPlayer(0, Player{Name: st0.Name, Skin: st0.Skin, Team: g.Infos.Team(0)}, true)
			case 20:
				g.SetPlayer(20, Player{Name: st20.Name, Skin: st20.Skin, Team: g.Infos.Team(20)}, true)
			default:
				g.SetPlayer(cid, Player{}, false)
			}
		}
	}
	refresh()

	o, err := g.ServerMessage(&gamemsg.SvClientInfo{ClientID: 20, Local: true, Name: "van"}, 20)
	if err != nil || o.Len() != 1 || string(o.Msg(0)) != string(chat("'van' entered and joined the game")) {
		t.Fatalf("join line: %v %q", err, o.Msg(0))
	}
	if o, _ = g.ServerMessage(&gamemsg.SvTeam{ClientID: 0, Team: -1}, 20); o.Len() != 1 {
		t.Fatal("no team line")
	}
	if g.Infos.Team(0) != -1 {
		t.Fatal("team not observed")
	}
	refresh()

	src := build7(t, item7{obj7PlayerInfo, 0, []int32{0, 1, 2}}, item7{obj7PlayerInfo, 20, []int32{0, 3, 4}})
	var b snap.Builder
	b.Sizes = snap.Sizes6
	if err := g.Snapshot(&b, src, 20, 100); err != nil {
		t.Fatal(err)
	}
	// the vanilla client sees itself as 4 (20 mod 16), the DDNet player as
	// 0 with its own 0.6 skin, in the spectators
	if got := find(&b, ObjPlayerInfo, 4); !slices.Equal(got, []int32{1, 4, 0, 3, 4}) {
		t.Errorf("own PlayerInfo %v", got)
	}
	if got := find(&b, ObjPlayerInfo, 0); !slices.Equal(got, []int32{0, 0, -1, 1, 2}) {
		t.Errorf("other PlayerInfo %v", got)
	}
	ci := find(&b, ObjClientInfo, 0)
	if snap.IntsToStr(ci[8:14]) != "x_ninja" || !slices.Equal(ci[14:], []int32{1, 0x10ff80, 0x20ff80}) {
		t.Errorf("0.6 player's skin %q %v", snap.IntsToStr(ci[8:14]), ci[14:])
	}
	// and the vanilla player's bluekitty, seen by the DDNet client
	b.Reset()
	if err := g.Snapshot(&b, src, 0, 100); err != nil {
		t.Fatal(err)
	}
	if ci := find(&b, ObjClientInfo, 20); snap.IntsToStr(ci[8:14]) != "bluekitty" || ci[14] != 0 {
		t.Errorf("bluekitty: %q %v", snap.IntsToStr(ci[8:14]), ci[14:])
	}
	// a 0.7 skin change replaces a 0.6 player's own skin
	g.SetPlayer(0, Player{Name: st0.Name, Skin: gamemsg.DefaultSkin, Team: -1}, true)
	b.Reset()
	g.Snapshot(&b, src, 20, 100)
	if ci := find(&b, ObjClientInfo, 0); snap.IntsToStr(ci[8:14]) != "default" {
		t.Errorf("after a 0.7 skin: %q", snap.IntsToStr(ci[8:14]))
	}

	in := []int32{0, 0, 0, 0, 0, 0, PlayerFlagPlaying | PlayerFlagChatting, 0, 0, 0}
	g.Input(in)
	if in[6] != playerFlag7Chatting {
		t.Errorf("input flags %d", in[6])
	}
	if _, err := g.ClientMessage(64, MsgClKill, nil); err == nil {
		t.Error("client id 64 accepted")
	}
}

// Refreshing unchanged players allocates nothing and repacks nothing.
func TestGameRefreshAllocs(t *testing.T) {
	var g Game
	p := Player{Name: "x", Skin: gamemsg.DefaultSkin}
	g.SetPlayer(3, p, true)
	if a := testing.AllocsPerRun(100, func() {
		for cid := range MaxClients {
			g.SetPlayer(cid, p, cid == 3)
		}
	}); a != 0 {
		t.Fatalf("%.1f allocations", a)
	}
}

// snapGame is a Game for the n players of playingWorld's Infos, the even
// clients DDNet and the odd ones vanilla (with id maps: n > 16 leaves some
// players out for them).
func snapGame(infos *Infos, n int) *Game {
	g := &Game{Infos: *infos}
	for cid := range n {
		g.Connect(cid, cid%2 == 0)
	}
	return g
}

// Translating a round of snapshots on several goroutines, each with its
// own SnapWorker, gives the same 0.6 snapshots as one goroutine translating
// them in turn, tick after tick (run with -race: the goroutines share the
// Game and Infos).
func TestSnapshotToConcurrent(t *testing.T) {
	const n, workers = 24, 4
	w, infos := playingWorld(t, world.GameCTF, n, 50)
	alone, shared := snapGame(infos, n), snapGame(infos, n)
	var lone SnapWorker
	var pool [workers]SnapWorker
	src := make([]snap.Builder, n)
	want := make([]snap.Snapshot, n)
	got := make([]snap.Snapshot, n)
	for range 150 {
		playStep(w, n)
		tick := w.CurrentTick()
		for v := range n {
			src[v].Reset()
			if err := w.Snap(v, &src[v]); err != nil {
				t.Fatal(err)
			}
			if err := alone.SnapshotTo(&lone, &want[v], &src[v], v, tick); err != nil {
				t.Fatalf("viewer %d: %v", v, err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for k := range workers {
			wg.Go(func() {
				for v := k; v < n; v += workers {
					errs[v] = shared.SnapshotTo(&pool[k], &got[v], &src[v], v, tick)
				}
			})
		}
		wg.Wait()
		for v := range n {
			if errs[v] != nil || !got[v].Equal(&want[v]) {
				t.Fatalf("tick %d viewer %d: error %v, %d items (want %d), CRC %x (want %x)",
					tick, v, errs[v], got[v].NumItems(), want[v].NumItems(), got[v].CRC(), want[v].CRC())
			}
		}
		w.PostSnap()
	}
	if want[1].Find(uint32(ObjPlayerInfo)<<16|15) < 0 || want[0].Find(uint32(ObjPlayerInfo)<<16|uint32(n-1)) < 0 {
		t.Error("the snapshots lack the players they should show")
	}
	var dst snap.Snapshot
	if err := alone.SnapshotTo(&lone, &dst, &src[0], MaxClients, 1); err != ErrClientID || dst.NumItems() != 0 {
		t.Errorf("client id %d: %v, %d items", MaxClients, err, dst.NumItems())
	}
}

// SnapshotTo reads the world's builder as it was filled, projectiles and
// lasers out of key order included, and gives the 0.6 snapshot that the
// translation of the finished 0.7 snapshot gives, for DDNet and vanilla
// viewers, tick after tick.
func TestSnapshotToUnfinished(t *testing.T) {
	const n = 20
	w, infos := playingWorld(t, world.GameCTF, n, 50)
	direct, finished := snapGame(infos, n), snapGame(infos, n)
	var sw SnapWorker
	var src, b6 snap.Builder
	var s7, want, got snap.Snapshot
	unordered := 0
	for range 200 {
		playStep(w, n)
		tick := w.CurrentTick()
		for v := range n {
			src.Reset()
			if err := w.Snap(v, &src); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < src.NumItems(); i++ {
				a, b := src.Item(i-1), src.Item(i)
				if snap.Key(a.Type, a.ID) > snap.Key(b.Type, b.ID) {
					unordered++
					break
				}
			}
			src.Finish(&s7)
			b6.Reset()
			b6.Sizes = snap.Sizes6
			errWant := finished.Snapshot(&b6, &s7, v, tick)
			b6.Finish(&want)
			if err := direct.SnapshotTo(&sw, &got, &src, v, tick); err != errWant || !got.Equal(&want) {
				t.Fatalf("tick %d viewer %d: error %v (want %v), %d items (want %d), CRC %x (want %x)",
					tick, v, err, errWant, got.NumItems(), want.NumItems(), got.CRC(), want.CRC())
			}
		}
		w.PostSnap()
	}
	if unordered == 0 {
		t.Error("no source snapshot had items out of key order: the test shows nothing")
	}
	t.Logf("%d of %d source snapshots out of key order", unordered, 200*n)
}

// SnapshotTo allocates nothing in steady state.
func TestSnapshotToAllocs(t *testing.T) {
	w, infos := playingWorld(t, world.GameCTF, 20, 200)
	g := snapGame(infos, 20)
	var sw SnapWorker
	var src snap.Builder
	var dst snap.Snapshot
	round := func() {
		for v := range 20 {
			src.Reset()
			if err := w.Snap(v, &src); err != nil {
				t.Fatal(err)
			}
			if err := g.SnapshotTo(&sw, &dst, &src, v, w.CurrentTick()); err != nil {
				t.Fatal(err)
			}
		}
	}
	round()
	if a := testing.AllocsPerRun(20, round); a != 0 {
		t.Errorf("a round of 20 0.6 snapshots allocates %.1f times", a)
	}
}

// PlayerChanges moves with every change of a slot's entry or own skin, and
// only then.
func TestPlayerChanges(t *testing.T) {
	var g Game
	p := Player{Name: "x", Skin: gamemsg.DefaultSkin}
	own := Player{Name: "x", Skin: Skin7From6(Skin6{Name: "bluekitty"})}
	kitty := gamemsg.DefaultSkin
	kitty.PartNames[0] = "kitty"
	for _, tc := range []struct {
		name  string
		do    func()
		moves bool
	}{
		{"connect", func() { g.Connect(3, true) }, true},
		{"enters", func() { g.SetPlayer(3, p, true) }, true},
		{"unchanged", func() { g.SetPlayer(3, p, true) }, false},
		{"other slot", func() { g.SetPlayer(4, p, true) }, false},
		{"start info", func() { g.ClientMessage(3, MsgClStartInfo, body("x", "", 0, "bluekitty", 0, 0, 0)) }, true},
		{"own skin applied", func() { g.SetPlayer(3, own, true) }, true},
		{"own skin again", func() { g.SetPlayer(3, own, true) }, false},
		{"team message", func() { g.Infos.Observe(&gamemsg.SvTeam{ClientID: 3, Team: 1}) }, true},
		{"skin message", func() { g.Infos.Observe(&gamemsg.SvSkinChange{ClientID: 3, Skin: kitty}) }, true},
		{"leaves", func() { g.SetPlayer(3, Player{}, false) }, true},
		{"still out", func() { g.SetPlayer(3, Player{}, false) }, false},
		{"drop message when out", func() { g.Infos.Observe(&gamemsg.SvClientDrop{ClientID: 3}) }, false},
	} {
		before := g.PlayerChanges(3)
		tc.do()
		if moved := g.PlayerChanges(3) != before; moved != tc.moves {
			t.Errorf("%s: moved %v, want %v", tc.name, moved, tc.moves)
		}
	}
	if g.PlayerChanges(-1) != 0 || g.PlayerChanges(MaxClients) != 0 {
		t.Error("bad ids have changes")
	}
}

// TestPlayerCurrent: a slot is current after SetPlayerVersion until its
// state, team or version moves or its entry changes another way.
func TestPlayerCurrent(t *testing.T) {
	var g Game
	p := Player{Name: "a", Team: 1}
	if g.PlayerCurrent(3, true, 1, 7) {
		t.Fatal("current before any set")
	}
	g.SetPlayerVersion(3, p, true, 7)
	for _, tc := range []struct {
		name    string
		in      bool
		team    int32
		version uint32
		want    bool
	}{
		{"as set", true, 1, 7, true},
		{"left", false, 1, 7, false},
		{"other team", true, 0, 7, false},
		{"info changed", true, 1, 8, false},
	} {
		if got := g.PlayerCurrent(3, tc.in, tc.team, tc.version); got != tc.want {
			t.Errorf("%s: PlayerCurrent = %v, want %v", tc.name, got, tc.want)
		}
	}
	g.Infos.Remove(3) // the entry changed behind the setter's back
	if g.PlayerCurrent(3, true, 1, 7) {
		t.Error("current after the entry was removed")
	}
	g.SetPlayerVersion(3, p, true, 7)
	g.Connect(3, true) // a new 0.6 connection on the slot forgets its own skin
	if g.PlayerCurrent(3, true, 1, 7) {
		t.Error("current after a new connection")
	}
	if !g.PlayerCurrent(-1, true, 0, 0) || !g.PlayerCurrent(MaxClients, true, 0, 0) {
		t.Error("a bad id needs setting")
	}
}
