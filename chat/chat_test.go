package chat

import (
	"strings"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/world"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"gg  \t\r\n":                    "gg",
		"  lead kept":                   "  lead kept",
		" \t ":                          "",
		strings.Repeat("a", 200):        strings.Repeat("a", MaxLen),
		strings.Repeat("é", 100):        strings.Repeat("é", 63), // 127 bytes cut before a split rune
		strings.Repeat("a", 126) + " x": strings.Repeat("a", 126),
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLimiter: a line waits a second plus a second per 20 bytes of its
// own since the last line said; an emoticon EmoteInterval; the first of
// each passes.
func TestLimiter(t *testing.T) {
	s := time.Second
	var l Limiter
	for _, st := range []struct {
		text string
		at   time.Duration
		want bool
	}{
		{"hi", 1 * s, true},
		{"hi", 1*s + 999*time.Millisecond, false},
		{strings.Repeat("x", 40), 2 * s, false}, // 40 bytes wait 3 s
		{strings.Repeat("x", 40), 4 * s, true},
		{"hi", 4*s + 999*time.Millisecond, false},
		{"hi", 5 * s, true},
	} {
		if got := l.Line(st.text, st.at); got != st.want {
			t.Errorf("Line(%d bytes) at %v = %v, want %v", len(st.text), st.at, got, st.want)
		}
	}
	for _, st := range []struct {
		at   time.Duration
		want bool
	}{{1 * s, true}, {3 * s, false}, {4 * s, true}, {6 * s, false}, {7 * s, true}} {
		if got := l.Emote(st.at); got != st.want {
			t.Errorf("Emote at %v = %v, want %v", st.at, got, st.want)
		}
	}
	if !Spaced(0, 0, SkinInterval) || Spaced(time.Second, SkinInterval, SkinInterval) || !Spaced(time.Second, SkinInterval+time.Second, SkinInterval) {
		t.Error("Spaced")
	}
}

// teams: client 0 and 1 play in team 0, 2 is a spectator, 3 has no player.
type teams map[int]int

func (m teams) Team(id int) int {
	if t, ok := m[id]; ok {
		return t
	}
	return world.TeamSpectators
}
func (m teams) HasPlayer(id int) bool { _, ok := m[id]; return ok }

func TestRoute(t *testing.T) {
	w := teams{0: 0, 1: 0, 2: world.TeamSpectators}
	spec, player := Sender{Team: world.TeamSpectators}, Sender{Team: 0}
	authedSpec := Sender{Team: world.TeamSpectators, Authed: true}
	for _, tt := range []struct {
		name       string
		req        int32
		target     int
		from       Sender
		tournament int
		running    bool
		mode       int32
		ok         bool
	}{
		{"all", gamemsg.ChatAll, -1, player, 0, true, gamemsg.ChatAll, true},
		{"unknown mode is all", 9, -1, player, 0, true, gamemsg.ChatAll, true},
		{"team", gamemsg.ChatTeam, -1, player, 2, true, gamemsg.ChatTeam, true},
		{"whisper", gamemsg.ChatWhisper, 1, spec, 0, true, gamemsg.ChatWhisper, true},
		{"tournament spectator to all goes to team", gamemsg.ChatAll, -1, spec, 2, true, gamemsg.ChatTeam, true},
		{"tournament spectator whispers a player", gamemsg.ChatWhisper, 1, spec, 2, true, 0, false},
		{"tournament spectator whispers a spectator", gamemsg.ChatWhisper, 2, spec, 2, true, gamemsg.ChatWhisper, true},
		{"tournament spectator whispers a client without player", gamemsg.ChatWhisper, 3, spec, 2, true, gamemsg.ChatWhisper, true},
		{"tournament, no game running", gamemsg.ChatAll, -1, spec, 2, false, gamemsg.ChatAll, true},
		{"tournament, authenticated spectator", gamemsg.ChatAll, -1, authedSpec, 2, true, gamemsg.ChatAll, true},
		{"tournament mode 1", gamemsg.ChatAll, -1, spec, 1, true, gamemsg.ChatAll, true},
		{"tournament player", gamemsg.ChatAll, -1, player, 2, true, gamemsg.ChatAll, true},
	} {
		mode, ok := Route(tt.req, tt.target, tt.from, tt.tournament, tt.running, w)
		if mode != tt.mode || ok != tt.ok {
			t.Errorf("%s: Route = %d %v, want %d %v", tt.name, mode, ok, tt.mode, tt.ok)
		}
	}
}
