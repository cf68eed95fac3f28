package dialect6

import (
	"errors"
	"strconv"
	"strings"

	"twserver/gamemsg"
	"twserver/netproto"
)

// Errors of Decoder.Decode.
var (
	// ErrUnknownMessage: an id that is no 0.6 or DDNet client game message.
	ErrUnknownMessage = errors.New("dialect6: unknown client message id")
	// ErrTruncated: the body ends before every field was read, or a string
	// misses its NUL.
	ErrTruncated = errors.New("dialect6: truncated client message")
	// ErrOutOfRange: a field is outside the range the 0.6 reference accepts.
	ErrOutOfRange = errors.New("dialect6: client message field out of range")
)

// msgEx is the id of DDNet's extended game messages (a UUID follows the
// header), uuidSize the size of that UUID.
const (
	msgEx    = 0
	uuidSize = 16
)

// ChangeInfo is Cl_ChangeInfo: a 0.6 player's new name, clan, country and
// skin while in game. 0.7 has no such message; as a gamemsg.Message it is
// the closest 0.7 one, Cl_SkinChange (its ID, Validate, Encode and Decode
// are those of Skin), so a handler that does not know ChangeInfo may treat
// it as a skin change or ignore it.
type ChangeInfo struct {
	Name    string
	Clan    string
	Country int32
	gamemsg.ClSkinChange
	// Skin6 is the skin as the 0.6 client sent it.
	Skin6 Skin6
}

// Decoder decodes the game messages of a 0.6 client into the 0.7 gamemsg
// values the server handles. It reuses its message values: a result stays
// valid until the next Decode. The zero value is ready; not safe for
// concurrent use.
type Decoder struct {
	// Skin6 is the 0.6 skin of the last Cl_StartInfo or Cl_ChangeInfo.
	Skin6 Skin6

	up         netproto.Unpacker
	say        gamemsg.ClSay
	setTeam    gamemsg.ClSetTeam
	spec       gamemsg.ClSetSpectatorMode
	startInfo  gamemsg.ClStartInfo
	changeInfo ChangeInfo
	kill       gamemsg.ClKill
	emoticon   gamemsg.ClEmoticon
	vote       gamemsg.ClVote
	callVote   gamemsg.ClCallVote
}

// Decode decodes the body (after the header varint) of the 0.6 client game
// message id:
//
//   - Cl_Say → ClSay (team 0/1 → CHAT_ALL/CHAT_TEAM); a DDNet-style
//     "/w NAME TEXT" or "/whisper NAME TEXT" naming a player of infos
//     becomes a CHAT_WHISPER to that player (infos may be nil).
//   - Cl_SetTeam → ClSetTeam; Cl_SetSpectatorMode → ClSetSpectatorMode
//     (-1 free view, else SPEC_PLAYER).
//   - Cl_StartInfo → ClStartInfo, Cl_ChangeInfo → *ChangeInfo; the 0.6 skin
//     is mapped onto a 0.7 six-part skin (Skin7From6) and kept in d.Skin6.
//   - Cl_Kill, Cl_Emoticon, Cl_Vote → the same 0.7 messages; Cl_CallVote →
//     ClCallVote (never forced).
//   - DDNet's legacy messages 26-31 and its extended messages (id 0, a
//     16-byte UUID and fields: show-others, show-distance, ...) → (nil,
//     nil): valid, nothing to do.
//
// Fields are range-checked as the 0.6 reference does (SecureUnpackMsg) and
// strings sanitized like 0.7's; a malformed body is an error, never a panic.
//
// Decode takes client ids as game ids, which suits DDNet clients; use
// DecodePeer for a client that may be vanilla.
func (d *Decoder) Decode(id int32, body []byte, infos *Infos) (gamemsg.Message, error) {
	return d.decode(id, body, infos, &identity)
}

// DecodePeer is Decode for a message of the 0.6 client p: client ids in
// Cl_SetSpectatorMode and in kick/spectate votes are the ids p knows
// (vanilla clients, idmap.go) and are turned into game ids; an id p has for
// nobody is out of range (spectating) or -1 (votes).
func (d *Decoder) DecodePeer(p *Peer, id int32, body []byte, infos *Infos) (gamemsg.Message, error) {
	return d.decode(id, body, infos, &p.ids)
}

