package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// This file is the console's view of the settings at run time: the server
// reads a setting (NAME alone prints "Value: X") and changes it (NAME VALUE)
// through the same rows, converters, ranges and validation as the
// reference-syntax loader (refcfg.go, settings.go).

// Setting returns the SvNames row of a console setting (case-insensitive, as
// the reference's console): a row with a console name that sets a value
// (not add_vote, a command).
func Setting(name string) (SvName, bool) {
	row, ok := svRow(name)
	if !ok {
		return SvName{}, false
	}
	if _, conv := converters[row.Sv]; !conv {
		c := Default()
		if _, field := fieldByKey(&c, row.Key); !field {
			return SvName{}, false
		}
	}
	return row, true
}

// SettingNames returns the console names of every setting Setting finds, in
// the order of SvNames.
func SettingNames() []string {
	var names []string
	for _, r := range SvNames {
		if !isSvName(r.Sv) {
			continue
		}
		if _, ok := Setting(r.Sv); ok {
			names = append(names, r.Sv)
		}
	}
	return names
}

// SettingParams is the parameter string of a setting's console command, as
// the reference registers its variables: "?i" for an integer setting (or
// one twserver keeps as a number or boolean), "?r" for a string. The
// loader reads a configuration line by it too.
func SettingParams(row SvName) string {
	if ref, has := refByName[row.Sv]; has && !ref.Str {
		return "?i"
	}
	c := Default()
	if f, ok := fieldByKey(&c, row.Key); ok && (f.Kind() == reflect.Int || f.Kind() == reflect.Bool) {
		return "?i"
	}
	return "?r"
}

// SetSetting returns c with the setting of row set to value as a line of a
// configuration file would set it (the loader's parsing, clamping and
// converters), the reference's console rule that sv_player_slots never
// exceeds sv_max_clients, and a map rotation resolved like the loader's;
// the result is validated. warn says what was adjusted (clamped, cut).
// sv_map is not set here: at run time it changes the map (change_map).
func SetSetting(c Config, row SvName, value string) (Config, string, error) {
	if row.Sv == "sv_map" {
		return c, "", fmt.Errorf("sv_map changes the map at run time: use change_map")
	}
	l := &Loader{cfg: c, origin: map[string]string{}, warned: map[string]bool{}}
	warn, err := l.setValue(row, value)
	if err != nil {
		return c, "", err
	}
	if l.cfg.Server.PlayerSlots > l.cfg.Server.MaxClients {
		l.cfg.Server.PlayerSlots = l.cfg.Server.MaxClients
	}
	if err := l.resolveMap(); err != nil {
		return c, "", err
	}
	if err := l.cfg.Validate(); err != nil {
		return c, "", err
	}
	return l.cfg, warn, nil
}

// SettingValue is a setting's current value as the reference's console
// prints it after "Value: ": an integer in decimal (booleans 0 or 1), a
// string as it is, a list separated by spaces. Converted settings print
// the reference's value (sv_high_bandwidth 0/1, console_output_level 0/1,
// ec_bantime in minutes); sv_map prints the map file's name.
func SettingValue(c *Config, row SvName) string {
	switch row.Sv {
	case "sv_high_bandwidth":
		return b2s(c.Server.SnapshotRate == 50)
	case "console_output_level":
		return b2s(c.Log.Level == "debug")
	case "ec_bantime":
		return strconv.Itoa(c.Econ.BanTime / 60)
	case "sv_map":
		if c.Map.File == "" {
			if len(c.Map.Rotation) > 0 {
				return c.Map.Rotation[0]
			}
			return DefaultMapName
		}
		name := c.Map.File
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		return strings.TrimSuffix(name, ".map")
	}
	f, ok := fieldByKey(c, row.Key)
	if !ok {
		return ""
	}
	switch f.Kind() {
	case reflect.Int:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Bool:
		return b2s(f.Bool())
	case reflect.String:
		return f.String()
	case reflect.Slice:
		if list, ok := f.Interface().([]string); ok {
			return strings.Join(list, " ")
		}
	}
	return fmt.Sprint(f.Interface())
}

func b2s(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
