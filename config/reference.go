package config

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// refSettingsTSV is the list of every server-side setting of teeworlds 0.7.5
// (name, type, default, range), taken from its setting tables; the header
// of the file says how.
//
//go:embed testdata/settings-0.7.5.tsv
var refSettingsTSV string

// RefSetting is one server-side setting of the reference server 0.7.5.
type RefSetting struct {
	// Name is the console name (sv_port).
	Name string
	// Str is true for a string setting, false for an integer.
	Str bool
	// Default is the default value as the console would print it.
	Default string
	// Min and Max are the integer range; Min == Max means no clamping, Max 0
	// no upper bound (the reference's IntVariableCommand).
	Min, Max int
	// Size is a string setting's buffer size: the longest value is Size-1 bytes.
	Size int
	// Debug is true for a setting compiled only into debug builds.
	Debug bool
}

// clamp applies the reference's clamping to an integer value.
func (r RefSetting) clamp(v int) int {
	if r.Min == r.Max {
		return v
	}
	if v < r.Min {
		v = r.Min
	}
	if r.Max != 0 && v > r.Max {
		v = r.Max
	}
	return v
}

// RefSettings returns the server-side settings of teeworlds 0.7.5 in the
// order of its headers.
func RefSettings() []RefSetting { return refSettings }

var refSettings, refByName = parseRefSettings(refSettingsTSV)

func parseRefSettings(tsv string) ([]RefSetting, map[string]RefSetting) {
	var list []RefSetting
	by := map[string]RefSetting{}
	for i, line := range strings.Split(tsv, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			panic(fmt.Sprintf("config: testdata/settings-0.7.5.tsv line %d: %d columns", i+1, len(f)))
		}
		r := RefSetting{Name: f[0], Str: f[1] == "str", Default: f[2], Debug: strings.Contains(f[6], "debug")}
		atoi := func(s string) int {
			n, err := strconv.ParseInt(s, 0, 64)
			if err != nil {
				panic(fmt.Sprintf("config: testdata/settings-0.7.5.tsv line %d: %v", i+1, err))
			}
			return int(n)
		}
		if r.Str {
			r.Size = atoi(f[4])
		} else {
			r.Min, r.Max = atoi(f[3]), atoi(f[4])
		}
		list = append(list, r)
		by[r.Name] = r
	}
	return list, by
}
