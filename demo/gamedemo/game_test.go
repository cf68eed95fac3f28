package gamedemo

import (
	"testing"
	"time"

	"twserver/demo"
	"twserver/dialect6"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
	"twserver/world/twmap"
)

// TestViews: free view records World.Snap(-1) as it is; a player's view
// records World.Snap(cid) plus De_GameInfo and every player's
// De_ClientInfo, that player's marked local; a DDNet view has the 0.6
// ClientInfo instead; De_ClientEnter follows the snapshot after an entry,
// and the messages the reference never records are left out.
func TestViews(t *testing.T) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for cid := range 3 {
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: string(rune('a' + cid))}); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		w.Tick()
	}
	for _, tc := range []struct {
		name       string
		view       int
		ddnet      bool
		clientInfo uint32 // type counted: 3 expected
		local      int
	}{
		{"free", -1, false, world.ObjDeClientInfo, -1},
		{"player", 1, false, world.ObjDeClientInfo, 1},
		{"ddnet free", -1, true, 11, -1}, // 0.6 NETOBJTYPE_CLIENTINFO
	} {
		t.Run(tc.name, func(t *testing.T) {
			newEnc, newGame, sizes := demo.NewEncoder, NewGame, snap.Sizes7
			if tc.ddnet {
				newEnc, newGame, sizes = demo.NewEncoder6, NewGame6, snap.Sizes6
			}
			enc := newEnc("server", "m", nil, 0, time.Unix(0, 0))
			g := newGame(enc, tc.view)
			g.Enter(2)
			if err := g.Snapshot(w); err != nil {
				t.Fatal(err)
			}
			g.Message(&gamemsg.SvClientDrop{ClientID: 0}) // never recorded
			g.Event(world.Event{Kind: world.EvWeaponPickup, To: 0, Args: [5]int32{2}})
			_, ticks, err := demo.ReadAll(enc.Bytes(), sizes)
			if err != nil || len(ticks) != 1 {
				t.Fatalf("%d ticks, %v", len(ticks), err)
			}
			s := ticks[0].Snap
			if n := s.CountType(tc.clientInfo); n != 3 {
				t.Errorf("%d client infos of type %d, want 3", n, tc.clientInfo)
			}
			// DDNet's extended game info, read back from the demo, so that
			// DDNet shows the scores as points
			if ex := s.CountType(dialect6.ObjGameInfoEx); tc.ddnet && (ex != 1 || s.CountType(dialect6.ObjEx) != 1) {
				t.Errorf("0.6 demo: %d GameInfoEx items, %d type items; want 1 and 1", ex, s.CountType(dialect6.ObjEx))
			}
			local := -1
			for i := range s.NumItems() {
				if s.Key(i)>>16 == world.ObjDeClientInfo && s.ItemData(i)[0] == 1 {
					local = int(s.Key(i) & 0xffff)
				}
			}
			if !tc.ddnet && local != tc.local {
				t.Errorf("local %d, want %d", local, tc.local)
			}
			if !tc.ddnet && tc.view < 0 {
				var b snap.Builder
				b.Sizes = snap.Sizes7
				_ = w.Snap(-1, &b)
				var want snap.Snapshot
				b.Finish(&want)
				if want.NumItems() != s.NumItems() {
					t.Errorf("%d items, World.Snap(-1) %d", s.NumItems(), want.NumItems())
				}
			}
			// De_ClientEnter (0.7) or the join line (0.6); the pickup only for player 0's view
			if n := len(ticks[0].Messages); n != 1 {
				t.Errorf("%d messages, want 1 (the entry)", n)
			}
		})
	}
}

// TestEnterOnce: a client that entered twice before a snapshot (it left
// and came back on the same client id outside a clip's range) is announced
// once, as every other player; one that entered once is announced.
func TestEnterOnce(t *testing.T) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for cid := range 2 {
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: string(rune('a' + cid))}); err != nil {
			t.Fatal(err)
		}
	}
	w.Tick()
	enc := demo.NewEncoder("server", "m", nil, 0, time.Unix(0, 0))
	g := NewGame(enc, -1)
	g.Enter(0)
	g.Enter(1)
	g.Enter(0)
	if err := g.Snapshot(w); err != nil {
		t.Fatal(err)
	}
	_, ticks, err := demo.ReadAll(enc.Bytes(), snap.Sizes7)
	if err != nil || len(ticks) != 1 {
		t.Fatalf("%d ticks, %v", len(ticks), err)
	}
	entered := map[int32]int{}
	for _, m := range ticks[0].Messages {
		id, sys, n, err := netproto.ParseMsgHeader(m)
		if err != nil || sys || id != gamemsg.MsgDeClientEnter {
			continue
		}
		var up netproto.Unpacker
		up.Reset(m[n:])
		up.GetString()
		entered[up.GetInt()]++
	}
	if entered[0] != 1 || entered[1] != 1 || len(entered) != 2 {
		t.Errorf("De_ClientEnter per client id: %v, want each once", entered)
	}
}
