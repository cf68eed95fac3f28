// Package econ is the external console of the 0.7.5 server (ec_* settings):
// a TCP listener where an operator or a tool logs in with a password, then
// runs console commands and receives the console output, every line framed
// as "text\n\0\0" like the reference. It also reads console commands from a
// named pipe (fifo.go, like DDNet's sv_input_fifo).
//
// Goroutines: one accepts connections (refusing them when MaxConns are
// served or the address is banned); each connection has a reader (line
// splitting, login, commands) and a writer (its bounded output queue); one
// dispatcher takes, in one order, the console lines the game loop hands to
// Print and the econ's own lines and drops, and queues the lines to every
// logged-in connection. A reader runs one command at a time through the
// Exec function (the server's bounded console queue), which returns once
// the command ran, so its output comes before the next command's echo and
// before a logout. The game loop only ever does a non-blocking channel send
// (Print), so a slow or dead TCP peer never delays a tick: a connection
// whose queue is full is dropped.
package econ

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// Bounds of the econ.
const (
	// MaxConns is the number of connections served at once
	// (NET_MAX_CONSOLE_CLIENTS); more are refused with "no free slot available".
	MaxConns = 4
	// OutputQueueLen bounds the lines waiting to be written to one
	// connection; a connection that falls this far behind is dropped.
	OutputQueueLen = 1024
	// LineQueueLen bounds the console lines (and drops) waiting for the
	// dispatcher; when it is full, lines from the game loop are dropped and
	// counted, and the econ's own wait.
	LineQueueLen = 1024
	// WriteTimeout bounds one write to a connection; a peer that takes no
	// data for this long is dropped.
	WriteTimeout = 10 * time.Second
	// CloseFlushTimeout bounds writing the last queued lines and the reason
	// when a connection is dropped (and at shutdown).
	CloseFlushTimeout = time.Second
	// writeBatch bounds the bytes written to a connection in one call.
	writeBatch = 16 << 10
	// logEvery and logBurst bound the log lines a peer can cause (refusals,
	// logins, wrong passwords, bans): a burst, then one per logEvery.
	logEvery = time.Second
	logBurst = 10
)

// Line is one console line for econ clients.
type Line struct {
	// Time is when the line was printed (shown as [HH:MM:SS], local time).
	Time time.Time
	// Level is the 0.7.5 output level: 0 standard, 1 additional info, 2 debug.
	Level int
	// System is the name shown in brackets ("server", "game", "chat", ...).
	System string
	// Text is the message.
	Text string
}

// Options configure a Server.
type Options struct {
	// Addr is the TCP address to listen on ("127.0.0.1:8303"; host "" = all).
	Addr string
	// Password logs a connection in (ec_password); must not be empty.
	Password string
	// AuthTimeout is how long a connection may take to log in; must be
	// positive (ec_auth_timeout).
	AuthTimeout time.Duration
	// BanTime is how long an address is banned after MaxAuthTries wrong
	// passwords; 0 = only drop the connection (ec_bantime).
	BanTime time.Duration
	// OutputLevel selects the lines sent: those of this level and below (ec_output_level).
	OutputLevel int
	// Exec runs a console line in the game loop (server.SubmitConsole): it
	// may wait while the loop's queue is full, until ctx is done.
	Exec func(ctx context.Context, line string) error
	// Logger receives the operator log lines.
	Logger zerolog.Logger
	// Listen, if set, opens the listener of Addr instead of net.Listen
	// (cmd/twserver: a socket kept for, or taken over at, a live upgrade).
	Listen func(addr string) (net.Listener, error)
}

// Server is one game's external console. Create it with Listen, then Run.
type Server struct {
	opts  Options
	ln    net.Listener
	log   zerolog.Logger
	lines chan item
	limit *rate.Limiter // bounds peer-triggerable log lines

	mu    sync.Mutex
	slots [MaxConns]*conn
	bans  banList

	ctx     context.Context // Run's context: commands wait on it
	wg      sync.WaitGroup
	dropped atomic.Uint64
}

// Listen opens the TCP listener; nothing is served before Run.
func Listen(o Options) (*Server, error) {
	if o.Password == "" {
		return nil, errors.New("econ: empty password")
	}
	if o.Exec == nil {
		return nil, errors.New("econ: no Exec function")
	}
	if o.AuthTimeout <= 0 {
		return nil, errors.New("econ: no auth timeout")
	}
	listen := o.Listen
	if listen == nil {
		listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	ln, err := listen(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("econ: %w", err)
	}
	return &Server{
		opts: o, ln: ln, log: o.Logger,
		lines: make(chan item, LineQueueLen),
		limit: rate.NewLimiter(rate.Every(logEvery), logBurst),
	}, nil
}

// Addr is the address the econ listens on.
func (e *Server) Addr() netip.AddrPort {
	return e.ln.Addr().(*net.TCPAddr).AddrPort()
}

// DroppedLines counts the console lines lost because the dispatcher was
// behind (LineQueueLen).
func (e *Server) DroppedLines() uint64 { return e.dropped.Load() }

// Conns is the number of connections served now (logged in or not).
func (e *Server) Conns() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, c := range e.slots {
		if c != nil {
			n++
		}
	}
	return n
}

