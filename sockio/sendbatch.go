package sockio

import (
	"net/netip"

	"twserver/netproto"
)

// SendBatch collects outgoing datagrams in fixed buffers (no allocation
// after the first use) until Flush writes them: with one WriteBatch call
// when the socket has the batch form. Its zero value is ready; it is used
// by one goroutine.
type SendBatch struct {
	bufs [SendBatchSize][netproto.MaxPacketSize]byte
	ms   [SendBatchSize]Datagram
	n    int
}

// Next returns the buffer of the next datagram, empty with the capacity of
// the largest packet, flushing a full batch to c first.
func (b *SendBatch) Next(c PacketConn) []byte {
	if b.n == SendBatchSize {
		b.Flush(c)
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

// Flush writes the queued datagrams to c: with one WriteBatch call when c
// has the batch form (repeated for what a short write left), else one
// WriteTo each. Errors are those of UDP (nobody listening, buffer full):
// the datagram is lost, like any other.
func (b *SendBatch) Flush(c PacketConn) {
	ms := b.ms[:b.n]
	b.n = 0
	if bc, ok := c.(BatchConn); ok {
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
		_, _ = c.WriteTo(ms[i].Buf[:ms[i].N], ms[i].Addr)
	}
}
