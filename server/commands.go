package server

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"twserver/console"
	"twserver/edge"
	"twserver/gamemsg"
	"twserver/mapstore"
	"twserver/netproto"
	"twserver/record"
	"twserver/session"
	"twserver/world"
	"twserver/world/tuning"
	"twserver/worldcmd"
)

// The console (package console) parses and runs the command lines of
// stdin, rcon, econ and the command FIFO; the game's commands are these
// handlers, handed to it by name in New (conHandlers). It fails to build a
// server when a command has no handler.

// conHandlers returns the handlers of the game's console commands.
func (s *Server) conHandlers() map[string]console.Handler {
	h := map[string]console.Handler{
		"kick":   s.cmdKick,
		"status": s.cmdStatus,
		"logout": s.cmdLogout,
		"record": s.cmdRecord,
		"demo_clip": func(_ console.Caller, a console.Args) error {
			path, err := s.rec.Clip(a.Int(0), record.DemoName(a.Str(1), time.Now()))
			if err != nil {
				s.consoleOut("demo_clip: " + err.Error())
			} else {
				s.consoleOut(fmt.Sprintf("Writing the last %d s to '%s'", a.Int(0), path))
			}
			return nil
		},
		"stoprecord": func(console.Caller, console.Args) error {
			if s.rec.StopDemo() {
				s.consoleOut("Stopped recording")
			}
			return nil
		},
		"reload": func(console.Caller, console.Args) error { s.applyMap(s.curMap); return nil },
		"ban":    func(c console.Caller, a console.Args) error { s.cmdBan(c.CID(), a); return nil },
		"unban":  func(_ console.Caller, a console.Args) error { s.cmdUnban(a.Str(0)); return nil },
		"unban_all": func(console.Caller, console.Args) error {
			s.bans.Clear()
			s.gauges.Bans.Store(0)
			s.consoleOut("unbanned all entries")
			return nil
		},
		"bans": func(console.Caller, console.Args) error { s.bans.List(time.Now(), s.consoleOut); return nil },
		"bans_save": func(_ console.Caller, a console.Args) error {
			p, _ := console.RelPath(a.Str(0))
			s.consoleOut(s.bans.SaveFile(p, a.Str(0), time.Now()))
			return nil
		},
		"tune": func(_ console.Caller, a console.Args) error { s.cmdTune(a.Str(0), a.Float(1)); return nil },
		"tune_reset": func(console.Caller, console.Args) error {
			s.broadcastGame(-1, s.tuneParamsMsg())
			s.consoleOut("Tuning reset")
			return nil
		},
		"change_map": func(_ console.Caller, a console.Args) error {
			m := a.Str(0)
			if m == "" {
				m = mapstore.Next(s.cfg.Map, s.curMap.Name)
			}
			s.pendingMap = m
			return nil
		},
		"say": func(_ console.Caller, a console.Args) error {
			s.serverChat(-1, a.Str(0))
			s.log.Info().Str("text", a.Str(0)).Msg("server chat")
			return nil
		},
		"broadcast": func(_ console.Caller, a console.Args) error {
			s.broadcastGame(-1, broadcastMsg(a.Str(0)))
			return nil
		},
		"lock_teams": func(console.Caller, console.Args) error {
			s.world.LockTeams(!s.world.TeamsLocked())
			s.broadcastGame(-1, s.serverSettings()) // the reference announces the lock only this way
			return nil
		},
		"add_vote":    func(_ console.Caller, a console.Args) error { s.addVoteOption(a.Str(0), a.Str(1)); return nil },
		"remove_vote": func(_ console.Caller, a console.Args) error { s.removeVoteOption(a.Str(0)); return nil },
		"clear_votes": func(console.Caller, console.Args) error { s.clearVoteOptions(); return nil },
		"vote": func(_ console.Caller, a console.Args) error {
			if s.vote.Force(a.Str(0)) { // the running vote passes or fails at the next tick
				s.consoleOut("forcing vote " + a.Str(0))
			}
			return nil
		},
		"force_vote": func(c console.Caller, a console.Args) error {
			s.callVote(c.CID(), a.Str(0), a.Str(1), a.Str(2), true, &c)
			return nil
		},
		"players": func(console.Caller, console.Args) error { s.cmdPlayers(); return nil },
		"stats":   func(console.Caller, console.Args) error { s.cmdStats(); return nil },
	}
	maps.Copy(h, s.bots.Handlers())
	maps.Copy(h, worldcmd.Handlers(func() *world.World { return s.world }, s.consoleOut,
		func(warmup int) { s.log.Info().Int("warmup", warmup).Msg("match restarted") }))
	return h
}

