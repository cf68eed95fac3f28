package server

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"twserver/config"
	"twserver/gamemsg"
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

// runSetting runs a setting's console command; it reports false for a name
// that is no setting.
func (s *Server) runSetting(name, rest string) bool {
	row, ok := config.Setting(name)
	if !ok {
		return false
	}
	params := config.SettingParams(row)
	args, err := parseArgs(rest, params)
	if err != nil {
		s.consoleOut(fmt.Sprintf("Invalid arguments... Usage: %s %s", row.Sv, params))
		return true
	}
	if len(args) == 0 {
		s.consoleOut("Value: " + config.SettingValue(&s.cfg, row))
		return true
	}
	v := args[0]
	if params == "?i" {
		v = strconv.Itoa(cmdArgs(args).int(0)) // as the reference reads it: C atoi
	}
	next, warn, err := config.SetSetting(s.cfg, row, v)
	if settingWhen[row.Sv] == applyRestart {
		// the value it has (an exec of the server's own file) is no change
		if cur := config.SettingValue(&s.cfg, row); err != nil || config.SettingValue(&next, row) != cur {
			s.consoleOut(fmt.Sprintf("%s cannot change while twserver runs: set it in the configuration and restart (the value stays %s)",
				row.Sv, cur))
		}
		return true
	}
	if err != nil {
		s.consoleOut(fmt.Sprintf("%s not changed: %v", row.Sv, err))
		return true
	}
	if warn != "" {
		s.log.Info().Str("setting", row.Sv).Msg(warn)
	}
	old := s.cfg
	s.cfg = next
	val := config.SettingValue(&s.cfg, row)
	if !strings.Contains(row.Sv, "password") { // no secret in a recording
		s.recConsole(row.Sv, []string{val})
	}
	s.applySetting(row.Sv, val, &old)
	s.log.Info().Str("setting", row.Sv).Str("value", logValue(row.Sv, val)).Str("takes_effect", SettingTakesEffect(row.Sv)).Msg("setting changed")
	return true
}

// logValue hides passwords in the log.
func logValue(name, v string) string {
	if strings.Contains(name, "password") && v != "" {
		return "(set)"
	}
	return v
}

// applySetting makes a changed setting (s.cfg is already the new
// configuration, old the previous one) take effect in the running game, as
// the reference's chained console callbacks do: game rules to the world
// (World.SetRules, applied the way the replay applies the recorded command),
// the server info to the browser and masters, the message of the day and
// the vote settings to the clients.
func (s *Server) applySetting(name, val string, old *config.Config) {
	if settingWhen[name] != applyNow {
		return
	}
	rules := replay.Settings{World: s.world.Config(), SnapshotRate: old.Server.SnapshotRate}
	if rules.ApplySetting(name, val) {
		s.world.SetRules(rules.World)
	}
	switch name {
	case "sv_name", "password", "sv_hostname", "sv_skill_level", "sv_player_slots":
		before := s.edge.Info()
		s.publishInfo()
		s.pushInfo(name, before) // to the connected clients (rename6.go)
	case "sv_motd":
		s.broadcastGame(-1, &gamemsg.SvMotd{Message: s.cfg.Server.MOTD})
	}
	switch name {
	case "sv_vote_kick", "sv_vote_kick_min", "sv_vote_spectate", "sv_teambalance_time", "sv_player_slots":
		s.broadcastGame(-1, s.serverSettings())
	}
}

// rconCommands is the list announced to an authenticated rcon client for
// its completion: the commands, then every setting of the reference's
// server flag (CFGFLAG_SERVER: not the ec_* settings, which the reference
// flags for the external console only) with its parameter string and
// meaning, as the reference sends its variable commands.
func rconCommands() []Command {
	rconCmdsOnce.Do(func() {
		rconCmds = append(rconCmds, Commands...)
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
func (s *Server) cmdToggle(a cmdArgs) {
	name := a.str(0)
	row, ok := config.Setting(name)
	if !ok {
		if _, cmd := lookupCommand(name); !cmd {
			s.consoleOut(fmt.Sprintf("No such command: '%s'.", name))
			return
		}
	}
	if !ok || config.SettingParams(row) != "?i" {
		s.consoleOut(fmt.Sprintf("Invalid command: '%s'.", name))
		return
	}
	v := a.int(1)
	if replay.IntArg(config.SettingValue(&s.cfg, row)) == v {
		v = a.int(2)
	}
	s.runSetting(name, strconv.Itoa(v))
}
