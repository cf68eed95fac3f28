package web

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"twserver/config"
	"twserver/console"
	"twserver/live"
)

func TestActionLine(t *testing.T) {
	v := func(kv ...string) url.Values {
		u := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			u.Set(kv[i], kv[i+1])
		}
		return u
	}
	for _, tc := range []struct {
		action string
		form   url.Values
		want   string // "" = refused
	}{
		{"kick", v("id", "3"), "kick 3"},
		{"kick", v("id", "3", "reason", `say "hi"; shutdown`), `kick 3 "say \"hi\"; shutdown"`},
		{"kick", v("id", "64"), ""},
		{"kick", v("id", "03"), ""},
		{"kick", v("id", "-1"), ""},
		{"kick", v("id", "1; shutdown"), ""},
		{"ban", v("target", "5", "minutes", "10", "reason", "aimbot"), `ban 5 10 "aimbot"`},
		{"ban", v("target", "10.0.0.1", "minutes", "0"), `ban 10.0.0.1 0 "banned by an admin"`},
		{"ban", v("target", "10.0.0.0/24", "minutes", "60", "reason", "x"), `ban 10.0.0.0/24 60 "x"`},
		{"ban", v("target", "host.example", "minutes", "5"), ""},
		{"ban", v("target", "5", "minutes", "-1"), ""},
		{"ban", v("target", "5", "minutes", "999999999"), ""},
		{"spectate", v("id", "7"), "set_team 7 -1"},
		{"map", v("map", "ctf5"), `change_map "ctf5"`},
		{"map", v("map", ""), ""},
		{"vote_start", v("option", "Restart round"), `force_vote option "Restart round"`},
		{"vote_cancel", nil, "vote no"},
		{"broadcast", v("text", `back\slash`), `broadcast "back\\slash"`},
		{"broadcast", v("text", `ends in \`), `broadcast "ends in \\"`},
		{"say", v("text", "line\nbreak"), ""},
		{"say", v("text", "bell\x07"), ""},
		{"say", v("text", string([]byte{0xff})), ""},
		{"say", v("text", strings.Repeat("x", MaxArgLen+1)), ""},
		{"say", v("text", "<img src=x onerror=alert(1)>"), `say "<img src=x onerror=alert(1)>"`},
		{"setting", v("name", "sv_name", "value", "My server"), `sv_name "My server"`},
		{"setting", v("name", "sv_name;shutdown", "value", "x"), ""},
		{"setting", v("name", "", "value", "x"), ""},
		{"command", v("line", "status"), "status"},
		{"command", v("line", "status\nshutdown"), ""},
		{"command", v("line", strings.Repeat("x", 600)), ""},
		{"nope", nil, ""},
	} {
		got, err := ActionLine(tc.action, tc.form)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s %v: %q, want refused", tc.action, tc.form, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %v = %q, %v; want %q", tc.action, tc.form, got, err, tc.want)
		}
	}
}

// recordHost is a console.Host that keeps the commands the console runs
// (Record: the name and arguments as parsed).
type recordHost struct {
	cfg  config.Config
	cmds [][]string
}

func (h *recordHost) Output(console.Caller, string)                    {}
func (h *recordHost) Config() *config.Config                           { return &h.cfg }
func (h *recordHost) SetSetting(string, string, string, config.Config) {}
func (h *recordHost) MapName() string                                  { return "m" }
func (h *recordHost) Shutdown()                                        {}
func (h *recordHost) Record(_ console.Caller, name string, args []string) {
	h.cmds = append(h.cmds, append([]string{name}, args...))
}

// parsed runs line on a real console (every handler doing nothing) and
// returns each command it ran, name first, arguments as the console
// parsed them.
func parsed(t testing.TB, line string) [][]string {
	t.Helper()
	h := &recordHost{cfg: config.Default()}
	handlers := map[string]console.Handler{}
	for _, c := range console.Commands() {
		handlers[c.Name] = func(console.Caller, console.Args) error { return nil }
	}
	for _, own := range []string{"echo", "exec", "toggle", "shutdown", "upgrade", "help"} {
		delete(handlers, own)
	}
	cn, err := console.New(h, handlers)
	if err != nil {
		t.Fatal(err)
	}
	_ = cn.Run(console.Caller{}, line)
	return h.cmds
}

// FuzzQuote: a quoted argument is read back by the console's own parser as
// one argument holding the text, in one command (no ';' or '#' leaks out).
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a", `a"b`, `a\"`, `\\`, `a\`, "x; shutdown", "#c", `"`} {
		f.Add(s)
	}
	// positive control: an unquoted ';' does split the line
	if got := parsed(f, "say a; say b"); len(got) != 2 || got[1][1] != "b" {
		f.Fatalf("the console ran %q", got)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := quote(s)
		if err != nil {
			return
		}
		if !utf8.ValidString(s) || s == "" {
			t.Fatalf("quote(%q) accepted", s)
		}
		got := parsed(t, "say "+q)
		if len(got) != 1 || len(got[0]) != 2 || got[0][0] != "say" || got[0][1] != s {
			t.Fatalf("quote(%q) = %q: the console ran %q", s, q, got)
		}
	})
}

