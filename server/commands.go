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

	"twserver/config"
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
	{"toggle", "settings come from the configuration file and are not console variables"},
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
		s.bans.clear()
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

// banAddrStr is the reference's address in ban texts (NetToString): the
// IP in single quotes.
func banAddrStr(ip netip.Addr) string { return "'" + refAddr(netip.AddrPortFrom(ip, 0), false) + "'" }

// parseRefAddr reads an address as the reference's ban commands take it:
// an IP address, optionally with a port (ignored), IPv6 optionally in brackets.
func parseRefAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
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

// Ban minutes of the reference's ban command.
const (
	// DefaultBanMinutes is the ban time when none is given.
	DefaultBanMinutes = 30
	// MaxBanMinutes is the longest ban time the ban command takes (31 days).
	MaxBanMinutes = 31 * 24 * 60
)

// cmdBan: "ban ID|IP [minutes] [reason]" with the reference's texts.
func (s *Server) cmdBan(a cmdArgs) {
	target := a.str(0)
	minutes := DefaultBanMinutes
	if a.n() > 1 {
		minutes = min(max(a.int(1), 0), MaxBanMinutes)
	}
	reason := "No reason given"
	if a.n() > 2 {
		reason = a.str(2)
	}
	var ip netip.Addr
	switch {
	case strings.Trim(target, "0123456789") == "": // str_is_number: only digits
		cid := a.int(0)
		if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == stateEmpty {
			s.consoleOut("ban error (invalid client id)")
			return
		}
		ip = s.clients[cid].addr.Addr().Unmap()
	case strings.Contains(strings.TrimSuffix(target, "-"), "-"):
		s.consoleOut("ban error (address ranges are not supported by twserver)")
		return
	default:
		var ok bool
		if ip, ok = parseRefAddr(strings.TrimSuffix(target, "-")); !ok {
			s.consoleOut("ban error (invalid network address)")
			return
		}
	}
	s.banAddr(ip, minutes, reason)
}

// banAddr is the reference's checked ban (CServerBan::BanExt): it refuses
// to ban the rcon user's own address, an address of another authenticated
// client (and, for a passed vote, of any authenticated client) and the
// loopback addresses 127.0.0.1 and ::1; then it bans, prints the result and
// drops the clients on the address. It reports whether the ban was made.
func (s *Server) banAddr(ip netip.Addr, minutes int, reason string) bool {
	if s.rconFrom >= 0 {
		if s.clients[s.rconFrom].addr.Addr().Unmap() == ip {
			s.consoleOut("ban error (you can't ban yourself)")
			return false
		}
	}
	if s.rconFrom >= 0 || s.rconFrom == rconCIDVote {
		for _, c := range s.clients {
			if c.id != s.rconFrom && c.state != stateEmpty && c.rconAuthed && c.addr.Addr().Unmap() == ip {
				s.consoleOut("ban error (command denied)")
				return false
			}
		}
	}
	if ip == netip.IPv4Unspecified() || ip == netip.MustParseAddr("127.0.0.1") || ip == netip.IPv6Loopback() {
		s.consoleOut("ban failed (localhost)")
		return false
	}
	now := time.Now()
	b, updated := s.bans.add(ip, time.Duration(minutes)*time.Minute, reason, now)
	switch {
	case b == nil:
		s.consoleOut("ban failed (full banlist)")
		return false
	case updated:
		s.consoleOut(banInfo(banAddrStr(ip)+" banned", b, now))
	default:
		s.consoleOut(banInfo("banned "+banAddrStr(ip), b, now))
	}
	s.dropBanned(ip, b, now, minutes)
	return true
}

// banIP bans ip for d (0 = permanent) without the console's checks and
// texts (the stress ban) and drops every client on it; it returns the
// player's ban text.
func (s *Server) banIP(ip netip.Addr, d time.Duration, reason string) string {
	now := time.Now()
	b, _ := s.bans.add(ip, d, reason, now)
	if b == nil {
		return "ban list full"
	}
	s.dropBanned(ip.Unmap(), b, now, int(d/time.Minute))
	return banText(b, now)
}

func (s *Server) dropBanned(ip netip.Addr, b *ban, now time.Time, minutes int) {
	s.gauges.BansTotal.Add(1)
	s.gauges.Bans.Store(int32(len(s.bans.m)))
	s.rateLog().Str("ip", ip.String()).Int("minutes", minutes).Str("reason", b.reason).Msg("ban")
	text := banText(b, now)
	for _, c := range s.clients {
		if c.state != stateEmpty && c.addr.Addr().Unmap() == ip {
			s.dropClient(c, text)
		}
	}
}

