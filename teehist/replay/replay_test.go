package replay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
)

// simulate drives a world the way the server's loop does and records it:
// joins, ready, direct inputs between ticks, predicted inputs (sometimes
// missing), a kill request, a drop. It returns the file bytes.
func simulate(t testing.TB, ticks int, seed uint64) []byte {
	return simulateWith(t, ticks, seed, nil, nil)
}

// simulateWith is simulate with changed world settings and further kill
// requests (tick -> client id).
func simulateWith(t testing.TB, ticks int, seed uint64, mod func(*world.Config), kills map[int]int) []byte {
	t.Helper()
	return simulatePlayers(t, ticks, seed, 4, mod, kills)
}

// simulatePlayers is simulateWith with n players (client ids 0..n-1, the
// last one leaving half-way).
func simulatePlayers(t testing.TB, ticks int, seed uint64, n int, mod func(*world.Config), kills map[int]int) []byte {
	t.Helper()
	m := twmap.Default()
	settings := Settings{World: world.DefaultConfig(), SnapshotRate: 25}
	settings.World.ScoreLimit = 0
	if mod != nil {
		mod(&settings.World)
	}
	w, err := world.New(m, settings.World, seed)
	if err != nil {
		t.Fatal(err)
	}
	e := teehist.NewEncoder()
	e.WriteHeader(&teehist.Header{
		GameUUID: teehist.NameUUID("sim"), StartTime: time.Unix(0, 0), MapName: m.Name, MapSize: m.Size,
		MapSHA256: m.SHA256, MapCRC: m.CRC, PrngDescription: PrngDescription(seed),
		Config: ConfigKVs(settings), GameType: w.GameTypeName(),
	})
	rng := rand.New(rand.NewPCG(seed, 1))
	conns := make([]uint32, n)
	var pos Positions
	for cid := range n {
		conns[cid] = uint32(cid + 1)
		e.RecordJoin(cid, true)
		e.RecordPlayerName(cid, "p")
		e.RecordPlayerReady(cid)
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	present := make([]bool, n)
	for i := range present {
		present[i] = true
	}
	randInput := func() world.Input {
		return world.Input{Direction: int32(rng.IntN(3) - 1), TargetX: int32(rng.IntN(400) - 200), TargetY: int32(rng.IntN(400) - 200),
			Jump: int32(rng.IntN(2)), Fire: int32(rng.IntN(8)), Hook: int32(rng.IntN(2)), WantedWeapon: int32(rng.IntN(6))}
	}
	toIn := func(in world.Input) teehist.Input {
		return teehist.Input{in.Direction, in.TargetX, in.TargetY, in.Jump, in.Fire, in.Hook, in.PlayerFlags, in.WantedWeapon, in.NextWeapon, in.PrevWeapon}
	}
	var pk netproto.Packer
	for tick := 1; tick <= ticks; tick++ {
		// between ticks: direct inputs, a kill, a drop
		for cid := range n {
			if present[cid] && rng.IntN(3) == 0 {
				in := randInput()
				v := toIn(in)
				e.RecordDirectInput(cid, &v)
				w.DirectInput(cid, in)
			}
		}
		if cid, ok := kills[tick]; ok && present[cid] {
			pk.Reset()
			_ = gamemsg.Encode(&pk, &gamemsg.ClKill{})
			e.RecordMessage(cid, pk.Bytes())
			w.Kill(cid)
		}
		if tick == ticks/3 {
			pk.Reset()
			_ = gamemsg.Encode(&pk, &gamemsg.ClKill{})
			e.RecordMessage(1, pk.Bytes())
			w.Kill(1)
		}
		if tick == ticks/2 {
			e.RecordDrop(n-1, "bye")
			w.RemovePlayer(n - 1)
			present[n-1] = false
		}
		// predicted inputs for the coming tick
		for cid := range n {
			if !present[cid] {
				continue
			}
			if rng.IntN(4) == 0 {
				if e.HasInput(cid, conns[cid]) {
					e.RecordInputMissing(cid)
				}
				continue
			}
			in := randInput()
			if rng.IntN(2) == 0 {
				in = world.Input{Direction: 1, TargetX: 10, TargetY: 10}
			}
			v := toIn(in)
			e.RecordInput(cid, conns[cid], &v)
			w.SetInput(cid, in)
		}
		w.Tick()
		e.BeginTick(w.CurrentTick())
		e.BeginPlayers()
		pos.Update(w)
		for cid := range world.MaxClients {
			if x, y, ok := pos.Get(cid); ok {
				e.RecordPlayer(cid, x, y)
			} else {
				e.RecordDeadPlayer(cid)
			}
		}
		w.DrainEvents(func(world.Event) {})
		if w.CurrentTick()%2 == 0 {
			w.PostSnap()
		}
	}
	e.Finish()
	return append([]byte(nil), e.Bytes()...)
}

func replayBytes(t *testing.T, data []byte) *Result {
	t.Helper()
	r := teehist.NewReader(bytes.NewReader(data))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(r, h, twmap.Default())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestReplaySimulation(t *testing.T) {
	data := simulate(t, 1500, 99)
	res := replayBytes(t, data)
	if res.Divergence != nil {
		t.Fatalf("divergence: %v", res.Divergence)
	}
	if !res.Finished || res.Ticks != 1500 || res.Compared < 3000 {
		t.Fatalf("result %+v", res)
	}
	t.Logf("%d bytes, %d positions compared", len(data), res.Compared)
}

// TestReplaySurvival records LMS and LTS games (rounds ended by kill
// requests, random spawns from the recorded seed, dead players spectating,
// the next rounds) and replays them without divergence; the header names
// the game type.
func TestReplaySurvival(t *testing.T) {
	for _, gt := range []world.GameType{world.GameLMS, world.GameLTS} {
		t.Run(gt.Name(), func(t *testing.T) {
			// 1 dies at 500 (ticks/3); in LMS 2 and 3 follow and 0 wins the
			// round, in LTS (0, 2 red; 1, 3 blue) 3 ends it for red
			data := simulateWith(t, 1500, 7, func(c *world.Config) { c.GameType = gt },
				map[int]int{520: 2, 540: 3})
			r := teehist.NewReader(bytes.NewReader(data))
			h, err := r.ReadHeader()
			if err != nil {
				t.Fatal(err)
			}
			want := teehist.KV{Key: "sv_gametype", Value: strings.ToLower(gt.Name())}
			if !slices.Contains(h.Config, want) || h.GameType != gt.Name() {
				t.Fatalf("header game type %q, config %v", h.GameType, h.Config)
			}
			res := replayBytes(t, data)
			if res.Divergence != nil {
				t.Fatalf("divergence: %v", res.Divergence)
			}
			// (ticks without any change, as while a round-end pause, are
			// not written: the last one may be implicit)
			if !res.Finished || res.Ticks < 1490 || res.Compared < 2000 {
				t.Fatalf("result %+v", res)
			}
			t.Logf("%d bytes, %d ticks, %d positions compared", len(data), res.Ticks, res.Compared)
			// the random spawns come from the recorded seed: another seed
			// diverges
			r = teehist.NewReader(bytes.NewReader(data))
			h, _ = r.ReadHeader()
			h.PrngDescription = PrngDescription(8)
			res, err = Run(r, h, twmap.Default())
			if err != nil || res.Divergence == nil {
				t.Fatalf("another seed: %v, divergence %v", err, res.Divergence)
			}
		})
	}
}

// TestReplayDetectsDivergence changes one recorded input (direction of
// the 30th INPUT_DIFF): the replay must report a divergence.
func TestReplayDetectsDivergence(t *testing.T) {
	data := simulate(t, 600, 5)
	r := teehist.NewReader(bytes.NewReader(data))
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	var m teehist.Message
	seen := 0
	out := append([]byte(nil), data[:r.Offset()]...)
	for r.Next(&m) == nil {
		if m.Kind == teehist.KindInputDiff {
			if seen++; seen == 30 {
				m.Input[0] += 1 // direction
				m.Input[3] += 1 // jump
			}
		}
		out = teehist.AppendMessage(out, &m)
	}
	res := replayBytes(t, out)
	if res.Divergence == nil {
		t.Fatal("no divergence found in a tampered file")
	}
	t.Logf("found: %v", res.Divergence)
}

func TestPositionsTamperedPosition(t *testing.T) {
	data := simulate(t, 300, 11)
	// change the first PLAYER_DIFF's dx: the replay reports its tick
	r := teehist.NewReader(bytes.NewReader(data))
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), data[:r.Offset()]...)
	var m teehist.Message
	var want int32 = -1
	for r.Next(&m) == nil {
		if m.Kind == teehist.KindPlayerDiff && want < 0 && m.Tick > 100 {
			m.X += 3
			want = m.Tick
		}
		out = teehist.AppendMessage(out, &m)
	}
	res := replayBytes(t, out)
	if res.Divergence == nil || res.Divergence.Tick != want {
		t.Fatalf("divergence %v, want at tick %d", res.Divergence, want)
	}
}

