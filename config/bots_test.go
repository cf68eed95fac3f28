package config

import (
	"strings"
	"testing"
)

// TestBotsValidate: bots.names takes 1..MaxBotNames names of 1..15 bytes
// of UTF-8 without control characters, and not "all", which bot_remove
// takes for every bot (a bot of that name could not be removed alone).
func TestBotsValidate(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" = accepted
	}{
		{"[bots]\nnames = [\"Pebble\", \"Quartz\"]", ""},
		{"[bots]\nnames = [\"All\", \"all of us\"]", ""},
		{"[bots]\nnames = [\"Pebble\", \"all\"]", `invalid value for bots.names: "all" is bot_remove's word for every bot, not a name`},
		{"[bots]\nnames = []", "invalid value for bots.names: 0 names"},
		{"[bots]\nnames = [\"sixteen bytes xx\"]", "a name is 1..15 bytes"},
		{"[bots]\nnames = [\"tab\\there\"]", "control character"},
		{"[bots]\nskill = \"expert\"", `invalid value for bots.skill: "expert"`},
	} {
		_, err := Parse([]byte(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: err %v, want %q", tt.in, err, tt.want)
		}
	}
}