func (d *Decoder) decode(id int32, body []byte, infos *Infos, ids *idMap) (gamemsg.Message, error) {
	u := &d.up
	u.Reset(body)
	switch id {
	case MsgClSay:
		team := u.GetInt()
		msg := u.GetStringBytes(netproto.SanitizeCC)
		if err := d.check(); err != nil {
			return nil, err
		}
		if team < 0 || team > 1 {
			return nil, ErrOutOfRange
		}
		d.say = gamemsg.ClSay{Mode: gamemsg.ChatAll, Target: -1}
		if team == 1 {
			d.say.Mode = gamemsg.ChatTeam
		}
		if target, text, ok := whisper(msg, infos); ok {
			d.say.Mode, d.say.Target, d.say.Message = gamemsg.ChatWhisper, int32(target), text
			return &d.say, nil
		}
		d.say.Message = string(msg)
		return &d.say, nil
	case MsgClSetTeam:
		t := u.GetInt()
		if err := d.check(); err != nil {
			return nil, err
		}
		if t < gamemsg.TeamSpectators || t > gamemsg.TeamBlue {
			return nil, ErrOutOfRange
		}
		d.setTeam.Team = t
		return &d.setTeam, nil
	case MsgClSetSpectatorMode:
		id := u.GetInt()
		if err := d.check(); err != nil {
			return nil, err
		}
		if id < SpecFreeview || id >= MaxClients {
			return nil, ErrOutOfRange
		}
		if id != SpecFreeview {
			var ok bool
			if id, ok = ids.id7(id); !ok {
				return nil, ErrOutOfRange
			}
		}
		d.spec = gamemsg.ClSetSpectatorMode{SpecMode: 1, SpectatorID: id} // SPEC_PLAYER
		if id == SpecFreeview {
			d.spec.SpecMode = 0 // SPEC_FREEVIEW
		}
		return &d.spec, nil
	case MsgClStartInfo, MsgClChangeInfo:
		name := d.strict()
		clan := d.strict()
		country := u.GetInt()
		skin := d.strict()
		custom := u.GetInt()
		body := u.GetInt()
		feet := u.GetInt()
		if err := d.check(); err != nil {
			return nil, err
		}
		if custom < 0 || custom > 1 {
			return nil, ErrOutOfRange
		}
		d.Skin6 = Skin6{Name: skin, UseCustomColor: custom == 1, ColorBody: body, ColorFeet: feet}
		k := Skin7From6(d.Skin6)
		if id == MsgClChangeInfo {
			d.changeInfo = ChangeInfo{Name: name, Clan: clan, Country: country,
				ClSkinChange: gamemsg.ClSkinChange{Skin: k}, Skin6: d.Skin6}
			return &d.changeInfo, nil
		}
		d.startInfo = gamemsg.ClStartInfo{Name: name, Clan: clan, Country: country, Skin: k}
		return &d.startInfo, nil
	case MsgClKill:
		if err := d.check(); err != nil {
			return nil, err
		}
		return &d.kill, nil
	case MsgClEmoticon:
		e := u.GetInt()
		if err := d.check(); err != nil {
			return nil, err
		}
		if e < 0 || e >= gamemsg.NumEmoticons {
			return nil, ErrOutOfRange
		}
		d.emoticon.Emoticon = e
		return &d.emoticon, nil
	case MsgClVote:
		v := u.GetInt()
		if err := d.check(); err != nil {
			return nil, err
		}
		if v < -1 || v > 1 {
			return nil, ErrOutOfRange
		}
		d.vote.Vote = v
		return &d.vote, nil
	case MsgClCallVote:
		typ := d.strict()
		value := d.strict()
		reason := d.strict()
		if err := d.check(); err != nil {
			return nil, err
		}
		if ids.on && (strings.EqualFold(typ, "kick") || strings.EqualFold(typ, "spectate")) {
			if v, err := strconv.Atoi(value); err == nil {
				game, ok := ids.id7(int32(v))
				if !ok {
					game = -1
				}
				value = strconv.Itoa(int(game))
			}
		}
		d.callVote = gamemsg.ClCallVote{Type: typ, Value: value, Reason: reason}
		return &d.callVote, nil
	case msgEx:
		if len(body) < uuidSize {
			return nil, ErrTruncated
		}
		return nil, nil
	case MsgClIsDDNetLegacy, MsgSvDDRaceTimeLegacy, MsgSvRecordLegacy, MsgUnused,
		MsgSvTeamsStateLegacy, MsgClShowOthersLegacy:
		return nil, nil
	}
	return nil, ErrUnknownMessage
}

// strict reads a StringStrict field (control bytes to spaces, leading
// whitespace skipped).
func (d *Decoder) strict() string {
	return string(d.up.GetStringBytes(netproto.SanitizeCC | netproto.SkipStartWhitespaces))
}

// check turns an unpacker error into ErrTruncated.
func (d *Decoder) check() error {
	if d.up.Err() != nil {
		return ErrTruncated
	}
	return nil
}

// whisper recognizes DDNet's whisper command "/w NAME TEXT" (or
// "/whisper"): NAME is the longest prefix of the rest that names an active
// player, followed by a space.
func whisper(msg []byte, infos *Infos) (target int, text string, ok bool) {
	if infos == nil {
		return 0, "", false
	}
	var rest []byte
	switch {
	case hasPrefix(msg, "/w "):
		rest = msg[3:]
	case hasPrefix(msg, "/whisper "):
		rest = msg[9:]
	default:
		return 0, "", false
	}
	best, bestLen := -1, 0
	for cid := range MaxClients {
		e := &infos.players[cid]
		n := len(e.p.Name)
		if !e.active || n == 0 || n <= bestLen || len(rest) <= n+1 || rest[n] != ' ' {
			continue
		}
		if string(rest[:n]) == e.p.Name {
			best, bestLen = cid, n
		}
	}
	if best < 0 {
		return 0, "", false
	}
	return best, string(rest[bestLen+1:]), true
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }
