package console

import (
	"strings"
	"sync/atomic"
)

// Command is one console command (stdin, rcon, econ, the command FIFO and
// the admin page). Params is the reference's parameter string (cmdparse.go),
// also announced to rcon clients.
type Command struct {
	Name, Params, Help string
}

// commands lists the console commands, also announced to rcon clients: the
// commands of the reference server 0.7.5 that twserver implements, with
// their parameters, then twserver's own (force_vote, players, stats, demo_clip, bot_add,
// bot_remove, bots_fill, upgrade, help).
// The console runs echo, exec, toggle, shutdown, upgrade and help itself; the game
// hands it a Handler for every other one (New refuses a missing one).
var commands = [...]Command{
	{"echo", "r[text]", "Print the text"},
	{"exec", "r[file]", "Run the console commands of a file (relative path)"},
	{"toggle", "s[config-option] i[value1] i[value2]", "Toggle config value"},
	{"kick", "i[id] ?r[reason]", "Kick client id with an optional reason"},
	{"status", "", "List the clients: id, address, client version, name, score"},
	{"shutdown", "", "Stop the server"},
	{"logout", "", "Log out of the remote console"},
	{"record", "?s[file]", "Record a demo to record.dir/FILE.demo until stoprecord or the map ends"},
	{"stoprecord", "", "Stop the demo recording"},
	{"reload", "", "Reload the current map (every client goes through the map change)"},
	{"ban", "s[id|ip|range] ?i[minutes] r[reason]", "Ban a client id or IP address for minutes (default 30, 0 = for life)"},
	{"unban", "s[ip|range]", "Remove the ban of an IP address, or ban number N of bans"},
	{"unban_all", "", "Remove every ban"},
	{"bans", "", "List the bans"},
	{"bans_save", "s[file]", "Write the bans as ban commands to a file (relative path) for exec"},
	{"tune", "s[tuning] i[value]", "Set a tuning parameter (reset at once: every game type is pure)"},
	{"tune_reset", "", "Reset the tuning to the defaults"},
	{"tunes", "", "List the tuning parameters and their values"},
	{"pause", "?i[seconds]", "Toggle the pause, or pause for the given seconds (-1 = until resumed)"},
	{"change_map", "?r[map]", "Change the map (none: the next map of the rotation)"},
	{"restart", "?i[seconds]", "Start a new match after the given warmup seconds (default 0)"},
	{"say", "r[text]", "Send a server chat message"},
	{"broadcast", "r[text]", "Show a broadcast message"},
	{"set_team", "i[id] i[team] ?i[delay]", "Move client id to team -1, 0 or 1, blocking its own team changes for delay minutes"},
	{"set_team_all", "i[team]", "Move every player to team -1, 0 or 1"},
	{"swap_teams", "", "Swap the teams"},
	{"shuffle_teams", "", "Shuffle the teams"},
	{"lock_teams", "", "Lock or unlock the teams"},
	{"force_teambalance", "", "Balance the teams now"},
	{"add_vote", "s[option] r[command]", "Add a vote option"},
	{"remove_vote", "s[option]", "Remove a vote option"},
	{"clear_votes", "", "Remove every vote option"},
	{"vote", "r['yes'|'no']", "Force the running vote to pass or fail"},
	{"force_vote", "s['option'|'kick'|'spectate'] s[value] ?r[reason]", "Carry out a vote at once (an option's description or a client id)"},
	{"players", "", "List the clients with state, team, score, latency and position"},
	{"stats", "", "Show packet counters (received, dropped by reason, replies) and tick timing"},
	{"demo_clip", "i[seconds] ?s[name]", "Write a demo of the last seconds of the game (from its teehistorian) to record.dir/NAME.demo"},
	{"bot_add", "?s[skill] ?r[name]", "Add a bot (skill easy, normal or hard; default bots.skill), name (default the next free one)"},
	{"bot_remove", "r[name|all]", "Remove the bot of that name, or every bot"},
	{"bots_fill", "i[count]", "Keep at least count participants with bots while a human is connected (0 = off)"},
	{"upgrade", "", "Start a live upgrade to the binary at the path twserver was started from, as SIGUSR2 does"},
	{"help", "", "List commands"},
}

// builtin are the commands the console runs itself (console.go).
var builtin = [...]string{"echo", "exec", "toggle", "shutdown", "upgrade", "help"}

// Commands returns the console commands in the order of the help and of
// the rcon command list (a copy: the table cannot change).
func Commands() []Command { return append([]Command(nil), commands[:]...) }

// commandAliases are other names of commands: sv_map and map change the
// map like change_map; tune_dump is the 0.6 name of tunes.
var commandAliases = map[string]string{"sv_map": "change_map", "map": "change_map", "tune_dump": "tunes"}

// UnsupportedCommand is a console command of the reference server that
// twserver does not implement, with the reason.
type UnsupportedCommand struct {
	Name, Reason string
}

// unsupported lists the reference server's commands twserver does not
// implement; running one prints the reason.
var unsupported = [...]UnsupportedCommand{
	{"save_config", "the configuration is the TOML file (or the reference-style file) the operator writes; twserver never rewrites it"},
	{"mod_command", "there is no moderator access level: one rcon password gives full access"},
	{"mod_status", "there is no moderator access level: one rcon password gives full access"},
	{"dbg_lognetwork", "no network debug log file; use log.level debug and the metrics"},
}

// UnsupportedCommands returns the reference server's commands twserver does
// not implement, with the reasons (a copy).
func UnsupportedCommands() []UnsupportedCommand {
	return append([]UnsupportedCommand(nil), unsupported[:]...)
}

// lookupCommand finds a command by name (case-insensitive, as the
// reference) or alias.
func lookupCommand(name string) (Command, bool) {
	if a, ok := commandAliases[strings.ToLower(name)]; ok {
		name = a
	}
	for _, c := range commands {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Command{}, false
}

// upgradeRequest is the process's request for a live upgrade (OnUpgrade),
// shared by every game's console: the upgrade is the whole process's.
var upgradeRequest atomic.Pointer[func() error]

// OnUpgrade installs request, which the console command upgrade calls (in
// a game's loop) to ask the process for a live upgrade: it returns at
// once, an error when it refuses (cmd/twserver: one runs or was asked for
// already). Without one the command says upgrades are not available here.
func OnUpgrade(request func() error) {
	if request == nil {
		upgradeRequest.Store(nil)
		return
	}
	upgradeRequest.Store(&request)
}

// upgrade runs the command upgrade: it asks for the upgrade and prints the
// reply (UpgradeReply); the upgrade runs after the command, and its outcome
// is in the log.
func (cn *Console) upgrade(Caller, Args) error {
	var request func() error
	if p := upgradeRequest.Load(); p != nil {
		request = *p
	}
	cn.Print(UpgradeReply(request))
	return nil
}

// UpgradeReply runs request, the process's request for a live upgrade
// (nil where there is none, as in a game not run by cmd/twserver), and
// returns the upgrade command's reply: the request returns at once, the
// upgrade runs after the command, and its outcome is in the log.
func UpgradeReply(request func() error) string {
	if request == nil {
		return "upgrade: not available in this process"
	}
	if err := request(); err != nil {
		return "upgrade refused: " + err.Error()
	}
	return "upgrade: starting the new process; the log says how it ends"
}
