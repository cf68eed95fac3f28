package sockio

import (
	"net/netip"

	"twserver/netproto"
)

// SendBatch collects outgoing datagrams for one socket in fixed buffers
// (no allocation after the first use) until Flush writes them: with one
// WriteBatch call when the socket has the batch form. It is used by one
// goroutine.
type SendBatch struct {
	bufs [SendBatchSize][netproto.MaxPacketSize]byte
	ms   [SendBatchSize]Datagram
	n    int
	c    PacketConn
	// c's batch form, nil if none: asked once, as the runtime answers an
	// assertion to an interface from a cache it fills only about every
	// 1,000th time (a process's first minute paid it at every Flush)
	bc BatchConn
}

// NewSendBatch returns an empty batch for the socket c.
func NewSendBatch(c PacketConn) *SendBatch {
	bc, _ := c.(BatchConn)
	return &SendBatch{c: c, bc: bc}
}

// Next returns the buffer of the next datagram, empty with the capacity of
// the largest packet, flushing a full batch first.
func (b *SendBatch) Next() []byte {
	if b.n == SendBatchSize {
		b.Flush()
	}
	return b.bufs[b.n][:0]
}

// Queue queues p, which must be the buffer returned by Next (filled), for
// to.
func (b *SendBatch) Queue(p []byte, to netip.AddrPort) {
	m := &b.ms[b.n]
	m.Buf, m.N, m.Addr = p, len(p), to
	b.n++
}

// Flush writes the queued datagrams: with one WriteBatch call when the
// socket has the batch form (repeated for what a short write left), else
// one WriteTo each. Errors are those of UDP (nobody listening, buffer
// full): the datagram is lost, like any other.
func (b *SendBatch) Flush() {
	ms := b.ms[:b.n]
	b.n = 0
	if bc := b.bc; bc != nil {
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
		_, _ = b.c.WriteTo(ms[i].Buf[:ms[i].N], ms[i].Addr)
	}
}