// cmdStatus prints the reference's status lines, one per client: in game
// "id=N addr=IP:PORT client=VERSION name='NAME' score=S AUTH" (version in
// hexadecimal, AUTH "(Admin)" or empty), otherwise "id=N addr=IP:PORT connecting".
func (s *Server) cmdStatus(console.Caller, console.Args) error {
	for _, c := range s.clients {
		if c.state == session.Empty {
			continue
		}
		if c.state != session.Ingame {
			s.consoleOut(fmt.Sprintf("id=%d addr=%s connecting", c.id, edge.RefAddr(c.addr, true)))
			continue
		}
		auth := ""
		if c.rcon.Authed {
			auth = "(Admin)"
		}
		s.consoleOut(fmt.Sprintf("id=%d addr=%s client=%x name='%s' score=%d %s", c.id, edge.RefAddr(c.addr, true),
			c.version, c.name, s.world.Score(c.id), auth))
	}
	s.bots.Status(s.consoleOut)
	return nil
}

// cmdPlayers is twserver's detailed client list (the status of earlier
// twserver versions): state, team, score, latency and position.
func (s *Server) cmdPlayers() {
	n := 0
	for _, c := range s.clients {
		if c.state == session.Empty {
			continue
		}
		n++
		line := fmt.Sprintf("id=%d addr=%s state=%s name=%q", c.id, c.addr, c.state, c.name)
		if c.state == session.Ingame {
			line += fmt.Sprintf(" team=%d score=%d latency=%d", s.world.Team(c.id), s.world.Score(c.id), c.latencyMs)
			if x, y, ok := session.ShownPos(&c.storage, c.conn.Dialect().Is6(), c.id, s.world.CurrentTick(), s.world); ok {
				line += fmt.Sprintf(" pos=(%d,%d)", x, y)
			}
		}
		s.consoleOut(line)
	}
	s.bots.Status(s.consoleOut)
	s.consoleOut(fmt.Sprintf("%d client(s), map %s, tick %d", n, s.curMap.Name, s.world.CurrentTick()))
}

func (s *Server) cmdStats() {
	s.consoleOut(s.stats.CountersLine())
	s.consoleOut(s.pregameSummary())
	s.consoleOut(s.ticks.Summary())
}

// cmdKick: the reference's kick with its refusals.
func (s *Server) cmdKick(by console.Caller, a console.Args) error {
	cid := a.Int(0)
	if cid < 0 || cid >= len(s.clients) || s.clients[cid].state == session.Empty {
		s.consoleOut("invalid client id to kick" + s.bots.KickHint(cid))
		return nil
	}
	if cid == by.CID() {
		s.consoleOut("you can't kick yourself")
		return nil
	}
	reason := "Kicked by console"
	if a.N() > 1 {
		reason = "Kicked (" + a.Str(1) + ")"
	}
	s.dropClient(s.clients[cid], reason)
	return nil
}

// cmdLogout ends the rcon session of its caller.
func (s *Server) cmdLogout(by console.Caller, _ console.Args) error {
	if by.Kind != console.Rcon {
		return nil
	}
	c := s.clients[by.ID]
	if c.state == session.Empty || !c.rcon.Authed {
		return nil
	}
	s.sendSys(c, netproto.NetmsgRconAuthOff, true, nil)
	c.rcon.Logout()
	s.rec.Auth(c.id, false)
	s.world.SetAuthed(c.id, false)
	s.rconLine(c, "Logout successful.")
	s.consoleOut(fmt.Sprintf("ClientID=%d logged out", c.id))
	return nil
}

// cmdRecord starts a demo of the current game (the reference's record).
func (s *Server) cmdRecord(_ console.Caller, a console.Args) error {
	name := record.DemoName(a.Str(0), time.Now())
	path, err := s.rec.StartDemo(name)
	switch {
	case errors.Is(err, record.ErrDemoRecording):
		s.consoleOut("already recording a demo (stoprecord first)")
	case errors.Is(err, record.ErrNoDir):
		s.consoleOut("record.dir is not set")
	case err != nil:
		s.consoleOut(fmt.Sprintf("Unable to open '%s' for recording", name))
	default:
		s.consoleOut(fmt.Sprintf("Recording to '%s'", path))
	}
	return nil
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
	i := tuning.Index(name)
	if i < 0 {
		s.consoleOut("No such tuning parameter")
		return
	}
	t := s.world.Tuning()
	t.Set(i, float32(v))
	s.consoleOut(fmt.Sprintf("%s changed to %.2f", name, float32(v)))
	if t != tuning.Default() {
		s.consoleOut("resetting tuning due to pure server")
	}
	s.broadcastGame(-1, s.tuneParamsMsg())
}
