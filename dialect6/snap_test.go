package dialect6

import (
	"errors"
	"slices"
	"testing"

	"twserver/gamemsg"
	"twserver/snap"
)

// item7 is one item of a hand-built 0.7 snapshot.
type item7 struct {
	typ, id uint16
	data    []int32
}

// build7 returns a 0.7 snapshot builder holding items.
func build7(t testing.TB, items ...item7) *snap.Builder {
	t.Helper()
	var b snap.Builder
	for _, it := range items {
		d, err := b.NewItem(it.typ, it.id, len(it.data))
		if err != nil {
			t.Fatal(err)
		}
		copy(d, it.data)
	}
	return &b
}

// translate runs the translation for viewer at tick and returns the 0.6
// snapshot (built with the 0.6 static sizes, so a wrong size fails).
func translate(t testing.TB, infos *Infos, viewer int, tick int32, items ...item7) (*snap.Builder, error) {
	t.Helper()
	var b6 snap.Builder
	b6.Sizes = snap.Sizes6
	var tr Translator
	err := tr.Snap(&b6, build7(t, items...), viewer, tick, infos)
	return &b6, err
}

// find returns the data of item (typ, id) of b, or nil.
func find(b *snap.Builder, typ, id uint16) []int32 {
	for i := range b.NumItems() {
		if it := b.Item(i); it.Type == typ && it.ID == id {
			return it.Data
		}
	}
	return nil
}

// ofType returns the data of every item of type typ, in order.
func ofType(b *snap.Builder, typ uint16) [][]int32 {
	var out [][]int32
	for i := range b.NumItems() {
		if it := b.Item(i); it.Type == typ {
			out = append(out, it.Data)
		}
	}
	return out
}

