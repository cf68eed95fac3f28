package dialect6

import (
	"errors"
	"strconv"
	"strings"

	"twserver/gamemsg"
	"twserver/netproto"
)

// MaxOut is the most 0.6 messages one 0.7 message becomes (a chat line plus
// a vote or sound message; 21 vote options in two lists of at most 15).
const MaxOut = 3

// MaxText bounds the free text of Sv_Motd, Sv_Broadcast and Sv_Chat in
// bytes (the 0.6 reference's 900-byte motd), so every message stays below
// the 0.6 chunk limit (netproto.MaxChunkSize6).
const MaxText = 900

// MaxVoteText bounds vote descriptions (VOTE_DESC_LENGTH 64 incl. NUL) and
// MaxVoteReason vote reasons (VOTE_REASON_LENGTH 16 incl. NUL), in bytes.
const (
	MaxVoteText   = 63
	MaxVoteReason = 15
)

// ErrTooLarge: a translated message would exceed the 0.6 chunk limit.
var ErrTooLarge = errors.New("dialect6: message too large for a 0.6 chunk")

// Peer is the translation state of one 0.6 client, owned by the server's
// per-connection state: what it was told so far, where 0.7 clients keep the
// same state themselves and 0.6 clients need finished chat lines.
type Peer struct {
	// ID is the client's id (local in PlayerInfo, whisper direction).
	ID int
	// DDNet marks a DDNet client: whispers go out as DDNet's chat teams 2
	// (sent) and 3 (received). Vanilla 0.6 clients accept only 0 and 1 and
	// get whispers as team-0 lines with a "(whisper)" prefix.
	DDNet bool

	localKnown bool  // its own Sv_ClientInfo (local=1) was seen: later ones are joins
	teamLock   bool  // team lock of the last Sv_ServerSettings it was told
	ids        idMap // vanilla clients: game ids → ids 0..15 (idmap.go)
}

// Reset starts the state of a new connection of client id. A vanilla peer
// (ddnet false) gets a client id map onto ids 0..15 (see idmap.go); a Peer
// that was never Reset passes every id through unchanged.
func (p *Peer) Reset(id int, ddnet bool) {
	*p = Peer{ID: id, DDNet: ddnet}
	p.ids.reset(!ddnet, id)
}

// Out holds the 0.6 messages one translation produced: each a complete game
// message (header varint and fields), to be sent vital like the 0.7 message
// it replaces. The zero value is ready; an Out is reused across calls.
type Out struct {
	n    int
	pk   [MaxOut]netproto.Packer
	line []byte // scratch for chat lines, capacity lineCap
}

// lineCap is the capacity of the chat line scratch (names, descriptions and
// reasons are bounded, and lines are cut at MaxText anyway).
const lineCap = 1024

// Len returns the number of messages.
func (o *Out) Len() int { return o.n }

// Msg returns message i (0 <= i < Len); it aliases o until the next use.
func (o *Out) Msg(i int) []byte { return o.pk[i].Bytes() }

// Reset empties o.
func (o *Out) Reset() { o.n = 0 }

// start begins the next message with the 0.6 id.
func (o *Out) start(id int32) *netproto.Packer {
	p := &o.pk[o.n]
	o.n++
	p.Reset()
	p.AddMsgHeader(id, false)
	return p
}

