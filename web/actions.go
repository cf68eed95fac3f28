package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"twserver/live"
	"twserver/server"
)

// Admin actions become console lines: ActionLine checks the form's
// arguments and quotes every string, so an argument is always one argument
// (never a second command).

// Bounds of the admin actions' arguments.
const (
	// MaxArgLen bounds one text argument (bytes).
	MaxArgLen = 256
	// MaxBanMinutes bounds a ban's length (a year).
	MaxBanMinutes = 525600
	// MaxSettingName bounds a setting's name.
	MaxSettingName = 64
	// MaxClientID is the highest client id.
	MaxClientID = 63
)

// Errors of ActionLine and SlotActionLine.
var (
	ErrUnknownAction = errors.New("unknown action")
	ErrBadID         = errors.New("id: a client id 0..63")
	ErrBadTarget     = errors.New("target: a client id or an IP address or range")
	ErrBadMinutes    = errors.New("minutes: 0.." + strconv.Itoa(MaxBanMinutes))
	ErrBadText       = errors.New("text: 1.." + strconv.Itoa(MaxArgLen) + " bytes of UTF-8 without control characters")
	ErrBadSetting    = errors.New("setting: a name of letters, digits and _")
	ErrBadCommand    = errors.New("command: one line of at most " + strconv.Itoa(server.MaxConsoleLine) + " bytes")
	ErrNoClient      = errors.New("id: no client has that id")
	ErrNotBot        = errors.New("remove takes a bot")
	ErrKickBot       = errors.New("kick takes a connected client")
	ErrBotAll        = errors.New("remove: the bot is called \"all\", which bot_remove reads as every bot: rename it or run bot_remove all")
)

// Actions names the admin actions, for the page and the docs (a new
// slice each call).
func Actions() []string {
	return []string{"kick", "remove", "ban", "spectate", "map", "vote_start", "vote_cancel", "broadcast", "say", "setting", "command"}
}

// SlotActionLine is ActionLine knowing who holds the client slot the form's
// id names (p, nil when nobody does): remove (id) takes a bot and becomes
// bot_remove "NAME"; kick refuses a bot, which is removed, not kicked (as
// the console's kick refuses it). The other actions are ActionLine's.
func SlotActionLine(action string, f url.Values, p *live.Player) (string, error) {
	switch action {
	case "remove":
		if _, err := clientID(f.Get("id")); err != nil {
			return "", err
		}
		switch {
		case p == nil:
			return "", ErrNoClient
		case !p.Bot:
			return "", fmt.Errorf("%w: client %d is a connected client (kick it)", ErrNotBot, p.ID)
		case p.Name == "all":
			return "", ErrBotAll
		}
		return oneText("bot_remove", p.Name)
	case "kick":
		if p != nil && p.Bot {
			return "", fmt.Errorf("%w: client %d is the bot '%s' (action remove removes it)", ErrKickBot, p.ID, p.Name)
		}
	}
	return ActionLine(action, f)
}

// ActionLine returns the console line of an admin action with its form
// arguments: kick (id, reason), ban (target, minutes, reason), spectate
// (id), map (map), vote_start (option), vote_cancel, broadcast (text), say
// (text), setting (name, value), command (line). remove, which needs the
// bot's name, is SlotActionLine's: here it is an unknown action.
func ActionLine(action string, f url.Values) (string, error) {
	switch action {
	case "kick":
		id, err := clientID(f.Get("id"))
		if err != nil {
			return "", err
		}
		line := "kick " + id
		if r := f.Get("reason"); r != "" {
			q, err := quote(r)
			if err != nil {
				return "", err
			}
			line += " " + q
		}
		return line, nil
	case "ban":
		t, err := banTarget(f.Get("target"))
		if err != nil {
			return "", err
		}
		m, err := strconv.Atoi(f.Get("minutes"))
		if err != nil || m < 0 || m > MaxBanMinutes {
			return "", ErrBadMinutes
		}
		reason := f.Get("reason")
		if reason == "" {
			reason = "banned by an admin"
		}
		q, err := quote(reason)
		if err != nil {
			return "", err
		}
		return "ban " + t + " " + strconv.Itoa(m) + " " + q, nil
	case "spectate":
		id, err := clientID(f.Get("id"))
		if err != nil {
			return "", err
		}
		return "set_team " + id + " -1", nil
	case "map":
		return oneText("change_map", f.Get("map"))
	case "vote_start":
		q, err := quote(f.Get("option"))
		if err != nil {
			return "", err
		}
		return "force_vote option " + q, nil
	case "vote_cancel":
		return "vote no", nil
	case "broadcast":
		return oneText("broadcast", f.Get("text"))
	case "say":
		return oneText("say", f.Get("text"))
	case "setting":
		name := f.Get("name")
		if !settingName(name) {
			return "", ErrBadSetting
		}
		q, err := quote(f.Get("value"))
		if err != nil {
			return "", err
		}
		return name + " " + q, nil
	case "command":
		l := f.Get("line")
		if l == "" || len(l) > server.MaxConsoleLine || !utf8.ValidString(l) || strings.ContainsAny(l, "\r\n\x00") {
			return "", ErrBadCommand
		}
		return l, nil
	}
	return "", ErrUnknownAction
}

// oneText is cmd with one quoted text argument.
func oneText(cmd, text string) (string, error) {
	q, err := quote(text)
	if err != nil {
		return "", err
	}
	return cmd + " " + q, nil
}

// clientID checks a client id in decimal.
func clientID(s string) (string, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxClientID || strconv.Itoa(n) != s {
		return "", ErrBadID
	}
	return s, nil
}

// banTarget checks a ban's target: a client id, an address or a prefix.
func banTarget(s string) (string, error) {
	if id, err := clientID(s); err == nil {
		return id, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.String(), nil
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.String(), nil
	}
	return "", ErrBadTarget
}

// settingName reports whether s can be a setting's name.
func settingName(s string) bool {
	if s == "" || len(s) > MaxSettingName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// quote returns s as one quoted console argument (\" and \\ escaped). It
// refuses empty, long or invalid text and control characters.
func quote(s string) (string, error) {
	if s == "" || len(s) > MaxArgLen || !utf8.ValidString(s) {
		return "", ErrBadText
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			return "", ErrBadText
		case r == '"' || r == '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String(), nil
}

// contextTimeout is the request's context with a timeout.
func contextTimeout(r *http.Request, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), d)
}
