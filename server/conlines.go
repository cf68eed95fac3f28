package server

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"twserver/console"
	"twserver/world"
)

// Console output for side channels (the econ): the loop hands every line
// the 0.7.5 server prints on its console (command replies and the event
// lines existing tools parse, ops-facts section 2) to the sinks installed
// with OnConsoleLine (console.Sinks). Nothing is formatted unless a sink
// wants the line's level, so a server without econ does no work here; with
// one, it costs one string per event line (no work per tick).

// Console output levels (console.LevelStandard and the others).
const (
	// LevelStandard (0): command replies, joins, leaves, drops, votes.
	LevelStandard = console.LevelStandard
	// LevelAddInfo (1): chat, "player is ready", rcon commands.
	LevelAddInfo = console.LevelAddInfo
	// LevelDebug (2): kills, team joins, flag events, pickups.
	LevelDebug = console.LevelDebug
)

// ErrStopped is returned by SubmitConsole once the game loop has stopped.
var ErrStopped = errors.New("server: game loop stopped")

// ErrLineTooLong is returned by SubmitConsole for a line over MaxConsoleLine.
var ErrLineTooLong = errors.New("server: console line too long")

// conState is the console output state, owned by the loop (sinks are
// installed before Run).
type conState struct {
	sinks  console.Sinks
	names  []string // name of each slot's last client, for lines printed after it left
	done   chan struct{}
	submit chan *consoleSubmit // lines of the side channels (SubmitConsole)
}

// consoleSubmit is a console line of another goroutine; the loop runs it
// for caller, fills out when collect is set, then closes done.
type consoleSubmit struct {
	caller  console.Caller
	line    string
	collect bool
	who     string // the administrator of an Admin line (RunAdmin)
	out     []string
	done    chan struct{}
}

// OnConsoleLine installs f to receive every console line of level maxLevel
// and below, from the game loop goroutine: f must return at once without
// blocking (hand the line to your own goroutine over a bounded channel).
// Call it before Run.
func (s *Server) OnConsoleLine(maxLevel int, f func(console.Line)) {
	s.con.sinks.Add(maxLevel, f)
	if s.con.names == nil {
		s.con.names = make([]string, len(s.clients))
	}
}

// SubmitConsole hands one console line of a side channel (the econ, the
// command FIFO) to the game loop, which runs it like a line of the console
// on standard input (same commands, output to the log and the console
// sinks) for caller console.Side, and returns once it ran: its output has
// been handed to the sinks by then, so a side channel keeps a command's
// output before whatever it prints next. It waits while the queue
// (ConsoleQueueLen) is full, until ctx is done or the loop has stopped
// (ErrStopped). Safe from any goroutine.
func (s *Server) SubmitConsole(ctx context.Context, line string) error {
	_, err := s.submit(ctx, &consoleSubmit{caller: console.Caller{Kind: console.Side}, line: line})
	return err
}

// RunConsole runs one console line for caller in the game loop as
// SubmitConsole does, and returns the lines it printed (which also go to
// the log, the rcon clients and the sinks as every console output does).
// It is meant for an administration page (caller console.Admin). Safe from
// any goroutine.
func (s *Server) RunConsole(ctx context.Context, caller console.Caller, line string) ([]string, error) {
	return s.submit(ctx, &consoleSubmit{caller: caller, line: line, collect: true})
}

// RunAdmin runs one console line of an administration page as
// RunConsole does for caller console.Admin, and writes the audit line of
// the action: who (the page's name for the administrator: token name and
// address), the line and its result, to the log and to the console sinks
// (the econ) at the level of rcon commands. Safe from any goroutine.
func (s *Server) RunAdmin(ctx context.Context, who, line string) ([]string, error) {
	return s.submit(ctx, &consoleSubmit{caller: console.Caller{Kind: console.Admin}, who: who, line: line, collect: true})
}

