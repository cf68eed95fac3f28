package econ

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// conn is one econ connection: a reader goroutine (readLoop) and a writer
// goroutine (writeLoop) around a bounded queue of framed lines.
type conn struct {
	e     *Server
	id    int
	nc    net.Conn
	addr  netip.AddrPort
	start time.Time

	out      chan string   // framed lines (text + line ending)
	quit     chan struct{} // closed by close
	once     sync.Once
	reason   string // set before quit is closed
	flush    bool
	authed   atomic.Bool
	dropping atomic.Bool
	ending   atomic.Uint32 // the 3-byte line ending in use, packed
}

func newConn(e *Server, id int, nc net.Conn, addr netip.AddrPort) *conn {
	c := &conn{e: e, id: id, nc: nc, addr: addr, start: time.Now(),
		out: make(chan string, OutputQueueLen), quit: make(chan struct{})}
	c.setEnding([3]byte{'\n', 0, 0})
	return c
}

func (c *conn) setEnding(b [3]byte) {
	c.ending.Store(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16)
}

// frame appends the line cut to MaxOutputText bytes and the connection's
// current 3-byte line ending (always 3 bytes: "text\n\0\0" by default).
func (c *conn) frame(s string) string {
	if len(s) > MaxOutputText {
		s = cutUTF8(s, MaxOutputText)
	}
	e := c.ending.Load()
	return s + string([]byte{byte(e), byte(e >> 8), byte(e >> 16)})
}

// queue frames a line with the line ending in use now and queues it; it
// reports false when the queue is full (the caller drops the connection).
func (c *conn) queue(s string) bool {
	select {
	case c.out <- c.frame(s):
		return true
	default:
		return false
	}
}

// close makes the writer send reason as the last line (after the queued
// lines when flush is set) and close the socket.
func (c *conn) close(reason string, flush bool) {
	c.once.Do(func() {
		c.reason, c.flush = reason, flush
		close(c.quit)
	})
}

// writeLoop writes the queued lines, several per call, until close.
func (c *conn) writeLoop() {
	buf := make([]byte, 0, 4096)
	for {
		select {
		case s := <-c.out:
			buf = append(buf[:0], s...)
		more:
			for len(buf) < writeBatch {
				select {
				case s := <-c.out:
					buf = append(buf, s...)
				default:
					break more
				}
			}
			_ = c.nc.SetWriteDeadline(time.Now().Add(WriteTimeout))
			if _, err := c.nc.Write(buf); err != nil {
				c.e.drop(c, reasonSendFailed, false)
				<-c.quit
				_ = c.nc.Close()
				return
			}
		case <-c.quit:
			if c.flush {
				buf = buf[:0]
				for len(c.out) > 0 {
					buf = append(buf, <-c.out...)
				}
				if c.reason != "" {
					buf = append(buf, c.frame(c.reason)...)
				}
				_ = c.nc.SetWriteDeadline(time.Now().Add(CloseFlushTimeout))
				_, _ = c.nc.Write(buf)
			}
			_ = c.nc.Close()
			return
		}
	}
}

// readLoop reads and splits the input, runs the login state machine and
// the commands, until the connection is dropped.
func (c *conn) readLoop() {
	e := c.e
	r := newLineReader()
	ses := session{password: e.opts.Password}
	_ = c.nc.SetReadDeadline(c.start.Add(e.opts.AuthTimeout))
	for {
		if r.Full() {
			e.requestDrop(c, reasonOutOfBuffer)
			return
		}
		n, err := c.nc.Read(r.Space())
		if n > 0 {
			r.Commit(n)
			for {
				line, ok := r.Next()
				c.setEnding(r.Ending())
				if !ok {
					break
				}
				if !c.handle(&ses, line) {
					return
				}
				e.settle()
			}
		}
		if err != nil {
			switch {
			case c.dropping.Load():
			case errors.Is(err, os.ErrDeadlineExceeded):
				if c.authed.Load() {
					continue // logged in with the last bytes before the deadline
				}
				e.requestDrop(c, reasonAuthTimeout)
			case errors.Is(err, io.EOF):
				e.requestDrop(c, reasonClosed)
			default:
				e.requestDrop(c, reasonFailure)
			}
			return
		}
	}
}

// handle runs one input line (a command until it ran); it reports false
// once the connection is to be dropped.
func (c *conn) handle(ses *session, line string) bool {
	e := c.e
	if c.dropping.Load() {
		return false
	}
	st := ses.line(line)
	cid := strconv.Itoa(c.id)
	if st.authed {
		// Logged in by the dispatcher, which queues the success reply and
		// then prints the login's line (item.login): every line printed
		// once the client has seen the reply reaches it, and none comes
		// before the login's line.
		e.enqueue(item{login: c, reply: st.reply, line: Line{Time: time.Now(), Level: 0, System: "econ", Text: "cid=" + cid + " authed"}})
	} else if st.reply != "" {
		c.queue(st.reply)
	}
	switch {
	case st.authed:
		_ = c.nc.SetReadDeadline(time.Time{})
		if ev := e.rateLog(); ev != nil {
			ev.Int("cid", c.id).Str("addr", c.addr.String()).Msg("econ login")
		}
	case st.wrong:
		if ev := e.rateLogAt(zerolog.WarnLevel); ev != nil {
			ev.Int("cid", c.id).Str("addr", c.addr.String()).Int("tries", ses.tries).Msg("econ wrong password")
		}
		if st.ban && e.opts.BanTime > 0 {
			e.mu.Lock()
			text := e.bans.add(c.addr.Addr(), e.opts.BanTime, reasonTooMany, time.Now())
			e.mu.Unlock()
			e.print(0, "net_ban", text)
			if ev := e.rateLogAt(zerolog.WarnLevel); ev != nil {
				ev.Str("addr", c.addr.String()).Str("result", text).Msg("econ ban")
			}
		}
	case st.cmd != "":
		e.print(1, "server", cutUTF8("cid="+cid+" cmd='"+st.cmd+"'", 255))
		if !st.logout && strings.TrimSpace(st.cmd) != "" {
			e.log.Info().Int("cid", c.id).Str("cmd", st.cmd).Msg("econ command")
			if err := e.opts.Exec(e.ctx, st.cmd); err != nil && e.ctx.Err() == nil {
				c.queue("[econ]: command not run: " + err.Error())
			}
		}
	}
	if st.drop != "" {
		e.requestDrop(c, st.drop)
		return false
	}
	return true
}

// cutUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
