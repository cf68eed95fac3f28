package snap

import "twserver/netproto"

// Bounds of the snapshot messages (net.md A4.2).
const (
	// MaxPartSize is MAX_SNAPSHOT_PACKSIZE, the most delta bytes in one
	// SNAP or SNAPSINGLE message.
	MaxPartSize = netproto.MaxSnapPartSize
	// MaxParts is the most parts one snapshot may be split into (the client
	// drops SNAP messages with num_parts outside 1..64).
	MaxParts = netproto.MaxSnapParts
	// MaxDeltaBytes is the most encoded delta bytes one snapshot can carry.
	MaxDeltaBytes = MaxParts * MaxPartSize
	// MaxSnapMsgSize bounds the payload of one snapshot message: header and
	// six varint fields plus one part.
	MaxSnapMsgSize = 7*netproto.MaxVarintSize + MaxPartSize
)

// MsgIDs holds one protocol's system message ids of the snapshot messages.
type MsgIDs struct {
	Snap       int32 // NETMSG_SNAP: one part of a multi-part snapshot
	SnapEmpty  int32 // NETMSG_SNAPEMPTY: no changes against the base
	SnapSingle int32 // NETMSG_SNAPSINGLE: the whole delta in one message
}

var (
	// MsgIDs7 are the 0.7 ids (net.md A3.1): SNAP 6, SNAPEMPTY 7, SNAPSINGLE 8.
	MsgIDs7 = MsgIDs{Snap: netproto.NetmsgSnap, SnapEmpty: netproto.NetmsgSnapEmpty, SnapSingle: netproto.NetmsgSnapSingle}
	// MsgIDs6 are the 0.6 ids (net.md B3.1): SNAP 5, SNAPEMPTY 6, SNAPSINGLE 7.
	MsgIDs6 = MsgIDs{Snap: netproto.Netmsg6Snap, SnapEmpty: netproto.Netmsg6SnapEmpty, SnapSingle: netproto.Netmsg6SnapSingle}
)

// NumParts returns how many SNAP parts n encoded delta bytes need (1 means
// SNAPSINGLE), or ErrTooManyParts when n exceeds MaxDeltaBytes.
func NumParts(n int) (int, error) {
	if n > MaxDeltaBytes {
		return 0, ErrTooManyParts
	}
	if n == 0 {
		return 1, nil
	}
	return (n + MaxPartSize - 1) / MaxPartSize, nil
}

// sysHeader returns the message header varint value of a system message.
func sysHeader(id int32) int32 { return id<<1 | 1 }

// AppendSnapEmpty appends a SNAPEMPTY message (header varint included):
// tick and tick − baseTick (tick + 1 when baseTick is −1, no base).
func AppendSnapEmpty(dst []byte, ids MsgIDs, tick, baseTick int32) []byte {
	dst = netproto.AppendInt(dst, sysHeader(ids.SnapEmpty))
	dst = netproto.AppendInt(dst, tick)
	return netproto.AppendInt(dst, tick-baseTick)
}

// AppendSnapPart appends part `part` of the encoded delta data as a message
// (header varint included): SNAPSINGLE when data fits one part, otherwise
// SNAP with the part count and index. crc is the new snapshot's CRC. The
// caller checks part against NumParts(len(data)).
func AppendSnapPart(dst []byte, ids MsgIDs, tick, baseTick int32, crc uint32, data []byte, part int) []byte {
	n, err := NumParts(len(data))
	if err != nil || part < 0 || part >= n {
		panic("snap: AppendSnapPart: part out of range")
	}
	start := part * MaxPartSize
	end := min(start+MaxPartSize, len(data))
	chunk := data[start:end]
	if n == 1 {
		dst = netproto.AppendInt(dst, sysHeader(ids.SnapSingle))
		dst = netproto.AppendInt(dst, tick)
		dst = netproto.AppendInt(dst, tick-baseTick)
	} else {
		dst = netproto.AppendInt(dst, sysHeader(ids.Snap))
		dst = netproto.AppendInt(dst, tick)
		dst = netproto.AppendInt(dst, tick-baseTick)
		dst = netproto.AppendInt(dst, int32(n))
		dst = netproto.AppendInt(dst, int32(part))
	}
	dst = netproto.AppendInt(dst, int32(crc))
	dst = netproto.AppendInt(dst, int32(len(chunk)))
	return append(dst, chunk...)
}

// Encoder turns a pair of snapshots into the snapshot messages of one tick
// for one client: delta, varint encoding, splitting into parts. It keeps its
// buffers, so encoding does not allocate in steady state. The zero value is
// ready to use.
type Encoder struct {
	delta []int32
	data  []byte
	msgs  []byte
	ends  [MaxParts]int
	n     int
}

// Encode builds the messages that bring a client holding the snapshot of
// baseTick (from; baseTick −1 and an empty from when there is no base) to
// the snapshot `to` of tick. Afterwards NumMessages and Message return them:
// one SNAPEMPTY when nothing changed, one SNAPSINGLE, or up to MaxParts SNAP
// parts in order. It fails with ErrTooManyParts when the encoded delta is
// larger than MaxDeltaBytes; then there are no messages.
func (e *Encoder) Encode(ids MsgIDs, tick, baseTick int32, from, to *Snapshot, sizes *SizeTable) error {
	e.n = 0
	e.msgs = e.msgs[:0]
	e.delta = AppendDelta(e.delta[:0], from, to, sizes)
	if IsEmptyDelta(e.delta) {
		e.msgs = AppendSnapEmpty(e.msgs, ids, tick, baseTick)
		e.ends[0] = len(e.msgs)
		e.n = 1
		return nil
	}
	e.data = AppendInts(e.data[:0], e.delta)
	n, err := NumParts(len(e.data))
	if err != nil {
		return err
	}
	for p := range n {
		e.msgs = AppendSnapPart(e.msgs, ids, tick, baseTick, to.CRC(), e.data, p)
		e.ends[p] = len(e.msgs)
	}
	e.n = n
	return nil
}

// NumMessages returns the number of messages of the last Encode.
func (e *Encoder) NumMessages() int { return e.n }

// Message returns message i of the last Encode (header varint included),
// valid until the next Encode.
func (e *Encoder) Message(i int) []byte {
	start := 0
	if i > 0 {
		start = e.ends[i-1]
	}
	return e.msgs[start:e.ends[i]]
}

// Data returns the varint-encoded delta of the last Encode (empty for
// SNAPEMPTY).
func (e *Encoder) Data() []byte {
	if e.n == 1 && IsEmptyDelta(e.delta) {
		return nil
	}
	return e.data
}