// TestSlotActionLine: remove takes a bot and names it by its name (quoted),
// refuses a connected client, an empty slot and a bot called "all"; kick
// refuses a bot and names remove; the other actions are ActionLine's.
func TestSlotActionLine(t *testing.T) {
	ada := &live.Player{ID: 15, Name: `Ada "the" bot`, Bot: true}
	all := &live.Player{ID: 14, Name: "all", Bot: true}
	alice := &live.Player{ID: 2, Name: "alice"}
	id := func(s string) url.Values { return url.Values{"id": {s}} }
	for _, tc := range []struct {
		action string
		form   url.Values
		p      *live.Player
		want   string // the line, or the error
	}{
		{"remove", id("15"), ada, `bot_remove "Ada \"the\" bot"`},
		{"remove", id("2"), alice, "remove takes a bot: client 2 is a connected client (kick it)"},
		{"remove", id("9"), nil, ErrNoClient.Error()},
		{"remove", id("14"), all, ErrBotAll.Error()},
		{"remove", id("x"), nil, ErrBadID.Error()},
		{"kick", id("15"), ada, `kick takes a connected client: client 15 is the bot 'Ada "the" bot' (action remove removes it)`},
		{"kick", id("2"), alice, "kick 2"},
		{"kick", id("9"), nil, "kick 9"},
		{"spectate", id("15"), ada, "set_team 15 -1"},
	} {
		got, err := SlotActionLine(tc.action, tc.form, tc.p)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.action, tc.form, got, tc.want)
		}
	}
	if _, err := ActionLine("remove", id("15")); err != ErrUnknownAction {
		t.Errorf("ActionLine(remove): %v, want ErrUnknownAction (it needs the bot's name)", err)
	}
}

// FuzzActionLine: every accepted line is one command on one line.
func FuzzActionLine(f *testing.F) {
	f.Add("kick", "3", "reason")
	f.Add("ban", "10.0.0.1", "5")
	f.Add("say", "hello", "")
	f.Add("setting", "sv_name", "x")
	f.Fuzz(func(t *testing.T, action, a, b string) {
		form := url.Values{"id": {a}, "target": {a}, "minutes": {b}, "reason": {b}, "map": {a}, "option": {a},
			"text": {a}, "name": {a}, "value": {b}, "line": {a}}
		line, err := ActionLine(action, form)
		if err != nil {
			return
		}
		if strings.ContainsAny(line, "\n\r\x00") {
			t.Fatalf("%s: line %q spans lines", action, line)
		}
		if action != "command" && strings.ContainsAny(outsideQuotes(line), ";#") {
			t.Fatalf("%s: line %q has ; or # outside quotes", action, line)
		}
	})
}

// outsideQuotes returns the bytes of line outside quoted arguments.
func outsideQuotes(line string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case in && c == '\\' && i+1 < len(line):
			i++
		case c == '"':
			in = !in
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
}
