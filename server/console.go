package server

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
)

// Command is one console command (stdin and rcon).
type Command struct {
	Name, Params, Help string
}

// Commands lists the console commands, also announced to rcon clients.
var Commands = []Command{
	{"status", "", "List connected clients with id, address, name, state, score and position"},
	{"kick", "i?r", "Kick client id with an optional reason"},
	{"ban", "s?i?r", "Ban an IP address or client id for minutes (default 5, 0 = permanent) with a reason"},
	{"unban", "s", "Remove the ban of an IP address"},
	{"bans", "", "List bans"},
	{"change_map", "s", "Change the map (also: sv_map NAME)"},
	{"restart", "?i", "Start a new match after the given warmup seconds (default 0)"},
	{"reload", "", "Reload the current map (every client goes through the map change)"},
	{"pause", "?i", "Toggle the pause, or pause for the given seconds"},
	{"set_team", "ii", "Move client id to team -1 (spectators), 0 (red) or 1 (blue)"},
	{"swap_teams", "", "Swap the teams"},
	{"shuffle_teams", "", "Shuffle the teams"},
	{"lock_teams", "", "Lock or unlock the teams"},
	{"say", "r", "Send a server chat message"},
	{"broadcast", "r", "Show a broadcast message"},
	{"logout", "", "Log out of the remote console"},
	{"shutdown", "", "Stop the server"},
	{"stats", "", "Show packet counters (received, dropped by reason, replies) and tick timing"},
	{"help", "", "List commands"},
}

// consoleOut emits one line of command output: to the log for stdin
// commands, and as RCON_LINE to every authenticated rcon client (the
// reference sends console output to all of them).
func (s *Server) consoleOut(line string) {
	if s.rconFrom < 0 {
		s.log.Info().Msg(line)
	}
	s.conPrint(LevelStandard, "server", 0, line)
	for _, c := range s.clients {
		if c.state != stateEmpty && c.rconAuthed {
			s.sendSys(c, netproto.NetmsgRconLine, false, func(p *netproto.Packer) { p.AddStringLimit(line, 512) })
		}
	}
}

// execLine runs one console line. It returns errShutdown for "shutdown".
func (s *Server) execLine(line string) error {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	s.recConsole(line)
	name, args, _ := strings.Cut(line, " ")
	args = strings.TrimSpace(args)
	switch name {
	case "status":
		s.cmdStatus()
	case "kick":
		idStr, reason, _ := strings.Cut(args, " ")
		c := s.clientByArg(idStr)
		if c == nil {
			s.consoleOut("invalid client id")
			return nil
		}
		r := "Kicked by console"
		if reason = strings.TrimSpace(reason); reason != "" {
			r = "Kicked (" + reason + ")"
		}
		s.dropClient(c, r)
	case "ban":
		s.cmdBan(args)
	case "unban":
		ip, err := netip.ParseAddr(args)
		if err != nil || !s.bans.remove(ip) {
			s.consoleOut("no ban for " + args)
			return nil
		}
		s.consoleOut("unbanned " + ip.String())
	case "bans":
		for _, l := range s.bans.list(time.Now()) {
			s.consoleOut(l)
		}
	case "change_map", "sv_map", "map":
		if args == "" {
			s.consoleOut("usage: change_map NAME")
			return nil
		}
		s.pendingMap = args
	case "restart":
		warmup := 0
		if args != "" {
			w, err := strconv.Atoi(args)
			if err != nil {
				s.consoleOut("usage: restart [warmup seconds]")
				return nil
			}
			warmup = w
		}
		s.world.Restart(warmup)
		s.log.Info().Int("warmup", warmup).Msg("match restarted")
	case "reload":
		s.applyMap(s.curMap)
	case "pause":
		if args == "" {
			s.world.TogglePause()
		} else if sec, err := strconv.Atoi(args); err == nil {
			s.world.Pause(sec)
		} else {
			s.consoleOut("usage: pause [seconds]")
		}
	case "set_team":
		idStr, teamStr, _ := strings.Cut(args, " ")
		c := s.clientByArg(idStr)
		team, err := strconv.Atoi(strings.TrimSpace(teamStr))
		if c == nil || c.state != stateIngame || err != nil || team < -1 || team > 1 {
			s.consoleOut("usage: set_team ID TEAM (-1, 0, 1)")
			return nil
		}
		s.world.ForceTeam(c.id, team)
	case "swap_teams":
		s.world.SwapTeams()
	case "shuffle_teams":
		s.world.ShuffleTeams()
	case "lock_teams":
		s.world.LockTeams(!s.world.TeamsLocked())
		s.broadcastGame(-1, s.serverSettings()) // the reference announces the lock only this way
	case "say":
		s.serverChat(-1, args)
		s.log.Info().Str("text", args).Msg("server chat")
	case "broadcast":
		s.broadcastGame(-1, broadcastMsg(args))
	case "logout":
		if s.rconFrom >= 0 {
			c := s.clients[s.rconFrom]
			s.consoleOut("Logout successful.")
			c.rconAuthed = false
			s.recAuth(c, false)
			s.world.SetAuthed(c.id, false)
			s.sendSys(c, netproto.NetmsgRconAuthOff, true, nil)
		}
	case "shutdown":
		return errShutdown
	case "stats":
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
	case "help":
		for _, c := range Commands {
			s.consoleOut(fmt.Sprintf("%-10s %s", c.Name, c.Help))
		}
	default:
		s.consoleOut("No such command: " + name)
	}
	return nil
}

