package netproto

import (
	"reflect"
	"testing"
)

// TestConnWarm: Warm reads a Conn in each state of its buffers (fresh,
// vital chunks awaiting their ack, a packet under construction filled to
// its end, datagrams waiting in the outbox, the outbox full) without
// changing it and without allocating.
func TestConnWarm(t *testing.T) {
	c := serverConn(t)
	check := func(state string) {
		t.Helper()
		before := *c
		if a := testing.AllocsPerRun(10, func() { c.Warm() }); a != 0 {
			t.Errorf("%s: Warm allocates %.1f times", state, a)
		}
		if !reflect.DeepEqual(before, *c) {
			t.Errorf("%s: Warm changed the connection", state)
		}
	}
	check("fresh")
	if err := c.Send(0, []byte{1, 2, 3}, SendVital); err != nil {
		t.Fatal(err)
	}
	check("a vital chunk under construction")
	if err := c.Send(0, make([]byte, c.payloadLimit()-c.outLen-MaxChunkHeaderSize), 0); err != nil || c.Pending() > 0 {
		t.Fatalf("filling the packet: %v, %d datagrams", err, c.Pending())
	}
	if c.outLen < c.payloadLimit()-MaxChunkHeaderSize {
		t.Fatalf("packet under construction at %d of %d bytes", c.outLen, c.payloadLimit())
	}
	check("the packet under construction full")
	c.Flush(0)
	check("datagrams in the outbox")
	for c.Pending() < OutboxPackets {
		c.Send(0, []byte{5}, SendFlush)
	}
	check("the outbox full")
}
