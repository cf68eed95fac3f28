package netproto

import "encoding/binary"

// Token is a 0.7 security token (spec A1.4). Packets carry the receiver's
// token, big-endian.
type Token uint32

// TokenNone is the "no token yet" value (NET_TOKEN_NONE); it is never generated.
const TokenNone Token = 0xFFFFFFFF

// PacketFlags are the 0.7 packet header flags (spec A1.2), as the reference
// numbers them before shifting them into byte 0.
type PacketFlags uint8

// 0.7 packet flags (NET_PACKETFLAG_*).
const (
	// FlagControl marks a control packet (NET_PACKETFLAG_CONTROL).
	FlagControl PacketFlags = 1
	// FlagResend asks the peer to resend all unacked vital chunks (NET_PACKETFLAG_RESEND).
	FlagResend PacketFlags = 2
	// FlagCompression marks a Huffman-compressed payload (NET_PACKETFLAG_COMPRESSION).
	FlagCompression PacketFlags = 4
	// FlagConnless marks a connectionless packet (NET_PACKETFLAG_CONNLESS).
	FlagConnless PacketFlags = 8
	// flagsReserved are the two top bits of byte 0, which must be zero.
	flagsReserved PacketFlags = 0x30
)

// PacketHeader is the 7-byte 0.7 connection packet header.
type PacketHeader struct {
	Flags     PacketFlags // FlagControl, FlagResend, FlagCompression
	Ack       uint16      // last vital sequence received in order, 0..1023
	NumChunks uint8       // chunks in the payload (0 for control packets)
	Token     Token       // the receiver's token
}

// IsConnless reports whether datagram b has the CONNLESS bit set (0.7 and 0.6 alike).
func IsConnless(b []byte) bool { return len(b) > 0 && b[0]&0x20 != 0 }

// ParsePacket parses a 0.7 connection datagram. The payload aliases b and is
// still compressed if h.Flags has FlagCompression (see DecodePayload). It
// fails with ErrTruncated below 7 bytes, ErrTooLarge above MaxConnPacketSize,
// ErrConnless for connless packets and ErrBadHeader if reserved bits are set.
func ParsePacket(b []byte) (h PacketHeader, payload []byte, err error) {
	if len(b) < PacketHeaderSize {
		return h, nil, ErrTruncated
	}
	if len(b) > MaxConnPacketSize {
		return h, nil, ErrTooLarge
	}
	flags := PacketFlags(b[0] >> 2)
	if flags&FlagConnless != 0 {
		return h, nil, ErrConnless
	}
	if flags&flagsReserved != 0 {
		return h, nil, ErrBadHeader
	}
	h.Flags = flags
	h.Ack = uint16(b[0]&3)<<8 | uint16(b[1])
	h.NumChunks = b[2]
	h.Token = Token(binary.BigEndian.Uint32(b[3:7]))
	return h, b[PacketHeaderSize:], nil
}

// AppendPacketHeader appends the 7-byte header h to dst.
func AppendPacketHeader(dst []byte, h PacketHeader) []byte {
	f := h.Flags &^ (FlagConnless | flagsReserved)
	dst = append(dst, byte(f)<<2|byte(h.Ack>>8&3), byte(h.Ack), h.NumChunks)
	return binary.BigEndian.AppendUint32(dst, uint32(h.Token))
}

// AppendPacket appends header h and payload verbatim (h.Flags decides whether
// the receiver treats it as compressed).
func AppendPacket(dst []byte, h PacketHeader, payload []byte) []byte {
	return append(AppendPacketHeader(dst, h), payload...)
}

// AppendPacketCompressed appends header h and payload, Huffman-compressing the
// payload when that makes it strictly smaller (the reference rule) and then
// setting FlagCompression. Control packets (FlagControl) are never compressed.
func AppendPacketCompressed(dst []byte, h PacketHeader, payload []byte) []byte {
	h.Flags &^= FlagCompression
	hc := h
	hc.Flags |= FlagCompression
	var plain, comp [PacketHeaderSize]byte
	return appendMaybeCompressed(dst, AppendPacketHeader(plain[:0], h), AppendPacketHeader(comp[:0], hc), payload, h.Flags&FlagControl == 0)
}

// appendMaybeCompressed appends compHdr and the Huffman-compressed payload
// when allowed and strictly smaller (the reference rule), else plainHdr and
// the payload as it is.
func appendMaybeCompressed(dst, plainHdr, compHdr, payload []byte, allow bool) []byte {
	if allow && len(payload) > 0 {
		start := len(dst)
		if out, ok := huffmanCompress(append(dst, compHdr...), payload, len(payload)-1); ok {
			return out
		}
		dst = dst[:start]
	}
	return append(append(dst, plainHdr...), payload...)
}

// DecodePayload returns the raw payload of a parsed packet: payload itself if
// it is not compressed, else its decompression appended to dst[:0]. The result
// is at most MaxPayload bytes.
func DecodePayload(dst []byte, h PacketHeader, payload []byte) ([]byte, error) {
	if h.Flags&FlagCompression == 0 {
		return payload, nil
	}
	return HuffmanDecompress(dst[:0], payload, MaxPayload)
}

// ConnlessHeader is the 9-byte 0.7 connless header (spec A1.3).
type ConnlessHeader struct {
	Token         Token // the receiver's token
	ResponseToken Token // the sender's token, to be used in the reply
}

// connlessByte0 is (CONNLESS<<2) | NET_PACKETVERSION.
const connlessByte0 = 0x21

// ParseConnless parses a 0.7 connless datagram; the payload aliases b. It
// requires the CONNLESS bit and version 1 in byte 0 (other flags are ignored)
// and at most MaxPacketSize bytes.
func ParseConnless(b []byte) (h ConnlessHeader, payload []byte, err error) {
	if len(b) < ConnlessHeaderSize {
		return h, nil, ErrTruncated
	}
	if len(b) > MaxPacketSize {
		return h, nil, ErrTooLarge
	}
	if b[0]&0x20 == 0 {
		return h, nil, ErrNotConnless
	}
	if b[0]&3 != 1 {
		return h, nil, ErrBadHeader
	}
	h.Token = Token(binary.BigEndian.Uint32(b[1:5]))
	h.ResponseToken = Token(binary.BigEndian.Uint32(b[5:9]))
	return h, b[ConnlessHeaderSize:], nil
}

// AppendConnless appends a connless packet with header h and payload. The
// caller keeps the payload below MaxPayload bytes.
func AppendConnless(dst []byte, h ConnlessHeader, payload []byte) []byte {
	dst = append(dst, connlessByte0)
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.Token))
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.ResponseToken))
	return append(dst, payload...)
}

// ChunkFlags are the chunk header flags (spec A1.5).
type ChunkFlags uint8

// Chunk flags (NET_CHUNKFLAG_*).
const (
	// ChunkVital marks a reliable, sequenced chunk (NET_CHUNKFLAG_VITAL).
	ChunkVital ChunkFlags = 1
	// ChunkResend marks a retransmitted chunk (NET_CHUNKFLAG_RESEND).
	ChunkResend ChunkFlags = 2
)

// ChunkHeader is a 0.7 chunk header: 2 bytes, 3 when vital.
type ChunkHeader struct {
	Flags ChunkFlags // ChunkVital, ChunkResend
	Size  int        // message bytes following the header, 0..MaxChunkSizeField
	Seq   uint16     // sequence number 0..1023, only meaningful when vital
}

// Len returns the encoded size of the header.
func (h ChunkHeader) Len() int {
	if h.Flags&ChunkVital != 0 {
		return 3
	}
	return 2
}

// ParseChunkHeader parses a 0.7 chunk header at the start of b and returns it
// with its length. It does not check that Size bytes follow.
func ParseChunkHeader(b []byte) (h ChunkHeader, n int, err error) {
	if len(b) < 2 {
		return h, 0, ErrTruncated
	}
	h.Flags = ChunkFlags(b[0] >> 6)
	h.Size = int(b[0]&0x3f)<<6 | int(b[1]&0x3f)
	if h.Flags&ChunkVital == 0 {
		return h, 2, nil
	}
	if len(b) < 3 {
		return ChunkHeader{}, 0, ErrTruncated
	}
	h.Seq = uint16(b[1]&0xc0)<<2 | uint16(b[2])
	return h, 3, nil
}

// AppendChunkHeader appends the 0.7 encoding of h. Size is masked to 12 bits
// and Seq to 10 bits; a non-vital header carries no sequence.
func AppendChunkHeader(dst []byte, h ChunkHeader) []byte {
	size := h.Size & MaxChunkSizeField
	b0 := byte(h.Flags&3)<<6 | byte(size>>6)
	b1 := byte(size & 0x3f)
	if h.Flags&ChunkVital == 0 {
		return append(dst, b0, b1)
	}
	seq := h.Seq & SequenceMask
	return append(dst, b0, b1|byte(seq>>8)<<6, byte(seq))
}

// Chunk is one chunk of a packet payload; Data aliases the payload.
type Chunk struct {
	ChunkHeader
	Data []byte
}

// ChunkReader iterates over the chunks of a decoded 0.7 payload. The zero value
// yields nothing. Trailing bytes after the announced number of chunks are
// ignored, as in the reference.
type ChunkReader struct {
	data  []byte
	left  int
	err   error
	dial6 bool
}

// Reset starts reading numChunks 0.7 chunks from payload.
func (r *ChunkReader) Reset(payload []byte, numChunks int) {
	*r = ChunkReader{data: payload, left: numChunks}
}

// Reset6 starts reading numChunks 0.6 chunks from payload.
func (r *ChunkReader) Reset6(payload []byte, numChunks int) {
	*r = ChunkReader{data: payload, left: numChunks, dial6: true}
}

// Next returns the next chunk. It returns false when the announced count is
// reached or the payload is malformed (then Err is ErrTruncated or ErrBadChunk).
func (r *ChunkReader) Next() (Chunk, bool) {
	if r.left <= 0 || r.err != nil {
		return Chunk{}, false
	}
	var h ChunkHeader
	var n int
	var err error
	if r.dial6 {
		h, n, err = ParseChunkHeader6(r.data)
	} else {
		h, n, err = ParseChunkHeader(r.data)
	}
	if err != nil {
		r.err = err
		return Chunk{}, false
	}
	if h.Size > len(r.data)-n {
		r.err = ErrBadChunk
		return Chunk{}, false
	}
	c := Chunk{ChunkHeader: h, Data: r.data[n : n+h.Size : n+h.Size]}
	r.data = r.data[n+h.Size:]
	r.left--
	return c, true
}

// Err returns the error that stopped the iteration, or nil.
func (r *ChunkReader) Err() error { return r.err }

// Rest returns the bytes after the chunks read so far.
func (r *ChunkReader) Rest() []byte { return r.data }
