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
	"twserver/netproto"
	"twserver/server"
)

// The live stream's writer. One goroutine per game (a streamer) holds the
// game's live reader while the game has viewers and writes each new frame
// to every viewer's connection itself: a frame costs one wake-up of one
// goroutine however many viewers there are.
//
// Writes are what viewers cost: on loopback the sending thread also runs
// the receiving socket's TCP input and wakes the reader, some tens of
// microseconds per write whatever its size. So a game's viewers together
// get at most StreamWritesPerSecond writes a second. Each new frame's
// messages are appended to every viewer's pending bytes at once, and a
// viewer is written when its turn is due: every frame while the game has
// few viewers (no added latency), else every viewers/StreamWritesPerSecond
// seconds (at most StreamMaxInterval), with a bundle of the frames since
// its last write. The turns are spread over the frames: a frame lets as
// many due viewers write as the budget accrued since the previous frame,
// the longest waiting first.
//
// The writes never wait: a viewer whose socket buffer is full keeps the
// rest of its pending bytes and skips frames until they are out (it then
// gets the newest frame), and is dropped when that takes
// StreamWriteTimeout. A slow viewer delays neither the others nor the
// game's loop, whose publishing only signals the streamer.

// Bounds of the live stream's writer.
const (
	// StreamWritesPerSecond is the write budget of one game's live stream:
	// the writes a second to all its viewers together (the first write to
	// a viewer that joins is not counted). Up to a tenth as many viewers
	// are written every frame; more share the budget.
	StreamWritesPerSecond = 25
	// StreamMaxInterval caps the time between two writes to one viewer
	// (more viewers than the budget allows in this time then cost more
	// writes): 50 viewers share the budget.
	StreamMaxInterval = 2 * time.Second
	// StreamPendingBytes bounds the frames pending for one viewer between
	// its writes; beyond it the oldest whole "frame" messages are dropped
	// (its "game" and "feed" messages are kept, at most one "game" message
	// a second and the feed lines added meanwhile).
	StreamPendingBytes = 256 << 10
	// StreamPendingFrames bounds the number of frames pending for one
	// viewer (beyond it the oldest is dropped).
	StreamPendingFrames = 32
	// StreamWriteWait bounds one write to a live viewer whose connection
	// offers no non-blocking write (not a socket): the writer waits at
	// most this long per viewer and write.
	StreamWriteWait = 5 * time.Millisecond
)

// frameInterval is the mean time between two frames of a game: a viewer
// written this often is written every frame.
const frameInterval = server.FrameEvery * netproto.TickDuration

// streamer writes the live stream of one game to its viewers.
type streamer struct {
	hub        *live.Hub
	port       int
	enc        func(*live.Frame) any
	publicChat bool
	wake       chan struct{} // a viewer joined or left (coalesced)
	budget     int           // writes a second to all viewers (StreamWritesPerSecond; tests lower it)
	stalled    atomic.Int64  // viewers dropped for a failed or stalled write

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
	frameSeq  uint64    // the newest frame taken
	frameAt   time.Time // when it was taken
	credit    int64     // the budget left at this frame (viewers × ns; a write costs interval ns)
	next      int       // index of the viewer whose turn comes first
}

// newStreamer returns the streamer of the hub of game port; its goroutine
// runs while the game has viewers. enc encodes a frame as *streamMsgs
// (Frame.Encoded: the same function for every frame).
func newStreamer(hub *live.Hub, port int, enc func(*live.Frame) any, publicChat bool) *streamer {
	return &streamer{hub: hub, port: port, enc: enc, publicChat: publicChat, wake: make(chan struct{}, 1),
		budget: StreamWritesPerSecond}
}

// span is where one "frame" message lies in a viewer's pending bytes.
type span struct{ start, end int }

