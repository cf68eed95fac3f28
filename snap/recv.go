package snap

import (
	"bytes"

	"twserver/netproto"
)

// SnapMsg is one parsed snapshot message (SNAP, SNAPSINGLE or SNAPEMPTY).
type SnapMsg struct {
	// Empty is set for SNAPEMPTY: no data, no parts, no CRC.
	Empty bool
	// Tick is the snapshot's tick.
	Tick int32
	// DeltaTick is the wire value tick − base tick (tick + 1 without base).
	DeltaTick int32
	// NumParts and Part locate this part (1 and 0 for SNAPSINGLE).
	NumParts, Part int
	// CRC is the CRC of the complete new snapshot.
	CRC uint32
	// Data is this part's delta bytes; it aliases the parsed message.
	Data []byte
}

// BaseTick returns the tick of the delta base, or −1 when there is none.
func (m *SnapMsg) BaseTick() int32 {
	b := int64(m.Tick) - int64(m.DeltaTick)
	if b < 0 {
		return -1
	}
	return int32(b)
}

// ParseSnapMsg parses the body (after the header varint) of the system
// message id of the protocol ids. It fails with ErrBadMessage for another id,
// a truncated body, a negative tick, a base tick after the tick or trailing
// bytes, and with ErrBadPart for a part count outside 1..MaxParts, a part
// index outside 0..count−1 or a size outside 0..MaxPartSize.
func ParseSnapMsg(ids MsgIDs, id int32, body []byte) (SnapMsg, error) {
	var m SnapMsg
	var u netproto.Unpacker
	u.Reset(body)
	m.Tick = u.GetInt()
	m.DeltaTick = u.GetInt()
	switch id {
	case ids.SnapEmpty:
		m.Empty = true
	case ids.SnapSingle:
		m.NumParts, m.Part = 1, 0
	case ids.Snap:
		m.NumParts = int(u.GetInt())
		m.Part = int(u.GetInt())
	default:
		return m, ErrBadMessage
	}
	if !m.Empty {
		m.CRC = uint32(u.GetInt())
		size := u.GetInt()
		if u.Err() != nil {
			return m, ErrBadMessage
		}
		if m.NumParts < 1 || m.NumParts > MaxParts || m.Part < 0 || m.Part >= m.NumParts ||
			size < 0 || size > MaxPartSize {
			return m, ErrBadPart
		}
		m.Data = u.GetRaw(int(size))
	}
	if u.Err() != nil || u.Remaining() != 0 {
		return m, ErrBadMessage
	}
	if m.Tick < 0 || m.DeltaTick <= 0 {
		return m, ErrBadMessage
	}
	return m, nil
}

// Reassembler collects the parts of one tick's snapshot on the receiving
// side. Parts of a newer tick discard an unfinished older one; parts of an
// older (or already completed) tick are refused. Its buffer is fixed
// (MaxDeltaBytes), so it never allocates.
type Reassembler struct {
	active    bool // collecting tick
	done      bool // tick was completed
	tick      int32
	deltaTick int32
	numParts  int
	crc       uint32
	have      uint64
	lastLen   int
	buf       [MaxDeltaBytes]byte
}

// Reset forgets any collection (map change, reconnect).
func (r *Reassembler) Reset() { r.active, r.done, r.have = false, false, 0 }

// Add feeds one SNAP or SNAPSINGLE message. It returns true once every part
// of the tick is in; Data, Tick, BaseTick and CRC then describe it. Errors:
// ErrStaleTick (older or already completed tick), ErrInconsistent (part
// count, CRC or delta tick differ from earlier parts of the tick, a part
// arrives again with other bytes, or a part other than the last is
// shorter than MaxPartSize), ErrBadPart (out of range) and ErrBadMessage
// (SNAPEMPTY). A part again with the same bytes is a no-op: the network
// may duplicate a datagram.
// A refused message leaves the collection as it was.
func (r *Reassembler) Add(m *SnapMsg) (bool, error) {
	if m.Empty {
		return false, ErrBadMessage
	}
	if m.NumParts < 1 || m.NumParts > MaxParts || m.Part < 0 || m.Part >= m.NumParts ||
		len(m.Data) > MaxPartSize {
		return false, ErrBadPart
	}
	if r.active || r.done {
		if m.Tick < r.tick || (m.Tick == r.tick && r.done) {
			return false, ErrStaleTick
		}
	}
	if m.Part < m.NumParts-1 && len(m.Data) != MaxPartSize {
		return false, ErrInconsistent
	}
	if !r.active || m.Tick > r.tick {
		r.active, r.done = true, false
		r.tick, r.deltaTick, r.numParts, r.crc = m.Tick, m.DeltaTick, m.NumParts, m.CRC
		r.have = 0
	} else if m.NumParts != r.numParts || m.CRC != r.crc || m.DeltaTick != r.deltaTick {
		return false, ErrInconsistent
	} else if r.have&(1<<m.Part) != 0 {
		// The network may deliver a datagram twice: the same bytes again
		// change nothing; other bytes for a part held are a contradiction.
		if m.Part == m.NumParts-1 && len(m.Data) != r.lastLen ||
			!bytes.Equal(m.Data, r.buf[m.Part*MaxPartSize:m.Part*MaxPartSize+len(m.Data)]) {
			return false, ErrInconsistent
		}
		return false, nil
	}
	copy(r.buf[m.Part*MaxPartSize:], m.Data)
	if m.Part == m.NumParts-1 {
		r.lastLen = len(m.Data)
	}
	r.have |= 1 << m.Part
	if r.have != 1<<r.numParts-1 {
		return false, nil
	}
	r.active, r.done = false, true
	return true, nil
}

