package gamemsg

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"twserver/netproto"
)

var testSkin = Skin{
	PartNames:       [NumSkinParts]string{"kitty", "whisker", "", "standard", "standard", "negative"},
	UseCustomColors: [NumSkinParts]bool{true, false, false, true, true, false},
	PartColors:      [NumSkinParts]int32{0x1b6f74, -16777216, 0, 0x1b759e, 0x1b6f74, 0},
}

// samples holds one valid, non-trivial value of every message.
func samples() []Message {
	tune := SvTuneParams{Params: DefaultTuneParams}
	lst := SvVoteOptionListAdd{Num: 3}
	lst.Descriptions[0], lst.Descriptions[1], lst.Descriptions[2] = "map dm1", "map ctf2", "restart"
	return []Message{
		&SvMotd{Message: "welcome\nline two"},
		&SvBroadcast{Message: "round starts"},
		&SvChat{Mode: ChatAll, ClientID: -1, TargetID: -1, Message: "server says hi"},
		&SvChat{Mode: ChatWhisper, ClientID: 63, TargetID: 0, Message: "psst"},
		&SvTeam{ClientID: 5, Team: TeamSpectators, Silent: true, CooldownTick: 1234567},
		&SvKillMsg{Killer: 3, Victim: 7, Weapon: 4, ModeSpecial: 1},
		&SvKillMsg{Killer: -2, Victim: 0, Weapon: WeaponGame, ModeSpecial: -5},
		&tune,
		&SvReadyToEnter{},
		&SvWeaponPickup{Weapon: 5},
		&SvEmoticon{ClientID: 12, Emoticon: 15},
		&SvVoteClearOptions{},
		&lst,
		&SvVoteOptionAdd{Description: "change map"},
		&SvVoteOptionRemove{Description: "change map"},
		&SvVoteSet{ClientID: 2, Type: VoteStartKick, Timeout: 25, Description: "kick nameless", Reason: "afk"},
		&SvVoteStatus{Yes: 3, No: 1, Pass: 0, Total: 64},
		&SvServerSettings{KickVote: true, KickMin: 2, SpecVote: false, TeamLock: true, TeamBalance: true, PlayerSlots: 16},
		&SvClientInfo{ClientID: 9, Local: true, Team: TeamBlue, Name: "nameless tee", Clan: "clan", Country: -1, Skin: testSkin, Silent: false},
		&SvGameInfo{GameFlags: GameFlagTeams | GameFlagFlags, ScoreLimit: 500, TimeLimit: 10, MatchNum: 3, MatchCurrent: 1},
		&SvClientDrop{ClientID: 1, Reason: "timeout", Silent: true},
		&SvGameMsg{GameMsgID: GameMsgTeamSwap},
		&SvGameMsg{GameMsgID: GameMsgTeamAll, Params: [3]int32{1}},
		&SvGameMsg{GameMsgID: GameMsgCtfCapture, Params: [3]int32{0, 17, 1500}},
		&DeClientEnter{Name: "tee", ClientID: 4, Team: 0},
		&DeClientLeave{Name: "tee", ClientID: 4, Reason: "bye"},
		&ClSay{Mode: ChatTeam, Target: -1, Message: "gg"},
		&ClSetTeam{Team: TeamRed},
		&ClSetSpectatorMode{SpecMode: 1, SpectatorID: 33},
		&ClStartInfo{Name: "load0", Clan: "twload", Country: 276, Skin: testSkin},
		&ClKill{},
		&ClReadyChange{},
		&ClEmoticon{Emoticon: 2},
		&ClVote{Vote: -1},
		&ClCallVote{Type: "kick", Value: "3", Reason: "spam", Force: true},
		&SvSkinChange{ClientID: 63, Skin: testSkin},
		&ClSkinChange{Skin: DefaultSkin},
		&SvRaceFinish{ClientID: 1, Time: -1, Diff: -250, RecordPersonal: true, RecordServer: true},
		&SvCheckpoint{Diff: 99},
		&SvCommandInfo{Name: "help", ArgsFormat: "?s", HelpText: "shows help"},
		&SvCommandInfoRemove{Name: "help"},
		&ClCommand{Name: "w", Arguments: "tee hello"},
	}
}

func encode(t testing.TB, m Message) []byte {
	t.Helper()
	var p testPacker
	if err := Encode(&p, m); err != nil {
		t.Fatalf("Encode(%T): %v", m, err)
	}
	return p.b
}

