package web

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
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

// unquote reads one quoted console argument as the console's parser does.
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", false
	}
	var b strings.Builder
	i := 1
	for ; i < len(s) && s[i] != '"'; i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String(), i == len(s)-1
}

// FuzzQuote: a quoted argument reads back as the text and is one argument
// (its closing quote is the last byte); no ';' or '#' is outside quotes.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a", `a"b`, `a\"`, `\\`, `a\`, "x; shutdown", "#c", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := quote(s)
		if err != nil {
			return
		}
		if !utf8.ValidString(s) || s == "" {
			t.Fatalf("quote(%q) accepted", s)
		}
		back, one := unquote(q)
		if !one || back != s {
			t.Fatalf("quote(%q) = %q reads back as %q (one argument: %v)", s, q, back, one)
		}
	})
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
