package dialect6

import (
	"fmt"
	"testing"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
	"twserver/world/twmap"
)

// playingWorld is a real world on the embedded default map with n players
// in game, their Infos filled from the 0.7 messages the server sends
// (Observe), played with scripted inputs (walking, jumping, hooking,
// shooting) for warm ticks.
func playingWorld(t testing.TB, gameType world.GameType, n, warm int) (*world.World, *Infos) {
	t.Helper()
	cfg := world.DefaultConfig()
	cfg.GameType = gameType
	cfg.PlayerSlots = n
	cfg.ScoreLimit = 0
	w, err := world.New(twmap.Default(), cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	infos := &Infos{}
	gi := w.GameInfo()
	infos.Observe(&gamemsg.SvGameInfo{GameFlags: gi[0], ScoreLimit: gi[1], TimeLimit: gi[2], MatchNum: gi[3], MatchCurrent: gi[4]})
	for i := range n {
		name := fmt.Sprintf("player %d", i)
		if err := w.AddPlayer(i, world.PlayerInfo{Name: name}); err != nil {
			t.Fatal(err)
		}
		infos.Observe(&gamemsg.SvClientInfo{ClientID: int32(i), Team: int32(w.Team(i)), Name: name, Skin: gamemsg.DefaultSkin})
	}
	for range warm {
		playStep(w, n)
		w.PostSnap()
	}
	return w, infos
}

// playStep gives every player a scripted input and ticks the world.
func playStep(w *world.World, n int) {
	tick := w.CurrentTick() + 1
	for cid := range n {
		phase := (int(tick) + cid*37) % 200
		in := world.Input{
			Direction: int32(phase/50%3 - 1),
			TargetX:   int32(100 - phase), TargetY: int32(phase%40 - 20),
			Jump:         int32(phase % 23 / 22),
			Hook:         int32(phase % 60 / 40),
			Fire:         int32(phase / 5),
			WantedWeapon: int32(1 + cid%5),
		}
		w.DirectInput(cid, in)
		w.SetInput(cid, in)
	}
	w.Tick()
	w.DrainEvents(func(world.Event) {})
}

// The world's real snapshots translate without error for every viewer,
// with the 0.6 static sizes, a GameInfo, and a PlayerInfo/ClientInfo pair
// per player (local only for the viewer).
func TestWorldSnapshotsTranslate(t *testing.T) {
	for _, gt := range []world.GameType{world.GameDM, world.GameTDM, world.GameCTF} {
		w, infos := playingWorld(t, gt, 8, 50)
		var b7, b6 snap.Builder
		b6.Sizes = snap.Sizes6
		var tr Translator
		seen := map[uint16]int{}
		for range 300 {
			playStep(w, 8)
			for v := range 8 {
				b7.Reset()
				b6.Reset()
				if err := w.Snap(v, &b7); err != nil {
					t.Fatal(err)
				}
				if err := tr.Snap(&b6, &b7, v, w.CurrentTick(), infos); err != nil {
					t.Fatalf("viewer %d: %v", v, err)
				}
				count := map[uint16]int{}
				for i := range b6.NumItems() {
					it := b6.Item(i)
					count[it.Type]++
					seen[it.Type]++
					if it.Type == ObjPlayerInfo && (it.Data[0] == 1) != (int(it.ID) == v) {
						t.Fatalf("viewer %d: PlayerInfo %d local %d", v, it.ID, it.Data[0])
					}
				}
				if count[ObjGameInfo] != 1 || count[ObjPlayerInfo] != 8 || count[ObjClientInfo] != 8 {
					t.Fatalf("viewer %d: %v", v, count)
				}
				if (gt != world.GameDM) != (count[ObjGameData] == 1) {
					t.Fatalf("%v: GameData %d", gt, count[ObjGameData])
				}
			}
			w.PostSnap()
		}
		t.Logf("%v: %v", gt, seen)
		for _, typ := range []uint16{ObjCharacter, ObjProjectile, ObjPickup, EventSoundWorld, EventDamageInd, EventHammerHit} {
			if seen[typ] == 0 {
				t.Errorf("%v: no item of type %d in 300 ticks", gt, typ)
			}
		}
		if gt == world.GameCTF && seen[ObjFlag] == 0 {
			t.Errorf("no flags")
		}
	}
}

// snapRound translates the snapshots of every viewer once.
func snapRound(w *world.World, n int, tr *Translator, b7, b6 *snap.Builder, infos *Infos) error {
	for v := range n {
		b7.Reset()
		b6.Reset()
		if err := w.Snap(v, b7); err != nil {
			return err
		}
		if err := tr.Snap(b6, b7, v, w.CurrentTick(), infos); err != nil {
			return err
		}
	}
	return nil
}

// Translation allocates nothing in steady state.
func TestTranslateAllocs(t *testing.T) {
	w, infos := playingWorld(t, world.GameCTF, 16, 200)
	var b7, b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	if err := snapRound(w, 16, &tr, &b7, &b6, infos); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(50, func() {
		b6.Reset()
		if err := tr.Snap(&b6, &b7, 3, w.CurrentTick(), infos); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Snap allocates %.1f times per snapshot", a)
	}
	var o Out
	p := &Peer{ID: 3, DDNet: true}
	msgs := []gamemsg.Message{
		&gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: 1, TargetID: -1, Message: "hello"},
		&gamemsg.SvKillMsg{Killer: 1, Victim: 2, Weapon: 3},
		&gamemsg.SvGameMsg{GameMsgID: gamemsg.GameMsgCtfCapture, Params: [3]int32{1, 2, 300}},
		&gamemsg.SvTeam{ClientID: 1, Team: 1},
		&gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteStartKick, Timeout: 25, Description: "x", Reason: "y"},
	}
	if a := testing.AllocsPerRun(50, func() {
		for _, m := range msgs {
			if err := EncodeServer(&o, m, p, infos); err != nil {
				t.Fatal(err)
			}
		}
	}); a != 0 {
		t.Errorf("EncodeServer allocates %.1f times per round", a)
	}
}

