package dialect6

import (
	"errors"
	"reflect"
	"testing"

	"twserver/gamemsg"
)

// body returns the fields of pack (the bytes after the header varint).
func body(fields ...any) []byte { return pack(0, fields...)[1:] }

func TestDecodeClient(t *testing.T) {
	infos := gameInfos(0)
	infos.SetPlayer(5, Player{Name: "bob the second"})
	def := Skin7From6(Skin6{Name: "default"})
	for _, tc := range []struct {
		name string
		id   int32
		body []byte
		want gamemsg.Message
	}{
		{"say", MsgClSay, body(0, "hello"), &gamemsg.ClSay{Mode: gamemsg.ChatAll, Target: -1, Message: "hello"}},
		{"say team", MsgClSay, body(1, "hi\x01"), &gamemsg.ClSay{Mode: gamemsg.ChatTeam, Target: -1, Message: "hi "}},
		{"whisper", MsgClSay, body(0, "/w eve psst"), &gamemsg.ClSay{Mode: gamemsg.ChatWhisper, Target: 2, Message: "psst"}},
		{"whisper long", MsgClSay, body(0, "/whisper bob the second hi there"), &gamemsg.ClSay{Mode: gamemsg.ChatWhisper, Target: 5, Message: "hi there"}},
		{"whisper shorter name", MsgClSay, body(0, "/w bob hi"), &gamemsg.ClSay{Mode: gamemsg.ChatWhisper, Target: 1, Message: "hi"}},
		{"whisper nobody", MsgClSay, body(0, "/w zed hi"), &gamemsg.ClSay{Mode: gamemsg.ChatAll, Target: -1, Message: "/w zed hi"}},
		{"whisper no text", MsgClSay, body(0, "/w eve"), &gamemsg.ClSay{Mode: gamemsg.ChatAll, Target: -1, Message: "/w eve"}},
		{"set team", MsgClSetTeam, body(-1), &gamemsg.ClSetTeam{Team: -1}},
		{"spectate player", MsgClSetSpectatorMode, body(7), &gamemsg.ClSetSpectatorMode{SpecMode: 1, SpectatorID: 7}},
		{"free view", MsgClSetSpectatorMode, body(-1), &gamemsg.ClSetSpectatorMode{SpecMode: 0, SpectatorID: -1}},
		{"start info", MsgClStartInfo, body(" nick", "clan", 276, "default", 0, 65408, 65408),
			&gamemsg.ClStartInfo{Name: "nick", Clan: "clan", Country: 276, Skin: def}},
		{"change info", MsgClChangeInfo, body("new", "", -1, "default", 1, 0, 255),
			&ChangeInfo{Name: "new", Country: -1,
				ClSkinChange: gamemsg.ClSkinChange{Skin: Skin7From6(Skin6{Name: "default", UseCustomColor: true, ColorFeet: 255})},
				Skin6:        Skin6{Name: "default", UseCustomColor: true, ColorFeet: 255}}},
		{"kill", MsgClKill, nil, &gamemsg.ClKill{}},
		{"emoticon", MsgClEmoticon, body(15), &gamemsg.ClEmoticon{Emoticon: 15}},
		{"vote", MsgClVote, body(-1), &gamemsg.ClVote{Vote: -1}},
		{"call vote", MsgClCallVote, body("kick", "2", "afk"), &gamemsg.ClCallVote{Type: "kick", Value: "2", Reason: "afk"}},
		{"ddnet legacy", MsgClIsDDNetLegacy, body(16040), nil},
		{"ddnet show others", MsgClShowOthersLegacy, body(1), nil},
		{"ddnet ex", 0, make([]byte, 20), nil},
	} {
		var d Decoder
		got, err := d.Decode(tc.id, tc.body, infos)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if tc.want == nil {
			if got != nil {
				t.Errorf("%s: got %#v, want nothing", tc.name, got)
			}
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeClientKeepsSkin6(t *testing.T) {
	var d Decoder
	if _, err := d.Decode(MsgClStartInfo, body("n", "", 0, "x_ninja", 1, 10, 20), nil); err != nil {
		t.Fatal(err)
	}
	if d.Skin6 != (Skin6{Name: "x_ninja", UseCustomColor: true, ColorBody: 10, ColorFeet: 20}) {
		t.Fatalf("Skin6 = %+v", d.Skin6)
	}
}

// ChangeInfo is, to a handler that does not know it, a Cl_SkinChange.
func TestChangeInfoIsSkinChange(t *testing.T) {
	var m gamemsg.Message = &ChangeInfo{}
	if m.ID() != gamemsg.MsgClSkinChange {
		t.Fatalf("id %d", m.ID())
	}
}

func TestDecodeClientMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   int32
		body []byte
		err  error
	}{
		{"unknown id", 40, nil, ErrUnknownMessage},
		{"server message", MsgSvChat, body(0, 0, "x"), ErrUnknownMessage},
		{"negative id", -1, nil, ErrUnknownMessage},
		{"say empty", MsgClSay, nil, ErrTruncated},
		{"say team 2", MsgClSay, body(2, "x"), ErrOutOfRange},
		{"say no nul", MsgClSay, []byte{0, 'x'}, ErrTruncated},
		{"say bad varint", MsgClSay, []byte{0x80}, ErrTruncated},
		{"team 2", MsgClSetTeam, body(2), ErrOutOfRange},
		{"team -2", MsgClSetTeam, body(-2), ErrOutOfRange},
		{"team empty", MsgClSetTeam, nil, ErrTruncated},
		{"spectate 64", MsgClSetSpectatorMode, body(64), ErrOutOfRange},
		{"spectate -2", MsgClSetSpectatorMode, body(-2), ErrOutOfRange},
		{"start info short", MsgClStartInfo, body("n", "c", 0, "default", 0, 0), ErrTruncated},
		{"start info custom 2", MsgClStartInfo, body("n", "c", 0, "default", 2, 0, 0), ErrOutOfRange},
		{"change info no strings", MsgClChangeInfo, []byte{1, 2, 3}, ErrTruncated},
		{"emoticon 16", MsgClEmoticon, body(16), ErrOutOfRange},
		{"emoticon -1", MsgClEmoticon, body(-1), ErrOutOfRange},
		{"vote 2", MsgClVote, body(2), ErrOutOfRange},
		{"vote empty", MsgClVote, nil, ErrTruncated},
		{"call vote short", MsgClCallVote, []byte{'k', 0, '2'}, ErrTruncated},
		{"ex short", 0, make([]byte, 15), ErrTruncated},
	} {
		var d Decoder
		m, err := d.Decode(tc.id, tc.body, nil)
		if !errors.Is(err, tc.err) || m != nil {
			t.Errorf("%s: %v, %v; want %v", tc.name, m, err, tc.err)
		}
	}
}
