package server

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/world"
)

// Command is one console command (stdin and rcon). Params is the
// reference's parameter string (cmdparse.go), also announced to rcon
// clients.
type Command struct {
	Name, Params, Help string
}

// Commands lists the console commands, also announced to rcon clients: the
// commands of the reference server 0.7.5 that twserver implements, with
// their parameters, then twserver's own (force_vote, players, stats, help).
var Commands = []Command{
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
	{"help", "", "List commands"},
}

// commandAliases are other names of commands: sv_map and map change the
// map like change_map; tune_dump is the 0.6 name of tunes.
var commandAliases = map[string]string{"sv_map": "change_map", "map": "change_map", "tune_dump": "tunes"}

// UnsupportedCommand is a console command of the reference server that
// twserver does not implement, with the reason.
type UnsupportedCommand struct {
	Name, Reason string
}

// UnsupportedCommands lists the reference server's commands twserver does
// not implement; running one prints the reason.
var UnsupportedCommands = []UnsupportedCommand{
	{"save_config", "the configuration is the TOML file (or the reference-style file) the operator writes; twserver never rewrites it"},
	{"mod_command", "there is no moderator access level: one rcon password gives full access"},
	{"mod_status", "there is no moderator access level: one rcon password gives full access"},
	{"dbg_lognetwork", "no network debug log file; use log.level debug and the metrics"},
}

