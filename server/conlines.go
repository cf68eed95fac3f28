package server

import (
	"context"
	"fmt"

	"twserver/console"
	"twserver/netproto"
	"twserver/session"
	"twserver/world"
)

// Console output for side channels (the econ): the loop hands every event
// line the 0.7.5 server prints on its console to the sinks installed with
// OnConsoleLine (console.Events formats them), and runs the lines the side
// channels submit (console.Queue).

// conState is the console output state, owned by the loop (sinks are
// installed before Run).
type conState struct {
	console.Events
	q *console.Queue // lines of the side channels (SubmitConsole)
}

// OnConsoleLine installs f to receive every console line of level maxLevel
// and below, from the game loop goroutine: f must return at once without
// blocking (hand the line to your own goroutine over a bounded channel).
// Call it before Run.
func (s *Server) OnConsoleLine(maxLevel int, f func(console.Line)) {
	s.con.Sinks.Add(maxLevel, f)
	s.con.Init(len(s.clients))
}

// SubmitConsole hands one console line of a side channel (the econ, the
// command FIFO) to the game loop, which runs it like a line of the console
// on standard input (same commands, output to the log and the console
// sinks) for caller console.Side, and returns once it ran: its output has
// been handed to the sinks by then, so a side channel keeps a command's
// output before whatever it prints next. It waits while the queue
// (ConsoleQueueLen) is full, until ctx is done or the loop has stopped
// (console.ErrStopped). Safe from any goroutine.
func (s *Server) SubmitConsole(ctx context.Context, line string) error {
	_, err := s.con.q.Submit(ctx, console.Caller{Kind: console.Side}, line, false)
	return err
}

// RunConsole runs one console line for caller in the game loop as
// SubmitConsole does, and returns the lines it printed (which also go to
// the log, the rcon clients and the sinks as every console output does).
// It is meant for an administration page (caller console.Admin). Safe from
// any goroutine.
func (s *Server) RunConsole(ctx context.Context, caller console.Caller, line string) ([]string, error) {
	return s.con.q.Submit(ctx, caller, line, true)
}

// RunAdmin runs one console line of an administration page as
// RunConsole does for caller console.Admin, and writes the audit line of
// the action: who (the page's name for the administrator: token name and
// address), the line and its result, to the log and to the console sinks
// (the econ) at the level of rcon commands. Safe from any goroutine.
func (s *Server) RunAdmin(ctx context.Context, who, line string) ([]string, error) {
	return s.con.q.SubmitAdmin(ctx, who, line)
}

// auditAdmin writes the audit line of an administration page's command
// (loop only).
func (s *Server) auditAdmin(who, line string, err error) {
	result := "ok"
	if err != nil && err != console.ErrShutdown {
		result = err.Error()
	}
	s.log.Info().Str("who", who).Str("line", console.LogLine(line)).Str("result", result).Msg("admin command")
	if s.con.On(console.LevelAddInfo) {
		s.con.Print(console.LevelAddInfo, "server", 512, fmt.Sprintf("admin='%s' rcon='%s' result='%s'", who, console.LogLine(line), result))
	}
}

// conWorld is the loop's side of console.EventWorld.
type conWorld struct{ s *Server }

// SlotName is the name of the client in slot cid while it is connected.
func (w conWorld) SlotName(cid int) string {
	if c := w.s.clients[cid]; c.state != session.Empty {
		return c.name
	}
	return ""
}

// Team is client cid's team in the world.
func (w conWorld) Team(cid int) int { return w.s.world.Team(cid) }

// conWorldEvent prints the game lines of a world event.
func (s *Server) conWorldEvent(e world.Event) { s.con.World(conWorld{s}, e, netproto.TickDuration) }