// Print hands a console line to the econ; it never blocks (the game loop
// calls it). Lines above the output level are ignored.
func (e *Server) Print(l Line) {
	if l.Level > e.opts.OutputLevel {
		return
	}
	select {
	case e.lines <- item{line: l}:
	default:
		e.dropped.Add(1)
	}
}

// item is what the dispatcher takes: a line to send, a connection to
// drop, or a barrier to close once everything before it was taken.
type item struct {
	line    Line
	except  *conn // not sent to this connection (it was not logged in when the line was printed)
	drop    *conn
	reason  string
	barrier chan struct{}
	// login is logged in here, in the dispatcher: reply is queued to it,
	// then line goes to every logged-in connection (login included). A
	// client sees its reply only once the dispatcher took the item, so no
	// line printed after that (its next connection's "client accepted")
	// can come before the login's line, as in the reference's single
	// thread.
	login *conn
	reply string
}

// enqueue hands an item of the econ's own to the dispatcher, waiting while
// its queue is full; it gives up when Run is ending (which drops every
// connection anyway).
func (e *Server) enqueue(it item) {
	select {
	case e.lines <- it:
	case <-e.ctx.Done():
	}
}

// requestDrop has the dispatcher drop c after the lines queued before.
func (e *Server) requestDrop(c *conn, reason string) { e.enqueue(item{drop: c, reason: reason}) }

// settle waits until the dispatcher took everything queued so far (or Run
// is ending): a reader settles after each line, so the lines it caused are
// framed with the line ending in use before it reads the next line, as the
// reference's single thread does.
func (e *Server) settle() {
	b := make(chan struct{})
	e.enqueue(item{barrier: b})
	select {
	case <-b:
	case <-e.ctx.Done():
	}
}

// ExposedWarning is logged when the econ listens beyond loopback: its
// protocol has no encryption.
const ExposedWarning = "econ listens beyond loopback: the password, every command and every console line travel in clear; " +
	"keep econ.bind on 127.0.0.1 (reach it over SSH) or let only trusted hosts reach the port"

// Run serves until ctx is done, then closes the listener, sends the
// console lines still queued, and closes every connection (each is sent
// "Closing console" after its queued lines, within CloseFlushTimeout); it
// returns once all its goroutines ended.
func (e *Server) Run(ctx context.Context) {
	e.ctx = ctx
	e.log.Info().Str("addr", e.Addr().String()).Int("output_level", e.opts.OutputLevel).Msg("econ listening")
	if !e.Addr().Addr().Unmap().IsLoopback() {
		e.log.Warn().Str("addr", e.Addr().String()).Msg(ExposedWarning)
	}
	accepting, dispatched := make(chan struct{}), make(chan struct{})
	go func() { defer close(accepting); e.acceptLoop() }()
	go func() { defer close(dispatched); e.dispatch(ctx) }()
	<-ctx.Done()
	_ = e.ln.Close()
	<-accepting // no connection is added after this
	<-dispatched
	e.mu.Lock()
	open := e.slots
	e.mu.Unlock()
	for _, c := range open {
		if c != nil {
			e.drop(c, reasonClosing, true)
		}
	}
	e.wg.Wait()
}

// dispatch formats the lines from the game loop and queues them to every
// logged-in connection; when ctx is done it sends those still queued.
func (e *Server) dispatch(ctx context.Context) {
	for {
		select {
		case it := <-e.lines:
			e.take(it)
		case <-ctx.Done():
			for {
				select {
				case it := <-e.lines:
					e.take(it)
				default:
					return
				}
			}
		}
	}
}

// take sends a line or drops a connection (in the dispatcher).
func (e *Server) take(it item) {
	if it.barrier != nil {
		close(it.barrier)
		return
	}
	if it.drop != nil {
		e.drop(it.drop, it.reason, true)
		return
	}
	if it.login != nil {
		e.mu.Lock()
		it.login.authed.Store(true)
		it.login.queue(it.reply)
		e.mu.Unlock()
		if it.line.Level > e.opts.OutputLevel {
			return
		}
	}
	e.broadcast(format(it.line), it.except)
}

