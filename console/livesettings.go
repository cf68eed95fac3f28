package console

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"twserver/config"
	"twserver/teehist/replay"
)

// Settings at run time: every console name of config.SvNames is also a
// console command, as in the reference (its variable commands): "NAME"
// prints "Value: X", "NAME VALUE" sets it through the configuration's own
// parsing, clamping and validation (config.SetSetting) and applies it to the
// running game. Most settings take effect at once; a few are read when a
// map is loaded (settingWhen), and those bound to the process (sockets,
// slots, side channels) are refused while it runs.

// settingApply says when a changed setting takes effect.
type settingApply int

const (
	// applyNow: at once (the default).
	applyNow settingApply = iota
	// applyNextMap: at the next map load (change_map, reload, the
	// rotation); the value is kept until then, as the reference reads it
	// only when its game controller or map entities are created.
	applyNextMap
	// applyRestart: the setting cannot change in a running twserver; the
	// console refuses it and the value stays.
	applyRestart
)

// settingWhen lists the settings that do not take effect at once, by
// console name.
var settingWhen = map[string]settingApply{
	"sv_gametype":         applyNextMap, // the reference creates its game controller on map load
	"sv_warmup":           applyNextMap, // read by the game controller's constructor
	"sv_powerups":         applyNextMap, // read when the map's entities are created
	"sv_matches_per_map":  applyNextMap, // twserver counts the rotation's matches from a map load
	"sv_tee_historian":    applyNextMap, // recordings start with a game
	"sv_auto_demo_record": applyNextMap,

	"sv_port":              applyRestart, // the socket is bound at start
	"bindaddr":             applyRestart,
	"sv_max_clients":       applyRestart, // the client slots are allocated at start
	"sv_input_fifo":        applyRestart, // opened at start
	"console_output_level": applyRestart, // the logger is built at start
	"sv_register":          applyRestart, // the registration helper starts with the server
	"sv_external_port":     applyRestart,
	"sv_register_url":      applyRestart,
	"ec_port":              applyRestart, // the external console listens from start
	"ec_bindaddr":          applyRestart,
	"ec_password":          applyRestart,
	"ec_auth_timeout":      applyRestart,
	"ec_bantime":           applyRestart,
	"ec_output_level":      applyRestart,
}

// SettingTakesEffect says when a change of the setting takes effect in a
// running twserver: "at once", "at the next map load" or "after a restart"
// (for the README and tests).
func SettingTakesEffect(name string) string {
	switch settingWhen[strings.ToLower(name)] {
	case applyNextMap:
		return "at the next map load"
	case applyRestart:
		return "after a restart"
	}
	return "at once"
}

// AppliesNow reports whether a change of the setting takes effect at once
// (the game applies it when the console changes it).
func AppliesNow(name string) bool { return settingWhen[strings.ToLower(name)] == applyNow }

// runSetting runs a setting's console command; it reports false for a name
// that is no setting.
func (cn *Console) runSetting(c Caller, name, rest string) bool {
	row, ok := config.Setting(name)
	if !ok {
		return false
	}
	params := config.SettingParams(row)
	args, err := parseArgs(rest, params)
	if err != nil {
		cn.Print(fmt.Sprintf("Invalid arguments... Usage: %s %s", row.Sv, params))
		return true
	}
	cfg := cn.host.Config()
	if len(args) == 0 {
		cn.Print("Value: " + LogValue(row.Sv, config.SettingValue(cfg, row))) // output goes to the log too
		return true
	}
	v := args[0]
	if params == "?i" {
		v = strconv.Itoa(Args(args).Int(0)) // as the reference reads it: C atoi
	}
	next, warn, err := config.SetSetting(*cfg, row, v)
	if settingWhen[row.Sv] == applyRestart {
		// the value it has (an exec of the server's own file) is no change
		if cur := config.SettingValue(cfg, row); err != nil || config.SettingValue(&next, row) != cur {
			cn.Print(fmt.Sprintf("%s cannot change while twserver runs: set it in the configuration and restart (the value stays %s)",
				row.Sv, LogValue(row.Sv, cur)))
		}
		return true
	}
	if err != nil {
		cn.Print(fmt.Sprintf("%s not changed: %v", row.Sv, err))
		return true
	}
	val := config.SettingValue(&next, row)
	if !config.Secret(row.Sv) { // no secret in a recording
		cn.host.Record(c, row.Sv, []string{val})
	}
	cn.host.SetSetting(row.Sv, val, warn, next)
	return true
}

// LogValue is a setting's value as a log shows it: passwords hidden.
func LogValue(name, v string) string {
	if config.Secret(name) && v != "" {
		return "(set)"
	}
	return v
}

// LogLine is a console line as an audit log shows it: the arguments of
// every command whose name holds "password" (sv_rcon_password, password,
// ec_password; any case) replaced by "(set)", as LogValue does. A line
// with none is returned as it is; one with some is rebuilt from its
// commands (joined by "; ", a '#' comment dropped).
func LogLine(line string) string {
	parts := splitCommands(line)
	secret := false
	for i, p := range parts {
		name, rest := splitName(p)
		if config.Secret(name) && identifier(name) && strings.TrimSpace(rest) != "" {
			parts[i], secret = name+" (set)", true
		}
	}
	if !secret {
		return line
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, "; ")
}

// identifier reports whether s is a command name as the console knows
// them: letters, digits and '_'.
func identifier(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

// RconCommands is the list announced to an authenticated rcon client for
// its completion: the commands, then every setting of the reference's
// server flag (CFGFLAG_SERVER: not the ec_* settings, which the reference
// flags for the external console only) with its parameter string and
// meaning, as the reference sends its variable commands. The slice is
// shared: do not change it.
func RconCommands() []Command {
	rconCmdsOnce.Do(func() {
		rconCmds = append(rconCmds, commands[:]...)
		for _, name := range config.SettingNames() {
			row, _ := config.Setting(name)
			if strings.HasPrefix(name, "ec_") {
				continue
			}
			rconCmds = append(rconCmds, Command{Name: name, Params: config.SettingParams(row), Help: row.Doc})
		}
	})
	return rconCmds
}

var (
	rconCmdsOnce sync.Once
	rconCmds     []Command
)

// cmdToggle is the reference's toggle: an integer setting becomes value2
// when it is value1, else value1 (set as "NAME VALUE" is).
func (cn *Console) toggle(c Caller, a Args) error {
	name := a.Str(0)
	row, ok := config.Setting(name)
	if !ok {
		if _, cmd := lookupCommand(name); !cmd {
			cn.Print(fmt.Sprintf("No such command: '%s'.", name))
			return nil
		}
	}
	if !ok || config.SettingParams(row) != "?i" {
		cn.Print(fmt.Sprintf("Invalid command: '%s'.", name))
		return nil
	}
	v := a.Int(1)
	if replay.IntArg(config.SettingValue(cn.host.Config(), row)) == v {
		v = a.Int(2)
	}
	cn.runSetting(c, name, strconv.Itoa(v))
	return nil
}