// submit queues sub for the loop and waits until it ran.
func (s *Server) submit(ctx context.Context, sub *consoleSubmit) ([]string, error) {
	if len(sub.line) > MaxConsoleLine {
		return nil, ErrLineTooLong
	}
	sub.done = make(chan struct{})
	select {
	case s.con.submit <- sub:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.con.done:
		return nil, ErrStopped
	}
	select {
	case <-sub.done:
		return sub.out, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.con.done:
		return nil, ErrStopped
	}
}

// runSubmitted runs a submitted line in the loop; it reports whether the
// line asked for the shutdown.
func (s *Server) runSubmitted(sub *consoleSubmit) bool {
	var err error
	if sub.collect {
		sub.out, err = s.cons.Collect(sub.caller, sub.line)
	} else {
		err = s.cons.Run(sub.caller, sub.line)
	}
	if sub.caller.Kind == console.Admin && sub.who != "" {
		s.auditAdmin(sub, err)
	}
	close(sub.done)
	return err == errShutdown
}

// conOn reports whether some sink wants lines of level.
func (s *Server) conOn(level int) bool { return s.con.sinks.On(level) }

// conPrint hands one line to the sinks that want its level. size is the
// reference's buffer for the text (longer texts are cut to size-1 bytes as
// its str_format does); 0 = no cut.
func (s *Server) conPrint(level int, system string, size int, text string) {
	if !s.conOn(level) {
		return
	}
	if size > 0 {
		text = truncUTF8(text, size-1)
	}
	s.con.sinks.Print(level, system, text)
}

// conAddr is an address as the reference prints it (IPv4 without the
// IPv6 mapping, with the port).
func conAddr(a netip.AddrPort) string {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()).String()
}

// conName is the name of client cid for a console line: its current name,
// or the name it had when it left (for kill lines drained after a drop).
func (s *Server) conName(cid int) string {
	if cid < 0 || cid >= len(s.clients) {
		return ""
	}
	if c := s.clients[cid]; c.state != stateEmpty && c.name != "" {
		return c.name
	}
	return s.con.names[cid]
}

// conReady prints NETMSG_READY (server.cpp "player is ready").
func (s *Server) conReady(c *client) {
	if s.conOn(LevelAddInfo) {
		s.conPrint(LevelAddInfo, "server", 256, fmt.Sprintf("player is ready. ClientID=%d addr=%s", c.id, conAddr(c.addr)))
	}
}

// conEnter prints ENTERGAME and the start team (OnPlayerConnect).
func (s *Server) conEnter(c *client) {
	if !s.conOn(LevelStandard) {
		return
	}
	s.conPrint(LevelStandard, "server", 256, fmt.Sprintf("player has entered the game. ClientID=%d addr=%s", c.id, conAddr(c.addr)))
	if s.conOn(LevelDebug) {
		s.conPrint(LevelDebug, "game", 128, fmt.Sprintf("team_join player='%d:%s' team=%d", c.id, c.name, s.world.Team(c.id)))
	}
}

// conDrop prints a dropped client (DelClientCallback) and, for a client
// that was in game, its leaving (OnPlayerDisconnect). The kill of its
// character is drained with the world's events after the next tick, so
// that line follows these two (the reference prints it between them).
func (s *Server) conDrop(c *client, reason string, wasIngame bool) {
	if !s.conOn(LevelStandard) {
		return
	}
	s.con.names[c.id] = c.name
	s.conPrint(LevelStandard, "server", 256, fmt.Sprintf("client dropped. cid=%d addr=%s reason='%s'", c.id, conAddr(c.addr), reason))
	if wasIngame {
		s.conPrint(LevelStandard, "game", 128, fmt.Sprintf("leave player='%d:%s'", c.id, c.name))
	}
}

// conChat prints a chat line (SendChat): mode chatAll or chatTeam; whispers
// are not printed.
func (s *Server) conChat(c *client, mode int32, team int, text string) {
	if !s.conOn(LevelAddInfo) {
		return
	}
	if mode == chatTeam {
		s.conPrint(LevelAddInfo, "teamchat", 256, fmt.Sprintf("%d:%d:%d:%s: %s", mode, team, c.id, c.name, text))
		return
	}
	s.conPrint(LevelAddInfo, "chat", 256, fmt.Sprintf("%d:%d:%s: %s", mode, c.id, c.name, text))
}

