package netproto

import "time"

// resendEntry is one unacked vital chunk kept for retransmission. It holds
// no pointer (the referenced rest of the chunk is in resendBuffer.refs), so
// the garbage collector does not look through a connection's entries.
type resendEntry struct {
	seq       uint16
	slot      uint16 // its index in ents and refs
	off, size int32  // data position in resendBuffer.data
	firstSend time.Duration
	lastSend  time.Duration
}

// resendBuffer is a FIFO of unacked vital chunks: at most MaxResendChunks
// entries whose data shares a ring of ConnBufferSize bytes. Entries are
// appended in sequence order and removed from the front when acked. refs
// comes first and the pointer-free arrays after it, so a connection's
// pointers lie together at the front of the Conn (the garbage collector
// scans a large object up to its last pointer).
type resendBuffer struct {
	// refs[e.slot] is the rest of entry e's chunk, held by reference
	// (Conn.SendRef): data the caller never changes, such as a loaded
	// map's bytes.
	refs [MaxResendChunks][]byte
	ents [MaxResendChunks]resendEntry
	head int // index of the oldest entry
	n    int
	data [ConnBufferSize]byte
}

func (b *resendBuffer) reset() {
	for i := 0; i < b.n; i++ {
		b.refs[b.at(i).slot] = nil
	}
	b.head, b.n = 0, 0
}

// at returns the i-th oldest entry.
func (b *resendBuffer) at(i int) *resendEntry { return &b.ents[(b.head+i)%MaxResendChunks] }

func (b *resendBuffer) bytes(e *resendEntry) []byte { return b.data[e.off : e.off+e.size] }

// ref returns the rest of e's chunk held by reference (nil when none).
func (b *resendBuffer) ref(e *resendEntry) []byte { return b.refs[e.slot] }

// alloc finds room for size bytes after the newest entry, wrapping to the
// start of the ring when the tail has no room. Every entry occupies at least
// one byte so that offsets stay distinct.
func (b *resendBuffer) alloc(size int) (int, bool) {
	need := max(size, 1)
	if b.n == MaxResendChunks || need > ConnBufferSize {
		return 0, false
	}
	if b.n == 0 {
		return 0, true
	}
	first, last := b.at(0), b.at(b.n-1)
	tail := int(last.off) + max(int(last.size), 1)
	if last.off >= first.off { // not wrapped: free space at the end and before first
		if tail+need <= ConnBufferSize {
			return tail, true
		}
		if need <= int(first.off) {
			return 0, true
		}
		return 0, false
	}
	if tail+need <= int(first.off) { // wrapped: free space between tail and first
		return tail, true
	}
	return 0, false
}

// push stores a copy of data, followed by ref held by reference, as the
// newest entry; false if there is no room.
func (b *resendBuffer) push(seq uint16, data, ref []byte, now time.Duration) bool {
	off, ok := b.alloc(len(data))
	if !ok {
		return false
	}
	copy(b.data[off:], data)
	slot := (b.head + b.n) % MaxResendChunks
	b.ents[slot] = resendEntry{seq: seq, slot: uint16(slot), off: int32(off), size: int32(len(data)), firstSend: now, lastSend: now}
	b.refs[slot] = ref
	b.n++
	return true
}

// pop removes the oldest entry.
func (b *resendBuffer) pop() {
	b.refs[b.head] = nil // do not keep the referenced data alive
	b.head = (b.head + 1) % MaxResendChunks
	b.n--
	if b.n == 0 {
		b.head = 0
	}
}

// inBackroom reports whether seq lies in the BackroomSize+1 values ending at
// ack (inclusive), modulo MaxSequence: an already seen sequence number.
func inBackroom(seq, ack uint16) bool {
	bottom := int(ack) - BackroomSize
	s := int(seq)
	if bottom < 0 {
		return s <= int(ack) || s >= bottom+MaxSequence
	}
	return s >= bottom && s <= int(ack)
}

// outbox holds finished datagrams until the caller polls them: a ring of
// at most OutboxPackets slots, each allocated on first use and then reused.
// The ring restarts at slot 0 whenever it is drained, so memory follows the
// peak number of unpolled datagrams, not the number of datagrams sent.
type outbox struct {
	slots [OutboxPackets][]byte
	head  int
	n     int
}

// slot returns the empty buffer of the next free slot, or nil if full.
func (o *outbox) slot() []byte {
	if o.n == OutboxPackets {
		return nil
	}
	i := (o.head + o.n) % OutboxPackets
	if o.slots[i] == nil {
		o.slots[i] = make([]byte, 0, outboxSlotSize)
	}
	return o.slots[i][:0]
}

// commit records the datagram p written into the slot returned by slot.
func (o *outbox) commit(p []byte) {
	o.slots[(o.head+o.n)%OutboxPackets] = p
	o.n++
}

// pop appends the oldest datagram to dst and removes it.
func (o *outbox) pop(dst []byte) ([]byte, bool) {
	if o.n == 0 {
		return dst, false
	}
	dst = append(dst, o.slots[o.head]...)
	o.head = (o.head + 1) % OutboxPackets
	o.n--
	if o.n == 0 {
		o.head = 0
	}
	return dst, true
}
