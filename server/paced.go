package server

import (
	"net/netip"
	"sync/atomic"
	"time"

	"twserver/sockio"
)

// Paced reads. A reader that waits on the socket wakes once per datagram:
// with 1024 clients in one process that is about 51,000 wake-ups a second,
// each a thread woken from epoll or a futex, and a CPU profile of
// scripts/bench1024.sh put a fifth of the process's time in those
// context switches. But an in-game client's datagrams (inputs, chat,
// votes) are only needed at the game's next tick, which handles every
// queued datagram before it simulates. So while a game is quiet, its
// reader goroutine does not read: it hands its state to the loop, which at
// each tick reads what the socket holds itself (recvmmsg without waiting,
// in batches) with the reader's screening, then handles it as before. Each
// datagram keeps the time it reached the socket, from the kernel's arrival
// stamp (SO_TIMESTAMPNS), so INPUTTIMING and the latency stay exact. A
// quiet game thus costs one wake-up per tick, its loop's timer, and no
// goroutine switch. For that the socket must also stay out of the
// runtime's poller, which would wake an idle thread for each datagram even
// with nobody reading: on Linux sockio.ListenUDP returns such a socket
// (sockio.KindPaced); elsewhere the reader is never paced.
//
// Anything that wants an answer sooner than the next tick makes the reader
// wait on the socket again (read each datagram as it comes, as before) for
// PacedHold: a datagram of a peer not in game (handshake, map download,
// CONNECT), or more than PacedBusyDatagrams in one tick's read (a flood:
// the socket buffer must not overflow and drop the players' datagrams).

// Bounds of paced reading.
const (
	// PacedBusyDatagrams: a tick's read that finds this many datagrams stops
	// there, and the reader reads each datagram as it comes for PacedHold
	// (64 clients send about 64 per tick).
	PacedBusyDatagrams = 256
	// PacedHold is how long a reader reads each datagram as it comes after
	// a datagram that wanted an early answer or a busy tick.
	PacedHold = time.Second
)

// pacer couples a game's loop and its reader for paced reads. The reader
// state (reader) has one owner at a time: the reader goroutine, or, while
// on is set, the loop, which reads with it at each tick; the loop hands it
// back through req.
type pacer struct {
	on atomic.Bool // the loop owns r and reads at its ticks (set by the reader, cleared by the loop)
	// sleeping: the game sleeps (sleep.go), so the reader keeps reading
	// (set by the loop). Whoever clears on with a CompareAndSwap while it
	// is set owns r: the loop hands it back, or the reader keeps it.
	sleeping atomic.Bool
	r        *reader       // the reader's state (set before on is first set)
	req      chan struct{} // loop -> reader: read each datagram as it comes again (closed when the loop ends)
}

// readerPace is the pacing state of the reader.
type readerPace struct {
	at         [sockio.ReadBatchSize]time.Time // ReadPaced's arrival times
	urgent     bool                            // a datagram read wanted the loop at once
	urgentCID  int                             // the first such datagram's slot (-1: none)
	urgentAddr netip.AddrPort                  // and sender (for the debug log)
	contUntil  time.Time                       // read each datagram as it comes until then
	winStart   time.Time                       // reading as they come: start of the current TickDuration
	winCount   int                             // and the datagrams read in it
}

// startPacer sets up the loop's side before the reader starts.
func (s *Server) startPacer() {
	s.pace = pacer{req: make(chan struct{}, 1)}
}

// readTick reads, while the reader is paced, every datagram queued on the
// socket into rx, with the reader's state (loop only). A read that finds a
// datagram wanting an early answer, or PacedBusyDatagrams, hands the
// reading back to the reader goroutine for PacedHold.
func (s *Server) readTick() {
	if !s.pace.on.Load() {
		return
	}
	r := s.pace.r
	r.pace.urgent = false
	count := 0
	var now time.Time
	for {
		n, at, err := s.readOnce(r, true)
		now = at
		count += n
		if err != nil || n < r.k || count >= PacedBusyDatagrams {
			break // drained (or an error: the next tick reads again)
		}
	}
	if count >= PacedBusyDatagrams || r.pace.urgent {
		r.pace.contUntil = now.Add(PacedHold)
		s.logUnpaced(&r.pace, count, true)
		r.pace.urgent = false
		s.pace.on.Store(false)
		s.pace.req <- struct{}{}
	}
}

// stopPacer tells a reader waiting for the loop that the loop has ended:
// it goes back to waiting on the socket, which is closed next.
func (s *Server) stopPacer() { close(s.pace.req) }

// paceWait is the reader's choice before a read (reader only): once
// PacedHold has passed since it last had to read each datagram as it
// comes, it hands its state to the loop and waits until the loop hands it
// back (true); false: read the next datagram now.
func (s *Server) paceWait(r *readerPace) bool {
	if time.Now().Before(r.contUntil) || s.pace.sleeping.Load() {
		return false // a sleeping game has no ticks to read at (sleep.go)
	}
	s.pace.on.Store(true)
	if s.pace.sleeping.Load() && s.pace.on.CompareAndSwap(true, false) {
		return false // the game fell asleep meanwhile; the loop did not take the state
	}
	_, ok := <-s.pace.req
	return ok
}

// paceAfter updates the pacing after the reader read n datagrams at now
// (reader only): a datagram wanting an early answer, or more datagrams per
// TickDuration than a paced tick would read, keeps it reading each
// datagram as it comes for PacedHold (a full batch does not: a reader
// thread that waited for a CPU finds one).
func (s *Server) paceAfter(r *readerPace, n int, now time.Time) {
	if now.Sub(r.winStart) >= TickDuration {
		r.winStart, r.winCount = now, 0
	}
	r.winCount += n
	if r.winCount >= PacedBusyDatagrams || r.urgent {
		r.contUntil = now.Add(PacedHold)
		s.logUnpaced(r, r.winCount, false)
	}
	r.urgent = false
}

// logUnpaced logs at debug level why the reader reads each datagram as it
// comes for PacedHold (after a tick's read when atTick).
func (s *Server) logUnpaced(r *readerPace, count int, atTick bool) {
	e := s.log.Debug()
	if e == nil {
		return
	}
	if r.urgent {
		e = e.Int("cid", r.urgentCID).Str("addr", r.urgentAddr.String())
	} else {
		e = e.Int("datagrams", count)
	}
	e.Bool("at_tick", atTick).Msg("reader: reading each datagram as it comes")
}
