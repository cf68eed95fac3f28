package teehist

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// fixtureHeader is the header of the reference writer's unit tests.
func fixtureHeader() *Header {
	var sha [32]byte
	d, _ := hex.DecodeString(strings.Repeat("0123456789", 7)[:64])
	copy(sha[:], d)
	return &Header{
		GameUUID:        NameUUID("test@ddnet.tw"),
		ServerVersion:   "DDNet test",
		StartTime:       time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC),
		ServerName:      "server name",
		ServerPort:      8303,
		GameType:        "game type",
		MapName:         "Kobra 3 Solo",
		MapSize:         903514,
		MapSHA256:       sha,
		MapCRC:          0xeceaf25c,
		PrngDescription: "test-prng:02468ace",
	}
}

func hx(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// saveID is the save / connection id of the reference tests.
var saveID = []byte{0xfb, 0x13, 0xa5, 0x76, 0xd3, 0x5f, 0x48, 0x93, 0xb8, 0x15, 0xee, 0xdc, 0x6d, 0x98, 0x01, 0x5b}

// tick is the reference fixture's Tick(n): a tick without player records.
func tick(e *Encoder, n int32) {
	e.BeginTick(n)
	e.BeginPlayers()
}

func uuidBytes(k ExKind) string { return hex.EncodeToString(ExTable[k].UUID[:]) }

// TestEncoderVectors mirrors the reference writer's unit tests: the whole
// output is magic + header + NUL + exactly the expected message bytes.
func TestEncoderVectors(t *testing.T) {
	in := Input{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	in2 := in
	in2[0] = 0
	tests := []struct {
		name string
		run  func(e *Encoder)
		want string
	}{
		{"Empty", func(e *Encoder) {}, ""},
		{"Finished", func(e *Encoder) { e.Finish() }, "40"},
		{"TickImplicitOneTick", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordPlayer(0, 1, 2)
			e.Finish()
		}, "42 00 01 02 40"},
		{"TickImplicitTwoTicks", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordPlayer(0, 1, 2)
			e.BeginTick(2)
			e.BeginPlayers()
			e.RecordPlayer(0, 2, 1)
			e.Finish()
		}, "42 00 01 02 00 01 40 40"},
		{"TickImplicitDescendingClientId", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordDeadPlayer(0)
			e.RecordPlayer(1, 2, 3)
			e.BeginTick(2)
			e.BeginPlayers()
			e.RecordPlayer(0, 4, 5)
			e.RecordPlayer(1, 2, 3)
			e.Finish()
		}, "42 01 02 03 42 00 04 05 40"},
		{"TickExplicitAscendingClientId", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordPlayer(0, 4, 5)
			e.RecordDeadPlayer(1)
			e.BeginTick(2)
			e.BeginPlayers()
			e.RecordPlayer(0, 4, 5)
			e.RecordPlayer(1, 2, 3)
			e.Finish()
		}, "42 00 04 05 41 00 42 01 02 03 40"},
		{"TickImplicitEmpty", func(e *Encoder) {
			for i := int32(1); i < 500; i++ {
				e.BeginTick(i)
				e.BeginPlayers()
			}
			e.Finish()
		}, "40"},
		{"TickExplicitStart", func(e *Encoder) {
			e.BeginTick(500)
			e.BeginPlayers()
			e.RecordPlayer(0, -1, -1)
			e.Finish()
		}, "41 b3 07 42 00 40 40 40"},
		{"TickExplicitPlayerMessage", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordMessage(63, []byte{0})
			e.Finish()
		}, "41 00 46 3f 01 00 40"},
		{"ExtraMessage", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordEx(ExTable[ExTest].UUID, nil)
			e.Finish()
		}, "41 00 4a" + uuidBytes(ExTest) + "00 40"},
		{"DDNetVersion", func(e *Encoder) {
			p := []byte{0x00}
			p = append(p, saveID...)
			p = append(p, 0x92, 0xcb, 0x01)
			p = append(p, "DDNet 13.1 (3623f5e4cd184556)\x00"...)
			e.RecordEx(ExTable[ExDDNetVer].UUID, p)
			e.RecordExInts(ExDDNetVerOld, 1, 13010)
			e.Finish()
		}, "4a" + uuidBytes(ExDDNetVer) + "32 00" + hex.EncodeToString(saveID) +
			"92 cb 01" + hex.EncodeToString([]byte("DDNet 13.1 (3623f5e4cd184556)\x00")) +
			"4a" + uuidBytes(ExDDNetVerOld) + "04 01 92 cb 01 40"},
		{"Auth", func(e *Encoder) {
			e.RecordExIntStr(ExAuthInit, "default_admin", 0, 3)
			e.RecordAuthLogin(1, 2, "foobar")
			e.RecordAuthLogin(2, 1, "help")
			e.RecordAuthLogout(1)
			e.Finish()
		}, "4a" + uuidBytes(ExAuthInit) + "10 00 03" + hex.EncodeToString([]byte("default_admin\x00")) +
			"4a" + uuidBytes(ExAuthLogin) + "09 01 02" + hex.EncodeToString([]byte("foobar\x00")) +
			"4a" + uuidBytes(ExAuthLogin) + "07 02 01" + hex.EncodeToString([]byte("help\x00")) +
			"4a" + uuidBytes(ExAuthLogout) + "01 01 40"},
		{"PlayerTeam", func(e *Encoder) {
			tick(e, 1)
			e.RecordPlayerTeam(3, 0)
			e.RecordPlayerTeam(33, 54)
			e.RecordPlayerTeam(45, 0)
			tick(e, 2)
			e.RecordPlayerTeam(3, 12)
			e.RecordPlayerTeam(33, 0)
			e.RecordPlayerTeam(45, 0)
			e.Finish()
		}, "41 00 4a" + uuidBytes(ExPlayerTeam) + "02 21 36 41 00 4a" + uuidBytes(ExPlayerTeam) + "02 03 0c 4a" +
			uuidBytes(ExPlayerTeam) + "02 21 00 40"},
		{"TeamPractice", func(e *Encoder) {
			tick(e, 1)
			e.RecordTeamPractice(1, false)
			e.RecordTeamPractice(16, false)
			e.RecordTeamPractice(23, true)
			tick(e, 2)
			e.RecordTeamPractice(1, true)
			e.RecordTeamPractice(16, false)
			e.RecordTeamPractice(23, false)
			e.Finish()
		}, "41 00 4a" + uuidBytes(ExTeamPractice) + "02 17 01 41 00 4a" + uuidBytes(ExTeamPractice) + "02 01 01 4a" +
			uuidBytes(ExTeamPractice) + "02 17 00 40"},
		{"PlayerReadyMultiple", func(e *Encoder) {
			tick(e, 1)
			e.RecordPlayerReady(0)
			e.RecordPlayerReady(11)
			tick(e, 2)
			e.RecordPlayerReady(63)
			e.Finish()
		}, "41 00 4a" + uuidBytes(ExPlayerReady) + "01 00 4a" + uuidBytes(ExPlayerReady) + "01 0b 41 00 4a" +
			uuidBytes(ExPlayerReady) + "01 3f 40"},
		{"SaveSuccess", func(e *Encoder) {
			p := []byte{0x15}
			p = append(p, saveID...)
			p = append(p, "2\tH.\nll0\x00"...)
			e.RecordEx(ExTable[ExSaveSuccess].UUID, p)
			e.Finish()
		}, "4a" + uuidBytes(ExSaveSuccess) + "1a 15" + hex.EncodeToString(saveID) + hex.EncodeToString([]byte("2\tH.\nll0\x00")) + "40"},
		{"LoadFailed", func(e *Encoder) {
			e.RecordExInts(ExLoadFailure, 12)
			e.Finish()
		}, "4a" + uuidBytes(ExLoadFailure) + "01 0c 40"},
		{"JoinLeave", func(e *Encoder) {
			e.RecordJoin(6, false)
			e.RecordJoin(7, true)
			e.RecordDrop(6, "too many pancakes")
			e.Finish()
		}, "4a" + uuidBytes(ExJoinVer6) + "01 06 47 06 4a" + uuidBytes(ExJoinVer7) + "01 07 47 07 48 06" +
			hex.EncodeToString([]byte("too many pancakes\x00")) + "40"},
		{"Input", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordInput(0, 1, &in)
			e.RecordInput(0, 1, &in)
			e.RecordInput(0, 1, &in2)
			e.RecordInput(0, 2, &in2)
			e.Finish()
		}, "41 00 45 00 01 02 03 04 05 06 07 08 09 0a 44 00 40 00 00 00 00 00 00 00 00 00 45 00 00 02 03 04 05 06 07 08 09 0a 40"},
		{"SaveFailed", func(e *Encoder) {
			e.RecordExInts(ExSaveFailure, 12)
			e.Finish()
		}, "4a" + uuidBytes(ExSaveFailure) + "01 0c 40"},
		{"PlayerSwap", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordExInts(ExPlayerSwap, 11, 21)
			e.Finish()
		}, "41 00 4a" + uuidBytes(ExPlayerSwap) + "02 0b 15 40"},
		{"PlayerRejoinVer6", func(e *Encoder) {
			e.RecordExInts(ExPlayerRejoin, 2)
			e.Finish()
		}, "4a" + uuidBytes(ExPlayerRejoin) + "01 02 40"},
		{"PlayerReady", func(e *Encoder) {
			e.RecordPlayerReady(63)
			e.Finish()
		}, "4a" + uuidBytes(ExPlayerReady) + "01 3f 40"},
		{"AntibotMessage", func(e *Encoder) {
			e.RecordEx(ExTable[ExAntibot].UUID, []byte{0xf0, 0x9f, 0xa4, 0x96})
		}, "4a" + uuidBytes(ExAntibot) + "04 f0 9f a4 96"},
		{"PlayerName", func(e *Encoder) {
			e.RecordPlayerName(21, "nameless tee")
		}, "4a" + uuidBytes(ExPlayerName) + "0e 15" + hex.EncodeToString([]byte("nameless tee\x00"))},
		{"PlayerFinish", func(e *Encoder) {
			e.RecordExInts(ExPlayerFinish, 1, 1000000)
		}, "4a" + uuidBytes(ExPlayerFinish) + "04 01 80 89 7a"},
		{"TeamFinish", func(e *Encoder) {
			e.RecordExInts(ExTeamFinish, 63, 1000)
		}, "4a" + uuidBytes(ExTeamFinish) + "03 3f a8 0f"},
		{"ConsoleCommand", func(e *Encoder) {
			e.BeginTick(1)
			e.BeginPlayers()
			e.RecordConsoleCommand(-1, 1, "restart", []string{"3"})
			e.Finish()
		}, "41 00 49 40 01" + hex.EncodeToString([]byte("restart\x00")) + "01 33 00 40"},
	}
	h := fixtureHeader()
	var prefix []byte
	prefix = append(prefix, Magic[:]...)
	prefix = h.AppendJSON(prefix)
	prefix = append(prefix, 0)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEncoder()
			e.WriteHeader(h)
			tc.run(e)
			want := append(append([]byte{}, prefix...), hx(t, tc.want)...)
			if got := e.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got[len(prefix):], want[len(prefix):])
			}
			// every vector parses back to the end
			r := NewReader(bytes.NewReader(want))
			if _, err := r.ReadHeader(); err != nil {
				t.Fatal(err)
			}
			var m Message
			for {
				err := r.Next(&m)
				if err != nil {
					if r.Offset() != int64(len(want)) {
						t.Fatalf("stopped at %d of %d: %v", r.Offset(), len(want), err)
					}
					break
				}
			}
		})
	}
}

