package dialect6

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"twserver/gamemsg"
	"twserver/netproto"
)

// pack builds a 0.6 game message the way the spec lays it out (net.md A2.2,
// A2.3, B5.4): header varint id<<1, then each field, ints as varints and
// strings NUL-terminated.
func pack(id int32, fields ...any) []byte {
	b := netproto.AppendInt(nil, id<<1)
	for _, f := range fields {
		switch v := f.(type) {
		case int:
			b = netproto.AppendInt(b, int32(v))
		case int32:
			b = netproto.AppendInt(b, v)
		case string:
			b = append(append(b, v...), 0)
		default:
			panic("pack: bad field")
		}
	}
	return b
}

// gameInfos returns Infos of a game with the given flags and players bob
// (id 1, red) and eve (id 2, blue).
func gameInfos(flags int32) *Infos {
	in := &Infos{GameInfo: gamemsg.SvGameInfo{GameFlags: flags}}
	in.SetPlayer(1, Player{Name: "bob", Team: 0})
	in.SetPlayer(2, Player{Name: "eve", Team: 1})
	return in
}

func encodeAll(t *testing.T, m gamemsg.Message, p *Peer, infos *Infos) [][]byte {
	t.Helper()
	var o Out
	if err := EncodeServer(&o, m, p, infos); err != nil {
		t.Fatalf("%T: %v", m, err)
	}
	var out [][]byte
	for i := range o.Len() {
		out = append(out, append([]byte(nil), o.Msg(i)...))
	}
	return out
}

func checkMsgs(t *testing.T, name string, got [][]byte, want ...[]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d messages %q, want %d %q", name, len(got), got, len(want), want)
		return
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: message %d\n got % x\nwant % x", name, i, got[i], want[i])
		}
	}
}

func TestEncodeServerSameMeaning(t *testing.T) {
	infos := gameInfos(0)
	tune := make([]any, 0, NumTuneParams)
	for i, v := range gamemsg.DefaultTuneParams {
		if i == 30 {
			tune = append(tune, LaserDamageTune)
		}
		tune = append(tune, v)
	}
	for _, tc := range []struct {
		name string
		m    gamemsg.Message
		want [][]byte
	}{
		{"motd", &gamemsg.SvMotd{Message: "hi"}, [][]byte{{0x02, 'h', 'i', 0}}},
		{"broadcast", &gamemsg.SvBroadcast{Message: "go"}, [][]byte{pack(MsgSvBroadcast, "go")}},
		{"chat", &gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: 1, TargetID: -1, Message: "yo"}, [][]byte{{0x06, 0x00, 0x01, 'y', 'o', 0}}},
		{"team chat", &gamemsg.SvChat{Mode: gamemsg.ChatTeam, ClientID: 1, TargetID: -1, Message: "yo"}, [][]byte{pack(MsgSvChat, 1, 1, "yo")}},
		{"server chat", &gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: -1, TargetID: -1, Message: "x"}, [][]byte{{0x06, 0x00, 0x40, 'x', 0}}},
		{"kill", &gamemsg.SvKillMsg{Killer: 1, Victim: 2, Weapon: 3, ModeSpecial: 1}, [][]byte{pack(MsgSvKillMsg, 1, 2, 3, 1)}},
		{"suicide", &gamemsg.SvKillMsg{Killer: -2, Victim: 2, Weapon: -2}, [][]byte{pack(MsgSvKillMsg, 2, 2, -2, 0)}},
		{"world kill", &gamemsg.SvKillMsg{Killer: -1, Victim: 2, Weapon: -1}, [][]byte{pack(MsgSvKillMsg, 2, 2, -1, 0)}},
		{"tune", &gamemsg.SvTuneParams{Params: gamemsg.DefaultTuneParams}, [][]byte{pack(MsgSvTuneParams, tune...)}},
		{"ready", &gamemsg.SvReadyToEnter{}, [][]byte{{0x10}}},
		{"weapon", &gamemsg.SvWeaponPickup{Weapon: 2}, [][]byte{{0x12, 0x02}}},
		{"emoticon", &gamemsg.SvEmoticon{ClientID: 2, Emoticon: 15}, [][]byte{pack(MsgSvEmoticon, 2, 15)}},
		{"clear options", &gamemsg.SvVoteClearOptions{}, [][]byte{{0x16}}},
		{"option add", &gamemsg.SvVoteOptionAdd{Description: "a"}, [][]byte{pack(MsgSvVoteOptionAdd, "a")}},
		{"option remove", &gamemsg.SvVoteOptionRemove{Description: "a"}, [][]byte{pack(MsgSvVoteOptionRemove, "a")}},
		{"vote status", &gamemsg.SvVoteStatus{Yes: 1, No: 2, Pass: 3, Total: 6}, [][]byte{pack(MsgSvVoteStatus, 1, 2, 3, 6)}},
		{"game info", &gamemsg.SvGameInfo{GameFlags: 1}, nil},
		{"skin change", &gamemsg.SvSkinChange{ClientID: 1, Skin: gamemsg.DefaultSkin}, nil},
		{"demo", &gamemsg.DeClientEnter{Name: "x", ClientID: 1}, nil},
		{"race", &gamemsg.SvCheckpoint{Diff: 5}, nil},
	} {
		checkMsgs(t, tc.name, encodeAll(t, tc.m, &Peer{ID: 2}, infos), tc.want...)
	}
}