// EncodeServer translates the 0.7 server message m, addressed to the 0.6
// client p, into o (emptied first): zero, one or more 0.6 messages.
//
//   - same meaning, 0.6 layout and id: Sv_Motd, Sv_Broadcast, Sv_Chat (team
//     chat as team 1; whispers as described at Peer.DDNet), Sv_KillMsg (no
//     killer → the victim), Sv_TuneParams (33 values, laser_damage inserted),
//     Sv_ReadyToEnter, Sv_WeaponPickup, Sv_Emoticon, the vote option
//     messages (option lists in 0.6's fixed 15-slot form), Sv_VoteSet
//     (description "Kick 'name'" / "move 'name' to spectators" as 0.6 shows
//     it), Sv_VoteStatus.
//   - as the server chat lines, broadcasts and sounds a 0.6 server sends,
//     where a 0.7 client composes them itself: a vote call or its end, team
//     changes (Sv_Team), joins (Sv_ClientInfo: the peer's own one and
//     later ones, not those of players already there),
//     leaves (Sv_ClientDrop), team lock changes (Sv_ServerSettings), and
//     every Sv_GameMsg (texts, or Sv_SoundGlobal for flag drop, return, grab
//     and capture).
//   - nothing: Sv_GameInfo, Sv_SkinChange (their content reaches 0.6 clients
//     in snapshots, through Infos.Observe), silent joins/leaves/team changes,
//     demo-only and race messages.
//
// It fails with the message's range error when m is invalid, and with
// ErrTooLarge when a result would not fit a 0.6 chunk.
func EncodeServer(o *Out, m gamemsg.Message, p *Peer, infos *Infos) error {
	o.Reset()
	if err := m.Validate(); err != nil {
		return err
	}
	if o.line == nil {
		o.line = make([]byte, 0, lineCap)
	}
	switch m := m.(type) {
	case *gamemsg.SvMotd:
		addText(o.start(MsgSvMotd), m.Message, MaxText)
	case *gamemsg.SvBroadcast:
		addText(o.start(MsgSvBroadcast), m.Message, MaxText)
	case *gamemsg.SvChat:
		encodeChat(o, m, p, infos)
	case *gamemsg.SvKillMsg:
		killer := m.Killer
		if killer < 0 {
			killer = m.Victim
		}
		killer, ok1 := p.ids.id6(killer)
		victim, ok2 := p.ids.id6(m.Victim)
		if !ok1 || !ok2 {
			break // a player the peer does not know
		}
		w := o.start(MsgSvKillMsg)
		w.AddInt(killer)
		w.AddInt(victim)
		w.AddInt(m.Weapon)
		w.AddInt(m.ModeSpecial)
	case *gamemsg.SvTuneParams:
		w := o.start(MsgSvTuneParams)
		for i, v := range m.Params {
			if i == 30 { // laser_damage sits between laser_bounce_cost and player_collision
				w.AddInt(LaserDamageTune)
			}
			w.AddInt(v)
		}
	case *gamemsg.SvReadyToEnter:
		o.start(MsgSvReadyToEnter)
	case *gamemsg.SvWeaponPickup:
		o.start(MsgSvWeaponPickup).AddInt(m.Weapon)
	case *gamemsg.SvEmoticon:
		cid, ok := p.ids.id6(m.ClientID)
		if !ok {
			break
		}
		w := o.start(MsgSvEmoticon)
		w.AddInt(cid)
		w.AddInt(m.Emoticon)
	case *gamemsg.SvVoteClearOptions:
		o.start(MsgSvVoteClearOptions)
	case *gamemsg.SvVoteOptionListAdd:
		for rest := m.Descriptions[:m.Num]; len(rest) > 0; {
			k := min(len(rest), MaxVoteOptionListAdd6)
			w := o.start(MsgSvVoteOptionListAdd)
			w.AddInt(int32(k))
			for i := range MaxVoteOptionListAdd6 {
				if i < k {
					addText(w, rest[i], MaxVoteText)
				} else {
					w.AddString("")
				}
			}
			rest = rest[k:]
		}
	case *gamemsg.SvVoteOptionAdd:
		addText(o.start(MsgSvVoteOptionAdd), m.Description, MaxVoteText)
	case *gamemsg.SvVoteOptionRemove:
		addText(o.start(MsgSvVoteOptionRemove), m.Description, MaxVoteText)
	case *gamemsg.SvVoteSet:
		encodeVoteSet(o, m, infos)
	case *gamemsg.SvVoteStatus:
		yes, no, pass, total := m.Yes, m.No, m.Pass, m.Total
		// vanilla clients accept counts up to 16: scale larger ones,
		// keeping the proportions
		if n := max(total, yes+no+pass); p.ids.on && n > MaxClientsVanilla {
			yes, no = yes*MaxClientsVanilla/n, no*MaxClientsVanilla/n
			pass, total = pass*MaxClientsVanilla/n, total*MaxClientsVanilla/n
		}
		w := o.start(MsgSvVoteStatus)
		w.AddInt(yes)
		w.AddInt(no)
		w.AddInt(pass)
		w.AddInt(total)
	case *gamemsg.SvServerSettings:
		if m.TeamLock != p.teamLock {
			p.teamLock = m.TeamLock
			if m.TeamLock {
				o.serverChat("Teams were locked")
			} else {
				o.serverChat("Teams were unlocked")
			}
		}
	case *gamemsg.SvTeam:
		if !m.Silent && m.ClientID >= 0 {
			o.line = append(append(quoted(o.line[:0], infos.Name(int(m.ClientID))), " joined the "...), teamName(m.Team, infos)...)
			o.serverChatLine()
		}
	case *gamemsg.SvClientInfo:
		// A 0.6 server announces every entering player to everyone, the
		// player itself included; a 0.7 client composes the line for others
		// only once it knows its own id. Both wanted: the peer's own info
		// (local) and later ones, never the infos of those already there.
		if m.Local {
			p.localKnown = true
		}
		if p.localKnown && !m.Silent {
			o.line = append(append(quoted(o.line[:0], m.Name), " entered and joined the "...), teamName(m.Team, infos)...)
			o.serverChatLine()
		}
	case *gamemsg.SvClientDrop:
		if !m.Silent && int(m.ClientID) != p.ID {
			o.line = append(quoted(o.line[:0], infos.Name(int(m.ClientID))), " has left the game"...)
			if m.Reason != "" {
				o.line = append(append(append(o.line, " ("...), m.Reason...), ')')
			}
			o.serverChatLine()
		}
	case *gamemsg.SvGameMsg:
		encodeGameMsg(o, m, p, infos)
	}
	for i := range o.n {
		if o.pk[i].Err() != nil || o.pk[i].Len() > netproto.MaxChunkSize6 {
			o.n = 0
			return ErrTooLarge
		}
	}
	return nil
}