// clientByArg finds a non-empty slot by decimal id.
func (s *Server) clientByArg(a string) *client {
	id, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || id < 0 || id >= len(s.clients) || s.clients[id].state == stateEmpty {
		return nil
	}
	return s.clients[id]
}

func (s *Server) cmdStatus() {
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

// cmdBan: "ban IP|ID [minutes] [reason]".
func (s *Server) cmdBan(args string) {
	f := strings.Fields(args)
	if len(f) == 0 {
		s.consoleOut("usage: ban IP|ID [minutes] [reason]")
		return
	}
	var ip netip.Addr
	if c := s.clientByArg(f[0]); c != nil {
		ip = c.addr.Addr()
	} else if a, err := netip.ParseAddr(f[0]); err == nil {
		ip = a
	} else {
		s.consoleOut("invalid IP address or client id: " + f[0])
		return
	}
	minutes := 5
	rest := f[1:]
	if len(rest) > 0 {
		if m, err := strconv.Atoi(rest[0]); err == nil && m >= 0 {
			minutes, rest = m, rest[1:]
		}
	}
	reason := strings.Join(rest, " ")
	if reason == "" {
		reason = "No reason given"
	}
	text := s.banIP(ip, time.Duration(minutes)*time.Minute, reason)
	s.consoleOut("banned " + ip.String() + ": " + text)
}

// banIP bans ip for d (0 = permanent) and drops every client on it with the
// ban text, which it returns.
func (s *Server) banIP(ip netip.Addr, d time.Duration, reason string) string {
	text := s.bans.add(ip, d, reason, time.Now())
	s.gauges.BansTotal.Add(1)
	s.gauges.Bans.Store(int32(len(s.bans.m)))
	s.rateLog().Str("ip", ip.String()).Int("minutes", int(d/time.Minute)).Str("reason", reason).Msg("ban")
	for _, c := range s.clients {
		if c.state != stateEmpty && c.addr.Addr() == ip {
			s.dropClient(c, text)
		}
	}
	return text
}

// rconAuth handles NETMSG_RCON_AUTH (net.md A3.5).
func (s *Server) rconAuth(c *client, pw string) {
	if s.cfg.Server.RconPassword == "" {
		if !c.rconNoPwWarned {
			c.rconNoPwWarned = true
			s.rconLine(c, "No rcon password set on server. Set sv_rcon_password and/or sv_rcon_mod_password to enable the remote console.")
		}
		return
	}
	if c.rconAuthed {
		return
	}
	if pw == s.cfg.Server.RconPassword {
		c.rconAuthed = true
		s.recAuth(c, true)
		s.world.SetAuthed(c.id, true)
		s.sendSys(c, netproto.NetmsgRconAuthOn, true, nil)
		s.rconLine(c, "Admin authentication successful. Full remote console access granted.")
		s.conRconAuthed(c)
		for _, cmd := range Commands {
			s.sendSys(c, netproto.NetmsgRconCmdAdd, false, func(p *netproto.Packer) {
				p.AddStringLimit(cmd.Name, 32)
				p.AddStringLimit(cmd.Help, 96)
				p.AddStringLimit(cmd.Params, 96)
			})
		}
		if c.version >= 0x0703 {
			s.sendMapList(c)
		}
		s.log.Info().Int("cid", c.id).Str("name", c.name).Msg("rcon authenticated")
		return
	}
	c.rconTries++
	maxTries := s.cfg.Server.RconMaxTries
	s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Msg("rcon wrong password")
	if maxTries > 0 {
		s.rconLine(c, fmt.Sprintf("Wrong password %d/%d.", c.rconTries, maxTries))
		if c.rconTries >= maxTries {
			s.dropClient(c, "Too many remote console authentication tries")
		}
		return
	}
	s.rconLine(c, "Wrong password.")
}

func (s *Server) rconLine(c *client, line string) {
	s.sendSys(c, netproto.NetmsgRconLine, true, func(p *netproto.Packer) { p.AddStringLimit(line, 512) })
}

func broadcastMsg(text string) *gamemsg.SvBroadcast { return &gamemsg.SvBroadcast{Message: text} }

// MaxMapListEntries bounds the map names announced to an rcon client.
const MaxMapListEntries = 256

// sendMapList announces the maps of map.dir (NETMSG_MAPLIST_ENTRY_ADD) to an
// rcon client, as the reference does for clients 0.7.3 and newer.
func (s *Server) sendMapList(c *client) {
	dir := s.cfg.Map.Dir
	if dir == "" {
		return
	}
	names, err := listMaps(dir)
	if err != nil {
		return
	}
	for i, n := range names {
		if i == MaxMapListEntries {
			break
		}
		s.sendSys(c, netproto.NetmsgMaplistEntryAdd, false, func(p *netproto.Packer) { p.AddStringLimit(n, 128) })
	}
}
