package sockio

import (
	"fmt"
	"testing"
	"time"

	"twserver/internal/udppeer"
)

// writeToOnly hides a socket's batch form, as a PacketConn without one.
type writeToOnly struct{ PacketConn }

// TestSendBatch queues more datagrams than a batch holds through a
// SendBatch, on a socket with the batch form and on one without: every
// datagram arrives once, intact and in order, and a flushed batch is empty.
func TestSendBatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(BatchConn) PacketConn
	}{
		{"batch", func(c BatchConn) PacketConn { return c }},
		{"writeto", func(c BatchConn) PacketConn { return writeToOnly{c} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ListenBatch("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			pc := tc.wrap(c)
			if _, ok := pc.(BatchConn); ok != (tc.name == "batch") {
				t.Fatalf("batch form found: %v", ok)
			}
			b := NewSendBatch(pc)
			peer := udppeer.Listen(t, 1)[0]
			const total = SendBatchSize + 3 // Next flushes the full batch
			for i := range total {
				p := append(b.Next(), fmt.Sprintf("datagram %03d", i)...)
				b.Queue(p, udppeer.Addr(peer))
			}
			b.Flush()
			if b.n != 0 {
				t.Fatalf("%d datagrams left after Flush", b.n)
			}
			b.Flush() // nothing queued: nothing sent
			wants := make([]string, total)
			for i := range wants {
				wants[i] = fmt.Sprintf("datagram %03d", i)
			}
			udppeer.Expect(t, peer, 2*time.Second, wants...)
			udppeer.ExpectNone(t, peer, 50*time.Millisecond)
		})
	}
}
