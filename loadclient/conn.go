package loadclient

import (
	"encoding/binary"
	"errors"
	"time"

	"twserver/netproto"
)

// Bounds of the client side of one connection.
const (
	// maxResendChunks is how many unacknowledged vital chunks a load client
	// keeps (the protocol's limit: half the sequence space). Most are map
	// requests: at map_download_speed 1 the client sends one per chunk, as
	// many as the server has chunks in flight.
	maxResendChunks = netproto.MaxResendChunks
	// maxResendBytes bounds the bytes of those chunks, as the reference
	// connection's resend buffer (NET_CONN_BUFFERSIZE): beyond it the
	// server stopped acknowledging.
	maxResendBytes = netproto.ConnBufferSize
	// maxVitalMsg is the largest vital message the load client sends.
	maxVitalMsg = 512
	// recvBufferSize is larger than any valid datagram so oversized ones are
	// seen (and counted) instead of silently truncated.
	recvBufferSize = 2048
)

// Connection states of the client (net.md A1.10).
type connState uint8

const (
	stateToken connState = iota
	stateConnect
	stateOnline
	stateClosed
)

var (
	errResendFull   = errors.New("resend buffer full (server does not acknowledge)")
	errWeak         = errors.New("too weak connection (vital chunk not acked for 10 s)")
	errTokenTimeout = errors.New("no token reply within 5 s")
	errConnTimeout  = errors.New("no ACCEPT within 5 s")
	errTimeout      = errors.New("timeout (server silent for 10 s)")
)

// vitalChunk is one sent vital chunk kept for resending.
type vitalChunk struct {
	seq         uint16
	n           int
	data        []byte // reused: grows once to the largest message the slot held
	first, last time.Duration
}

// conn is the client half of a 0.7 connection (net.md A1.4-A1.10): token
// exchange, CONNECT, vital sequence numbers, acks and resends; or, with
// six set, of a 0.6 connection with DDNet's security token (net.md B1-B2:
// CONNECT+TKEN, the token from CONNECTACCEPT appended to every packet,
// 3-byte header, 0.6 chunk headers). It is sans-IO: datagrams go out
// through send, time comes in as now.
type conn struct {
	send func([]byte) // writes one datagram
	six  bool         // 0.6 with DDNet's token
	// vanilla: 0.6 without the token (six is set too): vanilla CONNECT,
	// nothing appended to packets
	vanilla bool
	sec     uint32 // 0.6: the security token (once online)

	state      connState
	token      netproto.Token // ours (CT): the server addresses us with it
	peerToken  netproto.Token // the server's (ST)
	seq        uint16         // last vital sequence sent
	ack        uint16         // last vital sequence received in order
	wantResend bool           // ask the server to resend (a gap was seen)
	closeMsg   string         // reason from the server's CLOSE

	since    time.Duration // state entered
	lastTry  time.Duration // last token request / CONNECT
	lastSend time.Duration
	lastRecv time.Duration

	// outgoing packet under construction
	chunks  []byte
	nchunks int

	resend     [maxResendChunks]vitalChunk
	rHead, rN  int
	rBytes     int    // message bytes in resend
	pkt        []byte // datagram scratch
	payloadBuf []byte // decompression scratch
	ctrl       [netproto.TokenControlSize]byte

	// counters
	dropped int // datagrams that failed parsing or carried another token
	// rx, when set (the client is in game), counts the received packets'
	// payload, compression and control packets, and their chunks.
	rx *RxBreakdown
}

// countPacket notes one received packet for rx (when set): its decoded
// payload, whether it came compressed, whether it was a control packet.
func (c *conn) countPacket(payload []byte, compressed, control bool) {
	if c.rx == nil {
		return
	}
	c.rx.PayloadBytes += int64(len(payload))
	if compressed {
		c.rx.CompressedPackets++
	}
	if control {
		c.rx.ControlPackets++
	}
}

func newConn(token netproto.Token, send func([]byte)) *conn {
	return &conn{
		send:       send,
		token:      token,
		peerToken:  netproto.TokenNone,
		chunks:     make([]byte, 0, netproto.MaxPayload),
		pkt:        make([]byte, 0, netproto.MaxPacketSize),
		payloadBuf: make([]byte, 0, netproto.MaxPayload6),
	}
}

// start sends the first token request (0.6: the CONNECT).
func (c *conn) start(now time.Duration) {
	if c.six {
		c.state, c.since = stateConnect, now
		c.sendConnect(now)
		return
	}
	c.state, c.since = stateToken, now
	c.sendTokenRequest(now)
}