// viewer is one live stream's connection and what it was sent.
type viewer struct {
	conn  net.Conn
	raw   syscall.RawConn       // nil: writes with a StreamWriteWait deadline
	rawFn func(fd uintptr) bool // v.rawWrite, made once
	start time.Time
	gone  atomic.Bool   // its request ended (server shutdown): drop it
	done  chan struct{} // closed by the writer once it dropped the viewer

	// The writer goroutine's own.
	buf     []byte                    // pending messages, whole SSE events
	off     int                       // bytes of buf written
	frames  [StreamPendingFrames]span // the "frame" messages pending in buf
	nframes int                       // frames pending in buf (none once a write began)
	stalled time.Time                 // when a write of buf first could not finish (zero: none)
	due     time.Time                 // when its next turn comes (zero: never written)
	writes  int                       // writes made
	dropped bool                      // dropped during this frame
	lastSeq uint64                    // the last frame queued
	sent    uint64                    // Seq of the last event queued
	gameGen uint64                    // the last "game" message queued (streamer.gameGen)
	p       []byte                    // rawWrite's input and results
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

// run is the writer: while there are viewers, it queues every new frame
// for them and writes those whose turn is due.
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

// interval is the time between two writes to a viewer of n.
func (s *streamer) interval(n int) time.Duration {
	return min(time.Duration(n)*time.Second/time.Duration(max(s.budget, 1)), StreamMaxInterval)
}

// writeFrame queues the newest frame for every viewer that has not had
// it, writes the viewers whose turn is due, and drops the viewers that
// are gone, too old or failing.
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
	n := len(s.viewers)
	every := s.interval(n)
	paced := every > frameInterval // else every viewer is written every frame
	if m.seq != 0 && m.seq != s.frameSeq {
		// the budget accrued since the last frame, and at most a write
		// left from before (a viewer's turn and the budget need not
		// coincide)
		gap := every
		if !s.frameAt.IsZero() {
			gap = min(max(now.Sub(s.frameAt), 0), every)
		}
		s.credit = min(s.credit, int64(every)) + int64(n)*int64(gap)
		s.frameSeq, s.frameAt = m.seq, now
	}
	first := -1 // the first due viewer the budget left waiting
	for k := range n {
		i := (s.next + k) % n
		v := s.viewers[i]
		if v.gone.Load() || now.Sub(v.start) >= StreamMaxAge {
			v.drop()
			continue
		}
		if m.seq != 0 && m.seq != v.lastSeq && v.stalled.IsZero() {
			s.queue(v, f, m)
		}
		if v.off == len(v.buf) {
			continue
		}
		if paced && !v.due.IsZero() {
			if now.Before(v.due) {
				continue
			}
			if s.credit < int64(every) {
				if first < 0 {
					first = i
				}
				continue
			}
			s.credit -= int64(every)
		}
		v.due = now.Add(every)
		if !v.flush(now) {
			s.stalled.Add(1)
			v.drop()
		}
	}
	if first >= 0 {
		s.next = first
	}
	keep, next := s.viewers[:0], 0
	for i, v := range s.viewers {
		if i == s.next {
			next = len(keep)
		}
		if !v.dropped {
			keep = append(keep, v)
		}
	}
	clear(s.viewers[len(keep):])
	s.viewers = keep
	s.next = next % max(len(keep), 1)
	f.Release()
}

// queue appends frame f (encoded as m) to v's pending messages: the
// "game" message when it changed, the frame, and the "feed" message of
// the events v has not had; beyond StreamPendingBytes or
// StreamPendingFrames it drops v's oldest pending frames. v has no write
// under way.
func (s *streamer) queue(v *viewer, f *live.Frame, m *streamMsgs) {
	v.lastSeq = m.seq
	if v.gameGen != s.gameGen {
		v.buf = append(v.buf, s.game...)
		v.gameGen = s.gameGen
	}
	if v.nframes == len(v.frames) {
		v.dropFrame()
	}
	v.frames[v.nframes] = span{len(v.buf), len(v.buf) + len(m.frame)}
	v.nframes++
	v.buf = append(v.buf, m.frame...)
	if m.last > v.sent {
		v.buf = append(v.buf, s.feedOf(f, v.sent)...)
		v.sent = m.last
	}
	for v.nframes > 1 && len(v.buf) > StreamPendingBytes {
		v.dropFrame()
	}
}

// dropFrame removes v's oldest pending "frame" message (the messages
// around it keep their order).
func (v *viewer) dropFrame() {
	d := v.frames[0]
	v.buf = append(v.buf[:d.start], v.buf[d.end:]...)
	n := d.end - d.start
	copy(v.frames[:], v.frames[1:v.nframes])
	v.nframes--
	for i := range v.nframes {
		v.frames[i].start -= n
		v.frames[i].end -= n
	}
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
	v.nframes = 0 // a write began: nothing pending is dropped any more
	n, err := v.write(v.buf[v.off:])
	v.writes++
	v.off += n
	if err != nil {
		return false
	}
	switch {
	case v.off == len(v.buf):
		v.buf, v.off = v.buf[:0], 0
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
	v.dropped = true
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
