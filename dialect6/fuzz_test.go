package dialect6

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
)

// FuzzDecodeClient decodes arbitrary bytes as every 0.6 client message id.
// Nothing panics, and whatever decodes is a valid 0.7 message with
// sanitized strings.
func FuzzDecodeClient(f *testing.F) {
	for _, b := range [][]byte{
		body(0, "hello"), body(1, "/w eve hi"), body(-1), body(7),
		body("nick", "clan", 276, "default", 1, 65408, 255),
		body("kick", "2", "afk"), body(16040), make([]byte, 20), {0x80}, nil,
	} {
		f.Add(b)
	}
	infos := gameInfos(0)
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Decoder
		var vanilla Peer
		vanilla.Reset(2, false)
		vanilla.ids.update(2, infos)
		for k := range 2 * (NumMessages + 2) {
			id := int32(k/2 - 1)
			var m gamemsg.Message
			var err error
			if k%2 == 0 {
				m, err = d.Decode(id, append([]byte(nil), b...), infos)
			} else {
				m, err = d.DecodePeer(&vanilla, id, append([]byte(nil), b...), infos)
			}
			if err != nil {
				if m != nil {
					t.Fatalf("%s: message and error", MsgName(id))
				}
				if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrOutOfRange) && !errors.Is(err, ErrUnknownMessage) {
					t.Fatalf("%s: unexpected error %v", MsgName(id), err)
				}
				continue
			}
			if m == nil {
				continue
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("%s: decoded into an invalid 0.7 message: %v", MsgName(id), err)
			}
			var strs []string
			switch m := m.(type) {
			case *gamemsg.ClSay:
				strs = []string{m.Message}
			case *gamemsg.ClStartInfo:
				strs = append([]string{m.Name, m.Clan}, m.Skin.PartNames[:]...)
			case *ChangeInfo:
				strs = append([]string{m.Name, m.Clan}, m.Skin.PartNames[:]...)
			case *gamemsg.ClCallVote:
				strs = []string{m.Type, m.Value, m.Reason}
			}
			for _, s := range strs {
				for i := 0; i < len(s); i++ {
					if s[i] < 32 {
						t.Fatalf("%s: control byte in %q", MsgName(id), s)
					}
				}
			}
		}
	})
}

// FuzzEncodeServer decodes arbitrary bytes as every 0.7 server message and
// translates the valid ones for a DDNet and a vanilla peer: every result
// fits a 0.6 chunk and passes the 0.6 receive checks (check6).
func FuzzEncodeServer(f *testing.F) {
	f.Add([]byte{0x01, 0x03, 0x00, 'h', 'i', 0})
	f.Add([]byte{0x09, 0x01, 0x40, 0x02})
	f.Add([]byte{0x01, 0x02, 0x19, 'R', 0, 'x', 0})
	f.Add([]byte{0x15, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		infos := gameInfos(gamemsg.GameFlagTeams)
		infos.SetPlayer(3, Player{Name: string(b)})
		var o Out
		for id := int32(1); id < gamemsg.NumMessages; id++ {
			var u netproto.Unpacker
			u.Reset(append([]byte(nil), b...))
			m, err := gamemsg.Decode(id, &u)
			if err != nil {
				continue
			}
			var vanilla Peer
			vanilla.Reset(3, false)
			vanilla.ids.update(3, infos)
			for _, p := range []*Peer{{ID: 2, DDNet: true}, {ID: 1}, {ID: 3, localKnown: true}, &vanilla} {
				if err := EncodeServer(&o, m, p, infos); err != nil {
					t.Fatalf("%s: %v", gamemsg.Name(id), err)
				}
				for i := range o.Len() {
					if err := check6(o.Msg(i), p.DDNet, p.ids.on); err != nil {
						t.Fatalf("%s → % x: %v", gamemsg.Name(id), o.Msg(i), err)
					}
				}
			}
		}
	})
}

// check6 applies the receive checks of a 0.6 client (net.md B5.4) to one
// server message: DDNet's chat teams when ddnet, vanilla's client id and
// vote count ranges (MAX_CLIENTS 16) when vanilla.
func check6(b []byte, ddnet, vanilla bool) error {
	maxC := int32(MaxClients)
	if vanilla {
		maxC = MaxClientsVanilla
	}
	if len(b) > netproto.MaxChunkSize6 {
		return fmt.Errorf("%d bytes", len(b))
	}
	var u netproto.Unpacker
	u.Reset(append([]byte(nil), b...))
	id, sys := u.GetMsgHeader()
	if sys {
		return errors.New("system flag")
	}
	var err error
	rng := func(name string, lo, hi int32) {
		v := u.GetInt()
		if err == nil && u.Err() == nil && (v < lo || v > hi) {
			err = fmt.Errorf("%s.%s = %d", MsgName(id), name, v)
		}
	}
	str := func() { u.GetStringBytes(netproto.Sanitize) }
	const anyInt = 1<<31 - 1
	switch id {
	case MsgSvMotd, MsgSvBroadcast, MsgSvVoteOptionAdd, MsgSvVoteOptionRemove:
		str()
	case MsgSvChat:
		if ddnet {
			rng("team", -2, 3)
		} else {
			rng("team", -1, 1)
		}
		rng("client_id", -1, maxC-1)
		str()
	case MsgSvKillMsg:
		rng("killer", 0, maxC-1)
		rng("victim", 0, maxC-1)
		rng("weapon", -3, 5)
		rng("mode_special", -anyInt-1, anyInt)
	case MsgSvSoundGlobal:
		rng("sound_id", 0, NumSounds-1)
	case MsgSvTuneParams:
		for range NumTuneParams {
			rng("param", -anyInt-1, anyInt)
		}
	case MsgSvReadyToEnter, MsgSvVoteClearOptions:
	case MsgSvWeaponPickup:
		rng("weapon", 0, 5)
	case MsgSvEmoticon:
		rng("client_id", 0, maxC-1)
		rng("emoticon", 0, 15)
	case MsgSvVoteOptionListAdd:
		rng("num_options", 1, MaxVoteOptionListAdd6)
		for range MaxVoteOptionListAdd6 {
			str()
		}
	case MsgSvVoteSet:
		rng("timeout", 0, gamemsg.MaxVoteTimeout)
		str()
		str()
	case MsgSvVoteStatus:
		for range 4 {
			rng("count", 0, maxC)
		}
	default:
		return fmt.Errorf("id %d is no 0.6 server message", id)
	}
	if u.Err() != nil {
		return u.Err()
	}
	if u.Remaining() != 0 {
		return fmt.Errorf("%d trailing bytes", u.Remaining())
	}
	return err
}