// BenchmarkTranslateSnap measures the translation of the snapshots of 16
// players (one per viewer, as the server builds them), after the 0.7
// snapshot is built; BenchmarkSnap7 is that building alone, for comparison.
func BenchmarkTranslateSnap(b *testing.B) {
	w, infos := playingWorld(b, world.GameCTF, 16, 200)
	b7 := make([]snap.Builder, 16)
	for v := range b7 {
		if err := w.Snap(v, &b7[v]); err != nil {
			b.Fatal(err)
		}
	}
	var b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	b.ReportAllocs()
	for b.Loop() {
		for v := range b7 {
			b6.Reset()
			if err := tr.Snap(&b6, &b7[v], v, w.CurrentTick(), infos); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b6.NumItems()), "items/snap")
}

// BenchmarkTranslateFinish is the server's 0.6 path for the snapshots of
// 16 players: the world's finished 0.7 snapshot translated, and the 0.6
// one finished (sorted unless built in key order).
func BenchmarkTranslateFinish(b *testing.B) {
	w, infos := playingWorld(b, world.GameCTF, 16, 200)
	s7 := make([]snap.Snapshot, 16)
	var b7 snap.Builder
	for v := range s7 {
		b7.Reset()
		if err := w.Snap(v, &b7); err != nil {
			b.Fatal(err)
		}
		b7.Finish(&s7[v])
	}
	var b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var s6 snap.Snapshot
	var tr Translator
	b.ReportAllocs()
	for b.Loop() {
		for v := range s7 {
			b6.Reset()
			if err := tr.Snap(&b6, &s7[v], v, w.CurrentTick(), infos); err != nil {
				b.Fatal(err)
			}
			b6.Finish(&s6)
		}
	}
}

// TestTranslateKeyOrder: the world's finished 0.7 snapshots (in key order)
// translate into 0.6 items added in key order, for DDNet and vanilla 0.6
// viewers and a viewer that is no player, in DM, TDM and CTF games with
// shots, sounds, damage and deaths, so the 0.6 builder never sorts them.
func TestTranslateKeyOrder(t *testing.T) {
	seen := map[uint16]bool{}
	for _, gt := range []world.GameType{world.GameDM, world.GameTDM, world.GameCTF} {
		w, infos := playingWorld(t, gt, 12, 50)
		var b7, b6 snap.Builder
		var s7 snap.Snapshot
		var tr Translator
		for range 200 {
			playStep(w, 12)
			for v := -1; v < 12; v++ {
				for _, ddnet := range []bool{true, false} {
					b7.Reset()
					if err := w.Snap(v, &b7); err != nil {
						t.Fatal(err)
					}
					b7.Finish(&s7)
					b6.Reset()
					b6.Sizes = snap.Sizes6
					if err := tr.snap(&b6, &s7, v, w.CurrentTick(), infos, &identity, ddnet); err != nil {
						t.Fatal(err)
					}
					for i := range b6.NumItems() {
						it := b6.Item(i)
						seen[it.Type] = true
						if i == 0 {
							continue
						}
						prev := b6.Item(i - 1)
						if uint32(prev.Type)<<16|uint32(prev.ID) >= uint32(it.Type)<<16|uint32(it.ID) {
							t.Fatalf("%v, viewer %d, ddnet %v: item %d (%d:%d) added after %d:%d", gt, v, ddnet, i, it.Type, it.ID, prev.Type, prev.ID)
						}
					}
				}
			}
			w.PostSnap()
		}
	}
	for _, typ := range []uint16{ObjEx, ObjProjectile, ObjPickup, ObjFlag, ObjGameInfo, ObjGameData, ObjCharacter, ObjPlayerInfo,
		ObjClientInfo, EventSoundWorld, EventDamageInd, EventDeath, ObjGameInfoEx} {
		if !seen[typ] {
			t.Errorf("no item of type %d: the order around it is not tested", typ)
		}
	}
}