// format renders a line as the 0.7.5 console does: "[HH:MM:SS][system]: text".
func format(l Line) string {
	return "[" + l.Time.Format("15:04:05") + "][" + l.System + "]: " + l.Text
}

// print hands one of the econ's own console lines to the dispatcher (from
// the accept loop and the readers).
func (e *Server) print(level int, system, text string) {
	if level <= e.opts.OutputLevel {
		e.enqueue(item{line: Line{Time: time.Now(), Level: level, System: system, Text: text}})
	}
}

// printNow sends one of the econ's own lines at once (from the dispatcher,
// a writer or Run's end, which must not wait for the dispatcher).
func (e *Server) printNow(level int, system, text string) {
	if level <= e.opts.OutputLevel {
		e.broadcast(format(Line{Time: time.Now(), Level: level, System: system, Text: text}), nil)
	}
}

// broadcast queues a formatted line to every logged-in connection; a
// connection whose queue is full is dropped.
func (e *Server) broadcast(s string, except *conn) {
	var slow []*conn
	e.mu.Lock()
	for _, c := range e.slots {
		if c != nil && c != except && c.authed.Load() && !c.queue(s) {
			slow = append(slow, c)
		}
	}
	e.mu.Unlock()
	for _, c := range slow {
		if ev := e.rateLog(); ev != nil {
			ev.Int("cid", c.id).Str("addr", c.addr.String()).Int("queued", OutputQueueLen).Msg("econ client too slow: dropped")
		}
		e.drop(c, reasonSendFailed, false)
	}
}

// acceptLoop accepts connections until the listener closes.
func (e *Server) acceptLoop() {
	for {
		nc, err := e.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if ev := e.rateLog(); ev != nil {
				ev.Err(err).Msg("econ accept failed")
			}
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors
			continue
		}
		e.accept(nc)
	}
}

// accept refuses a banned address or a connection beyond MaxConns (with
// the reference's text, no line ending) or starts serving it.
func (e *Server) accept(nc net.Conn) {
	addr := nc.RemoteAddr().(*net.TCPAddr).AddrPort()
	now := time.Now()
	e.mu.Lock()
	text, banned := e.bans.check(addr.Addr(), now)
	var c *conn
	if !banned {
		for i, s := range e.slots {
			if s == nil {
				c = newConn(e, i, nc, addr)
				e.slots[i] = c
				break
			}
		}
	}
	e.mu.Unlock()
	if c == nil {
		if !banned {
			text = textNoFreeSlot
		}
		if text != "" {
			_ = nc.SetWriteDeadline(now.Add(CloseFlushTimeout))
			_, _ = nc.Write([]byte(text))
		}
		_ = nc.Close()
		if ev := e.rateLog(); ev != nil {
			ev.Str("addr", addr.String()).Bool("banned", banned).Msg("econ connection refused")
		}
		return
	}
	if e.opts.OutputLevel >= 1 {
		e.enqueue(item{except: c, line: Line{Time: time.Now(), Level: 1, System: "econ",
			Text: "client accepted. cid=" + strconv.Itoa(c.id) + " addr=" + addrString(addr) + "'"}})
	}
	c.queue(textEnterPassword)
	e.wg.Go(c.writeLoop)
	e.wg.Go(c.readLoop)
}

// drop ends a connection at once: "client dropped" goes to the logged-in
// connections (this one included), then the reason as its last line (after
// its queued lines when flush is set) and the socket is closed. Readers ask
// for it with requestDrop instead, so it follows what they queued.
func (e *Server) drop(c *conn, reason string, flush bool) {
	if !c.dropping.CompareAndSwap(false, true) {
		return
	}
	e.printNow(1, "econ", "client dropped. cid="+strconv.Itoa(c.id)+" addr="+addrString(c.addr)+" reason='"+reason+"'")
	e.mu.Lock()
	e.slots[c.id] = nil
	e.mu.Unlock()
	e.log.Debug().Int("cid", c.id).Str("addr", c.addr.String()).Str("reason", reason).Msg("econ client dropped")
	c.close(reason, flush)
}

// rateLog returns a rate-limited info event (lines a peer can cause).
func (e *Server) rateLog() *zerolog.Event { return e.rateLogAt(zerolog.InfoLevel) }

// rateLogAt is rateLog at level: warn for a wrong password and a ban, as
// the web admin page logs its refused logins.
func (e *Server) rateLogAt(level zerolog.Level) *zerolog.Event {
	if !e.limit.Allow() {
		return nil
	}
	return e.log.WithLevel(level)
}

// addrString is an address as the reference prints it (IPv4 unmapped).
func addrString(a netip.AddrPort) string {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()).String()
}