// TestSettingsRoundTrip changes every field of world.Config in turn: each
// change is written to the header and read back (so a new world setting
// cannot be silently lost from recordings).
func TestSettingsRoundTrip(t *testing.T) {
	t.Run("all", func(t *testing.T) {
		s := DefaultSettings()
		s.World.GameType = world.GameCTF
		s.World.ScoreLimit = 3
		s.World.TeamDamage = true
		s.SnapshotRate = 50
		h := &teehist.Header{Config: ConfigKVs(s, teehist.KV{Key: "sv_name", Value: "x"})}
		got, err := ParseSettings(h)
		if err != nil || got != s {
			t.Fatalf("got %+v, %v; want %+v", got, err, s)
		}
	})
	typ := reflect.TypeOf(world.Config{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			s := DefaultSettings()
			v := reflect.ValueOf(&s.World).Elem().Field(i)
			x, ok := fieldInt(v)
			if !ok {
				t.Fatalf("field %s of kind %v cannot be recorded", f.Name, v.Kind())
			}
			if v.Kind() == reflect.Bool {
				setFieldInt(v, 1-x)
			} else {
				setFieldInt(v, x+1)
			}
			kvs := ConfigKVs(s)
			if len(kvs) != 1 || kvs[0].Key != configKey(f) {
				t.Fatalf("entries %v", kvs)
			}
			got, err := ParseSettings(&teehist.Header{Config: kvs})
			if err != nil || got != s {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
	if seed, err := ParseSeed(PrngDescription(0xdeadbeef)); err != nil || seed != 0xdeadbeef {
		t.Fatal(seed, err)
	}
	if _, err := ParseSeed("pcg-xsh-rr:1:2"); err == nil {
		t.Fatal("foreign prng accepted")
	}
}

// newEngine returns an Engine for the header of a short simulated game,
// before any of its messages.
func newEngine(t *testing.T) *Engine {
	t.Helper()
	r := teehist.NewReader(bytes.NewReader(simulate(t, 2, 1)))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(h, twmap.Default())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestFeedBadClientID: Feed is exported, so a message that did not come
// from Reader (client id out of range) must not panic it.
func TestFeedBadClientID(t *testing.T) {
	e := newEngine(t)
	for _, k := range []teehist.Kind{teehist.KindPlayerNew, teehist.KindPlayerDiff, teehist.KindPlayerOld,
		teehist.KindInputNew, teehist.KindInputDiff, teehist.KindJoin, teehist.KindDrop, teehist.KindMessage} {
		for _, cid := range []int32{-1, teehist.MaxClients} {
			if e.Feed(&teehist.Message{Kind: k, CID: cid, Data: []byte{1}}) {
				t.Fatalf("%v cid %d: divergence before any tick", k, cid)
			}
		}
	}
}

// TestIgnoredBound: made-up console commands are counted under at most
// MaxIgnored names plus IgnoredOther.
func TestIgnoredBound(t *testing.T) {
	e := newEngine(t)
	for i := range MaxIgnored + 36 {
		e.Feed(&teehist.Message{Kind: teehist.KindConsoleCommand, CID: -1, Cmd: fmt.Sprint("cmd", i%(MaxIgnored+10))})
	}
	ig := e.Result().Ignored
	if len(ig) != MaxIgnored+1 || ig[IgnoredOther] != 10 || ig["cmd0"] != 2 {
		t.Fatalf("%d names, %d other, cmd0 %d", len(ig), ig[IgnoredOther], ig["cmd0"])
	}
}

// FuzzReplay: a corrupted recording never panics the replay; it reads,
// replays or reports an error.
func FuzzReplay(f *testing.F) {
	f.Add(simulate(f, 120, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, r := fuzzEngine(data)
		if e == nil {
			return
		}
		res, _ := e.Run(context.Background(), r)
		if res != nil && res.Ticks > 2001 {
			t.Fatalf("simulated %d ticks past the bound", res.Ticks)
		}
	})
}

func TestIntArg(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"12", 12}, {"-3", -3}, {"+7", 7}, {"  \t42x", 42}, {"abc", 0}, {"", 0}, {"-", 0}, {"1.9", 1},
		{"99999999999", math.MaxInt32}, {"-99999999999", math.MinInt32}, {"2147483648", math.MaxInt32}, {"-2147483648", math.MinInt32},
	} {
		if got := IntArg(tt.in); got != tt.want {
			t.Errorf("IntArg(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// stateRecorder is a SnapBuilder that keeps the GameData state flags.
type stateRecorder struct {
	scratch [64]int32
	flags   *int32
}

func (s *stateRecorder) NewItem(typ, id uint16, size int) ([]int32, error) {
	if size > len(s.scratch) {
		return make([]int32, size), nil
	}
	d := s.scratch[:size]
	clear(d)
	if typ == world.ObjGameData {
		s.flags = &d[1]
	}
	return d, nil
}

// TestReplayRecordedLMS replays an LMS game recorded by twserver itself
// (testdata/twserver_lms.teehistorian: five twload clients with random
// inputs on the embedded map, sv_scorelimit 3; see testdata/README.md)
// without divergence, through round ends and a match end.
func TestReplayRecordedLMS(t *testing.T) {
	f, err := os.Open("../testdata/twserver_lms.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := teehist.NewReader(bufio.NewReader(f))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(h, twmap.Default())
	if err != nil {
		t.Fatal(err)
	}
	if e.World().GameTypeName() != "LMS" || e.World().Config().ScoreLimit != 3 {
		t.Fatalf("replay world %s with score limit %d", e.World().GameTypeName(), e.World().Config().ScoreLimit)
	}
	var rec stateRecorder
	var prev int32
	rounds, matches, last := 0, 0, int32(-1)
	var msg teehist.Message
	for r.Next(&msg) == nil {
		if e.Feed(&msg) {
			break
		}
		if tick := e.World().CurrentTick(); tick != last {
			last = tick
			rec.flags = nil
			if err := e.World().Snap(-1, &rec); err != nil || rec.flags == nil {
				t.Fatalf("tick %d: snap %v", tick, err)
			}
			f := *rec.flags
			if f&world.GameStateFlagRoundOver != 0 && prev&world.GameStateFlagRoundOver == 0 {
				rounds++
			}
			if f&world.GameStateFlagGameOver != 0 && prev&world.GameStateFlagGameOver == 0 {
				matches++
			}
			prev = f
		}
	}
	res := e.Result()
	t.Logf("%d ticks, %d positions compared, %d round ends, %d match ends", res.Ticks, res.Compared, rounds, matches)
	if res.Divergence != nil || !res.Finished || res.Compared < 1000 {
		t.Fatalf("result %+v", res)
	}
	if rounds < 1 || matches < 1 {
		t.Fatalf("%d round ends and %d match ends: the recording does not cover them", rounds, matches)
	}
}

// TestApplySetting: the settings changed at run time set their world rule
// (booleans from integers, as the console reads them) or the snapshot
// rate; those read at a map load and the others change nothing.
func TestApplySetting(t *testing.T) {
	s := DefaultSettings()
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"sv_scorelimit", "7", true},
		{"sv_tournament_mode", "2", true},
		{"sv_player_slots", " 3x", true},
		{"sv_high_bandwidth", "1", true},
		{"sv_gametype", "ctf", false},
		{"sv_warmup", "5", false},
		{"sv_powerups", "0", false},
		{"sv_matches_per_map", "3", false},
		{"sv_max_clients", "4", false},
		{"sv_name", "x", false},
		{"restart", "1", false},
	} {
		if got := s.ApplySetting(tc.name, tc.value); got != tc.ok {
			t.Errorf("%s %s: %v, want %v", tc.name, tc.value, got, tc.ok)
		}
	}
	want := DefaultSettings()
	want.World.ScoreLimit, want.World.TournamentMode, want.World.PlayerSlots, want.SnapshotRate = 7, true, 3, 50
	if s != want {
		t.Errorf("settings %+v, want %+v", s, want)
	}
}

// fuzzEngine returns an engine for a fuzz input on the embedded map, with
// the tick bound lowered to keep each input fast, and the reader after the
// header; nil for inputs without a usable header.
func fuzzEngine(data []byte) (*Engine, *teehist.Reader) {
	r := teehist.NewReader(bytes.NewReader(data))
	h, err := r.ReadHeader()
	if err != nil {
		return nil, nil
	}
	e, err := New(h, twmap.Default())
	if err != nil {
		return nil, nil
	}
	e.maxTicks = 2000
	return e, r
}

// TestReplayRecordedBots: a recording with bots (PLAYER_BOT) replays
// without divergence, and the replayed bots carry PLAYERFLAG_BOT in their
// PlayerInfo while the humans do not.
func TestReplayRecordedBots(t *testing.T) {
	f, err := os.Open("../testdata/twserver_bots.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := teehist.NewReader(bufio.NewReader(f))
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(h, twmap.Default())
	if err != nil {
		t.Fatal(err)
	}
	var msg teehist.Message
	sawBots, bobTicks := false, 0
	for r.Next(&msg) == nil {
		if e.Feed(&msg) {
			break
		}
		// bob takes the slot a bot left: a human, not a bot
		if info, ok := e.World().Info(1); ok && info.Name == "bob" {
			bobTicks++
			if info.Bot {
				t.Fatalf("tick %d: bob (client 1, a bot's slot before) replayed as a bot", e.World().CurrentTick())
			}
		}
		if e.World().CurrentTick() == 300 && !sawBots {
			sawBots = true
			for cid, want := range map[int]bool{0: false, 1: true, 2: true, 3: true} {
				if info, ok := e.World().Info(cid); !ok || info.Bot != want {
					t.Errorf("tick 300 cid %d: in game %v, bot %v, want bot %v", cid, ok, info.Bot, want)
				}
			}
		}
	}
	res := e.Result()
	if res.Divergence != nil || !res.Finished || res.Compared < 1000 || !sawBots || bobTicks == 0 {
		t.Errorf("divergence %v, finished %v, %d compared, reached tick 300 %v, bob in %d ticks", res.Divergence, res.Finished, res.Compared, sawBots, bobTicks)
	}
}
