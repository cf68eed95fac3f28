package server

import (
	"fmt"

	"twserver/gamemsg"
	"twserver/netproto"
)

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
		for _, cmd := range rconCommands() {
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
			const reason = "Too many remote console authentication tries"
			if bt := s.cfg.Server.RconBanTime; bt > 0 {
				s.banAddr(c.addr.Addr().Unmap(), bt, reason)
			} else {
				s.dropClient(c, reason)
			}
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
