package chat

import (
	"strings"
	"time"

	"twserver/gamemsg"
	"twserver/world"
)

// Chat and spam limits (net.md A7, sv_spamprotection).
const (
	// MaxLen is the longest chat message kept, in bytes.
	MaxLen = 127
	// LineInterval is the least time between two chat lines of one
	// player; each 20 bytes of the later line add a second.
	LineInterval = time.Second
	// EmoteInterval is the least time between two emoticons.
	EmoteInterval = 3 * time.Second
	// SkinInterval is the least time between two skin changes.
	SkinInterval = 5 * time.Second
)

// Clean returns a chat line as it is kept: cut to MaxLen bytes at a rune
// boundary, trailing blanks removed. An empty result is not sent.
func Clean(text string) string {
	return strings.TrimRight(gamemsg.TruncUTF8(text, MaxLen), " \t\r\n")
}

// Spaced reports whether something last done at last (0: never) may be
// done again at now, interval apart.
func Spaced(last, now, interval time.Duration) bool { return last == 0 || now-last >= interval }

// Limiter is one player's chat and emoticon spam limits (the zero value:
// nothing sent yet).
type Limiter struct {
	lastLine, lastEmote time.Duration
}

// Line reports whether the player may say the cleaned text at now, as the
// reference's spam protection (LineInterval plus a second per 20 bytes of
// text since the last line said), and counts it when it may.
func (l *Limiter) Line(text string, now time.Duration) bool {
	if !Spaced(l.lastLine, now, LineInterval+time.Duration(len(text)/20)*time.Second) {
		return false
	}
	l.lastLine = now
	return true
}

// Emote reports whether the player may show an emoticon at now, and
// counts it when it may.
func (l *Limiter) Emote(now time.Duration) bool {
	if !Spaced(l.lastEmote, now, EmoteInterval) {
		return false
	}
	l.lastEmote = now
	return true
}

// Teams is the world's view of who plays where (world.World has it).
type Teams interface {
	// Team returns a client's team (world.TeamSpectators: -1).
	Team(id int) int
	// HasPlayer reports whether the client has a player in the world.
	HasPlayer(id int) bool
}

// Sender is the player who says a line.
type Sender struct {
	// Team is its team.
	Team int
	// Authed says it is rcon-authenticated (tournament mode spares it).
	Authed bool
}

// Route returns the mode (gamemsg.ChatAll, ChatTeam or ChatWhisper) a
// line of requested mode req to target goes out in, or ok false when it
// is dropped: in tournament mode 2, while a game runs, a spectator who is
// not rcon-authenticated speaks only to the spectators and may not whisper
// to a player. A whisper's target is checked by the caller.
func Route(req int32, target int, from Sender, tournamentMode int, running bool, w Teams) (mode int32, ok bool) {
	if tournamentMode == 2 && from.Team == world.TeamSpectators && running && !from.Authed {
		if req != gamemsg.ChatWhisper {
			req = gamemsg.ChatTeam
		} else if w.HasPlayer(target) && w.Team(target) != world.TeamSpectators {
			return 0, false
		}
	}
	switch req {
	case gamemsg.ChatTeam, gamemsg.ChatWhisper:
		return req, true
	}
	return gamemsg.ChatAll, true
}
