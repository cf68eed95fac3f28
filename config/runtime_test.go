package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSetSetting: the console's runtime path sets a value as a
// configuration line does (ranges, converters), keeps player slots within
// the client slots, validates the whole result and prints it back in the
// reference's form.
func TestSetSetting(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        string // SettingValue afterwards
		warn, err   string // substrings; "" = none
	}{
		{"sv_scorelimit", "5", "5", "", ""},
		{"SV_SCORELIMIT", "5000", "1000", "outside 0..1000", ""},
		{"sv_player_slots", "12", "12", "", ""}, // sv_max_clients is 16
		{"sv_player_slots", "16", "16", "", ""},
		{"sv_high_bandwidth", "7", "1", "outside 0..1", ""},
		{"sv_vote_kick", "0", "0", "", ""},
		{"sv_name", "  two   words ", "two words", "", ""},
		{"sv_name", "", "", "", "server.name"},
		{"sv_gametype", "CTF", "", "", `"CTF": must be dm, tdm, ctf, lms or lts`},
		{"sv_maprotation", "a b", "", "", "map a.map is in none of"},
		{"ec_bantime", "2", "2", "", ""},
		{"sv_map", "dm1", "", "", "change_map"},
	} {
		row, ok := Setting(tc.name)
		if !ok {
			t.Fatalf("%s: not a setting", tc.name)
		}
		c := Default()
		before := c
		got, warn, err := SetSetting(c, row, tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want %q", tc.name, tc.value, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.name, tc.value, err)
			continue
		}
		if v := SettingValue(&got, row); v != tc.want {
			t.Errorf("%s %q: value %q, want %q", tc.name, tc.value, v, tc.want)
		}
		if (tc.warn == "") != (warn == "") || !strings.Contains(warn, tc.warn) {
			t.Errorf("%s %q: warning %q, want %q", tc.name, tc.value, warn, tc.warn)
		}
		if c.Server != before.Server || c.Game != before.Game {
			t.Errorf("%s: SetSetting changed its argument", tc.name)
		}
	}
	if _, ok := Setting("add_vote"); ok {
		t.Errorf("add_vote is a command, not a setting")
	}
	names := SettingNames()
	if !slices.Contains(names, "password") || !slices.Contains(names, "ec_port") || slices.Contains(names, "add_vote") {
		t.Errorf("SettingNames: %q", names)
	}
	// the console reads each setting with the reference's type, and an
	// integer setting prints an integer
	for _, n := range names {
		row, _ := Setting(n)
		c := Default()
		p, v := SettingParams(row), SettingValue(&c, row)
		if ref, has := refByName[n]; has && ref.Str != (p == "?r") {
			t.Errorf("%s: params %s, the reference's is a string: %v", n, p, ref.Str)
		}
		if _, ok := refInt(v); p == "?i" && !ok {
			t.Errorf("%s: integer setting prints %q", n, v)
		}
	}
}

// FuzzSetSetting: any console value of any setting either is refused with
// an error or gives a configuration that validates and prints back; the
// argument is never changed.
func FuzzSetSetting(f *testing.F) {
	names := SettingNames()
	for i, v := range []string{"5", "-1", "99999999999", "ctf", "  a  b ", "", "\x00", "dm1 dm2"} {
		f.Add(uint8(i*7), v)
	}
	f.Fuzz(func(t *testing.T, n uint8, v string) {
		row, _ := Setting(names[int(n)%len(names)])
		c := Default()
		got, _, err := SetSetting(c, row, v)
		if err != nil {
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("%s %q: result does not validate: %v", row.Sv, v, err)
		}
		_ = SettingValue(&got, row)
		if !reflect.DeepEqual(c, Default()) {
			t.Fatalf("%s %q: the argument changed", row.Sv, v)
		}
	})
}
