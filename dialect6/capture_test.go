package dialect6

import (
	"bytes"
	"net/netip"
	"os"
	"slices"
	"testing"

	"twserver/gamemsg"
	"twserver/internal/pcap"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
)

// capturedMsg is one message of a captured 0.6 session.
type capturedMsg struct {
	fromServer bool
	id         int32
	system     bool
	body       []byte // after the header varint
}

// sessionMessages returns, in order, the messages of the real DDNet 16.4
// client ↔ DDNet-Server 16.4 session in testdata/sessionddnet.pcap (0.6
// with DDNet's token extension; server port 8304).
func sessionMessages(t testing.TB) []capturedMsg {
	t.Helper()
	const serverPort = 8304
	b, err := os.ReadFile("testdata/sessionddnet.pcap")
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(b)
	if err != nil {
		t.Fatal(err)
	}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	var out []capturedMsg
	for _, d := range pkts {
		if d.Dst.Addr() != loopback || netproto.IsConnless(d.Payload) {
			continue
		}
		h, p, err := netproto.ParsePacket6(d.Payload)
		if err != nil {
			t.Fatalf("packet: %v", err)
		}
		if h.Flags&netproto.Flag6Control != 0 {
			continue
		}
		if h.Flags&netproto.Flag6Token != 0 && len(p) >= 4 { // DDNet security token at the end
			p = p[:len(p)-4]
		}
		if h.Flags&netproto.Flag6Compression != 0 {
			buf := make([]byte, 0, netproto.MaxPayload)
			if p, err = netproto.HuffmanDecompress(buf, p, netproto.MaxPayload); err != nil {
				t.Fatalf("payload: %v", err)
			}
		}
		var cr netproto.ChunkReader
		cr.Reset6(p, int(h.NumChunks))
		for {
			c, ok := cr.Next()
			if !ok {
				break
			}
			var u netproto.Unpacker
			u.Reset(c.Data)
			id, sys := u.GetMsgHeader()
			if u.Err() != nil {
				t.Fatalf("header: %v", u.Err())
			}
			out = append(out, capturedMsg{d.Src.Port() == serverPort, id, sys, append([]byte(nil), u.Rest()...)})
		}
		if err := cr.Err(); err != nil {
			t.Fatalf("chunks: %v", err)
		}
	}
	return out
}

// The real DDNet client's game messages decode: its start info (skin as
// sent, mapped to the 0.7 default preset), chat lines, and the DDNet
// messages that need no answer.
func TestCaptureClientMessages(t *testing.T) {
	var d Decoder
	var sawStart, sawSay bool
	for _, m := range sessionMessages(t) {
		if m.fromServer || m.system {
			continue
		}
		got, err := d.Decode(m.id, m.body, nil)
		if err != nil {
			t.Fatalf("%s: %v", MsgName(m.id), err)
		}
		switch m := got.(type) {
		case *gamemsg.ClStartInfo:
			sawStart = true
			if m.Name != "rpddnetbot" || m.Clan != "" || m.Country != -1 || m.Skin != Skin7From6(Skin6{Name: "default"}) {
				t.Errorf("start info %+v", m)
			}
			if d.Skin6 != (Skin6{Name: "default", ColorBody: 65408, ColorFeet: 65408}) {
				t.Errorf("skin %+v", d.Skin6)
			}
		case *gamemsg.ClSay:
			if m.Message == "hello from real ddnet client" && m.Mode == gamemsg.ChatAll {
				sawSay = true
			}
		}
	}
	if !sawStart || !sawSay {
		t.Fatalf("start info %v, chat %v", sawStart, sawSay)
	}
}