// encodeChat writes a 0.6 Sv_Chat.
func encodeChat(o *Out, m *gamemsg.SvChat, p *Peer, infos *Infos) {
	team, cid := int32(ChatAll), m.ClientID
	whisper := m.Mode == gamemsg.ChatWhisper
	received := int(m.TargetID) == p.ID
	switch {
	case m.Mode == gamemsg.ChatTeam:
		team = ChatTeam
	case whisper && p.DDNet:
		team, cid = ChatWhisperSent, m.TargetID
		if received {
			team, cid = ChatWhisperReceived, m.ClientID
		}
	}
	o.line = o.line[:0]
	if cid >= 0 {
		if id, ok := p.ids.id6(cid); ok {
			cid = id
		} else { // a player the peer has no id for: a server line with the name
			o.line = append(append(o.line, infos.Name(int(cid))...), ": "...)
			cid = -1
		}
	}
	if whisper && !p.DDNet {
		if received {
			o.line = append(o.line, "(whisper) "...)
		} else {
			o.line = append(quoted(append(o.line, "(whisper to "...), infos.Name(int(m.TargetID))), ") "...)
		}
	}
	o.line = append(o.line, m.Message...)
	w := o.start(MsgSvChat)
	w.AddInt(team)
	w.AddInt(cid)
	addLine(w, o.line)
}

