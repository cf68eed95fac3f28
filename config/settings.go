package config

import (
	"fmt"
	"net/netip"
	"reflect"
	"strings"
)

// This file maps the reference server's setting names onto the
// configuration: every SvNames row whose Sv is a console name is a setting of
// the reference syntax (refcfg.go) and of the environment (SV_NAME=...), by
// its Key, the dotted TOML key of a Config field. Integers, strings, booleans
// (0/1) and string lists (whitespace-separated) need nothing more than the
// row; the few settings whose values twserver stores differently have a
// converter below.

// isSvName reports whether an SvNames row names a console setting (not
// "(none)").
func isSvName(sv string) bool { return sv != "" && sv[0] != '(' }

// svRow returns the SvNames row of a console name (case-insensitive, as the
// reference's console), if any.
func svRow(name string) (SvName, bool) {
	for _, r := range SvNames {
		if isSvName(r.Sv) && strings.EqualFold(r.Sv, name) {
			return r, true
		}
	}
	return SvName{}, false
}

// fieldByKey returns the field of c a dotted TOML key names (by the toml
// tags), or false.
func fieldByKey(c *Config, key string) (reflect.Value, bool) {
	v := reflect.ValueOf(c).Elem()
	for _, part := range strings.Split(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		found := false
		for i := 0; i < v.NumField(); i++ {
			if tomlName(v.Type().Field(i)) == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}, false
		}
	}
	return v, true
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// Keys returns every dotted TOML key of a single value (not the [[vote]]
// tables), in the order of the Config structs.
func Keys() []string { return appendKeys(nil, reflect.TypeFor[Config](), "") }

func appendKeys(keys []string, t reflect.Type, prefix string) []string {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := tomlName(f)
		if name == "" || name == "-" {
			continue
		}
		switch {
		case f.Type.Kind() == reflect.Struct:
			keys = appendKeys(keys, f.Type, prefix+name+".")
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.String:
			// [[vote]]: add_vote, not a single value
		default:
			keys = append(keys, prefix+name)
		}
	}
	return keys
}

// converter sets a setting whose value twserver stores differently from
// the reference; it returns a warning for a value it adjusted.
type converter func(l *Loader, row SvName, v string) (warn string, err error)

// converters hold the settings the generic mapping cannot express, by
// console name.
var converters = map[string]converter{
	"sv_high_bandwidth":    convHighBandwidth,
	"console_output_level": convOutputLevel,
	"bindaddr":             convBindAddr,
	"ec_bindaddr":          convBindAddr,
	"sv_map":               convMap,
	"ec_bantime":           convMinutesToSeconds,
	"sv_name":              convName,
}

// convName: the reference cleans the server name's spaces whenever it is
// set (its sv_name chain): no leading or trailing spaces, runs of spaces
// become one.
func convName(l *Loader, row SvName, v string) (string, error) {
	s, warn := refStringValue(row.Sv, v)
	l.cfg.Server.Name = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " ")
	return warn, nil
}

// convHighBandwidth: sv_high_bandwidth 0/1 is server.snapshot_rate 25/50.
func convHighBandwidth(l *Loader, row SvName, v string) (string, error) {
	n, warn, err := refIntValue(row.Sv, v)
	if err != nil {
		return "", err
	}
	l.cfg.Server.SnapshotRate = 25
	if n != 0 {
		l.cfg.Server.SnapshotRate = 50
	}
	return warn, nil
}

// convOutputLevel: console_output_level 0 is log.level info, 1 and 2 debug.
func convOutputLevel(l *Loader, row SvName, v string) (string, error) {
	n, warn, err := refIntValue(row.Sv, v)
	if err != nil {
		return "", err
	}
	l.cfg.Log.Level = "info"
	if n > 0 {
		l.cfg.Log.Level = "debug"
	}
	return warn, nil
}

// convBindAddr: an IP address; "localhost" is 127.0.0.1 (twserver resolves
// no host names).
func convBindAddr(l *Loader, row SvName, v string) (string, error) {
	s, warn := refStringValue(row.Sv, v)
	switch {
	case strings.EqualFold(s, "localhost"):
		s = "127.0.0.1"
	case s != "":
		if _, err := netip.ParseAddr(s); err != nil {
			return "", fmt.Errorf("%q is not an IP address (twserver resolves no host names; \"localhost\" is 127.0.0.1)", s)
		}
	}
	f, _ := fieldByKey(&l.cfg, row.Key)
	f.SetString(s)
	return warn, nil
}

