package netproto

import (
	"bytes"
	"encoding/binary"
)

// Dialect is the wire dialect of a connection, fixed by the peer's first
// packet (spec B1, B2): the 0.7 token handshake, 0.6 with DDNet's security
// token (TKEN), or vanilla 0.6 without any token.
type Dialect uint8

const (
	// Dialect7 is Teeworlds 0.7: 7-byte header with the token in it.
	Dialect7 Dialect = iota
	// Dialect6 is vanilla 0.6: 3-byte header, no token at all.
	Dialect6
	// DialectDDNet is 0.6 with DDNet's security-token extension: the 4-byte
	// token is appended to every packet's payload before compression.
	DialectDDNet
)

var dialectNames = [...]string{"0.7", "0.6", "0.6+ddnet"}

// String returns "0.7", "0.6" or "0.6+ddnet".
func (d Dialect) String() string {
	if int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "invalid"
}

// Is6 reports whether d is one of the 0.6 dialects.
func (d Dialect) Is6() bool { return d == Dialect6 || d == DialectDDNet }

// Special DDNet security-token values (spec B2.2).
const (
	// Token6Unknown is the token a DDNet client sends before it knows the server's (-1).
	Token6Unknown uint32 = 0xFFFFFFFF
	// Token6Unsupported marks a peer without the token extension (0).
	Token6Unsupported uint32 = 0
)

// Control6 is a parsed 0.6 control message. It is parsed from the payload as
// received, before any DDNet trailing token is stripped, so that the
// handshake messages (whose token bytes are part of the message) read the
// same way in both dialects.
type Control6 struct {
	Type byte // Ctrl6KeepAlive ... Ctrl6Close
	// TKEN reports a CONNECT or CONNECTACCEPT carrying the TKEN magic
	// followed by a token (the DDNet extension, at least 9 bytes).
	TKEN bool
	// Token is the token after the magic (TKEN), or the 4 bytes after an
	// ACCEPT's control byte (HasToken); otherwise 0.
	Token uint32
	// HasToken reports an ACCEPT of at least 5 bytes (DDNet's form).
	HasToken bool
	// Reason is the CLOSE reason up to its NUL, aliasing the payload, not
	// sanitized (see SanitizeCloseReason).
	Reason []byte
}

// ParseControl6 parses the (decompressed) payload of a 0.6 control packet.
// Unknown control bytes are ErrBadControl, an empty payload ErrTruncated.
func ParseControl6(payload []byte) (Control6, error) {
	if len(payload) == 0 {
		return Control6{}, ErrTruncated
	}
	c := Control6{Type: payload[0]}
	extra := payload[1:]
	switch c.Type {
	case Ctrl6KeepAlive:
	case Ctrl6Connect, Ctrl6ConnectAccept:
		if len(extra) >= 8 && bytes.Equal(extra[:4], []byte(TokenMagic6)) {
			c.TKEN = true
			c.Token = binary.LittleEndian.Uint32(extra[4:8])
		}
	case Ctrl6Accept:
		if len(extra) >= 4 {
			c.HasToken = true
			c.Token = binary.LittleEndian.Uint32(extra[:4])
		}
	case Ctrl6Close:
		r := extra
		if i := bytes.IndexByte(r, 0); i >= 0 {
			r = r[:i]
		}
		c.Reason = r[:len(r):len(r)]
	default:
		return c, ErrBadControl
	}
	return c, nil
}

// AppendControl6 appends a complete 0.6 control packet: 3-byte header (ack,
// CONTROL, no chunks), control byte, extra, and the DDNet security token
// when withToken is set. Control packets are never compressed (DDNet drops
// compressed ones, spec B1.2).
func AppendControl6(dst []byte, ack uint16, ctrl byte, extra []byte, token uint32, withToken bool) []byte {
	dst = AppendPacketHeader6(dst, PacketHeader6{Flags: Flag6Control, Ack: ack})
	dst = append(dst, ctrl)
	dst = append(dst, extra...)
	if withToken {
		dst = AppendToken6(dst, token)
	}
	return dst
}

// AppendConnect6 appends a client's 0.6 CONNECT: with tken, DDNet's form
// (magic + the "unknown" token, 12 bytes), else vanilla's (4 bytes).
func AppendConnect6(dst []byte, tken bool) []byte {
	if !tken {
		return AppendControl6(dst, 0, Ctrl6Connect, nil, 0, false)
	}
	return AppendControl6(dst, 0, Ctrl6Connect, []byte(TokenMagic6), Token6Unknown, true)
}

// AppendConnectAccept6 appends a server's CONNECTACCEPT: with tken, DDNet's
// form carrying the server's security token after the magic (12 bytes);
// else vanilla's (4 bytes).
func AppendConnectAccept6(dst []byte, token uint32, tken bool) []byte {
	if !tken {
		return AppendControl6(dst, 0, Ctrl6ConnectAccept, nil, 0, false)
	}
	return AppendControl6(dst, 0, Ctrl6ConnectAccept, []byte(TokenMagic6), token, true)
}

// AppendClose6 appends a 0.6 CLOSE with an optional NUL-terminated reason
// (at most MaxCloseReason bytes kept) and the security token when withToken.
func AppendClose6(dst []byte, ack uint16, reason string, token uint32, withToken bool) []byte {
	var r [MaxCloseReason + 1]byte
	n := 0
	if reason != "" {
		n = copy(r[:MaxCloseReason], reason)
		n++ // NUL
	}
	return AppendControl6(dst, ack, Ctrl6Close, r[:n], token, withToken)
}

// AppendPacket6Compressed appends header h and payload, Huffman-compressing
// the payload when that makes it strictly smaller and setting
// Flag6Compression then. Control packets are never compressed.
func AppendPacket6Compressed(dst []byte, h PacketHeader6, payload []byte) []byte {
	h.Flags &^= Flag6Compression
	hc := h
	hc.Flags |= Flag6Compression
	var plain, comp [PacketHeaderSize6]byte
	return appendMaybeCompressed(dst, AppendPacketHeader6(plain[:0], h), AppendPacketHeader6(comp[:0], hc), payload, h.Flags&Flag6Control == 0)
}

// DecodePayload6 returns the raw payload of a parsed 0.6 packet: payload
// itself if it is not compressed, else its decompression appended to
// dst[:0] (at most MaxPayload6 bytes; give dst that capacity to avoid an
// allocation).
func DecodePayload6(dst []byte, h PacketHeader6, payload []byte) ([]byte, error) {
	if h.Flags&Flag6Compression == 0 {
		return payload, nil
	}
	return HuffmanDecompress(dst[:0], payload, MaxPayload6)
}

// Is7Packet reports whether a connection (non-connless) datagram uses the
// 0.7 framing: 0.7 sets its CONTROL flag at bit 2 (0x04), which 0.6 never
// sends, and 0.7 data packets carry the token. DDNet decides the same way
// for unknown addresses (spec C); for addresses with a slot the slot's
// dialect decides.
func Is7Packet(b []byte) bool { return len(b) > 0 && b[0]&Flag6Unused != 0 }

// Is7Connless reports whether a connless datagram uses the 0.7 header
// ((byte0 & 3) == 1; 0.6 headers have 3 for FF.. or 0 for 'x', spec B1.3).
func Is7Connless(b []byte) bool { return len(b) > 0 && b[0]&3 == 1 }