func TestEncodeServerVoteOptionLists(t *testing.T) {
	m := &gamemsg.SvVoteOptionListAdd{Num: 17}
	for i := range 17 {
		m.Descriptions[i] = string(rune('a' + i))
	}
	first := []any{15}
	for i := range 15 {
		first = append(first, string(rune('a'+i)))
	}
	second := []any{2, "p", "q"}
	for range 13 {
		second = append(second, "")
	}
	got := encodeAll(t, m, &Peer{}, &Infos{})
	checkMsgs(t, "17 options", got, pack(MsgSvVoteOptionListAdd, first...), pack(MsgSvVoteOptionListAdd, second...))
	checkMsgs(t, "no options", encodeAll(t, &gamemsg.SvVoteOptionListAdd{}, &Peer{}, &Infos{}))
}

func TestEncodeServerWhispers(t *testing.T) {
	infos := gameInfos(0)
	w := &gamemsg.SvChat{Mode: gamemsg.ChatWhisper, ClientID: 1, TargetID: 2, Message: "psst"}
	checkMsgs(t, "ddnet receiver", encodeAll(t, w, &Peer{ID: 2, DDNet: true}, infos), pack(MsgSvChat, ChatWhisperReceived, 1, "psst"))
	checkMsgs(t, "ddnet sender", encodeAll(t, w, &Peer{ID: 1, DDNet: true}, infos), pack(MsgSvChat, ChatWhisperSent, 2, "psst"))
	checkMsgs(t, "vanilla receiver", encodeAll(t, w, &Peer{ID: 2}, infos), pack(MsgSvChat, 0, 1, "(whisper) psst"))
	checkMsgs(t, "vanilla sender", encodeAll(t, w, &Peer{ID: 1}, infos), pack(MsgSvChat, 0, 1, "(whisper to 'eve') psst"))
}

func chat(text string) []byte { return pack(MsgSvChat, 0, -1, text) }

func TestEncodeServerVotes(t *testing.T) {
	infos := gameInfos(0)
	for _, tc := range []struct {
		name string
		m    *gamemsg.SvVoteSet
		want [][]byte
	}{
		{"option", &gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteStartOp, Timeout: 25, Description: "Restart", Reason: "why not"},
			[][]byte{chat("'bob' called vote to change server option 'Restart' (why not)"), pack(MsgSvVoteSet, 25, "Restart", "why not")}},
		{"kick", &gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteStartKick, Timeout: 25, Description: "eve", Reason: "afk"},
			[][]byte{chat("'bob' called for vote to kick 'eve' (afk)"), pack(MsgSvVoteSet, 25, "Kick 'eve'", "afk")}},
		{"spectate", &gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteStartSpec, Timeout: 20, Description: "eve"},
			[][]byte{chat("'bob' called for vote to move 'eve' to spectators ()"), pack(MsgSvVoteSet, 20, "move 'eve' to spectators", "")}},
		{"pass", &gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteEndPass},
			[][]byte{pack(MsgSvVoteSet, 0, "", ""), chat("Vote passed")}},
		{"fail", &gamemsg.SvVoteSet{ClientID: 1, Type: gamemsg.VoteEndFail},
			[][]byte{pack(MsgSvVoteSet, 0, "", ""), chat("Vote failed")}},
		{"forced yes", &gamemsg.SvVoteSet{ClientID: -1, Type: gamemsg.VoteEndPass},
			[][]byte{pack(MsgSvVoteSet, 0, "", ""), chat("Admin forced vote yes")}},
		{"forced no", &gamemsg.SvVoteSet{ClientID: -1, Type: gamemsg.VoteEndFail},
			[][]byte{pack(MsgSvVoteSet, 0, "", ""), chat("Admin forced vote no")}},
		{"abort", &gamemsg.SvVoteSet{ClientID: -1, Type: gamemsg.VoteEndAbort},
			[][]byte{pack(MsgSvVoteSet, 0, "", ""), chat("Vote aborted")}},
		{"forced option", &gamemsg.SvVoteSet{ClientID: -1, Type: gamemsg.VoteStartOp, Description: "Restart", Reason: "r"},
			[][]byte{chat("Admin forced server option 'Restart' (r)")}},
		{"forced spectate", &gamemsg.SvVoteSet{ClientID: -1, Type: gamemsg.VoteStartSpec, Description: "eve", Reason: "r"},
			[][]byte{chat("Admin moved 'eve' to spectator (r)")}},
	} {
		checkMsgs(t, tc.name, encodeAll(t, tc.m, &Peer{ID: 2}, infos), tc.want...)
	}
}

