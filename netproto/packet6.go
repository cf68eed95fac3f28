package netproto

// 0.6 (and DDNet) packet layer differences (spec B1). Token, Huffman and the
// varint are shared with 0.7.

// 0.6 packet flags as bits of byte 0 (spec B1.2); use with PacketHeader6.
const (
	// Flag6Compression marks a compressed 0.6 payload (0x80).
	Flag6Compression uint8 = 0x80
	// Flag6Resend asks for a resend (0x40).
	Flag6Resend uint8 = 0x40
	// Flag6Connless marks a connless packet (0x20).
	Flag6Connless uint8 = 0x20
	// Flag6Control marks a control packet (0x10).
	Flag6Control uint8 = 0x10
	// Flag6Token is the 0.6.5 token bit (0x08), must be 0 when sending.
	Flag6Token uint8 = 0x08
	// Flag6Unused is set only by 0.7 packets (their CONTROL bit, 0x04).
	Flag6Unused uint8 = 0x04
)

// PacketHeader6 is the 3-byte 0.6 connection header.
type PacketHeader6 struct {
	Flags     uint8  // Flag6* bits as on the wire (low 2 bits clear)
	Ack       uint16 // 0..1023
	NumChunks uint8
}

// ParsePacket6 parses a 0.6 connection datagram; the payload aliases b.
func ParsePacket6(b []byte) (h PacketHeader6, payload []byte, err error) {
	if len(b) < PacketHeaderSize6 {
		return h, nil, ErrTruncated
	}
	if len(b) > MaxConnPacketSize6 {
		return h, nil, ErrTooLarge
	}
	if b[0]&Flag6Connless != 0 {
		return h, nil, ErrConnless
	}
	h.Flags = b[0] &^ 3
	h.Ack = uint16(b[0]&3)<<8 | uint16(b[1])
	h.NumChunks = b[2]
	return h, b[PacketHeaderSize6:], nil
}

// AppendPacketHeader6 appends the 3-byte 0.6 header.
func AppendPacketHeader6(dst []byte, h PacketHeader6) []byte {
	f := h.Flags &^ (Flag6Connless | Flag6Token | Flag6Unused | 3)
	return append(dst, f|byte(h.Ack>>8&3), byte(h.Ack), h.NumChunks)
}

// ParseChunkHeader6 parses a 0.6 chunk header ("split 4": 10-bit size; the
// sequence's bits 7..6 appear twice, the reader ORs them).
func ParseChunkHeader6(b []byte) (h ChunkHeader, n int, err error) {
	if len(b) < 2 {
		return h, 0, ErrTruncated
	}
	h.Flags = ChunkFlags(b[0] >> 6)
	h.Size = int(b[0]&0x3f)<<4 | int(b[1]&0x0f)
	if h.Flags&ChunkVital == 0 {
		return h, 2, nil
	}
	if len(b) < 3 {
		return ChunkHeader{}, 0, ErrTruncated
	}
	h.Seq = (uint16(b[1]&0xf0)<<2 | uint16(b[2])) & SequenceMask
	return h, 3, nil
}

// AppendChunkHeader6 appends the 0.6 encoding of h (size masked to 10 bits).
func AppendChunkHeader6(dst []byte, h ChunkHeader) []byte {
	size := h.Size & MaxChunkSize6
	b0 := byte(h.Flags&3)<<6 | byte(size>>4)
	b1 := byte(size & 0x0f)
	if h.Flags&ChunkVital == 0 {
		return append(dst, b0, b1)
	}
	seq := h.Seq & SequenceMask
	return append(dst, b0, b1|byte(seq>>2)&0xf0, byte(seq))
}

// 0.6 control message ids (spec B2).
const (
	// Ctrl6KeepAlive is NET_CTRLMSG_KEEPALIVE (0.6).
	Ctrl6KeepAlive = 0
	// Ctrl6Connect is NET_CTRLMSG_CONNECT (0.6).
	Ctrl6Connect = 1
	// Ctrl6ConnectAccept is NET_CTRLMSG_CONNECTACCEPT (0.6).
	Ctrl6ConnectAccept = 2
	// Ctrl6Accept is NET_CTRLMSG_ACCEPT (0.6).
	Ctrl6Accept = 3
	// Ctrl6Close is NET_CTRLMSG_CLOSE (0.6).
	Ctrl6Close = 4
)

// TokenMagic6 is the DDNet security-token magic "TKEN" (spec B2.2).
const TokenMagic6 = "TKEN"

// ParseConnless6 parses a 0.6 connless datagram: any 6-byte header with the
// CONNLESS bit (vanilla FF FF FF FF FF FF, DDNet 'x' 'e' + 4 bytes). The
// header and payload alias b.
func ParseConnless6(b []byte) (header, payload []byte, err error) {
	if len(b) < ConnlessHeaderSize6 {
		return nil, nil, ErrTruncated
	}
	if len(b) > MaxPacketSize {
		return nil, nil, ErrTooLarge
	}
	if b[0]&Flag6Connless == 0 {
		return nil, nil, ErrNotConnless
	}
	return b[:ConnlessHeaderSize6:ConnlessHeaderSize6], b[ConnlessHeaderSize6:], nil
}

// AppendConnless6 appends a vanilla 0.6 connless packet (six 0xFF bytes, then payload).
func AppendConnless6(dst, payload []byte) []byte {
	dst = append(dst, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	return append(dst, payload...)
}

// AppendToken6 appends the DDNet security token (little-endian) to a
// payload before compression (spec B2.2).
func AppendToken6(dst []byte, token uint32) []byte {
	return append(dst, byte(token), byte(token>>8), byte(token>>16), byte(token>>24))
}

// StripToken6 checks that a decoded DDNet payload ends with token and
// returns the payload without it; ErrTruncated if shorter than 4 bytes,
// ErrBadToken on mismatch.
func StripToken6(payload []byte, token uint32) ([]byte, error) {
	n := len(payload) - 4
	if n < 0 {
		return nil, ErrTruncated
	}
	got := uint32(payload[n]) | uint32(payload[n+1])<<8 | uint32(payload[n+2])<<16 | uint32(payload[n+3])<<24
	if got != token {
		return nil, ErrBadToken
	}
	return payload[:n:n], nil
}