// Data returns the complete encoded delta of the last completed tick.
func (r *Reassembler) Data() []byte { return r.buf[:(r.numParts-1)*MaxPartSize+r.lastLen] }

// Tick returns the tick being collected or last completed.
func (r *Reassembler) Tick() int32 { return r.tick }

// BaseTick returns the delta base tick of that tick, or −1 without base.
func (r *Reassembler) BaseTick() int32 {
	m := SnapMsg{Tick: r.tick, DeltaTick: r.deltaTick}
	return m.BaseTick()
}

// CRC returns the CRC announced for that tick.
func (r *Reassembler) CRC() uint32 { return r.crc }

// Receiver is the complete receiving path of a client: it parses snapshot
// messages, reassembles parts, varint-decodes the delta, applies it to the
// stored base, checks the CRC and stores the result by tick. It is used by
// the load tester and by tests that replay captures. Use NewReceiver.
type Receiver struct {
	// IDs are the protocol's snapshot message ids.
	IDs MsgIDs
	// Sizes is the protocol's static size table.
	Sizes *SizeTable

	re    Reassembler
	store Storage
	ints  []int32
	tmp   Snapshot
	empty Snapshot
	last  int32 // tick of the newest reconstructed snapshot, −1 before the first
}

// NewReceiver returns a Receiver for the given protocol.
func NewReceiver(ids MsgIDs, sizes *SizeTable) *Receiver {
	return &Receiver{IDs: ids, Sizes: sizes, last: -1}
}

// Reset forgets all snapshots and partial parts.
func (r *Receiver) Reset() {
	r.re.Reset()
	r.store.PurgeAll()
	r.last = -1
}

// Handle processes the body of one snapshot message with system message id.
// It returns done = true when a new snapshot has been reconstructed (then
// Latest returns it). Errors: those of ParseSnapMsg, Reassembler.Add,
// ParseInts and ApplyDelta, ErrNoBase when the delta base is not stored
// (the client should then ack −1), and ErrBadCRC.
func (r *Receiver) Handle(id int32, body []byte) (tick int32, done bool, err error) {
	m, err := ParseSnapMsg(r.IDs, id, body)
	if err != nil {
		return 0, false, err
	}
	if m.Tick <= r.last { // ticks are never negative (ParseSnapMsg)
		return m.Tick, false, ErrStaleTick
	}
	base := &r.empty
	if bt := m.BaseTick(); bt >= 0 {
		b, _, ok := r.store.Get(bt)
		if !ok {
			return m.Tick, false, ErrNoBase
		}
		base = b
	}
	if m.Empty {
		r.tmp.CopyFrom(base)
	} else {
		complete, err := r.re.Add(&m)
		if err != nil || !complete {
			return m.Tick, false, err
		}
		r.ints, err = ParseInts(r.ints[:0], r.re.Data(), MaxDeltaInts)
		if err != nil {
			return m.Tick, false, err
		}
		if err := ApplyDelta(&r.tmp, base, r.ints, r.Sizes); err != nil {
			return m.Tick, false, err
		}
		if r.tmp.CRC() != m.CRC {
			return m.Tick, false, ErrBadCRC
		}
	}
	if bt := m.BaseTick(); bt >= 0 {
		r.store.PurgeBefore(bt)
	}
	r.store.Add(m.Tick, 0, &r.tmp)
	r.last = m.Tick
	return m.Tick, true, nil
}

// Latest returns the newest reconstructed snapshot and its tick (the tick
// to acknowledge), or nil and −1.
func (r *Receiver) Latest() (*Snapshot, int32) {
	if r.last < 0 {
		return nil, -1
	}
	s, _, _ := r.store.Get(r.last)
	return s, r.last
}

// Get returns the stored snapshot of tick.
func (r *Receiver) Get(tick int32) (*Snapshot, bool) {
	s, _, ok := r.store.Get(tick)
	return s, ok
}
