package server

import (
	"errors"
	"net"
	"net/netip"
	"time"

	"twserver/edge"
	"twserver/sockio"
)

// rxPacket is one received datagram travelling from the reader to the loop.
// Buffers come from a bounded pool (Server.free, at most rxPoolSize) and go
// back after use.
type rxPacket struct {
	n    int
	cid  int // slot of addr when the reader screened it, -1 for none (edge.CIDAccepted6: see there)
	addr netip.AddrPort
	at   time.Time // when the reader read it (arrival time, net.md A4.8)
	// spare marks the reader's spare buffers (read and dropped when the
	// pool is at its bound), never handed to the loop
	spare bool
	buf   [RecvBufSize]byte
}

func (p *rxPacket) data() []byte { return p.buf[:p.n] }

// readLoop is the reader goroutine: it does only stateless checks (size,
// header, token, budgets), answers token requests and server-info requests
// itself, and hands packets that belong to a slot (or valid CONNECTs) to the
// game loop through the bounded rx channel. It takes every datagram already
// queued on the socket per wake-up (ReadBatch, up to ReadBatchSize) when the
// socket has the batch form. It returns when the socket is closed.
func (s *Server) readLoop(done chan<- struct{}) {
	defer close(done)
	r := &reader{sc: s.edge.NewScreener(s.now()), warm: make([]*client, 0, sockio.ReadBatchSize)}
	r.bc, r.batched = s.conn.(sockio.BatchConn)
	pc, pacing := s.conn.(sockio.PacedConn) // paced.go
	r.pc = pc
	r.k = 1
	if r.batched {
		r.k = sockio.ReadBatchSize
	}
	for i := range r.spares {
		r.spares[i].spare = true
	}
	s.paceR = r
	for {
		if pacing && s.pace.Wait() {
			continue // the loop read at its ticks meanwhile
		}
		n, now, err := s.readOnce(r, false)
		if err != nil {
			if errors.Is(err, sockio.ErrClosed) || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if pacing {
			s.paceAfter(r, n, now)
		}
	}
}

// readOnce reads one batch of datagrams and screens them: waiting for the
// first one, or with paced (a PacedConn) taking only what is queued, each
// datagram with its kernel arrival stamp. It returns the datagrams read and
// when. r is the reader goroutine's, or the loop's while the reader waits
// for it (paced.go).
func (s *Server) readOnce(r *reader, paced bool) (int, time.Time, error) {
	// Give every slot of the batch a buffer: slots keep theirs until
	// it is handed to the loop; a spare (the pool was at its bound) is
	// swapped for a pooled buffer as soon as one is free.
	k := r.k
	for i := range k {
		if p := r.pkts[i]; p == nil || p.spare {
			r.pkts[i] = r.get(s, i)
		}
		r.ms[i] = sockio.Datagram{Buf: r.pkts[i].buf[:]}
	}
	var n int
	var err error
	if paced {
		n, err = r.pc.ReadPaced(r.ms[:k], s.pace.At[:k])
	} else if r.batched {
		n, err = r.bc.ReadBatch(r.ms[:k])
	} else {
		r.ms[0].N, r.ms[0].Addr, err = s.conn.ReadFrom(r.ms[0].Buf)
		n = 1
	}
	now := time.Now()         // the arrival time of every datagram of an unpaced batch
	if err != nil || n == 0 { // an empty paced read: nothing to screen or warm
		return 0, now, err
	}
	mono := s.now() // the screening's clock, read once a batch
	for i := range n {
		at := now
		if paced {
			at = s.pace.At[i] // the kernel's stamp
		}
		if s.received(r, r.pkts[i], r.ms[i].N, r.ms[i].Addr, at, mono) {
			if cid := r.pkts[i].cid; paced && uint(cid) < uint(len(s.clients)) {
				r.warm = append(r.warm, s.clients[cid]) // the loop's own goroutine
			}
			r.pkts[i] = nil
		}
	}
	if paced {
		r.warmSum = warm(r.warm, false) // before the loop handles the batch
		r.warm = r.warm[:0]
	}
	return n, now, nil
}

// reader is the reader goroutine's state.
type reader struct {
	sc      *edge.Screener                  // the edge's checks, with the reader's tokens
	pkts    [sockio.ReadBatchSize]*rxPacket // the batch's buffers; nil once handed to the loop
	ms      [sockio.ReadBatchSize]sockio.Datagram
	spares  [sockio.ReadBatchSize]rxPacket // read targets when the pool is at its bound (one per slot)
	pooled  int                            // buffers allocated so far; the pool grows with the peak queue, up to rxPoolSize
	warm    []*client                      // a paced batch's slots (warm), capacity ReadBatchSize
	warmSum uint8                          // keeps warm's loads
	// the first datagram since the last pacing check that wanted the loop
	// at once: its slot (-1: none) and sender, for the debug log (paced.go)
	urgentCID  int
	urgentAddr netip.AddrPort

	bc      sockio.BatchConn // the socket's batch form, if batched
	batched bool
	pc      sockio.PacedConn // its paced form, nil if none
	k       int              // datagrams per read
}

// get returns a pooled buffer for slot i of the batch, or the slot's spare
// when the pool is empty and at its bound.
func (r *reader) get(s *Server, i int) *rxPacket {
	select {
	case p := <-s.free:
		return p
	default:
	}
	if r.pooled < rxPoolSize {
		r.pooled++
		return new(rxPacket)
	}
	return &r.spares[i]
}

// received screens one datagram read at now (mono on the server's clock)
// and reports whether it was handed to the loop (which returns the buffer to the pool).
func (s *Server) received(r *reader, p *rxPacket, n int, addr netip.AddrPort, now time.Time, mono time.Duration) bool {
	s.stats.Received.Add(1)
	s.stats.ReceivedBytes.Add(uint64(n))
	p.n, p.addr, p.at, p.cid = n, addr, now, -1
	var pass bool
	if p.cid, pass = r.sc.Screen(p.data(), p.addr, now, mono); !pass {
		return false
	}
	if p.spare {
		s.stats.QueueFull.Add(1)
		return false
	}
	select {
	case s.rx <- p:
	default:
		s.stats.QueueFull.Add(1)
		return false
	}
	if p.cid < 0 || p.cid >= 64 || s.ingame.Load()&(1<<uint(p.cid)) == 0 {
		if s.pace.MarkUrgent() {
			r.urgentCID, r.urgentAddr = p.cid, p.addr
		}
		if !s.rxWake.Swap(true) { // not in game: handle it now
			s.timer.Poke()
		} // else a wake-up is already pending
	}
	return true
}
