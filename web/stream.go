package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"twserver/live"
)

// The live stream's writer. One goroutine per game (a streamer) holds the
// game's live reader while the game has viewers and writes each new frame
// to every viewer's connection itself: a frame costs one wake-up of one
// goroutine however many viewers there are, and one write per viewer.
//
// The writes never wait: a viewer whose socket buffer is full keeps the
// rest of its messages and skips frames until they are out (it then gets
// the newest frame), and is dropped when that takes StreamWriteTimeout. A
// slow viewer delays neither the others nor the game's loop, whose
// publishing only signals the streamer.

// StreamWriteWait bounds one write to a live viewer whose connection
// offers no non-blocking write (not a socket): the writer waits at most
// this long per viewer and frame.
const StreamWriteWait = 5 * time.Millisecond

// streamer writes the live stream of one game to its viewers.
type streamer struct {
	hub        *live.Hub
	port       int
	enc        func(*live.Frame) any
	publicChat bool
	wake       chan struct{} // a viewer joined or left (coalesced)

	mu      sync.Mutex
	joining []*viewer // viewers for the writer to take on
	running bool      // the writer goroutine runs

	// The writer goroutine's own.
	viewers   []*viewer
	game      []byte    // the "game" message, encoded at most once per GameEvery
	gameGen   uint64    // numbers the distinct game messages from 1
	gameAt    time.Time // when game was encoded
	feed      []byte    // the "feed" message of frame feedSeq after event feedAfter
	feedSeq   uint64
	feedAfter uint64
}

// newStreamer returns the streamer of the hub of game port; its goroutine
// runs while the game has viewers. enc encodes a frame as *streamMsgs
// (Frame.Encoded: the same function for every frame).
func newStreamer(hub *live.Hub, port int, enc func(*live.Frame) any, publicChat bool) *streamer {
	return &streamer{hub: hub, port: port, enc: enc, publicChat: publicChat, wake: make(chan struct{}, 1)}
}

// viewer is one live stream's connection and what it was sent.
type viewer struct {
	conn  net.Conn
	raw   syscall.RawConn       // nil: writes with a StreamWriteWait deadline
	rawFn func(fd uintptr) bool // v.rawWrite, made once
	start time.Time
	gone  atomic.Bool   // its request ended (server shutdown): drop it
	done  chan struct{} // closed by the writer once it dropped the viewer

	// The writer goroutine's own.
	buf     []byte    // messages of the frame being written
	off     int       // bytes of buf written
	stalled time.Time // when a write of buf first could not finish (zero: none)
	lastSeq uint64    // the last frame sent
	sent    uint64    // Seq of the last event sent
	gameGen uint64    // the last "game" message sent (streamer.gameGen)
	p       []byte    // rawWrite's input and results
	n       int
	werr    error
}

// newViewer returns the viewer of a hijacked connection.
func newViewer(conn net.Conn, now time.Time) *viewer {
	v := &viewer{conn: conn, start: now, done: make(chan struct{})}
	if sc, ok := conn.(syscall.Conn); ok && canRawWrite {
		if raw, err := sc.SyscallConn(); err == nil {
			v.raw = raw
			v.rawFn = v.rawWrite
		}
	}
	return v
}

// join hands v to the writer (starting it when it does not run).
func (s *streamer) join(v *viewer) {
	s.mu.Lock()
	s.joining = append(s.joining, v)
	if !s.running {
		s.running = true
		go s.run()
	}
	s.mu.Unlock()
	s.poke()
}

// poke wakes the writer (a viewer joined or left).
func (s *streamer) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take moves the joining viewers to the writer's list; with no viewer left
// it marks the writer stopped and returns false.
func (s *streamer) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.viewers = append(s.viewers, s.joining...)
	clear(s.joining)
	s.joining = s.joining[:0]
	if len(s.viewers) == 0 {
		s.running = false
		return false
	}
	return true
}

// run is the writer: while there are viewers, it writes every new frame
// to them.
func (s *streamer) run() {
	rd, err := s.hub.Attach()
	if err != nil { // the hub's MaxReaders: nobody is served
		for s.take() {
			for _, v := range s.viewers {
				v.drop()
			}
			clear(s.viewers)
			s.viewers = s.viewers[:0]
		}
		return
	}
	defer rd.Detach()
	for s.take() {
		s.writeFrame(time.Now())
		if len(s.viewers) == 0 {
			continue // stop now unless one joined meanwhile
		}
		select {
		case <-rd.C():
		case <-s.wake:
		}
	}
}