// convMinutesToSeconds: the reference counts ec_bantime in minutes, the
// key (econ.ban_time) in seconds.
func convMinutesToSeconds(l *Loader, row SvName, v string) (string, error) {
	n, warn, err := refIntValue(row.Sv, v)
	if err != nil {
		return "", err
	}
	f, ok := fieldByKey(&l.cfg, row.Key)
	if !ok || f.Kind() != reflect.Int {
		return "", fmt.Errorf("config.SvNames row %q names no integer key", row.Key)
	}
	f.SetInt(int64(n) * 60)
	return warn, nil
}

// convMap: sv_map names a map the way the reference does; the name is
// looked up when the configuration is complete (Loader.resolveMap).
func convMap(l *Loader, row SvName, v string) (string, error) {
	s, warn := refStringValue(row.Sv, v)
	l.mapName = s
	return warn, nil
}

// refIntValue reads an integer setting and clamps it to the reference's
// range, with a warning when it had to.
func refIntValue(sv, v string) (int, string, error) {
	n, ok := refInt(v)
	if !ok {
		return 0, "", fmt.Errorf("%q is not a number", v)
	}
	ref, has := refByName[sv]
	if !has {
		return n, "", nil
	}
	if c := ref.clamp(n); c != n {
		return c, fmt.Sprintf("%d is outside %d..%s: using %d, as the reference does", n, ref.Min, maxText(ref.Max), c), nil
	}
	return n, "", nil
}

func maxText(m int) string {
	if m == 0 {
		return ""
	}
	return fmt.Sprint(m)
}

// refStringValue reads a string setting as the reference stores it (cut to
// its buffer), with a warning when it was cut.
func refStringValue(sv, v string) (string, string) {
	ref, has := refByName[sv]
	if !has {
		return v, ""
	}
	s, cut := refString(v, ref.Size)
	if cut {
		return s, fmt.Sprintf("longer than %d bytes: cut, as the reference does", ref.Size-1)
	}
	return s, ""
}

// setValue applies one value of a setting to the configuration.
func (l *Loader) setValue(row SvName, v string) (string, error) {
	if conv, ok := converters[row.Sv]; ok {
		return conv(l, row, v)
	}
	f, ok := fieldByKey(&l.cfg, row.Key)
	if !ok {
		return "", fmt.Errorf("config.SvNames row %q names no configuration key", row.Key)
	}
	switch {
	case f.Kind() == reflect.Int:
		n, warn, err := refIntValue(row.Sv, v)
		if err == nil {
			f.SetInt(int64(n))
		}
		return warn, err
	case f.Kind() == reflect.Bool:
		n, warn, err := refIntValue(row.Sv, v)
		if err == nil {
			f.SetBool(n != 0)
		}
		return warn, err
	case f.Kind() == reflect.String:
		s, warn := refStringValue(row.Sv, v)
		f.SetString(s)
		return warn, nil
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		s, warn := refStringValue(row.Sv, v)
		var list []string // nil when empty, as the defaults
		list = append(list, strings.Fields(s)...)
		f.Set(reflect.ValueOf(list))
		return warn, nil
	}
	return "", fmt.Errorf("config.SvNames row %q: a %s cannot be set from the console", row.Key, f.Type())
}

// UnsupportedSetting is a server-side setting of the reference 0.7.5 that
// twserver does not apply.
type UnsupportedSetting struct {
	// Sv is the reference's console name.
	Sv string
	// Reason says why, for the warning and docs/configuration.md.
	Reason string
	// Same is the value twserver always behaves as ("" = none): a
	// configuration setting exactly this value gets no warning.
	Same string
}