func TestMagicAndNames(t *testing.T) {
	want := map[string]string{
		MagicName:                            "699db17b-8efb-34ff-b1d8-da6f60c15dd1",
		"teehistorian-test@ddnet.tw":         "6bb8ba88-0f0b-382e-8dae-dbf4052b8b7d",
		"teehistorian-joinver7@ddnet.tw":     "59239b05-0540-318d-bea4-9aa1e80e7d2b",
		"teehistorian-player-ready@ddnet.tw": "638587c9-3f75-3887-918e-a3c2614ffaa0",
		"teehistorian-team-finish@ddnet.org": "9588b9af-3fdc-3760-8043-82deeee317a5",
		"test@ddnet.tw":                      "a1eb7182-796e-3b3e-941d-38ca71b2a4a8",
	}
	for name, s := range want {
		if got := NameUUID(name).String(); got != s {
			t.Errorf("%s: %s, want %s", name, got, s)
		}
		u, err := ParseUUID(s)
		if err != nil || u != NameUUID(name) {
			t.Errorf("ParseUUID(%s) = %v, %v", s, u, err)
		}
	}
}

func TestHeaderJSON(t *testing.T) {
	h := fixtureHeader()
	h.PrevGameUUID = NameUUID("prev")
	h.Config = []KV{{"sv_motd", "a\"b\\c\nd\x0c"}, {"sv_scorelimit", "5"}}
	h.Tuning = []KV{{"gravity", "60"}}
	h.UUIDs = DefaultUUIDs()
	js := h.AppendJSON(nil)
	if !bytes.Contains(js, []byte(`"sv_motd":"a\"b\\c\nd\u000c"`)) {
		t.Errorf("escaping: %s", js)
	}
	if !bytes.HasPrefix(js, []byte(`{"comment":"teehistorian@ddnet.tw","version":"2","game_uuid":"a1eb7182-796e-3b3e-941d-38ca71b2a4a8","prev_game_uuid":`)) {
		t.Errorf("prefix: %s", js)
	}
	back, err := ParseHeaderJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if back.GameUUID != h.GameUUID || back.PrevGameUUID != h.PrevGameUUID || back.MapCRC != h.MapCRC ||
		back.MapSHA256 != h.MapSHA256 || back.MapSize != h.MapSize || back.ServerPort != h.ServerPort ||
		!back.StartTime.Equal(h.StartTime) || len(back.Config) != 2 || back.Config[0] != h.Config[0] ||
		back.Tuning[0] != h.Tuning[0] || len(back.UUIDs) != len(h.UUIDs) {
		t.Errorf("round trip: %+v", back)
	}
}
