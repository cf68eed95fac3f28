package netproto

import "errors"

// Sentinel errors returned by the decoders and the connection. Callers compare
// with errors.Is; malformed input never panics.
var (
	// ErrTruncated: the input ends before a complete value or header.
	ErrTruncated = errors.New("netproto: truncated input")
	// ErrTooLarge: a datagram, payload or field exceeds its bound.
	ErrTooLarge = errors.New("netproto: input too large")
	// ErrBufferFull: an encoder ran out of room in its bounded buffer.
	ErrBufferFull = errors.New("netproto: buffer full")
	// ErrBadHuffman: compressed data ends before its EOF symbol.
	ErrBadHuffman = errors.New("netproto: bad huffman data")
	// ErrHuffmanOverflow: decompressed data would exceed the output bound.
	ErrHuffmanOverflow = errors.New("netproto: huffman output too large")
	// ErrBadHeader: reserved or inconsistent header bits.
	ErrBadHeader = errors.New("netproto: bad header")
	// ErrConnless: a connection parser got a connless packet.
	ErrConnless = errors.New("netproto: connless packet")
	// ErrNotConnless: a connless parser got a connection packet.
	ErrNotConnless = errors.New("netproto: not a connless packet")
	// ErrBadChunk: a chunk header declares more data than the payload holds.
	ErrBadChunk = errors.New("netproto: bad chunk")
	// ErrNegative: a size or count field is negative.
	ErrNegative = errors.New("netproto: negative size")
	// ErrBadString: a string is not NUL-terminated.
	ErrBadString = errors.New("netproto: unterminated string")
	// ErrBadControl: a control packet is empty or its message unknown.
	ErrBadControl = errors.New("netproto: bad control message")
	// ErrBadToken: the packet's token does not belong to this connection.
	ErrBadToken = errors.New("netproto: bad token")
	// ErrBadAck: the packet acknowledges a sequence number not sent yet.
	ErrBadAck = errors.New("netproto: ack out of range")
	// ErrNotOnline: the connection cannot send or receive data in its state.
	ErrNotOnline = errors.New("netproto: connection not online")
	// ErrChunkTooLarge: a message does not fit in one chunk.
	ErrChunkTooLarge = errors.New("netproto: chunk too large")
	// ErrResendBufferFull: the resend buffer has no room for another vital chunk.
	ErrResendBufferFull = errors.New("netproto: resend buffer full")
	// ErrBadMessage: a message field is out of range.
	ErrBadMessage = errors.New("netproto: bad message")
)