func TestEncodeServerJoinsAndLeaves(t *testing.T) {
	for _, tc := range []struct {
		flags          int32
		red, blue, spc string
	}{
		{0, "game", "spectators", "spectators"},
		{gamemsg.GameFlagTeams, "red team", "blue team", "spectators"},
	} {
		infos := gameInfos(tc.flags)
		p := &Peer{ID: 3}
		// infos of those already there come first: no lines
		checkMsgs(t, "present", encodeAll(t, &gamemsg.SvClientInfo{ClientID: 1, Name: "bob"}, p, infos))
		// then the peer's own: the line a 0.6 server sends to everyone
		checkMsgs(t, "own", encodeAll(t, &gamemsg.SvClientInfo{ClientID: 3, Local: true, Name: "me"}, p, infos),
			chat("'me' entered and joined the "+tc.red))
		checkMsgs(t, "join", encodeAll(t, &gamemsg.SvClientInfo{ClientID: 2, Team: 1, Name: "eve"}, p, infos),
			chat("'eve' entered and joined the "+tc.blue))
		checkMsgs(t, "silent join", encodeAll(t, &gamemsg.SvClientInfo{ClientID: 2, Team: -1, Name: "eve", Silent: true}, p, infos))
		checkMsgs(t, "team", encodeAll(t, &gamemsg.SvTeam{ClientID: 1, Team: -1}, p, infos), chat("'bob' joined the "+tc.spc))
		checkMsgs(t, "team red", encodeAll(t, &gamemsg.SvTeam{ClientID: 1, Team: 0}, p, infos), chat("'bob' joined the "+tc.red))
		checkMsgs(t, "silent team", encodeAll(t, &gamemsg.SvTeam{ClientID: 1, Team: 0, Silent: true}, p, infos))
		checkMsgs(t, "leave", encodeAll(t, &gamemsg.SvClientDrop{ClientID: 2, Reason: "Timeout"}, p, infos),
			chat("'eve' has left the game (Timeout)"))
		infos.Remove(2) // the name stays readable for the line
		checkMsgs(t, "leave no reason", encodeAll(t, &gamemsg.SvClientDrop{ClientID: 2}, p, infos), chat("'eve' has left the game"))
		checkMsgs(t, "silent leave", encodeAll(t, &gamemsg.SvClientDrop{ClientID: 2, Silent: true}, p, infos))
	}
}

func TestEncodeServerTeamLock(t *testing.T) {
	p := &Peer{}
	lock := &gamemsg.SvServerSettings{TeamLock: true}
	checkMsgs(t, "lock", encodeAll(t, lock, p, &Infos{}), chat("Teams were locked"))
	checkMsgs(t, "again", encodeAll(t, lock, p, &Infos{}))
	checkMsgs(t, "unlock", encodeAll(t, &gamemsg.SvServerSettings{}, p, &Infos{}), chat("Teams were unlocked"))
}