func (c *conn) sendTokenRequest(now time.Duration) {
	c.ctrl = [netproto.TokenControlSize]byte{}
	c.ctrl[0] = netproto.CtrlToken
	binary.BigEndian.PutUint32(c.ctrl[1:5], uint32(c.token))
	c.sendControlRaw(now, netproto.TokenNone, 0, c.ctrl[:])
	c.lastTry = now
}

func (c *conn) sendConnect(now time.Duration) {
	if c.six {
		c.pkt = netproto.AppendConnect6(c.pkt[:0], !c.vanilla)
		c.send(c.pkt)
		c.lastSend, c.lastTry = now, now
		return
	}
	c.ctrl = [netproto.TokenControlSize]byte{}
	c.ctrl[0] = netproto.CtrlConnect
	binary.BigEndian.PutUint32(c.ctrl[1:5], uint32(c.token))
	c.sendControlRaw(now, c.peerToken, 0, c.ctrl[:])
	c.lastTry = now
}

func (c *conn) sendControlRaw(now time.Duration, tok netproto.Token, ack uint16, payload []byte) {
	if c.six {
		c.pkt = netproto.AppendControl6(c.pkt[:0], ack, payload[0], payload[1:], c.sec, !c.vanilla)
		c.send(c.pkt)
		c.lastSend = now
		return
	}
	c.pkt = netproto.AppendPacket(c.pkt[:0], netproto.PacketHeader{
		Flags: netproto.FlagControl, Ack: ack, Token: tok,
	}, payload)
	c.send(c.pkt)
	c.lastSend = now
}

// sendControl sends a control message (KEEPALIVE, CLOSE) with optional extra data.
func (c *conn) sendControl(now time.Duration, msg byte, extra string) {
	c.payloadBuf = append(c.payloadBuf[:0], msg)
	if extra != "" {
		c.payloadBuf = append(append(c.payloadBuf, extra...), 0)
	}
	c.sendControlRaw(now, c.peerToken, c.ack, c.payloadBuf)
}

// close sends CLOSE with a reason and stops the connection.
func (c *conn) close(now time.Duration, reason string) {
	if c.state == stateOnline || c.state == stateConnect {
		c.sendControl(now, netproto.CtrlClose, reason)
	}
	c.state = stateClosed
}

// queue appends one message as a chunk to the packet under construction,
// flushing first when it would not fit. Vital chunks get the next sequence
// number and are kept for resending.
func (c *conn) queue(now time.Duration, msg []byte, vital bool) error {
	if c.state != stateOnline {
		return netproto.ErrNotOnline
	}
	if len(msg) > netproto.MaxChunkSize || c.six && len(msg) > netproto.MaxChunkSize6 {
		return netproto.ErrChunkTooLarge
	}
	h := netproto.ChunkHeader{Size: len(msg)}
	if vital {
		if len(msg) > maxVitalMsg {
			return netproto.ErrChunkTooLarge
		}
		if c.rN == maxResendChunks || c.rBytes+len(msg) > maxResendBytes {
			return errResendFull
		}
		c.seq = (c.seq + 1) & netproto.SequenceMask
		h.Flags, h.Seq = netproto.ChunkVital, c.seq
		v := &c.resend[(c.rHead+c.rN)%maxResendChunks]
		c.rN++
		v.data = append(v.data[:0], msg...)
		v.seq, v.n, v.first, v.last = c.seq, len(msg), now, now
		c.rBytes += len(msg)
	}
	c.appendChunk(now, h, msg)
	return nil
}

func (c *conn) appendChunk(now time.Duration, h netproto.ChunkHeader, msg []byte) {
	limit := netproto.MaxPayload
	if c.six {
		limit = netproto.MaxPayload6 - 4 // room for the token
	}
	if len(c.chunks)+len(msg)+netproto.MaxChunkHeaderSize > limit || c.nchunks >= netproto.MaxPacketChunks {
		c.flush(now)
	}
	if c.six {
		c.chunks = netproto.AppendChunkHeader6(c.chunks, h)
	} else {
		c.chunks = netproto.AppendChunkHeader(c.chunks, h)
	}
	c.chunks = append(c.chunks, msg...)
	c.nchunks++
}