// Unsupported lists every 0.7.5 server setting twserver does not apply, and
// why. Setting one gives one warning at start; TestEveryRefSettingAccounted
// fails on a 0.7.5 setting that is neither here nor in SvNames.
var Unsupported = []UnsupportedSetting{
	{"logfile", "twserver logs to standard error (journald, docker logs); redirect it to keep a file", ""},
	{"logfile_timestamp", "twserver logs to standard error, and every line has a full date and time", ""},
	{"sv_rcon_mod_password", "twserver's remote console has one access level (sv_rcon_password)", ""},
	{"sv_auto_demo_max", "recordings are bounded by size instead (record.max_file_mb, record.max_dir_mb)", ""},
	{"debug", "no debug mode: console_output_level 2 (log.level debug) gives the detailed log", "0"},
	{"dbg_stress", "a debugging aid of the reference", "0"},
	{"dbg_stress_network", "a debugging aid of the reference", "0"},
	{"dbg_pref", "a debugging aid of the reference; twserver has metrics and the stats console command", "0"},
	{"dbg_hitch", "a debugging aid of the reference", "0"},
	{"dbg_dummies", "a debugging aid of the reference's debug builds; cmd/twload runs synthetic clients", "0"},
}

// unsupported returns the Unsupported entry of a console name.
func unsupported(name string) (UnsupportedSetting, bool) {
	for _, u := range Unsupported {
		if strings.EqualFold(u.Sv, name) {
			return u, true
		}
	}
	return UnsupportedSetting{}, false
}

// Differences says, by console name, where a mapped setting's default, range
// or meaning differs from the reference 0.7.5; the settings table of docs/configuration.md
// shows it, and TestEveryRefSettingAccounted requires an entry for every
// mapped setting whose default or range differs.
var Differences = map[string]string{
	"sv_name":              `default "twserver" (reference "unnamed server"); at most 64 bytes (the length the server info carries)`,
	"bindaddr":             `an IP address; "localhost" is 127.0.0.1 (twserver resolves no host names)`,
	"sv_map":               "default: the embedded map twsrv_arena (reference dm1); NAME is NAME.map in map.dir or the reference's map directories (see above); a path (with / or ending in .map) is used as it is",
	"sv_maprotation":       "the maps are looked up like sv_map, in one directory; twserver starts the rotation at sv_map",
	"sv_gametype":          "dm, tdm, ctf, lms or lts in lower case (the reference takes any case and plays dm for anything else)",
	"sv_max_clients":       "default 16 (reference 8): with sv_player_slots 8 as in the reference, 8 play and 8 more join as spectators, so a full DM game's 16 (MAX_PLAYERS) fit and `twload -n 16` gets in against a twserver started with no flags",
	"sv_register":          "off by default (reference on), so no test or trial run contacts a master; registers over DDNet's HTTP protocol (and the 0.7 UDP masters listed in register.udp_masters)",
	"console_output_level": "0 is log.level info, 1 and 2 are debug",
	"sv_spamprotection":    "chat is always limited (one line per second plus one per 20 characters)",
	"ec_bindaddr":          `an IP address; "localhost" (the reference's default) is 127.0.0.1 (twserver resolves no host names)`,
	"ec_bantime":           "minutes here, seconds in econ.ban_time (default 300 s, reference 0 = no ban); the ban refuses econ connections only (the reference bans the address from the game too)",
}

// SettingsMarkdown is docs/configuration.md's table of the 0.7.5 server settings:
// each with its default, the twserver key it sets and whether twserver
// supports it as the reference does, differently (and how), or not (and
// why). TestDocTables keeps that page equal to it.
func SettingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| 0.7.5 setting | reference default | twserver key | status | notes |\n|---|---|---|---|---|\n")
	for _, r := range refSettings {
		def := r.Default
		if r.Str {
			def = fmt.Sprintf("%q", def)
		}
		key, status, note := "", "", ""
		if row, ok := svRow(r.Name); ok {
			key, status, note = row.Key, "supported", row.Doc
			if d := Differences[r.Name]; d != "" {
				status, note = "different", d
			}
		} else if u, ok := unsupported(r.Name); ok {
			status, note = "not supported", u.Reason
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.Name, mdCell(def), mdCell(key), status, mdCell(note))
	}
	return b.String()
}

// SvNamesMarkdown is docs/configuration.md's table of every configuration key with its
// console name (SvNames).
func SvNamesMarkdown() string {
	var b strings.Builder
	b.WriteString("| key | familiar name | meaning |\n|---|---|---|\n")
	for _, r := range SvNames {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(r.Key), mdCell(r.Sv), mdCell(r.Doc))
	}
	return b.String()
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
