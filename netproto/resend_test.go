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
		if !b.push(uint16(i), data, nil, 0) {
			t.Fatalf("push %d", i)
		}
	}
	if b.push(3, data, nil, 0) {
		t.Fatal("overfull push succeeded")
	}
	b.pop()
	if !b.push(3, data, nil, 0) || b.at(2).off != 0 {
		t.Fatalf("did not wrap: off %d", b.at(2).off)
	}
	if b.push(4, data[:1], nil, 0) {
		t.Fatal("wrapped tail overlaps the head")
	}
	b.pop()
	if !b.push(4, data, nil, 0) {
		t.Fatal("push after second pop")
	}
	for b.n > 0 {
		b.pop()
	}
	for i := range MaxResendChunks {
		if !b.push(uint16(i), nil, nil, 0) {
			t.Fatalf("empty push %d", i)
		}
	}
	if b.push(0, nil, nil, 0) {
		t.Fatal("entry limit not enforced")
	}
}

// drain polls every waiting datagram and returns, per datagram, whether it
// carried the RESEND flag and the vital sequence numbers of its chunks.
func drain(t *testing.T, c *Conn) (flags []bool, seqs [][]uint16) {
	t.Helper()
	for p, ok := c.Poll(nil); ok; p, ok = c.Poll(nil) {
		h, payload, err := ParsePacket(p)
		if err != nil {
			t.Fatal(err)
		}
		payload, _ = DecodePayload(nil, h, payload)
		var r ChunkReader
		r.Reset(payload, int(h.NumChunks))
		var s []uint16
		for ch, ok := r.Next(); ok; ch, ok = r.Next() {
			s = append(s, ch.Seq)
		}
		flags = append(flags, h.Flags&FlagResend != 0)
		seqs = append(seqs, s)
	}
	return flags, seqs
}

// TestConnResendFlagPending: a RESEND request inside resendFlagInterval is
// kept and honoured by Update when the interval ends; one whose ack moved
// on is honoured at once.
func TestConnResendFlagPending(t *testing.T) {
	c := serverConn(t)
	for i := range 4 {
		c.Send(0, []byte{byte(i)}, SendVital)
	}
	c.Flush(0)
	drain(t, c)
	resend := PacketHeader{Token: 1, Flags: FlagResend}
	c.Feed(time.Millisecond, resend, nil) // honoured: 4 chunks
	c.Feed(2*time.Millisecond, resend, nil)
	if c.Stats.ChunksResent != 4 {
		t.Fatalf("%d resent after two requests 1 ms apart, want 4", c.Stats.ChunksResent)
	}
	c.Update(resendFlagInterval)
	if c.Stats.ChunksResent != 4 {
		t.Fatalf("resent before the interval ended")
	}
	c.Update(resendFlagInterval + time.Millisecond)
	if c.Stats.ChunksResent != 8 {
		t.Fatalf("%d resent, want the kept request honoured when the interval ended (8)", c.Stats.ChunksResent)
	}
	c.Update(resendFlagInterval + 30*time.Millisecond)
	if c.Stats.ChunksResent != 8 {
		t.Fatalf("the kept request was honoured twice")
	}
	// The peer acks 2 and asks again: honoured at once, chunks 3 and 4
	// (and, in the reference's order, 1 and 2 before the ack applies).
	resend.Ack = 2
	c.Feed(resendFlagInterval+31*time.Millisecond, resend, nil)
	if c.Stats.ChunksResent != 12 || c.Unacked() != 2 {
		t.Fatalf("after progress: %d resent, %d unacked; want 12, 2", c.Stats.ChunksResent, c.Unacked())
	}
	if c.Stats.ResendAsked != 3 {
		t.Errorf("ResendAsked %d, want 3", c.Stats.ResendAsked)
	}
}

// TestConnRedundant: with SetCopies(2) every vital chunk (new or resent)
// goes out twice, in datagrams of their own; a receiver delivers it once.
func TestConnRedundant(t *testing.T) {
	c := serverConn(t)
	c.SetCopies(2)
	big := bytes.Repeat([]byte{7}, MapChunkSize)
	c.Send(0, big, SendVital|SendFlush)
	c.Send(0, []byte{1}, SendVital|SendFlush)
	_, seqs := drain(t, c)
	if fmt.Sprint(seqs) != "[[1] [1] [2] [2]]" {
		t.Fatalf("datagrams %v, want each chunk twice in its own", seqs)
	}
	c.Feed(time.Millisecond, PacketHeader{Token: 1, Ack: 1, Flags: FlagResend}, nil)
	c.Flush(time.Millisecond)
	if _, seqs = drain(t, c); fmt.Sprint(seqs) != "[[1] [1] [2] [2]]" {
		t.Fatalf("resent datagrams %v, want each chunk twice", seqs)
	}
	c.SetCopies(1)
	c.Send(2*time.Millisecond, []byte{3}, SendVital|SendFlush)
	if _, seqs = drain(t, c); fmt.Sprint(seqs) != "[[3]]" {
		t.Fatalf("after SetCopies(1): %v", seqs)
	}
	c.SetCopies(MaxCopies + 5) // clamped
	c.Send(2*time.Millisecond, []byte{4}, SendVital|SendFlush)
	if _, seqs = drain(t, c); fmt.Sprint(seqs) != "[[4] [4] [4]]" {
		t.Fatalf("SetCopies beyond MaxCopies: %v, want 3 copies", seqs)
	}
	// the receiving side drops the copy
	r := serverConn(t)
	var got int
	for range 2 {
		if err := r.Feed(0, PacketHeader{Token: 1, NumChunks: 1}, vitalPayload(1)); err != nil {
			t.Fatal(err)
		}
		for _, ok := r.Recv(); ok; _, ok = r.Recv() {
			got++
		}
	}
	if got != 1 {
		t.Fatalf("receiver delivered the chunk %d times", got)
	}
}