func TestEncodeServerGameMsgs(t *testing.T) {
	infos := gameInfos(gamemsg.GameFlagTeams | gamemsg.GameFlagFlags)
	gm := func(id int32, params ...int32) *gamemsg.SvGameMsg {
		m := &gamemsg.SvGameMsg{GameMsgID: id}
		copy(m.Params[:], params)
		return m
	}
	sound := func(id int32) []byte { return pack(MsgSvSoundGlobal, id) }
	for _, tc := range []struct {
		name string
		m    *gamemsg.SvGameMsg
		peer int
		want [][]byte
	}{
		{"swap", gm(gamemsg.GameMsgTeamSwap), 1, [][]byte{chat("Teams were swapped")}},
		{"spec invalid", gm(gamemsg.GameMsgSpecInvalidID), 1, [][]byte{chat("Invalid spectator id used")}},
		{"shuffle", gm(gamemsg.GameMsgTeamShuffle), 1, [][]byte{chat("Teams were shuffled")}},
		{"balance", gm(gamemsg.GameMsgTeamBalance), 1, [][]byte{chat("Teams have been balanced")}},
		{"drop", gm(gamemsg.GameMsgCtfDrop), 1, [][]byte{sound(SoundCtfDrop)}},
		{"return", gm(gamemsg.GameMsgCtfReturn), 1, [][]byte{sound(SoundCtfReturn)}},
		{"team all", gm(gamemsg.GameMsgTeamAll, 1), 1, [][]byte{chat("All players were moved to the blue team")}},
		{"victim", gm(gamemsg.GameMsgTeamBalanceVictim, 0), 1, [][]byte{pack(MsgSvBroadcast, "You were moved to the red team due to team balancing")}},
		{"grab own flag", gm(gamemsg.GameMsgCtfGrab, 0), 1, [][]byte{sound(SoundCtfGrabEn)}},
		{"grab enemy flag", gm(gamemsg.GameMsgCtfGrab, 0), 2, [][]byte{sound(SoundCtfGrabPl)}},
		{"capture", gm(gamemsg.GameMsgCtfCapture, 1, 1, 612), 2, [][]byte{chat("The blue flag was captured by 'bob' (12.24 seconds)"), sound(SoundCtfCapture)}},
		{"capture 10.1", gm(gamemsg.GameMsgCtfCapture, 0, 2, 505), 2, [][]byte{chat("The red flag was captured by 'eve' (10.10 seconds)"), sound(SoundCtfCapture)}},
		{"capture 60", gm(gamemsg.GameMsgCtfCapture, 0, 2, 3000), 2, [][]byte{chat("The red flag was captured by 'eve' (0.00 seconds)"), sound(SoundCtfCapture)}},
		{"capture slow", gm(gamemsg.GameMsgCtfCapture, 0, 2, 3001), 2, [][]byte{chat("The red flag was captured by 'eve'"), sound(SoundCtfCapture)}},
		{"capture 0.06", gm(gamemsg.GameMsgCtfCapture, 0, 2, 3), 2, [][]byte{chat("The red flag was captured by 'eve' (0.06 seconds)"), sound(SoundCtfCapture)}},
		{"capture 59.98", gm(gamemsg.GameMsgCtfCapture, 0, 2, 2999), 2, [][]byte{chat("The red flag was captured by 'eve' (59.98 seconds)"), sound(SoundCtfCapture)}},
		{"paused", gm(gamemsg.GameMsgGamePaused, 2), 1, [][]byte{chat("'eve' initiated a pause")}},
	} {
		checkMsgs(t, tc.name, encodeAll(t, tc.m, &Peer{ID: tc.peer}, infos), tc.want...)
	}
}

func TestEncodeServerRefuses(t *testing.T) {
	var o Out
	err := EncodeServer(&o, &gamemsg.SvChat{Mode: 9}, &Peer{}, &Infos{})
	if !errors.Is(err, gamemsg.ErrOutOfRange) || o.Len() != 0 {
		t.Fatalf("invalid message: %v, %d messages", err, o.Len())
	}
	// long texts are cut to fit a 0.6 chunk
	long := strings.Repeat("é", 3000)
	if err := EncodeServer(&o, &gamemsg.SvMotd{Message: long}, &Peer{}, &Infos{}); err != nil {
		t.Fatal(err)
	}
	if n := len(o.Msg(0)); n > netproto.MaxChunkSize6 || n < MaxText-1 {
		t.Fatalf("motd of %d bytes", n)
	}
	long = strings.Repeat("x", 2000)
	infos := &Infos{}
	infos.SetPlayer(1, Player{Name: long})
	if err := EncodeServer(&o, &gamemsg.SvVoteSet{ClientID: 1, Type: 2, Timeout: 5, Description: long, Reason: long}, &Peer{}, infos); err != nil {
		t.Fatal(err)
	}
	for i := range o.Len() {
		if len(o.Msg(i)) > netproto.MaxChunkSize6 {
			t.Fatalf("message %d: %d bytes", i, len(o.Msg(i)))
		}
	}
}