// FuzzTranslateSnap translates arbitrary 0.7 item sets (each item: type,
// id and size bytes, then size ints) with arbitrary player infos. Nothing
// panics, and the 0.6 snapshot keeps the 0.6 rules: static sizes (the
// builder checks them), one GameInfo, a ClientInfo for every PlayerInfo,
// and in-range fields.
func FuzzTranslateSnap(f *testing.F) {
	seed := func(items ...item7) []byte {
		var b []byte
		for _, it := range items {
			b = append(b, byte(it.typ), byte(it.id), byte(len(it.data)))
			for _, v := range it.data {
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			}
		}
		return b
	}
	f.Add(seed(item7{obj7GameData, 0, []int32{1, 8, 3}}, item7{obj7PlayerInfo, 1, []int32{2, 3, 4}},
		item7{obj7Character, 1, char7(31)}, item7{event7Damage, 0, []int32{1, 2, 1, 0, 9, 9, 1}}))
	f.Add(seed(item7{obj7SpectatorInfo, 2, []int32{1, 70, 0, 0}}, item7{obj7Pickup, 3, []int32{0, 0, 99}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var src snap.Builder
		for len(b) >= 3 {
			typ, id, size := uint16(b[0]%32), uint16(b[1]), int(b[2]%32)
			b = b[3:]
			d, err := src.NewItem(typ, id, size)
			if err != nil {
				continue
			}
			for i := range d {
				if len(b) < 4 {
					break
				}
				d[i] = int32(binary.LittleEndian.Uint32(b))
				b = b[4:]
			}
		}
		infos := gameInfos(0)
		infos.SetTeam(1, int32(src.NumItems())-5) // teams out of range too
		var dst snap.Builder
		dst.Sizes = snap.Sizes6
		var tr Translator
		var vanilla Peer
		vanilla.Reset(1, false)
		for round := range 2 {
			dst.Reset()
			var err error
			if round == 0 {
				err = tr.Snap(&dst, &src, 1, 1000, infos)
			} else {
				err = tr.SnapPeer(&dst, &src, &vanilla, 1000, infos)
			}
			if err != nil && !errors.Is(err, ErrBadItem) {
				t.Fatalf("error %v", err)
			}
			checkSnap6(t, &dst, round == 1)
		}
	})
}

// checkSnap6 checks the 0.6 rules FuzzTranslateSnap asserts; vanilla
// snapshots also keep every client id below 16.
func checkSnap6(t *testing.T, dst *snap.Builder, vanilla bool) {
	maxID := MaxClients
	if vanilla {
		maxID = MaxClientsVanilla
	}
	gameInfo := 0
	for i := range dst.NumItems() {
		it := dst.Item(i)
		d := it.Data
		switch it.Type {
		case ObjClientInfo:
			if int(it.ID) >= maxID {
				t.Fatalf("ClientInfo %d", it.ID)
			}
		case ObjGameInfo:
			gameInfo++
			if d[0]&^3 != 0 || d[1]&^7 != 0 || d[2] < 0 || d[4] < 0 || d[5] < 0 || d[6] < 0 || d[7] < 0 {
				t.Fatalf("GameInfo %v", d)
			}
		case ObjPlayerInfo:
			if find(dst, ObjClientInfo, it.ID) == nil || d[0] < 0 || d[0] > 1 || d[1] != int32(it.ID) || d[2] < -1 || d[2] > 1 || int(it.ID) >= maxID {
				t.Fatalf("PlayerInfo %d %v", it.ID, d)
			}
		case ObjCharacter:
			if d[15]&^15 != 0 || d[16] < 0 || d[16] > 10 || d[17] < 0 || d[17] > 10 || d[18] < 0 || d[18] > 10 ||
				d[19] < 0 || d[19] > 5 || d[20] < 0 || d[20] > 6 || d[21] < 0 || int(it.ID) >= maxID || d[8] >= int32(maxID) {
				t.Fatalf("Character %v", d)
			}
		case ObjSpectatorInfo:
			if d[0] < -1 || d[0] >= int32(maxID) || int(it.ID) >= maxID {
				t.Fatalf("SpectatorInfo %v", d)
			}
		case ObjPickup:
			if d[2] < 0 || d[2] > 3 || d[3] < 0 || d[3] > 5 {
				t.Fatalf("Pickup %v", d)
			}
		case EventSoundWorld:
			if d[2] < 0 || d[2] >= NumSounds {
				t.Fatalf("SoundWorld %v", d)
			}
		case EventDeath:
			if d[2] < 0 || d[2] >= int32(maxID) {
				t.Fatalf("Death %v", d)
			}
		}
	}
	if gameInfo != 1 {
		t.Fatalf("%d GameInfo items", gameInfo)
	}
}
