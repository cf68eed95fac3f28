package netproto

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// Tests of retransmission: the resend buffer, the peer's RESEND flag, the
// resend timer's budget and the outbox.

func TestConnResendFlag(t *testing.T) {
	c := serverConn(t)
	for i := range 3 {
		c.Send(0, []byte{byte(i)}, SendVital)
	}
	c.Flush(0)
	c.Poll(nil)
	// The peer acks 1 and asks for a resend: chunks 2 and 3 go out again.
	if err := c.Feed(time.Millisecond, PacketHeader{Token: 1, Ack: 1, Flags: FlagResend}, nil); err != nil {
		t.Fatal(err)
	}
	if c.Unacked() != 2 {
		t.Fatalf("unacked %d", c.Unacked())
	}
	// The resend happens before the ack is applied (spec A1.6 order), so
	// chunk 1 is resent too.
	c.Flush(time.Millisecond)
	p, _ := c.Poll(nil)
	h, payload, _ := ParsePacket(p)
	payload, _ = DecodePayload(nil, h, payload)
	var r ChunkReader
	r.Reset(payload, int(h.NumChunks))
	var seqs []uint16
	for ch, ok := r.Next(); ok; ch, ok = r.Next() {
		if ch.Flags != ChunkVital|ChunkResend {
			t.Fatalf("flags %v", ch.Flags)
		}
		seqs = append(seqs, ch.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 3]" {
		t.Fatalf("resent %v", seqs)
	}
}

// TestConnResendFlagRate checks that RESEND requests arriving in quick
// succession resend the buffer once, and again after resendFlagInterval.
func TestConnResendFlagRate(t *testing.T) {
	c := serverConn(t)
	for i := range 20 {
		c.Send(0, bytes.Repeat([]byte{byte(i)}, 100), SendVital)
	}
	c.Flush(0)
	for _, ok := c.Poll(nil); ok; _, ok = c.Poll(nil) {
	}
	resend := PacketHeader{Token: 1, Flags: FlagResend}
	for i, tc := range []struct {
		at   time.Duration
		want uint64 // chunks resent so far
	}{
		{time.Millisecond, 20},
		{2 * time.Millisecond, 20},
		{resendFlagInterval, 20},
		{resendFlagInterval + time.Millisecond, 40},
		{resendFlagInterval + 2*time.Millisecond, 40},
	} {
		if err := c.Feed(tc.at, resend, nil); err != nil {
			t.Fatal(err)
		}
		if c.Stats.ChunksResent != tc.want {
			t.Fatalf("request %d at %v: %d chunks resent, want %d", i, tc.at, c.Stats.ChunksResent, tc.want)
		}
	}
}

// TestConnResendBounded checks that one Update queues at most one packet's
// worth of overdue chunks, each chunk at most once per ResendInterval, and
// only among the oldest resendScan.
func TestConnResendBounded(t *testing.T) {
	c := serverConn(t)
	const chunks, size = 100, 200
	for i := range chunks {
		if err := c.Send(0, bytes.Repeat([]byte{byte(i)}, size), SendVital); err != nil {
			t.Fatal(err)
		}
	}
	c.Flush(0)
	for _, ok := c.Poll(nil); ok; _, ok = c.Poll(nil) {
	}
	now := ResendInterval + time.Millisecond
	perPacket := resendBudget / (size + MaxChunkHeaderSize)
	for call := 0; ; call++ {
		before := c.Stats.ChunksResent
		c.Update(now)
		got := int(c.Stats.ChunksResent - before)
		if got > perPacket || got*(size+MaxChunkHeaderSize) > resendBudget {
			t.Fatalf("update %d resent %d chunks of %d bytes", call, got, size)
		}
		c.Flush(now)
		if c.Pending() > 1 {
			t.Fatalf("update %d produced %d datagrams", call, c.Pending())
		}
		for p, ok := c.Poll(nil); ok; p, ok = c.Poll(nil) {
			if len(p) > MaxConnPacketSize {
				t.Fatalf("datagram of %d bytes", len(p))
			}
		}
		if got == 0 {
			break
		}
		if call > chunks {
			t.Fatal("resends do not stop")
		}
	}
	if c.Stats.ChunksResent != resendScan {
		t.Fatalf("resent %d chunks, want the oldest %d once each", c.Stats.ChunksResent, resendScan)
	}
	// Before ResendInterval has passed again nothing is resent.
	c.Update(now + ResendInterval)
	if c.Stats.ChunksResent != resendScan {
		t.Fatalf("resent again after %v", ResendInterval)
	}
	c.Update(now + ResendInterval + time.Millisecond)
	if n := c.Stats.ChunksResent - resendScan; n == 0 || int(n) > perPacket {
		t.Fatalf("second round resent %d chunks in one update", n)
	}
}

// TestOutboxMemory checks that a Conn whose outbox is drained after every
// packet keeps reusing one slot instead of allocating the whole ring.
func TestOutboxMemory(t *testing.T) {
	c := serverConn(t)
	for i := range 3 * OutboxPackets {
		c.Send(time.Duration(i), []byte{1, 2, 3}, SendFlush)
		for _, ok := c.Poll(nil); ok; _, ok = c.Poll(nil) {
		}
	}
	used := 0
	for _, s := range c.box.slots {
		if s != nil {
			used++
		}
	}
	if used != 1 {
		t.Fatalf("%d outbox slots allocated, want 1", used)
	}
}

func TestInBackroom(t *testing.T) {
	tests := []struct {
		seq, ack uint16
		want     bool
	}{
		{0, 0, true}, {1, 0, false}, {1023, 0, true}, {512, 0, true}, {511, 0, false},
		{600, 600, true}, {88, 600, true}, {87, 600, false}, {601, 600, false},
		{1023, 511, true}, {1022, 511, false}, {0, 511, true}, {1023, 510, true},
	}
	for _, tc := range tests {
		if got := inBackroom(tc.seq, tc.ack); got != tc.want {
			t.Errorf("inBackroom(%d, %d) = %v", tc.seq, tc.ack, got)
		}
	}
}

func TestResendBufferWrap(t *testing.T) {
	var b resendBuffer
	data := make([]byte, 10000)
	for i := range 3 {
		if !b.push(uint16(i), data, 0) {
			t.Fatalf("push %d", i)
		}
	}
	if b.push(3, data, 0) {
		t.Fatal("overfull push succeeded")
	}
	b.pop()
	if !b.push(3, data, 0) || b.at(2).off != 0 {
		t.Fatalf("did not wrap: off %d", b.at(2).off)
	}
	if b.push(4, data[:1], 0) {
		t.Fatal("wrapped tail overlaps the head")
	}
	b.pop()
	if !b.push(4, data, 0) {
		t.Fatal("push after second pop")
	}
	for b.n > 0 {
		b.pop()
	}
	for i := range MaxResendChunks {
		if !b.push(uint16(i), nil, 0) {
			t.Fatalf("empty push %d", i)
		}
	}
	if b.push(0, nil, 0) {
		t.Fatal("entry limit not enforced")
	}
}
