package server

import (
	"net/netip"
	"sync/atomic"
	"time"
)

// Paced reads. A reader that waits on the socket wakes once per datagram:
// with 1024 clients in one process that is about 51,000 wake-ups a second,
// each a thread woken from epoll or a futex, and a CPU profile of
// scripts/bench1024.sh put a fifth of the process's time in those
// context switches. But an in-game client's datagrams (inputs, chat,
// votes) are only needed at the game's next tick, which handles every
// queued datagram before it simulates. So while a game is quiet, its
// reader does not wait on the socket: it waits for the loop, which at each
// tick asks it to read what the socket holds (recvmmsg without waiting, in
// batches) and waits until it is done, then handles it as before. Each
// datagram keeps the time it reached the socket, from the kernel's arrival
// stamp (SO_TIMESTAMPNS), so INPUTTIMING and the latency stay exact. The
// handoff happens on one runtime thread (the loop hands its P to the
// reader and back), so a quiet game costs one wake-up per tick, not one
// per datagram. For that the socket must also stay out of the runtime's
// poller, which would wake an idle thread for each datagram even with
// nobody reading: on Linux ListenUDP returns such a socket (pacedUDP,
// paced_linux.go); elsewhere the reader is never paced.
//
// Anything that wants an answer sooner than the next tick makes the reader
// wait on the socket again (read each datagram as it comes, as before) for
// PacedHold: a datagram of a peer not in game (handshake, map download,
// CONNECT), or more than PacedBusyDatagrams in one tick's read (a flood:
// the socket buffer must not overflow and drop the players' datagrams).

// Bounds of paced reading.
const (
	// PacedRecvBuffer is the socket receive buffer asked for when a reader
	// first reads paced (capped by the system's net.core.rmem_max): a tick's
	// datagrams wait in it until the tick.
	PacedRecvBuffer = 1 << 20
	// PacedBusyDatagrams: a tick's read that finds this many datagrams stops
	// there, and the reader reads each datagram as it comes for PacedHold
	// (64 clients send about 64 per tick).
	PacedBusyDatagrams = 256
	// PacedHold is how long a reader reads each datagram as it comes after
	// a datagram that wanted an early answer or a busy tick.
	PacedHold = time.Second
)

// PacedConn is a BatchConn that can also read without waiting and report
// when each datagram arrived. The UDP socket of ListenUDP implements it on
// Linux.
type PacedConn interface {
	BatchConn
	// ReadPaced reads up to len(ms) datagrams already queued (at most
	// ReadBatchSize), without waiting: 0 when none is. at[i] is the arrival
	// time of datagram i. It is called by one goroutine only, the one that
	// calls ReadBatch.
	ReadPaced(ms []Datagram, at []time.Time) (int, error)
}

// pacer couples a game's loop and its reader for paced reads.
type pacer struct {
	on     atomic.Bool   // the reader waits for req (set and cleared by the reader)
	req    chan struct{} // loop -> reader: read what the socket holds (closed when the loop ends)
	done   chan struct{} // reader -> loop: read, queued in rx
	reader <-chan struct{}
}

// readerPace is the reader's side of pacing.
type readerPace struct {
	at         [ReadBatchSize]time.Time // ReadPaced's arrival times
	draining   bool                     // reading for a tick's request: read again without waiting
	count      int                      // datagrams read for the current request
	urgent     bool                     // a datagram read wanted the loop at once
	urgentCID  int                      // the first such datagram's slot (-1: none)
	urgentAddr netip.AddrPort           // and sender (for the debug log)
	contUntil  time.Time                // read each datagram as it comes until then
	winStart   time.Time                // reading as they come: start of the current TickDuration
	winCount   int                      // and the datagrams read in it
}

// startPacer sets up the loop's side before the reader starts; readerDone
// closes when the reader returns.
func (s *Server) startPacer(readerDone <-chan struct{}) {
	s.pace = pacer{req: make(chan struct{}, 1), done: make(chan struct{}, 1), reader: readerDone}
}

// readTick has the reader read, if it is paced, every datagram queued on
// the socket into rx, and waits for it (loop only).
func (s *Server) readTick() {
	if !s.pace.on.Load() {
		return
	}
	s.pace.req <- struct{}{}
	select {
	case <-s.pace.done:
	case <-s.pace.reader:
	}
}

// stopPacer tells a reader waiting for the loop that the loop has ended:
// it goes back to waiting on the socket, which is closed next.
func (s *Server) stopPacer() { close(s.pace.req) }

// paceWait decides how the reader reads next (reader only): true = paced,
// without waiting on the socket, after waiting for the loop's request if
// the last paced read is done; false = wait on the socket for the next
// datagram.
func (s *Server) paceWait(r *readerPace) bool {
	if r.draining {
		return true
	}
	if time.Now().Before(r.contUntil) {
		return false
	}
	s.pace.on.Store(true)
	if _, ok := <-s.pace.req; !ok {
		s.pace.on.Store(false)
		return false
	}
	r.draining, r.count, r.urgent = true, 0, false
	return true
}

// paceAfter updates the pacing after a read of n datagrams into k buffers
// at now, paced or not (reader only).
func (s *Server) paceAfter(r *readerPace, paced bool, n, k int, now time.Time) {
	if !paced {
		// Busy is more than a paced tick would read, per TickDuration (a
		// full batch is not: a reader thread that waited for a CPU finds
		// one).
		if now.Sub(r.winStart) >= TickDuration {
			r.winStart, r.winCount = now, 0
		}
		r.winCount += n
		if r.winCount >= PacedBusyDatagrams || r.urgent {
			r.contUntil = now.Add(PacedHold)
			s.logUnpaced(r, false)
		}
		r.urgent = false
		return
	}
	r.count += n
	if n == k && r.count < PacedBusyDatagrams {
		return // more may be queued
	}
	r.draining = false
	if r.count >= PacedBusyDatagrams || r.urgent {
		r.contUntil = now.Add(PacedHold)
		s.pace.on.Store(false)
		s.logUnpaced(r, true)
	}
	r.urgent = false
	s.pace.done <- struct{}{}
}

// logUnpaced logs at debug level why the reader reads each datagram as it
// comes for PacedHold (from a tick's read when fromPaced).
func (s *Server) logUnpaced(r *readerPace, fromPaced bool) {
	e := s.log.Debug()
	if e == nil {
		return
	}
	if r.urgent {
		e = e.Int("cid", r.urgentCID).Str("addr", r.urgentAddr.String())
	} else {
		e = e.Int("datagrams", max(r.count, r.winCount))
	}
	e.Bool("at_tick", fromPaced).Msg("reader: reading each datagram as it comes")
}
