package config

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckEnv: a variable meant for twserver that sets nothing (a typo)
// is a warning with the nearest name, its value never shown; twserver's
// own variables, valid names and other programs' variables pass. Before,
// TWSERVER_SERVER_PROT=8304 or SV_PROT=8304 was ignored without a word.
func TestCheckEnv(t *testing.T) {
	environ := []string{
		"TWSERVER_SERVER_PROT=8304", "SV_PROT=8304", "EC_PASWORD=hunter2", "TWSERVER_NOTHING_LIKE_IT=1",
		"TWSERVER_METRICS_LISTEN=127.0.0.1:9100", "SV_PORT=8304", "EC_PASSWORD=x", "SV_RCON_MOD_PASSWORD=m",
		"TWSERVER_HANDOVER=v1", "HOME=/root", "PATH=/bin", "TWSERVER_SERVER_PORT",
	}
	l := NewLoader()
	l.CheckEnv(environ, "TWSERVER_HANDOVER")
	got := warningStrings(l.Warnings)
	want := []string{
		"environment variable TWSERVER_SERVER_PROT: names no configuration key (did you mean TWSERVER_SERVER_PORT?): ignored",
		"environment variable SV_PROT: names no setting of teeworlds-server 0.7.5 (did you mean SV_PORT?): ignored",
		"environment variable EC_PASWORD: names no setting of teeworlds-server 0.7.5 (did you mean EC_PASSWORD?): ignored",
		"environment variable TWSERVER_NOTHING_LIKE_IT: names no configuration key: ignored",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUnknownKeySuggests: an unknown TOML key names the nearest key or
// table when it is a letter or two away.
func TestUnknownKeySuggests(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"[server]\nprot = 1\n", `line 2: unknown key "server.prot" (did you mean server.port?)`},
		{"[sever]\nport = 1\n", `line 1: unknown key "sever" (did you mean server?)`},
		{"[[vote]]\ndescripton = \"x\"\n", `line 2: unknown key "vote.descripton" (did you mean vote.description?)`},
		{"[server]\nbanana = 1\n", `line 2: unknown key "server.banana"`},
	} {
		_, err := Parse([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: err %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"server.port", "server.bind", "map.dir"}
	for _, tt := range []struct{ in, want string }{
		{"server.prot", "server.port"}, {"server.bnid", "server.bind"}, {"map.dri", "map.dir"},
		{"server.port", "server.port"}, {"nothing", ""}, {strings.Repeat("x", 1000), ""}, {"", ""},
	} {
		if got := closest(tt.in, names); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// warningStrings is each warning as String shows it.
func warningStrings(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return out
}