func mustTranslate(t *testing.T, infos *Infos, viewer int, tick int32, items ...item7) *snap.Builder {
	t.Helper()
	b, err := translate(t, infos, viewer, tick, items...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSnapPickup(t *testing.T) {
	for _, tc := range []struct{ p7, typ, sub int32 }{
		{pickup7Health, PowerupHealth, 0},
		{pickup7Armor, PowerupArmor, 0},
		{pickup7Grenade, PowerupWeapon, 3},
		{pickup7Shotgun, PowerupWeapon, 2},
		{pickup7Laser, PowerupWeapon, 4},
		{pickup7Ninja, PowerupNinja, 5},
		{pickup7Gun, PowerupWeapon, 1},
		{pickup7Hammer, PowerupWeapon, 0},
	} {
		b := mustTranslate(t, &Infos{}, 0, 0, item7{obj7Pickup, 9, []int32{100, 200, tc.p7}})
		if got, want := find(b, ObjPickup, 9), []int32{100, 200, tc.typ, tc.sub}; !slices.Equal(got, want) {
			t.Errorf("pickup %d: %v, want %v", tc.p7, got, want)
		}
	}
}

func TestSnapUnchangedObjects(t *testing.T) {
	proj := []int32{10, 20, 300, -400, 3, 1234}
	laser := []int32{1, 2, 3, 4, 99}
	flag := []int32{700, 800, 1}
	b := mustTranslate(t, &Infos{}, 0, 0,
		item7{obj7Projectile, 40, proj}, item7{obj7Laser, 41, laser}, item7{obj7Flag, 1, flag})
	if !slices.Equal(find(b, ObjProjectile, 40), proj) || !slices.Equal(find(b, ObjLaser, 41), laser) ||
		!slices.Equal(find(b, ObjFlag, 1), flag) {
		t.Fatalf("items changed")
	}
}

// char7 is a 0.7 Character: core, health 10, armor 5, ammo -1 (hammer),
// weapon 0, emote 5, attack tick 90, triggered events ev.
func char7(ev int32) []int32 {
	return []int32{100, 500, 600, 10, -20, 256, -1, 1, -1, 0, 0, 500, 600, 0, 0,
		10, 5, -1, 0, 5, 90, ev}
}

func TestSnapCharacter(t *testing.T) {
	ev := int32(coreEvGroundJump | coreEvHookPlayer | coreEvHookGround | coreEvHookNoHook)
	items := []item7{
		{obj7Character, 3, char7(ev)},
		{obj7PlayerInfo, 3, []int32{playerFlag7Chatting | playerFlag7Scoreboard | 1, 0, 0}},
	}
	want := []int32{100, 500, 600, 10, -20, 256, -1, 1, -1, 0, 0, 500, 600, 0, 0,
		PlayerFlagChatting | PlayerFlagScoreboard, 10, 5, 0, 0, 5, 90}
	for _, tc := range []struct {
		viewer int
		sounds []int32
	}{
		{1, []int32{SoundHookAttachPlayer, SoundPlayerJump, SoundHookAttachGround, SoundHookNoAttach}},
		{3, []int32{SoundHookAttachPlayer}}, // the own client predicts the rest
	} {
		b := mustTranslate(t, &Infos{}, tc.viewer, 0, items...)
		if got := find(b, ObjCharacter, 3); !slices.Equal(got, want) {
			t.Errorf("viewer %d: character %v\nwant %v", tc.viewer, got, want)
		}
		var sounds []int32
		for _, s := range ofType(b, EventSoundWorld) {
			if s[0] != 500 || s[1] != 600 {
				t.Errorf("sound at %d,%d", s[0], s[1])
			}
			sounds = append(sounds, s[2])
		}
		if !slices.Equal(sounds, tc.sounds) {
			t.Errorf("viewer %d: sounds %v, want %v", tc.viewer, sounds, tc.sounds)
		}
	}
}

func TestSnapCharacterClamps(t *testing.T) {
	c := char7(0)
	c[15], c[16], c[17], c[18], c[19], c[20] = 12, -1, 11, -1, 7, -5
	b := mustTranslate(t, &Infos{}, 0, 0, item7{obj7Character, 0, c})
	if got := find(b, ObjCharacter, 0)[16:]; !slices.Equal(got, []int32{10, 0, 10, 0, 6, 0}) {
		t.Fatalf("own fields %v", got)
	}
}

func TestSnapPlayerAndClientInfo(t *testing.T) {
	var infos Infos
	if err := infos.SetPlayer(2, Player{Name: "abc", Country: 276, Team: 1, Skin: gamemsg.DefaultSkin}); err != nil {
		t.Fatal(err)
	}
	items := []item7{{obj7PlayerInfo, 2, []int32{8, 7, 33}}}
	b := mustTranslate(t, &infos, 2, 0, items...)
	if got, want := find(b, ObjPlayerInfo, 2), []int32{1, 2, 1, 7, 33}; !slices.Equal(got, want) {
		t.Errorf("PlayerInfo %v, want %v", got, want)
	}
	// StrToInts (net.md A2.3): 4 bytes per int, big-endian, +128 each,
	// the last byte of the last int 0.
	u := func(v uint32) int32 { return int32(v) }
	want := []int32{
		u(0xE1E2E380), u(0x80808080), u(0x80808080), u(0x80808000), // "abc"
		u(0x80808080), u(0x80808080), u(0x80808000), // ""
		276,
		u(0xE4E5E6E1), u(0xF5ECF480), u(0x80808080), u(0x80808080), u(0x80808080), u(0x80808000), // "default"
		0, 0, 0,
	}
	if got := find(b, ObjClientInfo, 2); !slices.Equal(got, want) {
		t.Errorf("ClientInfo %#x\nwant %#x", got, want)
	}
	b = mustTranslate(t, &infos, 0, 0, items...)
	if got := find(b, ObjPlayerInfo, 2)[0]; got != 0 {
		t.Errorf("local = %d for another viewer", got)
	}
	// a 0.6 player's own skin is shown as sent
	infos.SetPlayer(2, Player{Name: "abc", Skin6: Skin6{Name: "x_ninja", UseCustomColor: true, ColorBody: 5, ColorFeet: 6}, HasSkin6: true})
	b = mustTranslate(t, &infos, 0, 0, items...)
	ci := find(b, ObjClientInfo, 2)
	if got := snap.IntsToStr(ci[8:14]); got != "x_ninja" || ci[14] != 1 || ci[15] != 5 || ci[16] != 6 {
		t.Errorf("0.6 skin: %q %v", got, ci[14:])
	}
	// every later change of the entry reaches the next snapshot
	infos.SetTeam(2, -1)
	b = mustTranslate(t, &infos, 0, 0, items...)
	if got := find(b, ObjPlayerInfo, 2)[2]; got != -1 {
		t.Errorf("team %d after SetTeam(-1)", got)
	}
	infos.SetSkin(2, gamemsg.DefaultSkin)
	b = mustTranslate(t, &infos, 0, 0, items...)
	if got := snap.IntsToStr(find(b, ObjClientInfo, 2)[8:14]); got != "default" {
		t.Errorf("skin %q after SetSkin", got)
	}
	infos.Remove(2)
	b = mustTranslate(t, &infos, 0, 0, items...)
	if got := find(b, ObjClientInfo, 2); !slices.Equal(got, unknownInfo[:]) || snap.IntsToStr(got[0:4]) != "" {
		t.Errorf("ClientInfo of a removed player %#x, want the unknown one", got)
	}
}

func TestSnapGameInfo(t *testing.T) {
	infos := Infos{GameInfo: gamemsg.SvGameInfo{GameFlags: gamemsg.GameFlagTeams | gamemsg.GameFlagFlags | gamemsg.GameFlagRace,
		ScoreLimit: 400, TimeLimit: 10, MatchNum: 3, MatchCurrent: 2}}
	const tick = 1200
	for _, tc := range []struct {
		name          string
		gd            []int32
		state, warmup int32
	}{
		{"playing", []int32{1000, 0, 0}, 0, 0},
		{"warmup", []int32{1000, gameState7Warmup, 1500}, 0, 300},
		{"warmup without end", []int32{1000, gameState7Warmup, 0}, 0, 0},
		{"countdown", []int32{1000, gameState7Countdown | gameState7Paused, 1350}, GameStateFlagPaused, 150},
		{"paused", []int32{1000, gameState7Paused, 0}, GameStateFlagPaused, 0},
		{"sudden death", []int32{1000, gameState7SuddenDeath, 0}, GameStateFlagSuddenDeath, 0},
		{"game over", []int32{1000, gameState7GameOver, 50}, GameStateFlagGameOver, 0},
		{"round over", []int32{1000, 4, 50}, 0, 0},
	} {
		b := mustTranslate(t, &infos, 0, tick, item7{obj7GameData, 0, tc.gd})
		want := []int32{GameFlagTeams | GameFlagFlags, tc.state, 1000, tc.warmup, 400, 10, 3, 2}
		if got := find(b, ObjGameInfo, 0); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
		if find(b, ObjGameData, 0) != nil {
			t.Errorf("%s: GameData without team data", tc.name)
		}
	}
}

func TestSnapGameData(t *testing.T) {
	gd := item7{obj7GameData, 0, []int32{0, 0, 0}}
	b := mustTranslate(t, &Infos{}, 0, 0, gd, item7{obj7GameDataTeam, 0, []int32{12, 34}})
	if got := find(b, ObjGameData, 0); !slices.Equal(got, []int32{12, 34, 0, 0}) {
		t.Errorf("tdm: %v", got)
	}
	b = mustTranslate(t, &Infos{}, 0, 0, gd, item7{obj7GameDataTeam, 0, []int32{1, 2}},
		item7{obj7GameDataFlag, 0, []int32{-2, 5, 0, 0}})
	if got := find(b, ObjGameData, 0); !slices.Equal(got, []int32{1, 2, -2, 5}) {
		t.Errorf("ctf: %v", got)
	}
}

func TestSnapSpectatorInfo(t *testing.T) {
	for _, tc := range []struct{ mode, id, want int32 }{
		{1, 5, 5},   // SPEC_PLAYER
		{1, 63, 63}, // highest id (DDNet range)
		{0, -1, -1}, // SPEC_FREEVIEW
		{0, 7, -1},  // free view with a stale id
		{2, -1, -1}, // SPEC_FLAGRED: 0.6 has no flag view
		{3, 4, -1},  // SPEC_FLAGBLUE
		{1, 64, -1}, // bad id
		{1, -1, -1}, // player mode without player
		{9, 3, -1},  // bad mode
	} {
		b := mustTranslate(t, &Infos{}, 4, 0, item7{obj7SpectatorInfo, 4, []int32{tc.mode, tc.id, 111, 222}})
		if got := find(b, ObjSpectatorInfo, 4); !slices.Equal(got, []int32{tc.want, 111, 222}) {
			t.Errorf("mode %d id %d: %v", tc.mode, tc.id, got)
		}
	}
}

func TestSnapEvents(t *testing.T) {
	b := mustTranslate(t, &Infos{}, 0, 0,
		item7{event7Explosion, 4, []int32{1, 2}},
		item7{event7Spawn, 5, []int32{3, 4}},
		item7{event7HammerHit, 6, []int32{5, 6}},
		item7{event7Death, 7, []int32{7, 8, 9}},
		item7{event7SoundWorld, 8, []int32{9, 10, 11}},
		item7{event7Common, 9, []int32{11, 12}},
	)
	for _, tc := range []struct {
		typ, id uint16
		want    []int32
	}{
		{EventExplosion, 0, []int32{1, 2}},
		{EventSpawn, 1, []int32{3, 4}},
		{EventHammerHit, 2, []int32{5, 6}},
		{EventDeath, 3, []int32{7, 8, 9}},
		{EventSoundWorld, 4, []int32{9, 10, 11}},
		{EventCommon, 5, []int32{11, 12}},
	} {
		if got := find(b, tc.typ, tc.id); !slices.Equal(got, tc.want) {
			t.Errorf("type %d: %v, want %v", tc.typ, got, tc.want)
		}
	}
}

// Damage fans out as the 0.6 server's CreateDamageInd (the angles were
// computed by a separate float32 C implementation of its formula).
func TestSnapDamage(t *testing.T) {
	b := mustTranslate(t, &Infos{}, 0, 0,
		item7{event7Damage, 0, []int32{50, 60, 3, 999, 2, 1, 0}},   // 3 indicators
		item7{event7Damage, 1, []int32{50, 60, 3, 999, 1, 0, 0}},   // same victim again: a quarter radian on
		item7{event7Damage, 2, []int32{70, 80, 4, 999, 3, 2, 1}},   // another victim: 5
		item7{event7Damage, 3, []int32{70, 80, 4, 999, 0, 0, 0}},   // nothing
		item7{event7Damage, 4, []int32{70, 80, 4, 999, 0, 1, 0}},   // second hit of victim 4
		item7{event7Damage, 5, []int32{70, 80, 4, 999, 20, 20, 0}}, // amounts bounded
	)
	var angles []int32
	for _, d := range ofType(b, EventDamageInd) {
		angles = append(angles, d[2])
	}
	want := []int32{1045, 1152, 1259, 1181, 1014, 1091, 1168, 1244, 1321, 1181}
	if got := angles[:len(want)]; !slices.Equal(got, want) {
		t.Fatalf("angles %v\nwant %v", got, want)
	}
	if len(angles) != len(want)+MaxDamageInd {
		t.Fatalf("%d indicators", len(angles))
	}
}

func TestDamageAngle(t *testing.T) {
	for _, tc := range []struct {
		group float32
		n     int
		want  []int32
	}{
		{0, 1, []int32{1117}},
		{0, 5, []int32{1014, 1091, 1168, 1244, 1321}},
		{0.25, 3, []int32{1109, 1216, 1323}},
		{0.5, 5, []int32{1142, 1219, 1296, 1372, 1449}},
	} {
		for i, w := range tc.want {
			if got := damageAngle(tc.group, i, tc.n); got != w {
				t.Errorf("group %v n %d i %d: %d, want %d", tc.group, tc.n, i, got, w)
			}
		}
	}
}

func TestSnapMalformedInput(t *testing.T) {
	infos := &Infos{}
	b, err := translate(t, infos, 0, 0,
		item7{obj7Pickup, 1, []int32{1, 2}},           // too short
		item7{obj7Character, 70, char7(0)},            // id out of range
		item7{event7Death, 1, []int32{0, 0, 99}},      // client out of range
		item7{event7SoundWorld, 2, []int32{0, 0, 41}}, // sound out of range
		item7{event7Damage, 3, []int32{0, 0, -1, 0, 1, 1, 0}},
		item7{23, 0, []int32{5}},             // PlayerInfoRace: not translated
		item7{300, 0, []int32{1, 2, 3}},      // unknown type
		item7{obj7Flag, 0, []int32{1, 2, 0}}, // fine
	)
	if !errors.Is(err, ErrBadItem) {
		t.Fatalf("err = %v", err)
	}
	if find(b, ObjFlag, 0) == nil || find(b, ObjGameInfo, 0) == nil || find(b, ObjGameInfoEx, 0) == nil || b.NumItems() != 4 {
		t.Fatalf("%d items", b.NumItems())
	}
}

// A full destination refuses items: the error is reported, nothing panics.
func TestSnapFullBuilder(t *testing.T) {
	var items []item7
	for i := range 64 {
		items = append(items, item7{obj7PlayerInfo, uint16(i), []int32{0, 0, 0}})
	}
	for i := range 400 {
		items = append(items, item7{obj7Projectile, uint16(i), make([]int32, 6)})
	}
	var b6 snap.Builder
	for i := range snap.MaxItems - 10 { // leave room for 10 items only
		if _, err := b6.NewItem(1000, uint16(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	var tr Translator
	if err := tr.Snap(&b6, build7(t, items...), 0, 0, &Infos{}); !errors.Is(err, snap.ErrTooManyItems) {
		t.Fatalf("err = %v", err)
	}
	if b6.NumItems() != snap.MaxItems {
		t.Fatalf("%d items", b6.NumItems())
	}
}

// A snapshot that fills up between the PlayerInfos and the ClientInfos
// keeps every PlayerInfo it took filled in, and the ClientInfos it took too.
func TestSnapFullBetweenPlayerRuns(t *testing.T) {
	var items []item7
	for i := range 8 {
		items = append(items, item7{obj7PlayerInfo, uint16(i), []int32{0, int32(10 + i), 5}})
	}
	var b6 snap.Builder
	for i := range snap.MaxItems - 12 { // room for 12 items: the game items, 8 PlayerInfos, a few ClientInfos
		if _, err := b6.NewItem(1000, uint16(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	var tr Translator
	if err := tr.Snap(&b6, build7(t, items...), 0, 0, &Infos{}); !errors.Is(err, snap.ErrTooManyItems) {
		t.Fatalf("err = %v", err)
	}
	pis, cis := ofType(&b6, ObjPlayerInfo), ofType(&b6, ObjClientInfo)
	if len(pis) != 8 || len(cis) == 0 || len(cis) >= 8 {
		t.Fatalf("%d PlayerInfos and %d ClientInfos: the test does not fill up between the runs", len(pis), len(cis))
	}
	for i, d := range pis {
		if d[1] != int32(i) || d[3] != int32(10+i) {
			t.Errorf("PlayerInfo %d: %v", i, d)
		}
	}
	for i, d := range cis {
		if !slices.Equal(d, unknownInfo[:]) {
			t.Errorf("ClientInfo %d: %v", i, d)
		}
	}
}