// flush sends the packet under construction (or an empty packet carrying
// only the RESEND flag).
func (c *conn) flush(now time.Duration) {
	if c.nchunks == 0 && !c.wantResend {
		return
	}
	if c.six {
		h := netproto.PacketHeader6{Ack: c.ack, NumChunks: uint8(c.nchunks)}
		if c.wantResend {
			h.Flags |= netproto.Flag6Resend
			c.wantResend = false
		}
		if !c.vanilla {
			c.chunks = netproto.AppendToken6(c.chunks, c.sec) // before compression
		}
		c.pkt = netproto.AppendPacket6Compressed(c.pkt[:0], h, c.chunks)
	} else {
		h := netproto.PacketHeader{Ack: c.ack, NumChunks: uint8(c.nchunks), Token: c.peerToken}
		if c.wantResend {
			h.Flags |= netproto.FlagResend
			c.wantResend = false
		}
		c.pkt = netproto.AppendPacketCompressed(c.pkt[:0], h, c.chunks)
	}
	c.send(c.pkt)
	c.chunks, c.nchunks = c.chunks[:0], 0
	c.lastSend = now
}

// resendAll queues every unacknowledged vital chunk again (RESEND chunk flag).
func (c *conn) resendAll(now time.Duration) {
	for i := 0; i < c.rN; i++ {
		v := &c.resend[(c.rHead+i)%maxResendChunks]
		v.last = now
		c.appendChunk(now, netproto.ChunkHeader{Flags: netproto.ChunkVital | netproto.ChunkResend, Size: v.n, Seq: v.seq}, v.data[:v.n])
	}
}

// update runs the timers (net.md A1.8) and returns a fatal error.
func (c *conn) update(now time.Duration) error {
	switch c.state {
	case stateToken:
		if now-c.since > netproto.TokenTimeout {
			return errTokenTimeout
		}
		if now-c.lastTry >= netproto.HandshakeResendInterval {
			c.sendTokenRequest(now)
		}
	case stateConnect:
		if now-c.since > netproto.TokenTimeout {
			return errConnTimeout
		}
		if now-c.lastTry >= netproto.HandshakeResendInterval {
			c.sendConnect(now)
		}
	case stateOnline:
		if now-c.lastRecv > netproto.TimeoutDuration {
			return errTimeout
		}
		if c.rN > 0 {
			v := &c.resend[c.rHead]
			if now-v.first > netproto.ResendTimeout {
				return errWeak
			}
			if now-v.last > netproto.ResendInterval {
				v.last = now
				c.appendChunk(now, netproto.ChunkHeader{Flags: netproto.ChunkVital | netproto.ChunkResend, Size: v.n, Seq: v.seq}, v.data[:v.n])
			}
		}
		if (c.nchunks > 0 || c.wantResend) && now-c.lastSend > netproto.FlushInterval {
			c.flush(now)
		}
		if now-c.lastSend > netproto.KeepAliveInterval {
			c.sendControl(now, netproto.CtrlKeepAlive, "")
		}
	}
	return nil
}

// inBackroom reports whether seq lies in the 512 sequence numbers ending at
// ack (net.md A1.6).
func inBackroom(seq, ack uint16) bool {
	bottom := int(ack) - netproto.BackroomSize
	if bottom < 0 {
		return int(seq) <= int(ack) || int(seq) >= bottom+netproto.MaxSequence
	}
	return int(seq) >= bottom && int(seq) <= int(ack)
}

// event is what feed found in a datagram.
type event uint8

const (
	evNone     event = iota
	evAccepted       // the connection just became online
	evClosed         // the server closed the connection (closeMsg)
	evData           // chunks were delivered
)

// feed processes one received datagram; deliver is called for every chunk
// that is due (in order, duplicates removed).
func (c *conn) feed(now time.Duration, b []byte, deliver func([]byte)) event {
	if netproto.IsConnless(b) {
		c.dropped++
		return evNone
	}
	if c.six {
		return c.feed6(now, b, deliver)
	}
	h, payload, err := netproto.ParsePacket(b)
	if err != nil || h.Token != c.token {
		c.dropped++
		return evNone
	}
	payload, err = netproto.DecodePayload(c.payloadBuf[:0], h, payload)
	if err != nil {
		c.dropped++
		return evNone
	}
	c.onAck(now, h.Ack, h.Flags&netproto.FlagResend != 0)
	c.countPacket(payload, h.Flags&netproto.FlagCompression != 0, h.Flags&netproto.FlagControl != 0)
	if h.Flags&netproto.FlagControl != 0 {
		if len(payload) == 0 {
			c.dropped++
			return evNone
		}
		switch payload[0] {
		case netproto.CtrlToken:
			if c.state == stateToken && len(payload) >= 5 {
				c.peerToken = netproto.Token(binary.BigEndian.Uint32(payload[1:5]))
				c.state, c.since = stateConnect, now
				c.sendConnect(now)
			}
		case netproto.CtrlAccept:
			if c.state == stateConnect {
				c.state, c.since = stateOnline, now
				return evAccepted
			}
		case netproto.CtrlClose:
			if c.state == stateClosed {
				return evNone
			}
			c.closeMsg = sanitizeReason(payload[1:])
			c.state = stateClosed
			return evClosed
		}
		return evNone
	}
	if c.state != stateOnline {
		return evNone
	}
	var rd netproto.ChunkReader
	rd.Reset(payload, int(h.NumChunks))
	c.deliverChunks(&rd, deliver)
	return evData
}