// cmdUnban: an address, or (only digits) the number of a bans line.
func (s *Server) cmdUnban(arg string) {
	now := time.Now()
	if strings.Trim(arg, "0123456789") == "" {
		i := cmdArgs{arg}.int(0)
		es := s.bans.entries(now)
		if i < 0 || i >= len(es) {
			s.consoleOut("unban failed (invalid index)")
			return
		}
		s.bans.remove(es[i].ip)
		s.gauges.Bans.Store(int32(len(s.bans.m)))
		s.consoleOut(fmt.Sprintf("unbanned index %d (%s)", i, banAddrStr(es[i].ip)))
		return
	}
	if strings.Contains(strings.TrimSuffix(arg, "-"), "-") {
		s.consoleOut("unban error (address ranges are not supported by twserver)")
		return
	}
	ip, ok := parseRefAddr(strings.TrimSuffix(arg, "-"))
	if !ok {
		s.consoleOut("unban error (invalid network address)")
		return
	}
	b := s.bans.m[ip]
	if b == nil {
		s.consoleOut("unban failed (invalid entry)")
		return
	}
	text := banInfo("unbanned "+banAddrStr(ip), b, now)
	s.bans.remove(ip)
	s.gauges.Bans.Store(int32(len(s.bans.m)))
	s.consoleOut(text)
}

// cmdBans lists the bans as the reference: "#N IP banned for ... (reason)"
// and a count line.
func (s *Server) cmdBans() {
	now := time.Now()
	es := s.bans.entries(now)
	for i, e := range es {
		s.consoleOut(fmt.Sprintf("#%d %s", i, banInfo(banAddrStr(e.ip)+" banned", e.b, now)))
	}
	word := "bans"
	if len(es) == 1 {
		word = "ban"
	}
	s.consoleOut(fmt.Sprintf("%d %s", len(es), word))
}

// cmdBansSave writes "ban IP MINUTES REASON" lines (-1 minutes: for life,
// as the reference writes them) that exec reads back.
func (s *Server) cmdBansSave(name string) {
	p, ok := relPath(name)
	if !ok {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	now := time.Now()
	var b strings.Builder
	for _, e := range s.bans.entries(now) {
		mins := -1
		if !e.b.until.IsZero() {
			mins = int((e.b.until.Sub(now) + time.Minute - 1) / time.Minute)
		}
		fmt.Fprintf(&b, "ban %s %d %s\n", refAddr(netip.AddrPortFrom(e.ip, 0), false), mins, e.b.reason)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		s.consoleOut(fmt.Sprintf("failed to save banlist to '%s'", name))
		return
	}
	s.consoleOut(fmt.Sprintf("saved banlist to '%s'", name))
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

// addVoteOption is the reference's add_vote: checks, then Sv_VoteOptionAdd
// to every client.
func (s *Server) addVoteOption(desc, command string) {
	if len(s.cfg.Votes) >= config.MaxVoteOptions {
		s.consoleOut("maximum number of vote options reached")
		return
	}
	if !s.lineIsValid(command) || len(command) > config.MaxVoteCmdLen {
		s.consoleOut(fmt.Sprintf("skipped invalid command '%s'", command))
		return
	}
	desc = strings.TrimLeft(desc, " ")
	if desc == "" || len(desc) > config.MaxVoteDescLen {
		s.consoleOut(fmt.Sprintf("skipped invalid option '%s'", desc))
		return
	}
	if s.voteOption(desc) >= 0 {
		s.consoleOut(fmt.Sprintf("option '%s' already exists", desc))
		return
	}
	// a new slice: the configuration's own may be shared with the caller of New
	s.cfg.Votes = append(slices.Clip(s.cfg.Votes), config.VoteOption{Description: desc, Command: command})
	s.consoleOut(fmt.Sprintf("added option '%s' '%s'", desc, command))
	s.broadcastGame(-1, &gamemsg.SvVoteOptionAdd{Description: desc})
}

// removeVoteOption is the reference's remove_vote.
func (s *Server) removeVoteOption(desc string) {
	i := s.voteOption(desc)
	if i < 0 {
		s.consoleOut(fmt.Sprintf("option '%s' does not exist", desc))
		return
	}
	o := s.cfg.Votes[i]
	s.broadcastGame(-1, &gamemsg.SvVoteOptionRemove{Description: o.Description})
	s.cfg.Votes = slices.Concat(s.cfg.Votes[:i], s.cfg.Votes[i+1:])
	s.consoleOut(fmt.Sprintf("removed option '%s' '%s'", o.Description, o.Command))
}

// clearVoteOptions is the reference's clear_votes.
func (s *Server) clearVoteOptions() {
	s.consoleOut("cleared votes")
	s.broadcastGame(-1, &gamemsg.SvVoteClearOptions{})
	s.cfg.Votes = nil
}

// voteOption returns the index of the option with description desc
// (case-insensitive), or -1.
func (s *Server) voteOption(desc string) int {
	for i, o := range s.cfg.Votes {
		if strings.EqualFold(o.Description, desc) {
			return i
		}
	}
	return -1
}

// lineIsValid reports whether every command of line exists and has valid
// arguments (the reference's check of vote commands).
func (s *Server) lineIsValid(line string) bool {
	parts := splitCommands(line)
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		name, rest := splitName(p)
		c, ok := lookupCommand(name)
		if !ok {
			return false
		}
		if _, err := parseArgs(rest, c.Params); err != nil {
			return false
		}
	}
	return true
}