// TestConnGapFlag: a gap in the received chunks is reported at once by
// FlushResend and again every gapFlagInterval until it closes; AskResend
// sends the flag on demand.
func TestConnGapFlag(t *testing.T) {
	c := serverConn(t)
	c.Feed(0, PacketHeader{Token: 1, NumChunks: 1}, vitalPayload(2)) // 1 is missing
	for _, ok := c.Recv(); ok; _, ok = c.Recv() {
	}
	c.FlushResend(0)
	if flags, _ := drain(t, c); fmt.Sprint(flags) != "[true]" || c.Stats.Gaps != 1 {
		t.Fatalf("after the gap: datagrams with RESEND %v, gaps %d", flags, c.Stats.Gaps)
	}
	c.Update(gapFlagInterval - time.Millisecond)
	c.Update(gapFlagInterval)
	if flags, _ := drain(t, c); fmt.Sprint(flags) != "[true]" {
		t.Fatalf("the flag was not repeated once after gapFlagInterval: %v", flags)
	}
	c.Feed(gapFlagInterval+time.Millisecond, PacketHeader{Token: 1, NumChunks: 2}, vitalPayload(1, 2))
	for _, ok := c.Recv(); ok; _, ok = c.Recv() {
	}
	c.Update(3 * gapFlagInterval)
	if flags, _ := drain(t, c); len(flags) != 0 {
		t.Fatalf("flag repeated after the gap closed: %v", flags)
	}
	c.AskResend(3 * gapFlagInterval)
	if flags, _ := drain(t, c); fmt.Sprint(flags) != "[true]" {
		t.Fatalf("AskResend: %v", flags)
	}
}

// TestConnResendUnackedRTT: ResendUnacked resends every unacknowledged
// chunk at once (the server's tail-loss probe); the RTT comes from acks of
// chunks sent once and ignores resent ones (Karn).
func TestConnResendUnackedRTT(t *testing.T) {
	c := new(Conn)
	c.Accept(0, 1, 2)
	c.Poll(nil)
	if _, _, ok := c.RTT(); ok {
		t.Fatal("RTT before any sample")
	}
	c.Feed(10*time.Millisecond, PacketHeader{Token: 1}, nil) // the answer to the ACCEPT
	if srtt, _, ok := c.RTT(); !ok || srtt != 10*time.Millisecond {
		t.Fatalf("RTT %v %v after the ACCEPT's answer, want 10ms", srtt, ok)
	}
	if _, ok := c.OldestUnackedSent(); ok {
		t.Fatal("unacked chunk on a fresh connection")
	}
	for i := range 3 {
		c.Send(time.Duration(i)*time.Millisecond, []byte{byte(i)}, SendVital|SendFlush)
	}
	drain(t, c)
	c.Feed(10*time.Millisecond, PacketHeader{Token: 1, Ack: 1}, nil) // 1 sent at 0: 10 ms
	if srtt, _, ok := c.RTT(); !ok || srtt != 10*time.Millisecond {
		t.Fatalf("RTT %v %v, want 10ms", srtt, ok)
	}
	if at, ok := c.OldestUnackedSent(); !ok || at != time.Millisecond || c.PeerAck() != 1 {
		t.Fatalf("oldest unacked sent at %v %v, peer ack %d", at, ok, c.PeerAck())
	}
	if n := c.ResendUnacked(20*time.Millisecond, 0, 1); n != 2 {
		t.Fatalf("ResendUnacked reports %d unacked, want 2", n)
	}
	c.ResendUnacked(20*time.Millisecond, 1, 5)
	if _, seqs := drain(t, c); fmt.Sprint(seqs) != "[[2] [3]]" {
		t.Fatalf("probe resent %v, want [[2] [3]]", seqs)
	}
	c.Feed(100*time.Millisecond, PacketHeader{Token: 1, Ack: 3}, nil)
	if srtt, _, _ := c.RTT(); srtt != 10*time.Millisecond {
		t.Fatalf("RTT %v after acks of resent chunks, want it unchanged", srtt)
	}
	if _, ok := c.OldestUnackedSent(); ok {
		t.Fatal("unacked chunks after the ack of all")
	}
}