// onAck notes a packet from the server: it drops the acknowledged vital
// chunks and honours the RESEND flag.
func (c *conn) onAck(now time.Duration, ack uint16, resend bool) {
	c.lastRecv = now
	if c.state != stateOnline {
		return
	}
	for c.rN > 0 && inBackroom(c.resend[c.rHead].seq, ack) {
		c.rBytes -= c.resend[c.rHead].n
		c.rHead = (c.rHead + 1) % maxResendChunks
		c.rN--
	}
	if resend {
		c.resendAll(now)
	}
}

// deliverChunks hands the due chunks of a packet to deliver (in order,
// duplicates removed; a gap asks for a resend).
func (c *conn) deliverChunks(rd *netproto.ChunkReader, deliver func([]byte)) {
	for {
		ch, ok := rd.Next()
		if !ok {
			break
		}
		if ch.Flags&netproto.ChunkVital != 0 {
			next := (c.ack + 1) & netproto.SequenceMask
			switch {
			case ch.Seq == next:
				c.ack = next
			case inBackroom(ch.Seq, c.ack):
				continue // duplicate
			default:
				c.wantResend = true // gap
				continue
			}
		}
		if c.rx != nil {
			c.rx.Chunks++
			if ch.Flags&netproto.ChunkVital != 0 {
				c.rx.VitalChunks++
			}
		}
		deliver(ch.Data)
		if c.state != stateOnline {
			break
		}
	}
	if rd.Err() != nil {
		c.dropped++
	}
}

// feed6 is feed for a 0.6 connection: the token of CONNECTACCEPT is kept
// and then required (and stripped) at the end of every packet.
func (c *conn) feed6(now time.Duration, b []byte, deliver func([]byte)) event {
	h, payload, err := netproto.ParsePacket6(b)
	if err != nil {
		c.dropped++
		return evNone
	}
	if payload, err = netproto.DecodePayload6(c.payloadBuf[:0], h, payload); err != nil {
		c.dropped++
		return evNone
	}
	if c.state == stateConnect {
		ctl, err := netproto.ParseControl6(payload)
		if err != nil || h.Flags&netproto.Flag6Control == 0 {
			c.dropped++
			return evNone
		}
		switch {
		case ctl.Type == netproto.Ctrl6ConnectAccept && (ctl.TKEN || c.vanilla):
			c.sec = ctl.Token
			c.state, c.since, c.lastRecv = stateOnline, now, now
			c.sendControl(now, netproto.Ctrl6Accept, "")
			return evAccepted
		case ctl.Type == netproto.Ctrl6Close:
			c.closeMsg = sanitizeReason(ctl.Reason)
			c.state = stateClosed
			return evClosed
		}
		return evNone
	}
	if !c.vanilla {
		if payload, err = netproto.StripToken6(payload, c.sec); err != nil {
			c.dropped++
			return evNone
		}
	}
	c.onAck(now, h.Ack, h.Flags&netproto.Flag6Resend != 0)
	c.countPacket(payload, h.Flags&netproto.Flag6Compression != 0, h.Flags&netproto.Flag6Control != 0)
	if h.Flags&netproto.Flag6Control != 0 {
		ctl, err := netproto.ParseControl6(payload)
		if err != nil {
			c.dropped++
			return evNone
		}
		if ctl.Type == netproto.Ctrl6Close && c.state != stateClosed {
			c.closeMsg = sanitizeReason(ctl.Reason)
			c.state = stateClosed
			return evClosed
		}
		return evNone
	}
	if c.state != stateOnline {
		return evNone
	}
	var rd netproto.ChunkReader
	rd.Reset6(payload, int(h.NumChunks))
	c.deliverChunks(&rd, deliver)
	return evData
}

// sanitizeReason turns a CLOSE reason into printable text (at most
// MaxCloseReason bytes, control bytes as spaces, up to the first NUL).
func sanitizeReason(b []byte) string {
	if len(b) > netproto.MaxCloseReason {
		b = b[:netproto.MaxCloseReason]
	}
	out := make([]byte, 0, len(b))
	for _, x := range b {
		if x == 0 {
			break
		}
		x &= 0x7f
		if x < 32 {
			x = ' '
		}
		out = append(out, x)
	}
	return string(out)
}