// writeFrame writes the newest frame to every viewer that has not had it,
// and drops the viewers that are gone, too old or failing.
func (s *streamer) writeFrame(now time.Time) {
	f := s.hub.Acquire()
	m := f.Encoded(s.enc).(*streamMsgs)
	if m.seq != 0 && (s.game == nil || now.Sub(s.gameAt) >= GameEvery) {
		if b := gameMsg(s.port, f); !bytes.Equal(b, s.game) {
			s.game = b
			s.gameGen++
		}
		s.gameAt = now
	}
	keep := s.viewers[:0]
	for _, v := range s.viewers {
		if v.gone.Load() || now.Sub(v.start) >= StreamMaxAge || !s.send(v, f, m, now) {
			v.drop()
			continue
		}
		keep = append(keep, v)
	}
	clear(s.viewers[len(keep):])
	s.viewers = keep
	f.Release()
}

// send writes frame f (encoded as m) to v unless v had it or is still
// writing an older one (it then skips f); false: drop v.
func (s *streamer) send(v *viewer, f *live.Frame, m *streamMsgs, now time.Time) bool {
	if v.off < len(v.buf) {
		if !v.flush(now) {
			return false
		}
		if v.off < len(v.buf) {
			return true
		}
	}
	if m.seq == 0 || m.seq == v.lastSeq {
		return true
	}
	v.lastSeq = m.seq
	v.buf, v.off = v.buf[:0], 0
	if v.gameGen != s.gameGen {
		v.buf = append(v.buf, s.game...)
		v.gameGen = s.gameGen
	}
	v.buf = append(v.buf, m.frame...)
	if m.last > v.sent {
		v.buf = append(v.buf, s.feedOf(f, v.sent)...)
		v.sent = m.last
	}
	return v.flush(now)
}

// feedOf returns the "feed" message of f's events after seq (empty when
// none is shown), encoded once per frame and seq for all viewers.
func (s *streamer) feedOf(f *live.Frame, after uint64) []byte {
	if s.feedSeq != f.Seq || s.feedAfter != after {
		s.feedSeq, s.feedAfter = f.Seq, after
		s.feed = s.feed[:0]
		if ev := eventsOf(f, after, s.publicChat); len(ev) > 0 {
			b, _ := json.Marshal(ev)
			s.feed = appendSSE(s.feed, "feed", b)
		}
	}
	return s.feed
}

// flush writes what is left of v.buf without waiting; false: v failed or
// has been stalled for StreamWriteTimeout.
func (v *viewer) flush(now time.Time) bool {
	n, err := v.write(v.buf[v.off:])
	v.off += n
	if err != nil {
		return false
	}
	switch {
	case v.off == len(v.buf):
		v.stalled = time.Time{}
	case v.stalled.IsZero():
		v.stalled = now
	case now.Sub(v.stalled) >= StreamWriteTimeout:
		return false
	}
	return true
}

// write writes what p's connection takes now.
func (v *viewer) write(p []byte) (int, error) {
	if v.raw == nil {
		_ = v.conn.SetWriteDeadline(time.Now().Add(StreamWriteWait))
		n, err := v.conn.Write(p)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = nil
		}
		return n, err
	}
	v.p, v.n, v.werr = p, 0, nil
	if err := v.raw.Write(v.rawFn); err != nil {
		return 0, err
	}
	v.p = nil
	return v.n, v.werr
}

// drop closes v's connection and ends its request.
func (v *viewer) drop() {
	_ = v.conn.Close()
	close(v.done)
}

// streamHead writes the head of a live stream's response on a hijacked
// connection: the body is the stream, ended by closing the connection.
func streamHead(conn net.Conn, hd http.Header) error {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 200 OK\r\n")
	if err := hd.Write(&b); err != nil {
		return err
	}
	b.WriteString("Connection: close\r\n\r\n")
	_ = conn.SetWriteDeadline(time.Now().Add(StreamWriteTimeout))
	_, err := conn.Write(b.Bytes())
	_ = conn.SetDeadline(time.Time{})
	return err
}