// lookupCommand finds a command by name (case-insensitive, as the
// reference) or alias.
func lookupCommand(name string) (Command, bool) {
	if a, ok := commandAliases[strings.ToLower(name)]; ok {
		name = a
	}
	for _, c := range Commands {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Command{}, false
}

// rconCIDVote is the rcon client id of commands run by a passed vote
// (the reference's RCON_CID_VOTE); -1 is the server console.
const rconCIDVote = -2

// MaxExecDepth bounds nested exec commands.
const MaxExecDepth = 8

// MaxExecFileSize bounds the size of a file run by exec in bytes.
const MaxExecFileSize = 64 << 10

// cmdState is the console's own state, owned by the loop.
type cmdState struct {
	execStack []string // files being run by exec, outermost first
}

// execLine runs one console line: its commands in order (cmdparse.go). It
// returns errShutdown for "shutdown".
func (s *Server) execLine(line string) error {
	if len(line) > MaxConsoleLine {
		line = line[:MaxConsoleLine]
	}
	for _, part := range splitCommands(line) {
		if err := s.execCommand(part); err != nil {
			return err
		}
	}
	return nil
}

// execCommand parses and runs one command.
func (s *Server) execCommand(part string) error {
	name, rest := splitName(part)
	cmd, ok := lookupCommand(name)
	if !ok {
		if s.runSetting(name, rest) {
			return nil
		}
		for _, u := range UnsupportedCommands {
			if strings.EqualFold(u.Name, name) {
				s.consoleOut(fmt.Sprintf("%s is not supported by twserver: %s", u.Name, u.Reason))
				return nil
			}
		}
		s.consoleOut("No such command: " + name + ".")
		return nil
	}
	args, err := parseArgs(rest, cmd.Params)
	if err == nil && len(args) == 0 && strings.EqualFold(name, "sv_map") {
		// the reference's sv_map is a setting: without a value it prints it
		s.consoleOut("Value: " + s.curMap.Name)
		return nil
	}
	if err != nil {
		s.consoleOut(fmt.Sprintf("Invalid arguments... Usage: %s %s", cmd.Name, cmd.Params))
		return nil
	}
	s.recConsole(cmd.Name, args)
	return s.runCommand(cmd.Name, cmdArgs(args))
}

// runCommand runs a parsed command (name as in Commands).
func (s *Server) runCommand(name string, a cmdArgs) error {
	switch name {
	case "echo":
		s.consoleOut(a.str(0))
	case "exec":
		s.cmdExec(a.str(0))
	case "toggle":
		s.cmdToggle(a)
	case "kick":
		s.cmdKick(a)
	case "status":
		s.cmdStatus()
	case "shutdown":
		return errShutdown
	case "logout":
		s.cmdLogout()
	case "record":
		s.cmdRecord(a.str(0))
	case "stoprecord":
		if s.rec.demo.file != nil {
			s.demoEnd()
			s.consoleOut("Stopped recording")
		}
	case "reload":
		s.applyMap(s.curMap)
	case "ban":
		s.cmdBan(a)
	case "unban":
		s.cmdUnban(a.str(0))
	case "unban_all":
		s.bans.Clear()
		s.gauges.Bans.Store(0)
		s.consoleOut("unbanned all entries")
	case "bans":
		s.cmdBans()
	case "bans_save":
		s.cmdBansSave(a.str(0))
	case "tune":
		s.cmdTune(a.str(0), a.float(1))
	case "tune_reset":
		s.broadcastGame(-1, s.tuneParamsMsg())
		s.consoleOut("Tuning reset")
	case "tunes":
		t := s.world.Tuning()
		for i, n := range world.TuneNames {
			v, _ := t.Get(i)
			s.consoleOut(fmt.Sprintf("%s %.2f", n, v))
		}
	case "pause":
		if a.n() == 0 {
			s.world.TogglePause()
		} else {
			s.world.Pause(a.int(0))
		}
	case "change_map":
		m := a.str(0)
		if m == "" {
			m = s.nextRotationMap()
		}
		s.pendingMap = m
	case "restart":
		s.world.Restart(a.int(0))
		s.log.Info().Int("warmup", a.int(0)).Msg("match restarted")
	case "say":
		s.serverChat(-1, a.str(0))
		s.log.Info().Str("text", a.str(0)).Msg("server chat")
	case "broadcast":
		s.broadcastGame(-1, broadcastMsg(a.str(0)))
	case "set_team":
		cid, team := min(max(a.int(0), 0), world.MaxClients-1), min(max(a.int(1), -1), 1)
		if s.world.ForceTeamDelay(cid, team, a.int(2)) {
			s.consoleOut(fmt.Sprintf("moved client %d to team %d", cid, team))
		}
	case "set_team_all":
		s.world.SetTeamAll(a.int(0))
	case "swap_teams":
		s.world.SwapTeams()
	case "shuffle_teams":
		s.world.ShuffleTeams()
	case "lock_teams":
		s.world.LockTeams(!s.world.TeamsLocked())
		s.broadcastGame(-1, s.serverSettings()) // the reference announces the lock only this way
	case "force_teambalance":
		s.world.ForceTeamBalance()
	case "add_vote":
		s.addVoteOption(a.str(0), a.str(1))
	case "remove_vote":
		s.removeVoteOption(a.str(0))
	case "clear_votes":
		s.clearVoteOptions()
	case "vote":
		s.forceVoteResult(a.str(0))
	case "force_vote":
		caller := s.rconFrom
		s.callVote(caller, a.str(0), a.str(1), a.str(2), true)
	case "players":
		s.cmdPlayers()
	case "stats":
		s.cmdStats()
	case "help":
		for _, c := range Commands {
			s.consoleOut(fmt.Sprintf("%-17s %s", c.Name, c.Help))
		}
	}
	return nil
}

// refAddr formats an address as the reference (net_addr_str): IPv4 dotted,
// IPv6 as eight hexadecimal groups in brackets, with ":port" when withPort.
func refAddr(ap netip.AddrPort, withPort bool) string {
	ip := ap.Addr().Unmap()
	var s string
	if ip.Is4() {
		b := ip.As4()
		s = fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
	} else {
		b := ip.As16()
		s = fmt.Sprintf("[%x:%x:%x:%x:%x:%x:%x:%x]", uint16(b[0])<<8|uint16(b[1]), uint16(b[2])<<8|uint16(b[3]),
			uint16(b[4])<<8|uint16(b[5]), uint16(b[6])<<8|uint16(b[7]), uint16(b[8])<<8|uint16(b[9]),
			uint16(b[10])<<8|uint16(b[11]), uint16(b[12])<<8|uint16(b[13]), uint16(b[14])<<8|uint16(b[15]))
	}
	if withPort {
		s += fmt.Sprintf(":%d", ap.Port())
	}
	return s
}

// cmdStatus prints the reference's status lines, one per client: in game
// "id=N addr=IP:PORT client=VERSION name='NAME' score=S AUTH" (version in
// hexadecimal, AUTH "(Admin)" or empty), otherwise "id=N addr=IP:PORT connecting".
func (s *Server) cmdStatus() {
	for _, c := range s.clients {
		if c.state == stateEmpty {
			continue
		}
		if c.state != stateIngame {
			s.consoleOut(fmt.Sprintf("id=%d addr=%s connecting", c.id, refAddr(c.addr, true)))
			continue
		}
		auth := ""
		if c.rconAuthed {
			auth = "(Admin)"
		}
		s.consoleOut(fmt.Sprintf("id=%d addr=%s client=%x name='%s' score=%d %s", c.id, refAddr(c.addr, true),
			c.version, c.name, s.world.Score(c.id), auth))
	}
}

// cmdPlayers is twserver's detailed client list (the status of earlier
// twserver versions): state, team, score, latency and position.
func (s *Server) cmdPlayers() {
	n := 0
	for _, c := range s.clients {
		if c.state == stateEmpty {
			continue
		}
		n++
		line := fmt.Sprintf("id=%d addr=%s state=%s name=%q", c.id, c.addr, c.state, c.name)
		if c.state == stateIngame {
			line += fmt.Sprintf(" team=%d score=%d latency=%d", s.world.Team(c.id), s.world.Score(c.id), c.latencyMs)
			if x, y, ok := s.playerPos(c); ok {
				line += fmt.Sprintf(" pos=(%d,%d)", x, y)
			}
		}
		s.consoleOut(line)
	}
	s.consoleOut(fmt.Sprintf("%d client(s), map %s, tick %d", n, s.curMap.Name, s.world.CurrentTick()))
}

func (s *Server) cmdStats() {
	cs := s.Counters()
	keys := make([]string, 0, len(cs))
	for k := range cs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", k, cs[k])
	}
	s.consoleOut(b.String())
	s.consoleOut(s.pregameSummary())
	s.consoleOut(s.ticks.summary())
}