func BenchmarkSnap7(b *testing.B) {
	w, _ := playingWorld(b, world.GameCTF, 16, 200)
	var b7 snap.Builder
	b.ReportAllocs()
	for b.Loop() {
		for v := range 16 {
			b7.Reset()
			if err := w.Snap(v, &b7); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// Vanilla 0.6 viewers of a 20-player game see ids 0..15 only, themselves
// among them and local exactly once, in every snapshot for 200 ticks.
func TestWorldSnapshotsVanilla(t *testing.T) {
	const n = 20
	w, infos := playingWorld(t, world.GameCTF, n, 50)
	peers := make([]Peer, n)
	for i := range peers {
		peers[i].Reset(i, false)
	}
	var b7, b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	for range 200 {
		playStep(w, n)
		for v := range n {
			b7.Reset()
			b6.Reset()
			if err := w.Snap(v, &b7); err != nil {
				t.Fatal(err)
			}
			if err := tr.SnapPeer(&b6, &b7, &peers[v], w.CurrentTick(), infos); err != nil {
				t.Fatalf("viewer %d: %v", v, err)
			}
			players, local := 0, 0
			for i := range b6.NumItems() {
				it := b6.Item(i)
				switch it.Type {
				case ObjPlayerInfo:
					players++
					local += int(it.Data[0])
					if it.Data[1] != int32(it.ID) {
						t.Fatalf("PlayerInfo %d says %d", it.ID, it.Data[1])
					}
					if it.Data[0] == 1 {
						if me, _ := peers[v].Visible(v); int(it.ID) != me {
							t.Fatalf("viewer %d local as %d", v, it.ID)
						}
					}
					fallthrough
				case ObjClientInfo, ObjCharacter, ObjSpectatorInfo:
					if it.ID >= MaxClientsVanilla {
						t.Fatalf("viewer %d: type %d id %d", v, it.Type, it.ID)
					}
				case EventDeath:
					if it.Data[2] >= MaxClientsVanilla {
						t.Fatalf("death of %d", it.Data[2])
					}
				}
			}
			if players != MaxClientsVanilla || local != 1 {
				t.Fatalf("viewer %d: %d players, %d local", v, players, local)
			}
		}
		w.PostSnap()
	}
	if a := testing.AllocsPerRun(50, func() {
		b6.Reset()
		if err := tr.SnapPeer(&b6, &b7, &peers[n-1], w.CurrentTick(), infos); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("SnapPeer allocates %.1f times per snapshot", a)
	}
}

// The server's whole path for 0.6 clients: translated snapshots are stored,
// delta-encoded against the last acknowledged one with the 0.6 static
// sizes and message ids, and a client-side receiver rebuilds each one
// exactly (CRC checked) for a DDNet and a vanilla viewer over 400 ticks.
func TestWorldSnapshotsDeltaPipeline(t *testing.T) {
	const n = 12
	w, infos := playingWorld(t, world.GameCTF, n, 50)
	type viewer struct {
		peer    Peer
		storage snap.Storage
		recv    *snap.Receiver
		acked   int32
	}
	vs := []*viewer{{acked: -1}, {acked: -1}}
	vs[0].peer.Reset(3, true)
	vs[1].peer.Reset(11, false)
	for _, v := range vs {
		v.recv = snap.NewReceiver(snap.MsgIDs6, snap.Sizes6)
	}
	var b7, b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	var enc snap.Encoder
	var empty snap.Snapshot
	var u netproto.Unpacker
	rebuilt := 0
	for range 400 {
		playStep(w, n)
		tick := w.CurrentTick()
		if tick%2 != 0 {
			continue
		}
		for _, v := range vs {
			b7.Reset()
			b6.Reset()
			if err := w.Snap(v.peer.ID, &b7); err != nil {
				t.Fatal(err)
			}
			if err := tr.SnapPeer(&b6, &b7, &v.peer, tick, infos); err != nil {
				t.Fatal(err)
			}
			cur := v.storage.Alloc(tick, 0)
			b6.Finish(cur)
			base, baseTick := &empty, int32(-1)
			if s, _, ok := v.storage.Get(v.acked); ok && v.acked >= 0 {
				base, baseTick = s, v.acked
			}
			if err := enc.Encode(snap.MsgIDs6, tick, baseTick, base, cur, snap.Sizes6); err != nil {
				t.Fatal(err)
			}
			done := false
			for i := range enc.NumMessages() {
				u.Reset(enc.Message(i))
				id, _ := u.GetMsgHeader()
				_, ok, err := v.recv.Handle(id, u.Rest())
				if err != nil {
					t.Fatalf("viewer %d tick %d: %v", v.peer.ID, tick, err)
				}
				done = done || ok
			}
			got, gotTick := v.recv.Latest()
			if !done || gotTick != tick || !got.Equal(cur) {
				t.Fatalf("viewer %d tick %d: not rebuilt", v.peer.ID, tick)
			}
			v.acked = tick
			v.storage.PurgeBefore(tick)
			rebuilt++
		}
		w.PostSnap()
	}
	if rebuilt != 400 {
		t.Fatalf("%d snapshots rebuilt", rebuilt)
	}
}