// The real server's messages are what EncodeServer makes of the 0.7
// messages with the same meaning, byte for byte.
func TestCaptureServerMessages(t *testing.T) {
	infos := &Infos{}
	infos.SetPlayer(0, Player{Name: "rpddnetbot"})
	peer := &Peer{ID: 0, DDNet: true}
	var u netproto.Unpacker
	checked := map[string]int{}
	for _, m := range sessionMessages(t) {
		if !m.fromServer || m.system {
			continue
		}
		var m7 gamemsg.Message
		switch m.id {
		case MsgSvMotd:
			u.Reset(append([]byte(nil), m.body...))
			m7 = &gamemsg.SvMotd{Message: u.GetString()}
		case MsgSvReadyToEnter:
			m7 = &gamemsg.SvReadyToEnter{}
		case MsgSvVoteClearOptions:
			m7 = &gamemsg.SvVoteClearOptions{}
		case MsgSvWeaponPickup:
			m7 = &gamemsg.SvWeaponPickup{Weapon: 2}
		case MsgSvVoteOptionListAdd:
			u.Reset(append([]byte(nil), m.body...))
			l := &gamemsg.SvVoteOptionListAdd{Num: u.GetInt()}
			for i := range l.Num {
				l.Descriptions[i] = u.GetString()
			}
			m7 = l
		case MsgSvChat:
			u.Reset(append([]byte(nil), m.body...))
			team, cid, text := u.GetInt(), u.GetInt(), u.GetString()
			switch {
			case team != 0 || cid > 0:
				continue // a DDNet-only line
			case text == "'rpddnetbot' entered and joined the game":
				m7 = &gamemsg.SvClientInfo{ClientID: 0, Local: true, Name: "rpddnetbot"}
			default:
				m7 = &gamemsg.SvChat{Mode: gamemsg.ChatAll, ClientID: cid, TargetID: -1, Message: text}
			}
		case MsgSvTuneParams:
			// DDNet sends its 45 parameters; the first 33 are 0.6's, with
			// laser_damage (5) at index 30, which 0.7 lacks.
			u.Reset(m.body)
			var ints []int32
			for u.Remaining() > 0 && u.Err() == nil {
				ints = append(ints, u.GetInt())
			}
			if len(ints) < NumTuneParams || ints[30] != LaserDamageTune {
				t.Fatalf("tuning %v", ints)
			}
			var tp gamemsg.SvTuneParams
			copy(tp.Params[:], append(slices.Clone(ints[:30]), ints[31:33]...))
			var o Out
			if err := EncodeServer(&o, &tp, peer, infos); err != nil {
				t.Fatal(err)
			}
			if mine := o.Msg(0)[1:]; !bytes.HasPrefix(m.body, mine) || len(mine) == 0 {
				t.Errorf("tuning\n got % x\nwant % x...", mine, m.body)
			}
			checked[MsgName(m.id)]++
			continue
		default:
			continue
		}
		var o Out
		if err := EncodeServer(&o, m7, peer, infos); err != nil {
			t.Fatal(err)
		}
		want := append(netproto.AppendInt(nil, m.id<<1), m.body...)
		if o.Len() != 1 || !bytes.Equal(o.Msg(0), want) {
			t.Errorf("%s: %d messages\n got % x\nwant % x", MsgName(m.id), o.Len(), o.Msg(0), want)
		}
		checked[MsgName(m.id)]++
	}
	for _, name := range []string{"Sv_Motd", "Sv_Chat", "Sv_TuneParams", "Sv_ReadyToEnter", "Sv_VoteClearOptions", "Sv_VoteOptionListAdd", "Sv_WeaponPickup"} {
		if checked[name] == 0 {
			t.Errorf("no %s checked", name)
		}
	}
	t.Logf("checked %v", checked)
}

