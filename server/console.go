package server

import (
	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/mapstore"
	"twserver/netproto"
	"twserver/session"
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
		if c.state != stateEmpty && c.rcon.Authed {
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

// rconAuth handles NETMSG_RCON_AUTH (net.md A3.5; session.Rcon.Auth).
// sendList is false for a 0.6 client that did not ask for the command
// list (its optional int).
func (s *Server) rconAuth(c *client, pw string, sendList bool) {
	l := c.rcon.Auth(s.cfg.Server.RconPassword, pw, s.cfg.Server.RconMaxTries)
	if l.Reply == "" {
		return
	}
	if l.Granted {
		s.rec.Auth(c.id, true)
		s.world.SetAuthed(c.id, true)
		s.sendSys(c, netproto.NetmsgRconAuthOn, true, nil)
		s.rconLine(c, l.Reply)
		s.con.RconAuthed(c.id)
		var maps []string // the lists follow over the next ticks (sendRconLists)
		if c.version >= 0x0703 {
			maps, _ = mapstore.List(s.cfg.Map.Dir) // as the reference announces to clients 0.7.3 and newer
		}
		c.rcon.Announce(sendList, maps)
		s.log.Info().Int("cid", c.id).Str("name", c.name).Msg("rcon authenticated")
		return
	}
	if l.Reply != console.LoginNoPassword {
		s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Msg("rcon wrong password")
	}
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

// sendRconLists sends the next part of the command and map lists to the
// rcon clients whose turn tick is (session.ListTurn).
func (s *Server) sendRconLists(tick int32) {
	for _, c := range s.clients {
		if c.state != stateEmpty && c.rcon.Authed && session.ListTurn(c.id, tick) {
			s.sysH = sysHandler{s: s, c: c}
			c.rcon.SendLists(c.conn.Dialect(), &s.pk, &s.sysH)
			s.sysH = sysHandler{}
		}
	}
}