// cmdKick: the reference's kick with its refusals.
func (s *Server) cmdKick(a cmdArgs) {
	cid := a.int(0)
	if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == stateEmpty {
		s.consoleOut("invalid client id to kick")
		return
	}
	if cid == s.rconFrom {
		s.consoleOut("you can't kick yourself")
		return
	}
	reason := "Kicked by console"
	if a.n() > 1 {
		reason = "Kicked (" + a.str(1) + ")"
	}
	s.dropClient(s.clients[cid], reason)
}

func (s *Server) cmdLogout() {
	if s.rconFrom < 0 {
		return
	}
	c := s.clients[s.rconFrom]
	if c.state == stateEmpty || !c.rconAuthed {
		return
	}
	s.sendSys(c, netproto.NetmsgRconAuthOff, true, nil)
	c.rconAuthed, c.rconTries = false, 0
	c.rconMaps, c.rconMapNext = nil, 0 // the lists stop (rconAuthed)
	s.recAuth(c, false)
	s.world.SetAuthed(c.id, false)
	s.rconLine(c, "Logout successful.")
	s.consoleOut(fmt.Sprintf("ClientID=%d logged out", c.id))
}

// relPath checks a file argument: a relative path that does not leave the
// working directory (the reference allows only paths inside its storage).
func relPath(name string) (string, bool) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", false
	}
	return filepath.Clean(name), true
}

// cmdExec runs the lines of a file, bounded in size and nesting; a file
// already being run is skipped (the reference's loop guard).
func (s *Server) cmdExec(name string) {
	p, ok := relPath(name)
	if !ok {
		s.consoleOut(fmt.Sprintf("failed to open '%s'", name))
		s.consoleOut("Info: only relative paths inside the working directory are allowed")
		return
	}
	if slices.Contains(s.cmd.execStack, p) || len(s.cmd.execStack) >= MaxExecDepth {
		return
	}
	data, err := readBounded(p, MaxExecFileSize)
	if err != nil {
		s.consoleOut(fmt.Sprintf("failed to open '%s'", name))
		return
	}
	s.consoleOut(fmt.Sprintf("executing '%s'", name))
	s.cmd.execStack = append(s.cmd.execStack, p)
	defer func() { s.cmd.execStack = s.cmd.execStack[:len(s.cmd.execStack)-1] }()
	for line := range strings.Lines(string(data)) {
		if err := s.execLine(strings.TrimRight(line, "\r\n")); err == errShutdown {
			s.pendingShutdown = true
			return
		}
	}
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, limit)
	}
	return os.ReadFile(path)
}

// cmdRecord starts a demo of the current game (the reference's record).
func (s *Server) cmdRecord(name string) {
	if s.rec.demo.file != nil {
		s.consoleOut("already recording a demo (stoprecord first)")
		return
	}
	if s.cfg.Record.Dir == "" {
		s.consoleOut("record.dir is not set")
		return
	}
	if name == "" {
		name = "demo_" + time.Now().Format("2006-01-02_15-04-05")
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		s.consoleOut(fmt.Sprintf("Unable to open '%s' for recording", name))
		return
	}
	if err := os.MkdirAll(s.cfg.Record.Dir, 0o755); err != nil {
		s.consoleOut(fmt.Sprintf("Unable to open '%s' for recording", name))
		return
	}
	s.demoStart(name)
	if s.rec.demo.file == nil {
		s.consoleOut(fmt.Sprintf("Unable to open '%s' for recording", name))
		return
	}
	s.consoleOut(fmt.Sprintf("Recording to '%s'", s.rec.demo.path))
}

// tuneParamsMsg is Sv_TuneParams with the tuning in force.
func (s *Server) tuneParamsMsg() *gamemsg.SvTuneParams {
	tun := s.world.Tuning()
	var tp gamemsg.SvTuneParams
	tp.Params = tun.Ints()
	return &tp
}

// cmdTune is the reference's tune on a pure game type: the value is taken,
// and since DM, TDM, CTF, LMS and LTS are pure, a tuning that differs from
// the defaults is reset at once ("resetting tuning due to pure server");
// clients get Sv_TuneParams. The world's tuning never changes, so games
// stay deterministic and replayable.
func (s *Server) cmdTune(name string, v float64) {
	i := world.TuneIndex(name)
	if i < 0 {
		s.consoleOut("No such tuning parameter")
		return
	}
	t := s.world.Tuning()
	t.Set(i, float32(v))
	s.consoleOut(fmt.Sprintf("%s changed to %.2f", name, float32(v)))
	if t != world.DefaultTuning() {
		s.consoleOut("resetting tuning due to pure server")
	}
	s.broadcastGame(-1, s.tuneParamsMsg())
}