// The real server's ClientInfo, PlayerInfo and Character items are what
// Translator.Snap makes of the same player: the start info the client sent
// (through Decoder and Infos) and 0.7 items with the same score, latency
// and character state.
func TestCaptureSnapshotItems(t *testing.T) {
	msgs := sessionMessages(t)
	var d Decoder
	infos := &Infos{}
	for _, m := range msgs {
		if !m.fromServer && !m.system && m.id == MsgClStartInfo {
			got, err := d.Decode(m.id, m.body, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := got.(*gamemsg.ClStartInfo)
			infos.SetPlayer(0, Player{Name: st.Name, Clan: st.Clan, Country: st.Country, Skin: st.Skin, Skin6: d.Skin6, HasSkin6: true})
		}
	}
	recv := snap.NewReceiver(snap.MsgIDs6, snap.Sizes6)
	var tr Translator
	var b6 snap.Builder
	b6.Sizes = snap.Sizes6
	compared := 0
	for _, m := range msgs {
		if !m.fromServer || !m.system {
			continue
		}
		if _, done, err := recv.Handle(m.id, m.body); err != nil || !done {
			continue
		}
		s, tick := recv.Latest()
		pi := s.Find(snap.Key(ObjPlayerInfo, 0))
		ci := s.Find(snap.Key(ObjClientInfo, 0))
		ch := s.Find(snap.Key(ObjCharacter, 0))
		if pi < 0 || ci < 0 || ch < 0 {
			continue
		}
		p6, c6, ch6 := s.ItemData(pi), s.ItemData(ci), s.ItemData(ch)
		var flags7 int32
		if ch6[15]&PlayerFlagChatting != 0 {
			flags7 |= playerFlag7Chatting
		}
		if ch6[15]&PlayerFlagScoreboard != 0 {
			flags7 |= playerFlag7Scoreboard
		}
		c7 := append(append(slices.Clone(ch6[:15]), ch6[16:]...), 0)
		b6.Reset()
		if err := tr.Snap(&b6, build7(t,
			item7{obj7PlayerInfo, 0, []int32{flags7, p6[3], p6[4]}},
			item7{obj7Character, 0, c7},
		), 0, tick, infos); err != nil {
			t.Fatal(err)
		}
		if got := find(&b6, ObjClientInfo, 0); !slices.Equal(got, c6) {
			t.Fatalf("tick %d ClientInfo\n got %#x\nwant %#x", tick, got, c6)
		}
		if got := find(&b6, ObjPlayerInfo, 0); !slices.Equal(got, p6) {
			t.Fatalf("tick %d PlayerInfo %v, want %v", tick, got, p6)
		}
		got := find(&b6, ObjCharacter, 0)
		// the real flags come from the client's input (PLAYING, IN_MENU,
		// AIM...); 0.7 carries chatting and the scoreboard
		mask := int32(PlayerFlagChatting | PlayerFlagScoreboard)
		if !slices.Equal(got[:15], ch6[:15]) || !slices.Equal(got[16:], ch6[16:]) || got[15]&mask != ch6[15]&mask {
			t.Fatalf("tick %d Character\n got %v\nwant %v", tick, got, ch6)
		}
		compared++
	}
	if compared < 100 {
		t.Fatalf("compared %d snapshots", compared)
	}
	t.Logf("compared %d snapshots", compared)
}

// The real DDNet client's inputs carry 0.6 player flags (PLAYING, AIM...):
// read as 0.7 they would set ADMIN and worse; after InputTo7 every one is a
// valid 0.7 input for the world, with the same movement.
func TestCaptureInputs(t *testing.T) {
	n, misread := 0, 0
	for _, m := range sessionMessages(t) {
		if m.fromServer || !m.system || m.id != netproto.Netmsg6Input {
			continue
		}
		var in netproto.Msg6Input
		var u netproto.Unpacker
		u.Reset(m.body)
		if err := in.Unpack(&u); err != nil {
			t.Fatal(err)
		}
		data := in.Inputs[:in.NumInputs]
		if data[inputPlayerFlags]&^(playerFlag7Chatting|playerFlag7Scoreboard) != 0 {
			misread++
		}
		before := slices.Clone(data)
		InputTo7(data)
		got, err := world.DecodeInput(data)
		if err != nil {
			t.Fatalf("input %v: %v", before, err)
		}
		if got.Direction != before[0] || got.TargetX != before[1] || got.Fire != before[4] || got.WantedWeapon != before[7] {
			t.Fatalf("input %v → %+v", before, got)
		}
		n++
	}
	if n < 100 || misread == 0 {
		t.Fatalf("%d inputs, %d with 0.6-only flags", n, misread)
	}
	t.Logf("%d inputs, %d with 0.6-only flags", n, misread)
}