// encodeVoteSet writes a 0.6 Sv_VoteSet and the chat line a 0.6 server
// sends with it (the texts the 0.7 client shows for the same message).
func encodeVoteSet(o *Out, m *gamemsg.SvVoteSet, infos *Infos) {
	reason := gamemsg.TruncUTF8(m.Reason, MaxVoteReason)
	if m.Timeout > 0 {
		desc := m.Description
		if m.ClientID >= 0 {
			o.line = append(quoted(o.line[:0], infos.Name(int(m.ClientID))), ' ')
			switch m.Type {
			case gamemsg.VoteStartOp:
				o.line = append(quoted(append(o.line, "called vote to change server option "...), m.Description), ' ')
			case gamemsg.VoteStartKick:
				o.line = append(quoted(append(o.line, "called for vote to kick "...), m.Description), ' ')
			case gamemsg.VoteStartSpec:
				o.line = append(quoted(append(o.line, "called for vote to move "...), m.Description), " to spectators "...)
			}
			o.line = append(append(append(o.line, '('), reason...), ')')
			if m.Type >= gamemsg.VoteStartOp && m.Type <= gamemsg.VoteStartSpec {
				o.serverChatLine()
			}
		}
		// 0.6 clients show the description as is: give kick and spectate
		// votes the wording of a 0.6 server.
		o.line = o.line[:0]
		switch m.Type {
		case gamemsg.VoteStartKick:
			o.line = quoted(append(o.line, "Kick "...), m.Description)
		case gamemsg.VoteStartSpec:
			o.line = append(quoted(append(o.line, "move "...), m.Description), " to spectators"...)
		default:
			o.line = append(o.line, desc...)
		}
		w := o.start(MsgSvVoteSet)
		w.AddInt(min(m.Timeout, gamemsg.MaxVoteTimeout))
		addLine(w, o.line[:len(cutUTF8Bytes(o.line, MaxVoteText))])
		addText(w, reason, MaxVoteReason)
		return
	}
	o.line = o.line[:0]
	switch m.Type {
	case gamemsg.VoteStartOp:
		o.line = append(quoted(append(o.line, "Admin forced server option "...), m.Description), " ("...)
		o.line = append(append(o.line, reason...), ')')
		o.serverChatLine()
		return
	case gamemsg.VoteStartSpec:
		o.line = append(quoted(append(o.line, "Admin moved "...), m.Description), " to spectator ("...)
		o.line = append(append(o.line, reason...), ')')
		o.serverChatLine()
		return
	}
	w := o.start(MsgSvVoteSet)
	w.AddInt(0)
	w.AddString("")
	w.AddString("")
	switch m.Type {
	case gamemsg.VoteEndAbort:
		o.serverChat("Vote aborted")
	case gamemsg.VoteEndPass:
		if m.ClientID == -1 {
			o.serverChat("Admin forced vote yes")
		} else {
			o.serverChat("Vote passed")
		}
	case gamemsg.VoteEndFail:
		if m.ClientID == -1 {
			o.serverChat("Admin forced vote no")
		} else {
			o.serverChat("Vote failed")
		}
	}
}

// gameMsgTexts are the chat lines of the Sv_GameMsg ids without parameters
// that 0.6 clients get as server chat.
var gameMsgTexts = [gamemsg.NumGameMsgs]string{
	gamemsg.GameMsgTeamSwap:      "Teams were swapped",
	gamemsg.GameMsgSpecInvalidID: "Invalid spectator id used",
	gamemsg.GameMsgTeamShuffle:   "Teams were shuffled",
	gamemsg.GameMsgTeamBalance:   "Teams have been balanced",
}

