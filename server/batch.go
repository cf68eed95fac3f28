package server

import (
	"net/netip"

	"twserver/netproto"
)

// Batched socket I/O. The loop writes every datagram of a wake-up (all
// snapshot parts of all clients of a tick) with one WriteBatch call
// (sendmmsg on Linux) instead of one system call per datagram, and the
// reader takes every datagram already queued on the socket with one
// ReadBatch call (recvmmsg). A PacketConn without the batch form (a test
// double) is written one datagram at a time.

// Bounds of the batches.
const (
	// SendBatchSize is the most datagrams the loop collects before writing
	// them with one WriteBatch call; a wake-up with more writes several
	// batches (a 63-client snapshot tick fills one or two).
	SendBatchSize = 64
	// ReadBatchSize is the most datagrams the reader takes per ReadBatch call.
	ReadBatchSize = 32
)

// Datagram is one datagram of a batch. For WriteBatch, Buf[:N] is sent to
// Addr; for ReadBatch, Buf is the buffer to fill, and N and Addr are set to
// the length and sender of what was read (a datagram longer than Buf is
// truncated to len(Buf)).
type Datagram struct {
	Buf  []byte
	N    int
	Addr netip.AddrPort
}

// BatchConn is a PacketConn that moves several datagrams per call. The UDP
// socket of ListenUDP and MemConn implement it.
type BatchConn interface {
	PacketConn
	// WriteBatch sends ms in order and returns how many were sent; an error
	// stops the batch at the datagram that failed. It may be called
	// concurrently with WriteTo.
	WriteBatch(ms []Datagram) (int, error)
	// ReadBatch blocks until at least one datagram arrives, then fills up to
	// len(ms) of them without waiting for more, and returns how many. It is
	// called by one goroutine only.
	ReadBatch(ms []Datagram) (int, error)
}

// sendBatch collects the loop's outgoing datagrams in fixed buffers (no
// allocation after the first use) until flush writes them.
type sendBatch struct {
	bufs [SendBatchSize][netproto.MaxPacketSize]byte
	ms   [SendBatchSize]Datagram
	n    int
}

// next returns the buffer of the next datagram, empty with the capacity of
// the largest packet, flushing a full batch first.
func (s *Server) nextOut() []byte {
	if s.out.n == SendBatchSize {
		s.flushOut()
	}
	return s.out.bufs[s.out.n][:0]
}

// queueOut queues b, which must be the buffer returned by nextOut (filled),
// for to.
func (s *Server) queueOut(b []byte, to netip.AddrPort) {
	s.gauges.Sent.Add(1)
	s.gauges.SentBytes.Add(uint64(len(b)))
	m := &s.out.ms[s.out.n]
	m.Buf, m.N, m.Addr = b, len(b), to
	s.out.n++
}

// flushOut writes the queued datagrams: with one WriteBatch call when the
// socket has the batch form (repeated for what a short write left), else one
// WriteTo each. Errors are those of UDP (nobody listening, buffer full): the
// datagram is lost, like any other.
func (s *Server) flushOut() {
	ms := s.out.ms[:s.out.n]
	s.out.n = 0
	if bc, ok := s.conn.(BatchConn); ok {
		for len(ms) > 0 {
			n, err := bc.WriteBatch(ms)
			if err != nil {
				n++ // skip the datagram that failed
			}
			if n <= 0 {
				n = 1
			}
			ms = ms[min(n, len(ms)):]
		}
		return
	}
	for i := range ms {
		_, _ = s.conn.WriteTo(ms[i].Buf[:ms[i].N], ms[i].Addr)
	}
}
