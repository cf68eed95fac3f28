package server

import (
	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/netproto"
)

// consoleOut prints one line of command output on the console (conHost.Output
// shows it).
func (s *Server) consoleOut(line string) { s.cons.Print(line) }

// runConsole runs a console line for caller; it reports whether the line
// asked for the shutdown.
func (s *Server) runConsole(c console.Caller, line string) bool {
	return s.cons.Run(c, line) == errShutdown
}

// conHost is the game's side of the console (console.Host), called from
// the game loop only.
type conHost struct{ s *Server }

// Output shows one line of command output: in the log unless an rcon
// client ran the command, and as RCON_LINE to every authenticated rcon
// client (the reference sends console output to all of them).
func (h conHost) Output(by console.Caller, line string) {
	s := h.s
	if by.Kind != console.Rcon {
		s.log.Info().Msg(line)
	}
	s.con.Print(console.LevelStandard, "server", 0, line)
	for _, c := range s.clients {
		if c.state != stateEmpty && c.rconAuthed {
			s.sendSys(c, netproto.NetmsgRconLine, false, func(p *netproto.Packer) { p.AddStringLimit(line, 512) })
		}
	}
}

// Config returns the running configuration.
func (h conHost) Config() *config.Config { return &h.s.cfg }

// SetSetting makes next the running configuration after setting name
// changed to val and applies it to the game.
func (h conHost) SetSetting(name, val, warn string, next config.Config) {
	s := h.s
	if warn != "" {
		s.log.Info().Str("setting", name).Msg(warn)
	}
	old := s.cfg
	s.cfg = next
	s.applySetting(name, val, &old)
	s.log.Info().Str("setting", name).Str("value", console.LogValue(name, val)).Str("takes_effect", console.SettingTakesEffect(name)).Msg("setting changed")
}

// Record records a console command about to run.
func (h conHost) Record(by console.Caller, name string, args []string) {
	h.s.rec.Console(by.CID(), name, args)
}

// MapName returns the current map's name.
func (h conHost) MapName() string { return h.s.curMap.Name }

// Shutdown stops the server after this tick.
func (h conHost) Shutdown() { h.s.pendingShutdown = true }

// rconAuth handles NETMSG_RCON_AUTH (net.md A3.5) by the login rule of
// console.CheckLogin. sendList is false for a 0.6 client that did not ask
// for the command list (its optional int).
func (s *Server) rconAuth(c *client, pw string, sendList bool) {
	if s.cfg.Server.RconPassword == "" {
		if !c.rconNoPwWarned {
			c.rconNoPwWarned = true
			s.rconLine(c, console.LoginNoPassword)
		}
		return
	}
	if c.rconAuthed {
		return
	}
	l := console.CheckLogin(s.cfg.Server.RconPassword, pw, c.rconTries, s.cfg.Server.RconMaxTries)
	c.rconTries = l.Tries
	if l.Granted {
		c.rconAuthed = true
		s.rec.Auth(c.id, true)
		s.world.SetAuthed(c.id, true)
		s.sendSys(c, netproto.NetmsgRconAuthOn, true, nil)
		s.rconLine(c, l.Reply)
		s.con.RconAuthed(c.id)
		// The lists follow over the next ticks (sendRconLists).
		c.rconCmdNext, c.rconMaps, c.rconMapNext = len(console.RconCommands()), nil, 0
		if sendList {
			c.rconCmdNext = 0
		}
		if c.version >= 0x0703 {
			c.rconMaps = s.mapList()
		}
		s.log.Info().Int("cid", c.id).Str("name", c.name).Msg("rcon authenticated")
		return
	}
	s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Msg("rcon wrong password")
	s.rconLine(c, l.Reply)
	if l.Exhausted {
		if bt := s.cfg.Server.RconBanTime; bt > 0 {
			s.banAddr(console.CIDConsole, c.addr.Addr().Unmap(), bt, console.LoginTooManyTries)
		} else {
			s.dropClient(c, console.LoginTooManyTries)
		}
	}
}

func (s *Server) rconLine(c *client, line string) {
	s.sendSys(c, netproto.NetmsgRconLine, true, func(p *netproto.Packer) { p.AddStringLimit(line, 512) })
}

func broadcastMsg(text string) *gamemsg.SvBroadcast { return &gamemsg.SvBroadcast{Message: text} }

// MaxMapListEntries bounds the map names announced to an rcon client.
const MaxMapListEntries = 256

// Pacing of the lists an rcon login announces, as the reference 0.7.5
// (UpdateClientRconCommands, UpdateClientMapListEntries): each tick serves
// the authenticated clients whose id ≡ tick mod RconListGroups, each with
// at most RconCmdsPerTick RCON_CMD_ADD and RconMapsPerTick
// MAPLIST_ENTRY_ADD, all vital. About 100 commands thus take 7 rounds of 8
// ticks (1.1 s), and one tick adds at most
// MaxClients/RconListGroups × (RconCmdsPerTick + RconMapsPerTick) chunks.
const (
	// RconListGroups is the number of client groups served in turn (MAX_RCONCMD_RATIO).
	RconListGroups = 8
	// RconCmdsPerTick bounds the command descriptions one client gets per tick (MAX_RCONCMD_SEND).
	RconCmdsPerTick = 16
	// RconMapsPerTick bounds the map list entries one client gets per tick (MAX_MAPLISTENTRY_SEND).
	RconMapsPerTick = 32
)

// mapList returns the maps of map.dir (at most MaxMapListEntries) for
// MAPLIST_ENTRY_ADD, as the reference announces to clients 0.7.3 and newer.
func (s *Server) mapList() []string {
	dir := s.cfg.Map.Dir
	if dir == "" {
		return nil
	}
	names, err := listMaps(dir)
	if err != nil {
		return nil
	}
	return names[:min(len(names), MaxMapListEntries)]
}

// sendRconLists sends the next part of the command and map lists to the
// rcon clients whose turn tick is (see RconListGroups).
func (s *Server) sendRconLists(tick int32) {
	cmds := console.RconCommands()
	for id := int(tick % RconListGroups); id < len(s.clients); id += RconListGroups {
		c := s.clients[id]
		if c.state == stateEmpty || !c.rconAuthed {
			continue
		}
		for end := min(c.rconCmdNext+RconCmdsPerTick, len(cmds)); c.rconCmdNext < end; c.rconCmdNext++ {
			cmd := &cmds[c.rconCmdNext]
			s.sendSys(c, netproto.NetmsgRconCmdAdd, false, func(p *netproto.Packer) {
				p.AddStringLimit(cmd.Name, netproto.MaxRconCmdNameLen)
				p.AddStringLimit(cmd.Help, netproto.MaxRconCmdHelpLen)
				p.AddStringLimit(cmd.Params, netproto.MaxRconCmdHelpLen)
			})
		}
		for end := min(c.rconMapNext+RconMapsPerTick, len(c.rconMaps)); c.rconMapNext < end; c.rconMapNext++ {
			name := c.rconMaps[c.rconMapNext]
			s.sendSys(c, netproto.NetmsgMaplistEntryAdd, false, func(p *netproto.Packer) { p.AddStringLimit(name, 128) })
		}
	}
}
