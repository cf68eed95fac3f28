package netproto

import "encoding/binary"

// 0.7 control message ids: the first payload byte of a control packet (spec A1.9).
const (
	// CtrlKeepAlive is NET_CTRLMSG_KEEPALIVE: no extra data.
	CtrlKeepAlive = 0
	// CtrlConnect is NET_CTRLMSG_CONNECT: the client's token, padded to 512 bytes.
	CtrlConnect = 1
	// CtrlAccept is NET_CTRLMSG_ACCEPT: no extra data.
	CtrlAccept = 2
	// CtrlClose is NET_CTRLMSG_CLOSE: optional NUL-terminated reason.
	CtrlClose = 4
	// CtrlToken is NET_CTRLMSG_TOKEN: the sender's token (requests padded to 512 bytes).
	CtrlToken = 5
)

// Reasons the connection layer reports or sends (spec A1.6-A1.10), with the
// reference's exact wording.
const (
	// ReasonTimeout: the peer was silent for TimeoutDuration.
	ReasonTimeout = "Timeout"
	// ReasonNotAcked: a vital chunk stayed unacked for ResendTimeout.
	ReasonNotAcked = "Too weak connection (not acked for 10 seconds)"
	// ReasonOutOfBuffer: the resend buffer overflowed.
	ReasonOutOfBuffer = "too weak connection (out of buffer)"
	// ReasonUnableToConnect: a client got no token reply within TokenTimeout.
	ReasonUnableToConnect = "Unable to connect to the server"
	// ReasonServerFull: CLOSE reason when all slots are taken.
	ReasonServerFull = "This server is full"
	// ReasonTooManySameIP: CLOSE reason format for the per-IP limit (%d = limit).
	ReasonTooManySameIP = "Only %d players with the same IP are allowed"
)

// Control is a parsed 0.7 control message.
type Control struct {
	Type byte // CtrlKeepAlive, CtrlConnect, CtrlAccept, CtrlClose, CtrlToken
	// Token is the sender's own token carried by CONNECT and TOKEN
	// (TokenNone if absent or the payload is shorter than 5 bytes).
	Token Token
	// Padded reports a CONNECT/TOKEN payload (control byte included) of at
	// least TokenRequestDataSize bytes, the reference's condition for
	// answering a token request.
	Padded bool
	// Reason is the CLOSE reason without its NUL, aliasing the payload and
	// not sanitized (see SanitizeCloseReason).
	Reason []byte
}

// ParseControl parses the (decompressed) payload of a control packet. Unknown
// control bytes are returned with ErrBadControl; an empty payload is ErrTruncated.
func ParseControl(payload []byte) (Control, error) {
	if len(payload) == 0 {
		return Control{}, ErrTruncated
	}
	c := Control{Type: payload[0], Token: TokenNone}
	extra := payload[1:]
	switch c.Type {
	case CtrlKeepAlive, CtrlAccept:
	case CtrlConnect, CtrlToken:
		if len(extra) >= 4 {
			c.Token = Token(binary.BigEndian.Uint32(extra))
		}
		c.Padded = len(payload) >= TokenRequestDataSize
	case CtrlClose:
		r := extra
		for i, b := range r {
			if b == 0 {
				r = r[:i]
				break
			}
		}
		c.Reason = r[:len(r):len(r)]
	default:
		return c, ErrBadControl
	}
	return c, nil
}

// SanitizeCloseReason returns a received CLOSE reason the way the reference
// shows it: at most MaxCloseReason bytes, each masked to 7 bits, bytes below
// 32 replaced by a space.
func SanitizeCloseReason(r []byte) string {
	if len(r) > MaxCloseReason {
		r = r[:MaxCloseReason]
	}
	var buf [MaxCloseReason]byte
	for i, b := range r {
		b &= 0x7f
		if b < 32 {
			b = ' '
		}
		buf[i] = b
	}
	return string(buf[:len(r)])
}

// AppendControl appends a complete control packet: header (ack, receiver's
// token, FlagControl, no chunks) + control byte + extra.
func AppendControl(dst []byte, ack uint16, token Token, ctrl byte, extra []byte) []byte {
	dst = AppendPacketHeader(dst, PacketHeader{Flags: FlagControl, Ack: ack, Token: token})
	dst = append(dst, ctrl)
	return append(dst, extra...)
}

// appendPaddedToken appends ctrl + own token + zero padding up to TokenControlSize bytes.
func appendPaddedToken(dst []byte, ctrl byte, own Token) []byte {
	dst = append(dst, ctrl)
	dst = binary.BigEndian.AppendUint32(dst, uint32(own))
	for range TokenRequestDataSize - 4 {
		dst = append(dst, 0)
	}
	return dst
}

// AppendTokenRequest appends a client's TOKEN request (520 bytes): header
// token TokenNone, payload 05 + own token + padding.
func AppendTokenRequest(dst []byte, own Token) []byte {
	dst = AppendPacketHeader(dst, PacketHeader{Flags: FlagControl, Token: TokenNone})
	return appendPaddedToken(dst, CtrlToken, own)
}

// AppendTokenResponse appends a TOKEN reply (12 bytes) addressed with the
// requester's token and carrying own.
func AppendTokenResponse(dst []byte, peer, own Token) []byte {
	dst = AppendPacketHeader(dst, PacketHeader{Flags: FlagControl, Token: peer})
	dst = append(dst, CtrlToken)
	return binary.BigEndian.AppendUint32(dst, uint32(own))
}

// AppendConnect appends a client's CONNECT (520 bytes) addressed with the
// server's token and carrying the client's own token, padded.
func AppendConnect(dst []byte, server, own Token) []byte {
	dst = AppendPacketHeader(dst, PacketHeader{Flags: FlagControl, Token: server})
	return appendPaddedToken(dst, CtrlConnect, own)
}

// AppendAccept appends a server's ACCEPT (8 bytes) addressed with the client's token.
func AppendAccept(dst []byte, peer Token) []byte {
	return AppendControl(dst, 0, peer, CtrlAccept, nil)
}

// AppendKeepAlive appends a KEEPALIVE carrying ack.
func AppendKeepAlive(dst []byte, ack uint16, peer Token) []byte {
	return AppendControl(dst, ack, peer, CtrlKeepAlive, nil)
}

// AppendClose appends a CLOSE with an optional reason (NUL-terminated when
// not empty; at most MaxPayload-2 reason bytes are kept).
func AppendClose(dst []byte, ack uint16, peer Token, reason string) []byte {
	dst = AppendControl(dst, ack, peer, CtrlClose, nil)
	if reason != "" {
		if len(reason) > MaxPayload-2 {
			reason = reason[:MaxPayload-2]
		}
		dst = append(dst, reason...)
		dst = append(dst, 0)
	}
	return dst
}