// encodeGameMsg renders a Sv_GameMsg as 0.6 chat, broadcast or sound.
func encodeGameMsg(o *Out, m *gamemsg.SvGameMsg, p *Peer, infos *Infos) {
	switch m.GameMsgID {
	case gamemsg.GameMsgCtfDrop:
		o.start(MsgSvSoundGlobal).AddInt(SoundCtfDrop)
	case gamemsg.GameMsgCtfReturn:
		o.start(MsgSvSoundGlobal).AddInt(SoundCtfReturn)
	case gamemsg.GameMsgCtfGrab:
		snd := int32(SoundCtfGrabEn)
		if infos.Team(p.ID) != m.Params[0] {
			snd = SoundCtfGrabPl
		}
		o.start(MsgSvSoundGlobal).AddInt(snd)
	case gamemsg.GameMsgTeamAll:
		o.line = append(append(o.line[:0], "All players were moved to the "...), teamName(m.Params[0], infos)...)
		o.serverChatLine()
	case gamemsg.GameMsgTeamBalanceVictim:
		o.line = append(append(o.line[:0], "You were moved to the "...), teamName(m.Params[0], infos)...)
		o.line = append(o.line, " due to team balancing"...)
		addLine(o.start(MsgSvBroadcast), o.line)
	case gamemsg.GameMsgGamePaused:
		o.line = append(quoted(o.line[:0], infos.Name(int(m.Params[0]))), " initiated a pause"...)
		o.serverChatLine()
	case gamemsg.GameMsgCtfCapture:
		o.line = append(o.line[:0], "The "...)
		if m.Params[0] != 0 {
			o.line = append(o.line, "blue"...)
		} else {
			o.line = append(o.line, "red"...)
		}
		o.line = quoted(append(o.line, " flag was captured by "...), infos.Name(int(m.Params[1])))
		o.line = appendCaptureTime(o.line, m.Params[2])
		o.serverChatLine()
		o.start(MsgSvSoundGlobal).AddInt(SoundCtfCapture)
	default:
		if t := gameMsgTexts[m.GameMsgID]; t != "" {
			o.serverChat(t)
		}
	}
}

// appendCaptureTime appends " (S.CC seconds)" for a capture of at most 60
// seconds (ticks at 50 per second), computed in float32 and formatted as
// the 0.6 server does; longer captures get nothing.
func appendCaptureTime(b []byte, ticks int32) []byte {
	t := float32(ticks) / float32(50)
	if t > 60 {
		return b
	}
	hundredths := int32(t*100) % 100
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(int32(t)%60), 10)
	b = append(b, '.')
	if hundredths < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(hundredths), 10)
	return append(b, " seconds)"...)
}

// teamName is the 0.6 server's name of a team in chat lines.
func teamName(team int32, infos *Infos) string {
	if infos.GameInfo.GameFlags&gamemsg.GameFlagTeams != 0 {
		switch team {
		case gamemsg.TeamRed:
			return "red team"
		case gamemsg.TeamBlue:
			return "blue team"
		}
	} else if team == 0 {
		return "game"
	}
	return "spectators"
}

// serverChat adds a server chat line (client id -1, all).
func (o *Out) serverChat(text string) {
	w := o.start(MsgSvChat)
	w.AddInt(ChatAll)
	w.AddInt(-1)
	addText(w, text, MaxText)
}

// serverChatLine adds o.line as a server chat line.
func (o *Out) serverChatLine() {
	w := o.start(MsgSvChat)
	w.AddInt(ChatAll)
	w.AddInt(-1)
	addLine(w, o.line)
}

// quoted appends 'name' to b.
func quoted(b []byte, name string) []byte {
	return append(append(append(b, '\''), name...), '\'')
}

var nul = []byte{0}

// addText packs s as a string of at most limit bytes (cut at a UTF-8
// boundary; a NUL inside ends it).
func addText(w *netproto.Packer, s string, limit int) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	w.AddStringLimit(s, limit)
}

// addLine packs b as a string of at most MaxText bytes.
func addLine(w *netproto.Packer, b []byte) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	w.AddRaw(cutUTF8Bytes(b, MaxText))
	w.AddRaw(nul)
}

// cutUTF8Bytes cuts b to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8Bytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && b[n]&0xC0 == 0x80 {
		n--
	}
	return b[:n]
}