// decodeAll reads the header varint and decodes the message after it.
func decodeAll(b []byte) (Message, error) {
	u := testUnpacker{b: b}
	h := u.GetInt()
	if u.err != nil {
		return nil, ErrTruncated
	}
	if h&1 != 0 {
		return nil, ErrUnknownMessage
	}
	return Decode(h>>1, &u)
}

func TestRoundTrip(t *testing.T) {
	seen := map[int32]bool{}
	for _, m := range samples() {
		t.Run(Name(m.ID()), func(t *testing.T) {
			b := encode(t, m)
			got, err := decodeAll(b)
			if err != nil {
				t.Fatalf("decode %x: %v", b, err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, m)
			}
			if got.ID() != m.ID() {
				t.Fatalf("id %d, want %d", got.ID(), m.ID())
			}
		})
		seen[m.ID()] = true
	}
	for id := int32(1); id < NumMessages; id++ {
		if id != MsgSvExtraProjectile && !seen[id] {
			t.Errorf("no sample for %s (%d)", Name(id), id)
		}
	}
}

func TestGoldenBytes(t *testing.T) {
	tests := []struct {
		name string
		m    Message
		want []byte
	}{
		{"Sv_Chat server line", &SvChat{Mode: ChatAll, ClientID: -1, TargetID: -1, Message: "hi"},
			[]byte{0x06, 0x01, 0x40, 0x40, 'h', 'i', 0}},
		{"Sv_ReadyToEnter", &SvReadyToEnter{}, []byte{0x10}},
		{"Cl_Say all", &ClSay{Mode: ChatAll, Target: -1, Message: "gg"}, []byte{0x30, 0x01, 0x40, 'g', 'g', 0}},
		{"Cl_SetTeam spectators", &ClSetTeam{Team: -1}, []byte{0x32, 0x40}},
		{"Sv_GameMsg ctf capture", &SvGameMsg{GameMsgID: GameMsgCtfCapture, Params: [3]int32{1, 2, 100}},
			[]byte{0x2a, 0x09, 0x01, 0x02, 0xa4, 0x01}},
		{"Sv_GameMsg team swap ignores params", &SvGameMsg{GameMsgID: GameMsgTeamSwap, Params: [3]int32{7, 7, 7}},
			[]byte{0x2a, 0x00}},
		{"Sv_KillMsg", &SvKillMsg{Killer: 1, Victim: 2, Weapon: WeaponWorld, ModeSpecial: 0},
			[]byte{0x0a, 0x01, 0x02, 0x40, 0x00}},
		{"Sv_VoteClearOptions", &SvVoteClearOptions{}, []byte{0x16}},
		{"Cl_Emoticon", &ClEmoticon{Emoticon: 15}, []byte{0x3c, 0x0f}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := encode(t, tt.m); !bytes.Equal(got, tt.want) {
				t.Fatalf("got % x, want % x", got, tt.want)
			}
		})
	}
	var p testPacker
	(&SvTuneParams{Params: DefaultTuneParams}).Encode(&p)
	if p.b[0] != 0x0c || len(p.b) < 1+NumTuneParams {
		t.Fatalf("Sv_TuneParams encoding % x", p.b)
	}
}

func TestEncodeRejectsOutOfRange(t *testing.T) {
	tests := []struct {
		m     Message
		field string
	}{
		{&SvChat{Mode: 4}, "mode"},
		{&SvChat{Mode: 1, ClientID: -2}, "client_id"},
		{&SvChat{Mode: 1, TargetID: 64}, "target_id"},
		{&SvTeam{ClientID: 0, Team: 2}, "team"},
		{&SvTeam{CooldownTick: -1}, "cooldown_tick"},
		{&SvKillMsg{Killer: -3}, "killer"},
		{&SvKillMsg{Victim: -1}, "victim"},
		{&SvKillMsg{Weapon: 6}, "weapon"},
		{&SvKillMsg{Weapon: -4}, "weapon"},
		{&SvWeaponPickup{Weapon: -1}, "weapon"},
		{&SvEmoticon{Emoticon: 16}, "emoticon"},
		{&SvVoteOptionListAdd{Num: 22}, "num_options"},
		{&SvVoteOptionListAdd{Num: -1}, "num_options"},
		{&SvVoteSet{Type: 7}, "type"},
		{&SvVoteSet{Timeout: 61}, "timeout"},
		{&SvVoteStatus{Total: 65}, "total"},
		{&SvServerSettings{PlayerSlots: 65}, "player_slots"},
		{&SvClientInfo{ClientID: 64}, "client_id"},
		{&SvClientInfo{Team: -2}, "team"},
		{&SvGameInfo{GameFlags: 16}, "game_flags"},
		{&SvGameInfo{ScoreLimit: -1}, "score_limit"},
		{&SvClientDrop{ClientID: -1}, "client_id"},
		{&SvGameMsg{GameMsgID: 11}, "game_msg_id"},
		{&ClSay{Mode: -1}, "mode"},
		{&ClSetTeam{Team: 2}, "team"},
		{&ClSetSpectatorMode{SpecMode: 4}, "spec_mode"},
		{&ClSetSpectatorMode{SpectatorID: -2}, "spectator_id"},
		{&ClEmoticon{Emoticon: -1}, "emoticon"},
		{&ClVote{Vote: 2}, "vote"},
		{&SvSkinChange{ClientID: 64}, "client_id"},
		{&SvRaceFinish{Time: -2}, "time"},
		{&DeClientEnter{Team: 3}, "team"},
	}
	for _, tt := range tests {
		t.Run(Name(tt.m.ID())+"."+tt.field, func(t *testing.T) {
			var p testPacker
			err := Encode(&p, tt.m)
			var re *RangeError
			if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &re) || re.Field != tt.field {
				t.Fatalf("Encode err = %v, want range error on %s", err, tt.field)
			}
			if len(p.b) != 0 {
				t.Fatalf("wrote % x for an invalid message", p.b)
			}
		})
	}
}

// raw builds a message body from ints and strings.
func raw(id int32, fields ...any) []byte {
	var p testPacker
	p.AddInt(id << 1)
	for _, f := range fields {
		switch v := f.(type) {
		case int:
			p.AddInt(int32(v))
		case string:
			p.AddString(v)
		}
	}
	return p.b
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want error
	}{
		{"Cl_Say mode 4", raw(MsgClSay, 4, -1, "x"), ErrOutOfRange},
		{"Cl_Say target 64", raw(MsgClSay, 1, 64, "x"), ErrOutOfRange},
		{"Cl_SetTeam 2", raw(MsgClSetTeam, 2), ErrOutOfRange},
		{"Cl_Emoticon 16", raw(MsgClEmoticon, 16), ErrOutOfRange},
		{"Cl_Vote -2", raw(MsgClVote, -2), ErrOutOfRange},
		{"Cl_CallVote force 2", raw(MsgClCallVote, "kick", "1", "", 2), ErrOutOfRange},
		{"Cl_StartInfo ucc 5", raw(MsgClStartInfo, "n", "c", 0, "a", "b", "c", "d", "e", "f", 0, 0, 5, 0, 0, 0, 1, 2, 3, 4, 5, 6), ErrOutOfRange},
		{"Sv_Team silent 3", raw(MsgSvTeam, 1, 0, 3, 0), ErrOutOfRange},
		{"Sv_GameMsg id 11", raw(MsgSvGameMsg, 11), ErrOutOfRange},
		{"Sv_GameMsg capture missing params", raw(MsgSvGameMsg, GameMsgCtfCapture, 1), ErrTruncated},
		{"Sv_VoteOptionListAdd 1000", raw(MsgSvVoteOptionListAdd, 1000), ErrOutOfRange},
		{"Cl_SetTeam empty", raw(MsgClSetTeam), ErrTruncated},
		{"Sv_KillMsg short", raw(MsgSvKillMsg, 1, 2, 3), ErrTruncated},
		{"Sv_ClientInfo unterminated string", append(raw(MsgSvClientInfo, 1, 0, 0), 'a', 'b'), ErrTruncated},
		{"varint runs past end", []byte{MsgClEmoticon << 1, 0x80}, ErrTruncated},
		{"unknown id 40", raw(40), ErrUnknownMessage},
		{"extra projectile", raw(MsgSvExtraProjectile, 1), ErrUnknownMessage},
		{"invalid id 0", raw(0), ErrUnknownMessage},
		{"negative id", raw(-3), ErrUnknownMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := decodeAll(tt.b)
			if !errors.Is(err, tt.want) {
				t.Fatalf("decode % x = %+v, %v; want %v", tt.b, m, err, tt.want)
			}
		})
	}
}

func TestDecodeQuirks(t *testing.T) {
	t.Run("missing trailing string reads empty", func(t *testing.T) {
		m, err := decodeAll(raw(MsgClSay, 1, -1))
		if err != nil || m.(*ClSay).Message != "" {
			t.Fatalf("got %+v, %v", m, err)
		}
	})
	t.Run("trailing bytes ignored", func(t *testing.T) {
		m, err := decodeAll(raw(MsgClSetTeam, 1, 99, "junk"))
		if err != nil || m.(*ClSetTeam).Team != 1 {
			t.Fatalf("got %+v, %v", m, err)
		}
	})
	t.Run("race finish optional record_server", func(t *testing.T) {
		m, err := decodeAll(raw(MsgSvRaceFinish, 3, 1000, 0, 1))
		if err != nil || m.(*SvRaceFinish).RecordServer {
			t.Fatalf("got %+v, %v", m, err)
		}
		var r SvRaceFinish
		u := testUnpacker{b: raw(MsgSvRaceFinish, 3, 1000, 0, 1)}
		u.GetInt()
		if err := r.Decode(plainReader{&u}); !errors.Is(err, ErrTruncated) {
			t.Fatalf("without GetIntOrDefault: %v, want ErrTruncated", err)
		}
	})
	t.Run("strict strings", func(t *testing.T) {
		m, err := decodeAll(raw(MsgClStartInfo, " \t\u3000name\x01x", "\u200bclan", 0,
			"a", "b", "c", "d", "e", "f", 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6))
		if err != nil {
			t.Fatal(err)
		}
		si := m.(*ClStartInfo)
		if si.Name != "name x" || si.Clan != "clan" {
			t.Fatalf("name %q clan %q", si.Name, si.Clan)
		}
	})
	t.Run("motd keeps newlines", func(t *testing.T) {
		m, err := decodeAll(raw(MsgSvMotd, "a\nb"))
		if err != nil || m.(*SvMotd).Message != "a\nb" {
			t.Fatalf("got %+v, %v", m, err)
		}
	})
}

func TestStrict(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"   lead", "lead"},
		{"\u00a0\u2028\ufeffx y", "x y"},
		{"a\nb\tc", "a b c"},
		{"\xff\xfe", "\xff\xfe"},
		{"\u3000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Strict(tt.in); got != tt.want {
				t.Fatalf("Strict(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTruncationNeverPanics(t *testing.T) {
	for _, m := range samples() {
		b := encode(t, m)
		for n := 0; n < len(b); n++ {
			got, err := decodeAll(b[:n])
			if err == nil && reflect.DeepEqual(got, m) && n < len(b)-1 {
				t.Errorf("%s: prefix %d/%d decoded to the full message", Name(m.ID()), n, len(b))
			}
		}
	}
}

func TestNamesAndParams(t *testing.T) {
	if Name(MsgSvChat) != "Sv_Chat" || Name(MsgClCommand) != "Cl_Command" || Name(99) != "unknown" {
		t.Fatal("names")
	}
	if GameMsgParams(GameMsgCtfCapture) != 3 || GameMsgParams(GameMsgTeamAll) != 1 || GameMsgParams(-1) != -1 || GameMsgParams(11) != -1 {
		t.Fatal("params")
	}
}

func TestDecodeReuseAllocs(t *testing.T) {
	b := encode(t, &SvKillMsg{Killer: 1, Victim: 2, Weapon: 3})[1:]
	var m SvKillMsg
	var u testUnpacker
	allocs := testing.AllocsPerRun(100, func() {
		u = testUnpacker{b: b}
		if err := m.Decode(&u); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per decode", allocs)
	}
}

func BenchmarkEncodeClientInfo(b *testing.B) {
	m := &SvClientInfo{ClientID: 9, Team: 0, Name: "nameless tee", Skin: testSkin}
	p := testPacker{b: make([]byte, 0, 512)}
	b.ReportAllocs()
	for b.Loop() {
		p.b = p.b[:0]
		if err := m.Encode(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestNetprotoPackerUnpacker checks that netproto's Packer and Unpacker
// satisfy Writer and Reader and produce the same bytes as the test packer.
func TestNetprotoPackerUnpacker(t *testing.T) {
	for _, m := range samples() {
		t.Run(Name(m.ID()), func(t *testing.T) {
			var p netproto.Packer
			if err := Encode(&p, m); err != nil || p.Err() != nil {
				t.Fatalf("Encode: %v %v", err, p.Err())
			}
			want := encode(t, m)
			if !bytes.Equal(p.Bytes(), want) {
				t.Fatalf("netproto packer % x, test packer % x", p.Bytes(), want)
			}
			var u netproto.Unpacker
			u.Reset(bytes.Clone(p.Bytes()))
			id, sys := u.GetMsgHeader()
			if sys || id != m.ID() {
				t.Fatalf("header %d %v", id, sys)
			}
			got, err := Decode(id, &u)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Fatalf("got %+v want %+v", got, m)
			}
		})
	}
}