// conServerChat prints a server chat line (SendChat with client id -1).
func (s *Server) conServerChat(text string) {
	if s.conOn(LevelAddInfo) {
		s.conPrint(LevelAddInfo, "chat", 256, "*** "+text)
	}
}

// conRcon prints an rcon command of an authenticated client.
func (s *Server) conRcon(c *client, cmd string) {
	if s.conOn(LevelAddInfo) {
		s.conPrint(LevelAddInfo, "server", 256, fmt.Sprintf("ClientID=%d rcon='%s'", c.id, cmd))
	}
}

// auditAdmin writes the audit line of an administration page's command.
func (s *Server) auditAdmin(sub *consoleSubmit, err error) {
	result := "ok"
	if err != nil && err != errShutdown {
		result = err.Error()
	}
	s.log.Info().Str("who", sub.who).Str("line", sub.line).Str("result", result).Msg("admin command")
	if s.conOn(LevelAddInfo) {
		s.conPrint(LevelAddInfo, "server", 512, fmt.Sprintf("admin='%s' rcon='%s' result='%s'", sub.who, sub.line, result))
	}
}

// conRconAuthed prints a successful rcon login.
func (s *Server) conRconAuthed(c *client) {
	if s.conOn(LevelStandard) {
		s.conPrint(LevelStandard, "server", 256, fmt.Sprintf("ClientID=%d authed (admin)", c.id))
	}
}

// conWorldEvent prints the game lines of a world event (all LevelDebug):
// kills, team changes, flag grabs, returns and captures, pickups.
func (s *Server) conWorldEvent(e world.Event) {
	if !s.conOn(LevelDebug) {
		return
	}
	a := e.Args
	switch e.Kind {
	case world.EvKillMsg:
		killer, victim := int(a[0]), int(a[1])
		vic := fmt.Sprintf("victim='%d:%d:%s' weapon=%d special=%d", victim, a[4], s.conName(victim), a[2], a[3])
		if killer < 0 {
			s.conPrint(LevelDebug, "game", 256, fmt.Sprintf("kill killer='%d:%d:' %s", killer, -1-killer, vic))
			return
		}
		team := int(a[4]) // a suicide: the team the victim died in
		if killer != victim {
			team = s.world.Team(killer)
		}
		s.conPrint(LevelDebug, "game", 256, fmt.Sprintf("kill killer='%d:%d:%s' %s", killer, team, s.conName(killer), vic))
	case world.EvTeam:
		s.conPrint(LevelDebug, "game", 128, fmt.Sprintf("team_join player='%d:%s' team=%d->%d", a[0], s.conName(int(a[0])), a[4], a[1]))
	case world.EvFlagGrab:
		s.conPrint(LevelDebug, "game", 256, fmt.Sprintf("flag_grab player='%d:%s' team=%d", a[0], s.conName(int(a[0])), a[1]))
	case world.EvFlagReturn:
		if a[0] < 0 {
			s.conPrint(LevelDebug, "game", 0, "flag_return")
			return
		}
		s.conPrint(LevelDebug, "game", 256, fmt.Sprintf("flag_return player='%d:%s' team=%d", a[0], s.conName(int(a[0])), a[1]))
	case world.EvGameMsg:
		if a[0] == world.GameMsgCTFCapture {
			cid := int(a[2])
			secs := float64(float32(a[3]) / float32(time.Second/TickDuration)) // ticks to seconds, in float as the reference
			s.conPrint(LevelDebug, "game", 64, fmt.Sprintf("flag_capture player='%d:%s' team=%d time=%.2f", cid, s.conName(cid), s.world.Team(cid), secs))
		}
	case world.EvPickup:
		s.conPrint(LevelDebug, "game", 256, fmt.Sprintf("pickup player='%d:%s' item=%d", a[0], s.conName(int(a[0])), a[1]))
	}
}
