package config

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitLines(t *testing.T) {
	got := splitLines([]byte("a\nb\r\nc\rd\n\ne\x00f\ng"))
	want := []string{"a", "b", "c", "d", "", "e", "g"}
	if !slices.Equal(got, want) {
		t.Errorf("splitLines = %q, want %q", got, want)
	}
}

func TestSplitCommands(t *testing.T) {
	long := "sv_name " + strings.Repeat("x", 2000)
	tests := []struct {
		line    string
		want    []string
		dropped string
	}{
		{"sv_port 8303", []string{"sv_port 8303"}, ""},
		{"sv_port 8303; sv_name x", []string{"sv_port 8303", " sv_name x"}, ""},
		{"sv_port 8303 # comment; sv_name x", []string{"sv_port 8303 "}, ""},
		{`sv_name "a;b#c"; sv_port 1`, []string{`sv_name "a;b#c"`, " sv_port 1"}, ""},
		{`sv_name "a\"; b"; sv_port 1`, []string{`sv_name "a\"; b"`, " sv_port 1"}, ""},
		// `\\` is no escape for the splitter: the quote after it is skipped,
		// so the ';' stays inside the string (the reference's quirk).
		{`sv_name "a\\"; sv_port 1`, []string{`sv_name "a\\"; sv_port 1`}, ""},
		{`sv_name \"x; sv_port 1`, []string{`sv_name \"x`, " sv_port 1"}, ""},
		{"; sv_port 1", nil, "sv_port 1"},
		{"sv_port 1;; sv_name x", []string{"sv_port 1"}, "sv_name x"},
		{"   ", nil, ""},
		{"# only a comment", nil, ""},
		{"sv_port 1;", []string{"sv_port 1"}, ""},
		{long, []string{long[:MaxCommandLen]}, ""},
	}
	for _, tt := range tests {
		got, dropped := splitCommands(tt.line)
		if !slices.Equal(got, tt.want) || dropped != tt.dropped {
			t.Errorf("splitCommands(%q) = %q, %q; want %q, %q", tt.line, got, dropped, tt.want, tt.dropped)
		}
	}
}

func TestSplitName(t *testing.T) {
	tests := []struct{ in, name, args string }{
		{"sv_port 8303", "sv_port", "8303"},
		{"  \tsv_port\t 8303 ", "sv_port", " 8303 "},
		{"clear_votes", "clear_votes", ""},
		{"sv_name\rx y", "sv_name\rx", "y"}, // '\r' does not end a token
		{"", "", ""},
	}
	for _, tt := range tests {
		if n, a := splitName(tt.in); n != tt.name || a != tt.args {
			t.Errorf("splitName(%q) = %q, %q; want %q, %q", tt.in, n, a, tt.name, tt.args)
		}
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args, format string
		want         []string
		rest         string
		err          error
	}{
		{"8303", "?i", []string{"8303"}, "", nil},
		{"8303 8304", "?i", []string{"8303"}, "8304", nil},
		{"", "?i", nil, "", nil},
		{"   ", "?r", nil, "", nil},
		{"Welcome - and have fun!  ", "?r", []string{"Welcome - and have fun!"}, "", nil},
		{`"quoted name" tail`, "?r", []string{"quoted name"}, " tail", nil},
		{`"a \"b\" c\\d\n"`, "?r", []string{`a "b" c\d\n`}, "", nil},
		{`"unterminated`, "?r", nil, "", errUnterminated},
		{`"ends with backslash\"`, "?r", nil, "", errUnterminated},
		{`"Kick me" "kick 0"`, "sr", []string{"Kick me", "kick 0"}, "", nil},
		{`Restart restart 5`, "sr", []string{"Restart", "restart 5"}, "", nil},
		{`onlyone`, "sr", []string{"onlyone"}, "", errMissingArg},
		{"", "r", nil, "", errMissingArg},
		{"x\u00a0\u3000", "?r", []string{"x"}, "", nil},
		{"\"8303\"", "?i", []string{"8303"}, "", nil},
	}
	for _, tt := range tests {
		got, rest, err := parseArgs(tt.args, tt.format)
		if err != tt.err || (err == nil && (!slices.Equal(got, tt.want) || rest != tt.rest)) {
			t.Errorf("parseArgs(%q, %q) = %q, %q, %v; want %q, %q, %v", tt.args, tt.format, got, rest, err, tt.want, tt.rest, tt.err)
		}
	}
}

func TestRefValues(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{{"8303", 8303, true}, {"-1", -1, true}, {"+5", 5, true}, {" 7", 7, true}, {"abc", 0, false},
		{"12abc", 0, false}, {"", 0, false}, {"99999999999", 0, false}, {"2147483647", 2147483647, true}, {"-2147483648", -2147483648, true}, {"2147483648", 0, false}} {
		if n, ok := refInt(tt.in); n != tt.want || ok != tt.ok {
			t.Errorf("refInt(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		in   string
		size int
		want string
		cut  bool
	}{{"abc", 4, "abc", false}, {"abcd", 4, "abc", true}, {"\xe9t\xe9", 32, "été", false}, {"\xe9\xe9", 4, "é", true}} {
		if s, cut := refString(tt.in, tt.size); s != tt.want || cut != tt.cut {
			t.Errorf("refString(%q, %d) = %q, %v; want %q, %v", tt.in, tt.size, s, cut, tt.want, tt.cut)
		}
	}
}
