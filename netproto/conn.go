package netproto

import (
	"time"
	"unsafe"
)

// ConnState is the state of a Conn (spec A1.10).
type ConnState uint8

// Connection states. A server slot goes Offline → Pending → Online; a client
// Offline → Token → Connect → Online. Error is terminal until Reset.
const (
	// StateOffline: unused or closed by this side.
	StateOffline ConnState = iota
	// StateToken: client sent a token request and waits for the reply.
	StateToken
	// StateConnect: client sent CONNECT and waits for ACCEPT.
	StateConnect
	// StatePending: server sent ACCEPT and waits for the first data packet.
	StatePending
	// StateOnline: data flows both ways.
	StateOnline
	// StateError: timed out, overflowed or closed by the peer; see Conn.Reason.
	StateError
)

var stateNames = [...]string{"offline", "token", "connect", "pending", "online", "error"}

// String returns a lower-case state name.
func (s ConnState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "invalid"
}

// SendFlags select how Conn.Send queues a message.
type SendFlags uint8

const (
	// SendVital makes the message reliable and sequenced (MSGFLAG_VITAL).
	SendVital SendFlags = 1 << iota
	// SendFlush sends the packet under construction right away (MSGFLAG_FLUSH).
	SendFlush
)

// ConnStats are counters a Conn keeps for metrics.
type ConnStats struct {
	PacketsSent  uint64 // datagrams placed in the outbox
	PacketsRecv  uint64 // datagrams accepted by Feed
	ChunksResent uint64 // vital chunks queued again
	Gaps         uint64 // vital chunks received out of order (dropped, RESEND asked)
	ResendAsked  uint64 // packets with the peer's RESEND flag
	OutboxDrops  uint64 // datagrams dropped because the outbox was full
	Rejected     uint64 // datagrams refused by Feed (token, ack)
}

// Conn is a sans-IO reliable connection (spec A1.6-A1.10) in one of three
// dialects fixed when it starts (Accept/Connect: 0.7; Accept6/Connect6:
// vanilla 0.6 or DDNet's 0.6 with the security token, spec B1-B2); the
// framing differs, the reliability and timers are shared. It numbers
// vital chunks, acknowledges received ones, keeps unacked chunks in a bounded
// resend buffer, retransmits them and runs the reference timers. It performs
// no I/O, starts no goroutines and never reads a clock: every method that
// needs time takes now, a monotonic duration since any fixed origin.
//
// Server use, for one slot:
//
//	c.Accept(now, serverToken, clientToken)    // after a valid CONNECT
//	// for every datagram from the slot's address:
//	h, payload, err := ParsePacket(datagram)
//	payload, err = DecodePayload(scratch, h, payload)
//	if c.Feed(now, h, payload) == nil {
//		for ch, ok := c.Recv(); ok; ch, ok = c.Recv() { handle(ch.Data) }
//	}
//	c.Send(now, msg, SendVital|SendFlush)      // queue messages
//	c.Update(now)                               // timers; call every tick
//	for p, ok := c.Poll(buf[:0]); ok; p, ok = c.Poll(buf[:0]) { write(p) }
//	if c.State() == StateError { drop(c.Reason()) }
//
// A client does the same after Connect(now, clientToken) instead of Accept.
//
// Chunks returned by Recv alias the payload passed to Feed and are valid
// until the caller reuses that buffer. Recv must be drained before the next
// Feed: chunks not read by then are treated as not received (their vital
// sequence numbers are not acknowledged, so the peer resends them).
//
// A Conn is large (it embeds its resend buffer and outbox); allocate it once
// per slot and reuse it with Reset. It is not safe for concurrent use.
type Conn struct {
	state   ConnState
	client  bool
	dialect Dialect
	sec     uint32 // DDNet security token (DialectDDNet)
	// unknownSeq: the peer's vital sequence is not known yet (AcceptVanilla);
	// the first vital chunk received sets it.
	unknownSeq bool
	token      Token // our token: the peer addresses its packets with it
	peerToken  Token // the peer's token: we address our packets with it
	seq        uint16
	ack        uint16
	peerAck    uint16
	reason     string
	byPeer     bool

	lastSend time.Duration
	lastRecv time.Duration
	since    time.Duration // time of the last state change
	// nextResendAll is the earliest time a peer's RESEND flag is honoured
	// again (resendFlagInterval after the last one).
	nextResendAll time.Duration
	// resendDue: a RESEND flag came within resendFlagInterval of the last
	// resend of the whole buffer; Update honours it when the interval ends.
	resendDue bool
	// ackAtResend is the peer's ack at the last resend of the whole buffer.
	ackAtResend uint16
	// copies: how many times each vital chunk goes out (SetCopies; 0
	// and 1 both mean once).
	copies uint8
	// srtt and rttvar estimate the round trip from acknowledged chunks
	// that were sent once (RTT); rttSampled: there was a sample.
	srtt, rttvar time.Duration
	rttSampled   bool
	// gapOpen: a vital chunk arrived out of order and the missing one has
	// not come yet; lastGapFlag is when the RESEND flag last went out.
	gapOpen     bool
	lastGapFlag time.Duration

	outLen    int
	outChunks int
	outFlags  PacketFlags

	rd ChunkReader

	// Stats are updated by every method; read them at will.
	Stats ConnStats

	// The pointers first (box, resend's refs), the large pointer-free
	// arrays last: the garbage collector scans a Conn up to its last
	// pointer, so it stops before resend's entries and data and out.
	box    outbox
	resend resendBuffer
	out    [MaxPayload6]byte // packet under construction (+ room for the DDNet token)
}

// Reset returns the connection to StateOffline, dropping all buffered data.
func (c *Conn) Reset() {
	c.state, c.client, c.token, c.peerToken = StateOffline, false, TokenNone, TokenNone
	c.dialect, c.sec, c.unknownSeq = Dialect7, 0, false
	c.seq, c.ack, c.peerAck = 0, 0, 0
	c.reason, c.byPeer = "", false
	c.lastSend, c.lastRecv, c.since, c.nextResendAll, c.resendDue = 0, 0, 0, 0, false
	c.ackAtResend, c.copies, c.gapOpen, c.lastGapFlag = 0, 0, false, 0
	c.srtt, c.rttvar, c.rttSampled = 0, 0, false
	c.outLen, c.outChunks, c.outFlags = 0, 0, 0
	c.rd = ChunkReader{}
	c.Stats = ConnStats{}
	c.resend.reset()
	c.box.head, c.box.n = 0, 0
}

// State returns the connection state.
func (c *Conn) State() ConnState { return c.state }

// Reason returns why the connection entered StateError (or the reason given
// to Disconnect): ReasonTimeout, ReasonNotAcked, ReasonOutOfBuffer,
// ReasonUnableToConnect, or the sanitized CLOSE reason sent by the peer.
func (c *Conn) Reason() string { return c.reason }

// ClosedByPeer reports whether the peer closed the connection with CLOSE.
func (c *Conn) ClosedByPeer() bool { return c.byPeer }

// Token returns our token, which the peer puts in its packet headers.
func (c *Conn) Token() Token { return c.token }

// PeerToken returns the peer's token, which we put in our packet headers.
func (c *Conn) PeerToken() Token { return c.peerToken }

// Ack returns the last vital sequence number received in order.
func (c *Conn) Ack() uint16 { return c.ack }

// Sequence returns the last vital sequence number sent.
func (c *Conn) Sequence() uint16 { return c.seq }

// Unacked returns the number of vital chunks waiting for an ack.
func (c *Conn) Unacked() int { return c.resend.n }

// Dialect returns the connection's wire dialect (Dialect7 unless Accept6
// or Connect6 started it).
func (c *Conn) Dialect() Dialect { return c.dialect }

// SecurityToken returns the DDNet security token of a DialectDDNet
// connection (appended to every packet both ways), else 0.
func (c *Conn) SecurityToken() uint32 { return c.sec }

// LastRecv returns the time of the last packet that kept the connection alive.
func (c *Conn) LastRecv() time.Duration { return c.lastRecv }

// Accept starts the server side of a connection after a valid CONNECT: own
// is the server token the client used, peer the client's token. The
// connection becomes Pending and queues an ACCEPT, repeated by Update every
// HandshakeResendInterval until the first data packet arrives.
func (c *Conn) Accept(now time.Duration, own, peer Token) {
	c.Reset()
	c.token, c.peerToken = own, peer
	c.setState(StatePending, now)
	c.lastRecv = now
	c.sendControl(now, CtrlAccept, nil)
}

// Retoken makes own the token the peer's packets must carry from now on
// (server side, 0.7): another token the server issued for the peer's
// address (edge.Edge.Retoken says when).
func (c *Conn) Retoken(own Token) { c.token = own }

// Connect starts the client side: own is the client's random token (not
// TokenNone). The connection becomes Token and queues a token request; the
// token reply moves it to Connect (queueing CONNECT) and ACCEPT to Online.
func (c *Conn) Connect(now time.Duration, own Token) {
	c.Reset()
	c.client = true
	c.token = own
	c.setState(StateToken, now)
	c.sendTokenRequest(now)
}

// Accept6 starts the server side of a 0.6 connection. With DialectDDNet,
// sec is the security token the client echoed in its ACCEPT: the
// connection is Online at once (DDNet creates the slot on that ACCEPT) and
// every packet carries sec. With Dialect6 (vanilla) the connection becomes
// Pending and queues a CONNECTACCEPT, repeated by Update every
// HandshakeResendInterval until the first data packet arrives.
func (c *Conn) Accept6(now time.Duration, d Dialect, sec uint32) {
	c.Reset()
	c.dialect = d
	c.lastRecv = now
	if d == DialectDDNet {
		c.sec = sec
		c.setState(StateOnline, now)
		return
	}
	c.dialect = Dialect6
	c.setState(StatePending, now)
	c.sendControl(now, Ctrl6ConnectAccept, nil)
}

// AcceptVanilla starts the server side of a vanilla 0.6 connection whose
// handshake was done without state (DDNet's anti-spoof handshake, where
// the client echoes a token it got in a snapshot tick): the connection is
// Online at once, our vital sequence continues after seq (the chunks the
// stateless reply numbered 1..seq), and the first vital chunk received
// sets the peer's sequence, which is not known.
func (c *Conn) AcceptVanilla(now time.Duration, seq uint16) {
	c.Reset()
	c.dialect = Dialect6
	c.seq = seq & SequenceMask
	c.unknownSeq = true
	c.lastRecv = now
	c.setState(StateOnline, now)
}

// Connect6 starts the client side of a 0.6 connection: with tken DDNet's
// CONNECT with the TKEN magic (the server's CONNECTACCEPT tells whether it
// speaks the extension), else vanilla's. The connection is in
// StateConnect, repeating CONNECT every HandshakeResendInterval, until the
// CONNECTACCEPT; it then sends ACCEPT and is Online.
func (c *Conn) Connect6(now time.Duration, tken bool) {
	c.Reset()
	c.client = true
	c.dialect = Dialect6
	if tken {
		c.dialect = DialectDDNet
	}
	c.lastRecv = now
	c.setState(StateConnect, now)
	c.sendConnect(now)
}

// Disconnect queues a CLOSE with reason (may be empty; not sent if the
// peer closed first) and moves to StateOffline; the CLOSE can still be
// polled. It does nothing when already offline.
func (c *Conn) Disconnect(now time.Duration, reason string) {
	if c.state == StateOffline {
		return
	}
	if !c.byPeer {
		c.sendClose(now, reason)
	}
	c.reason = reason
	c.setState(StateOffline, now)
	c.rd = ChunkReader{}
}

func (c *Conn) setState(s ConnState, now time.Duration) {
	c.state, c.since = s, now
}

func (c *Conn) fail(now time.Duration, reason string) {
	c.reason = reason
	c.setState(StateError, now)
	c.rd = ChunkReader{}
}

// Feed processes one received 0.7 datagram's header and decoded payload
// (see DecodePayload). It returns ErrBadToken or ErrBadAck for packets that
// do not belong to this connection (dropped without effect), ErrNotOnline in
// StateOffline/StateError, and control-message parse errors. After a nil
// return drain Recv. A 0.6 connection rejects every 0.7 packet.
func (c *Conn) Feed(now time.Duration, h PacketHeader, payload []byte) error {
	c.rd = ChunkReader{}
	if c.state == StateOffline || c.state == StateError {
		return ErrNotOnline
	}
	if c.dialect != Dialect7 || h.Token == TokenNone || h.Token != c.token {
		c.Stats.Rejected++
		return ErrBadToken
	}
	return c.feed(now, h.Flags, h.Ack, h.NumChunks, payload)
}

// Feed6 is Feed for a 0.6 connection: h and the decoded payload (see
// DecodePayload6) of one 0.6 datagram. A DialectDDNet connection requires
// and strips the trailing security token (ErrBadToken on mismatch), except
// for the server's reply to CONNECT, which a connecting client reads as it
// is. A 0.7 connection rejects every 0.6 packet.
func (c *Conn) Feed6(now time.Duration, h PacketHeader6, payload []byte) error {
	c.rd = ChunkReader{}
	if c.state == StateOffline || c.state == StateError {
		return ErrNotOnline
	}
	if !c.dialect.Is6() {
		c.Stats.Rejected++
		return ErrBadToken
	}
	if c.dialect == DialectDDNet && !(c.client && c.state == StateConnect) {
		p, err := StripToken6(payload, c.sec)
		if err != nil {
			c.Stats.Rejected++
			return ErrBadToken
		}
		payload = p
	}
	var flags PacketFlags
	if h.Flags&Flag6Control != 0 {
		flags |= FlagControl
	}
	if h.Flags&Flag6Resend != 0 {
		flags |= FlagResend
	}
	return c.feed(now, flags, h.Ack, h.NumChunks, payload)
}

// FeedDatagram parses, decodes and feeds one received datagram in the
// connection's dialect; scratch receives a decompressed payload (give it
// capacity MaxPayload6). Errors as Feed and Feed6, plus the parse and
// Huffman errors.
func (c *Conn) FeedDatagram(now time.Duration, b, scratch []byte) error {
	if c.dialect == Dialect7 {
		h, payload, err := ParsePacket(b)
		if err != nil {
			return err
		}
		if payload, err = DecodePayload(scratch, h, payload); err != nil {
			return err
		}
		return c.Feed(now, h, payload)
	}
	h, payload, err := ParsePacket6(b)
	if err != nil {
		return err
	}
	if payload, err = DecodePayload6(scratch, h, payload); err != nil {
		return err
	}
	return c.Feed6(now, h, payload)
}

// feed is the dialect-independent part of Feed and Feed6.
func (c *Conn) feed(now time.Duration, flags PacketFlags, ack uint16, numChunks uint8, payload []byte) error {
	ack &= SequenceMask
	if c.seq >= c.peerAck {
		if ack < c.peerAck || ack > c.seq {
			c.Stats.Rejected++
			return ErrBadAck
		}
	} else if ack < c.peerAck && ack > c.seq {
		c.Stats.Rejected++
		return ErrBadAck
	}
	progressed := ack != c.ackAtResend
	c.peerAck = ack
	c.Stats.PacketsRecv++
	if flags&FlagResend != 0 {
		// Every unacked chunk goes out again, as in the reference, but at
		// most once per resendFlagInterval: a peer setting the flag on
		// every packet would otherwise get the whole resend buffer back for
		// each one. A request within the interval is not forgotten: Update
		// honours it when the interval ends (under loss the chunks resent
		// last time may be lost again, and the peer asks only once). A
		// request whose ack moved on since the last resend is honoured at
		// once: the peer got chunks meanwhile, so it reports a new gap. This
		// cannot be abused for more than the buffer's chunks per ack step,
		// and an ack step removes a chunk from the buffer for good.
		c.Stats.ResendAsked++
		c.resendDue = true
		if progressed {
			c.nextResendAll = now
		}
		c.resendAllDue(now)
	}
	if flags&FlagControl != 0 {
		var err error
		if c.dialect == Dialect7 {
			err = c.control7(now, payload)
		} else {
			err = c.control6(now, payload)
		}
		if err != nil || c.state == StateError {
			return err
		}
	} else {
		if !c.client && c.state == StatePending {
			if c.lastSend == c.since {
				// the ACCEPT went out once and the peer answers it at
				// once: the first round trip sample
				c.sampleRTT(now - c.since)
			}
			c.setState(StateOnline, now)
		}
		if c.state == StateOnline {
			if c.dialect == Dialect7 {
				c.rd.Reset(payload, int(numChunks))
			} else {
				c.rd.Reset6(payload, int(numChunks))
			}
		}
	}
	if c.state == StateOnline {
		c.lastRecv = now
		var newest *resendEntry
		for c.resend.n > 0 && inBackroom(c.resend.at(0).seq, ack) {
			newest = c.resend.at(0)
			c.resend.pop()
		}
		if newest != nil && newest.firstSend == newest.lastSend {
			c.sampleRTT(now - newest.lastSend) // Karn: never from a resent chunk
		}
	}
	return nil
}

// resendAllDue resends every unacked chunk when a RESEND request is
// pending and resendFlagInterval has passed since the last time (see Feed).
func (c *Conn) resendAllDue(now time.Duration) {
	if !c.resendDue || now < c.nextResendAll || c.state != StateOnline && c.state != StatePending {
		return
	}
	c.resendDue = false
	c.nextResendAll = now + resendFlagInterval
	c.ackAtResend = c.peerAck
	for i := range c.resend.n {
		c.resendChunk(now, c.resend.at(i))
	}
}

// SetCopies sets how many times every vital chunk (new or resent) goes
// out, 1..MaxCopies (clamped): each copy after the first in a datagram of
// its own right after the original, so that a lost datagram does not stall
// the in-order stream (receivers drop the copies they see after the first
// as duplicates). It multiplies the vital bytes; the server uses it for
// the map download of a connection that has seen loss.
func (c *Conn) SetCopies(n int) { c.copies = uint8(min(max(n, 1), MaxCopies)) }

// repeat queues the extra copies of the vital chunk e, each in a datagram
// of its own (see SetCopies).
func (c *Conn) repeat(now time.Duration, e *resendEntry) {
	for i := 1; i < int(c.copies); i++ {
		c.Flush(now)
		c.queueChunk(now, ChunkHeader{Flags: ChunkVital | ChunkResend, Seq: e.seq}, c.resend.bytes(e), c.resend.ref(e))
		c.Stats.ChunksResent++
	}
	c.Flush(now)
}

// sampleRTT folds one round-trip sample into the smoothed estimate (the
// usual 1/8 and 1/4 gains).
func (c *Conn) sampleRTT(d time.Duration) {
	if !c.rttSampled {
		c.srtt, c.rttvar, c.rttSampled = d, d/2, true
		return
	}
	dev := c.srtt - d
	if dev < 0 {
		dev = -dev
	}
	c.rttvar += (dev - c.rttvar) / 4
	c.srtt += (d - c.srtt) / 8
}

// RTT returns the smoothed round trip and its mean deviation, measured
// from the peer's acks of vital chunks sent once; ok is false before the
// first sample.
func (c *Conn) RTT() (srtt, rttvar time.Duration, ok bool) {
	return c.srtt, c.rttvar, c.rttSampled
}

// PeerAck returns the last vital sequence number the peer acknowledged.
func (c *Conn) PeerAck() uint16 { return c.peerAck }

// OldestUnackedSent returns when the oldest unacknowledged vital chunk was
// last sent; ok is false when every chunk is acknowledged.
func (c *Conn) OldestUnackedSent() (at time.Duration, ok bool) {
	if c.resend.n == 0 {
		return 0, false
	}
	return c.resend.at(0).lastSend, true
}

// ResendUnacked resends the unacknowledged vital chunks from the from-th
// oldest, at most n of them, now and in order (each with its copies, see
// SetCopies), flushes, and returns how many chunks are unacknowledged. The
// server calls it as a tail-loss probe (a batch at a time, polling between
// batches so the outbox does not overflow): a peer that stops
// acknowledging because a chunk was lost sends nothing until its own timers
// run, but answers as soon as the missing chunk arrives. The caller bounds
// how often (server/mapdl.go).
func (c *Conn) ResendUnacked(now time.Duration, from, n int) int {
	if c.state != StateOnline {
		return c.resend.n
	}
	for i := from; i < c.resend.n && i < from+n; i++ {
		c.resendChunk(now, c.resend.at(i))
	}
	c.Flush(now)
	return c.resend.n
}

// AskResend sends the RESEND flag now (in an otherwise empty packet if
// nothing is queued): the peer resends every vital chunk it has not had
// acknowledged. The server uses it when a download it paces stalls, as the
// peer's request may have been lost.
func (c *Conn) AskResend(now time.Duration) {
	if c.state != StateOnline {
		return
	}
	c.outFlags |= FlagResend
	c.Flush(now)
}

// FlushResend flushes the packet under construction when it carries the
// RESEND flag (a gap was seen in the last fed packet), so the peer hears
// of the gap at once instead of with its next packet.
func (c *Conn) FlushResend(now time.Duration) {
	if c.outFlags&FlagResend != 0 {
		c.lastGapFlag = now
		c.Flush(now)
	}
}

// control7 handles a 0.7 control message.
func (c *Conn) control7(now time.Duration, payload []byte) error {
	ctl, err := ParseControl(payload)
	if err != nil {
		return err
	}
	switch ctl.Type {
	case CtrlClose:
		c.byPeer = true
		c.fail(now, SanitizeCloseReason(ctl.Reason))
	case CtrlToken:
		if c.client && c.state == StateToken && ctl.Token != TokenNone {
			c.peerToken = ctl.Token
			c.setState(StateConnect, now)
			c.lastRecv = now
			c.sendConnect(now)
		}
	case CtrlAccept:
		if c.client && c.state == StateConnect {
			c.setState(StateOnline, now)
		}
	}
	return nil
}

// control6 handles a 0.6 control message (spec B2). A client in
// StateConnect learns from CONNECTACCEPT whether the server speaks DDNet's
// token extension, answers ACCEPT and goes online.
func (c *Conn) control6(now time.Duration, payload []byte) error {
	ctl, err := ParseControl6(payload)
	if err != nil {
		return err
	}
	switch ctl.Type {
	case Ctrl6Close:
		c.byPeer = true
		c.fail(now, SanitizeCloseReason(ctl.Reason))
	case Ctrl6ConnectAccept:
		if c.client && c.state == StateConnect {
			if c.dialect == DialectDDNet && ctl.TKEN && ctl.Token != Token6Unknown && ctl.Token != Token6Unsupported {
				c.sec = ctl.Token
			} else {
				c.dialect, c.sec = Dialect6, 0 // a server without the extension
			}
			c.setState(StateOnline, now)
			c.lastRecv = now
			c.sendControl(now, Ctrl6Accept, nil)
		}
	}
	return nil
}

// Recv returns the next chunk of the last fed packet that is due for
// delivery: non-vital chunks, and vital chunks that are next in sequence.
// Duplicates are skipped; a gap makes the next outgoing packet carry the
// RESEND flag. It returns false when the packet is exhausted or malformed.
func (c *Conn) Recv() (Chunk, bool) {
	for c.state == StateOnline {
		ch, ok := c.rd.Next()
		if !ok {
			return Chunk{}, false
		}
		if ch.Flags&ChunkVital != 0 {
			switch {
			case c.unknownSeq || ch.Seq == (c.ack+1)&SequenceMask:
				c.unknownSeq = false
				c.ack = ch.Seq
				c.gapOpen = false
			case inBackroom(ch.Seq, c.ack):
				continue
			default:
				c.outFlags |= FlagResend
				c.Stats.Gaps++
				c.gapOpen = true
				continue
			}
		}
		return ch, true
	}
	return Chunk{}, false
}

// Send queues one message as a chunk. SendVital makes it reliable, SendFlush
// finishes the packet at once. It fails with ErrNotOnline unless the
// connection is Online (or Pending on the server side), ErrChunkTooLarge
// beyond MaxChunkSize bytes, and ErrResendBufferFull when a vital chunk does
// not fit in the resend buffer (the connection then enters StateError with
// ReasonOutOfBuffer).
func (c *Conn) Send(now time.Duration, msg []byte, flags SendFlags) error {
	return c.send(now, msg, nil, flags)
}

// SendRef sends the vital message head+ref like Send(SendVital|flags),
// but keeps only head in the resend buffer and ref by reference: the
// caller must never change ref's bytes (the server uses it for map chunks,
// slices of the loaded map, so the chunks in flight of a download are not
// bounded by ConnBufferSize; the caller bounds them).
func (c *Conn) SendRef(now time.Duration, head, ref []byte, flags SendFlags) error {
	return c.send(now, head, ref, flags|SendVital)
}

func (c *Conn) send(now time.Duration, msg, ref []byte, flags SendFlags) error {
	if c.state != StateOnline && c.state != StatePending {
		return ErrNotOnline
	}
	if size := len(msg) + len(ref); size > MaxChunkSize || c.dialect != Dialect7 && size > MaxChunkSize6 {
		return ErrChunkTooLarge
	}
	if flags&SendVital != 0 {
		if _, ok := c.resend.alloc(len(msg)); !ok {
			c.fail(now, ReasonOutOfBuffer)
			return ErrResendBufferFull
		}
		c.seq = (c.seq + 1) & SequenceMask
		c.queueChunk(now, ChunkHeader{Flags: ChunkVital, Seq: c.seq}, msg, ref)
		c.resend.push(c.seq, msg, ref, now)
		if c.copies > 1 {
			c.repeat(now, c.resend.at(c.resend.n-1))
		}
	} else {
		c.queueChunk(now, ChunkHeader{}, msg, nil)
	}
	if flags&SendFlush != 0 {
		c.Flush(now)
	}
	return nil
}

// queueChunk appends a chunk of data followed by ref (h.Size is set) to
// the packet under construction, flushing first when it would not fit or
// the packet holds MaxPacketChunks chunks.
func (c *Conn) queueChunk(now time.Duration, h ChunkHeader, data, ref []byte) {
	h.Size = len(data) + len(ref)
	if c.outLen+h.Size+MaxChunkHeaderSize > c.payloadLimit() || c.outChunks >= MaxPacketChunks {
		c.Flush(now)
	}
	if c.dialect == Dialect7 {
		c.outLen = len(AppendChunkHeader(c.out[:c.outLen], h))
	} else {
		c.outLen = len(AppendChunkHeader6(c.out[:c.outLen], h))
	}
	c.outLen += copy(c.out[c.outLen:], data)
	c.outLen += copy(c.out[c.outLen:], ref)
	c.outChunks++
}

// resendChunk queues a buffered vital chunk again with the RESEND chunk flag.
func (c *Conn) resendChunk(now time.Duration, e *resendEntry) {
	c.queueChunk(now, ChunkHeader{Flags: ChunkVital | ChunkResend, Seq: e.seq}, c.resend.bytes(e), c.resend.ref(e))
	e.lastSend = now
	c.Stats.ChunksResent++
	if c.copies > 1 {
		c.repeat(now, e)
	}
}

// Flush turns the packet under construction into a datagram in the outbox
// (compressed when smaller). A packet without chunks is sent only to carry
// the RESEND flag. Update flushes on its own after FlushInterval.
func (c *Conn) Flush(now time.Duration) {
	if c.outChunks == 0 && c.outFlags == 0 {
		return
	}
	if c.dialect == Dialect7 {
		h := PacketHeader{Flags: c.outFlags, Ack: c.ack, NumChunks: uint8(c.outChunks), Token: c.peerToken}
		c.emit(now, func(dst []byte) []byte { return AppendPacketCompressed(dst, h, c.out[:c.outLen]) })
	} else {
		h := PacketHeader6{Ack: c.ack, NumChunks: uint8(c.outChunks)}
		if c.outFlags&FlagResend != 0 {
			h.Flags |= Flag6Resend
		}
		payload := c.out[:c.outLen]
		if c.dialect == DialectDDNet {
			payload = AppendToken6(payload, c.sec) // before compression (spec B2.2)
		}
		c.emit(now, func(dst []byte) []byte { return AppendPacket6Compressed(dst, h, payload) })
	}
	c.outLen, c.outChunks, c.outFlags = 0, 0, 0
}

// payloadLimit is the most chunk bytes a packet of this dialect holds:
// MaxPayload for 0.7; for 0.6 MaxPayload6 less the 4 bytes DDNet reserves
// for its token (kept for vanilla too, as DDNet does).
func (c *Conn) payloadLimit() int {
	if c.dialect == Dialect7 {
		return MaxPayload
	}
	return MaxPayload6 - 4
}

// emit builds one datagram with build into the next free outbox slot, or
// counts it as dropped when the outbox is full. Either way it counts as
// sent for the idle timers.
func (c *Conn) emit(now time.Duration, build func(dst []byte) []byte) {
	c.lastSend = now
	slot := c.box.slot()
	if slot == nil {
		c.Stats.OutboxDrops++
		return
	}
	c.box.commit(build(slot))
	c.Stats.PacketsSent++
}

func (c *Conn) sendControl(now time.Duration, ctrl byte, extra []byte) {
	if c.dialect != Dialect7 {
		c.emit(now, func(dst []byte) []byte {
			return AppendControl6(dst, c.ack, ctrl, extra, c.sec, c.dialect == DialectDDNet)
		})
		return
	}
	c.emit(now, func(dst []byte) []byte { return AppendControl(dst, c.ack, c.peerToken, ctrl, extra) })
}

func (c *Conn) sendClose(now time.Duration, reason string) {
	if c.dialect != Dialect7 {
		c.emit(now, func(dst []byte) []byte {
			return AppendClose6(dst, c.ack, reason, c.sec, c.dialect == DialectDDNet)
		})
		return
	}
	c.emit(now, func(dst []byte) []byte { return AppendClose(dst, c.ack, c.peerToken, reason) })
}

func (c *Conn) sendTokenRequest(now time.Duration) {
	c.emit(now, func(dst []byte) []byte { return AppendTokenRequest(dst, c.token) })
}

func (c *Conn) sendConnect(now time.Duration) {
	if c.dialect != Dialect7 {
		c.emit(now, func(dst []byte) []byte { return AppendConnect6(dst, c.dialect == DialectDDNet) })
		return
	}
	c.emit(now, func(dst []byte) []byte { return AppendConnect(dst, c.peerToken, c.token) })
}

// Update runs the timers (spec A1.8): handshake repeats every
// HandshakeResendInterval, TokenTimeout and TimeoutDuration, resending
// unacked chunks after ResendInterval (giving up when the oldest is older
// than ResendTimeout), flushing after FlushInterval and KEEPALIVE after
// KeepAliveInterval of idle sending. Call it at least every tick.
//
// Resends: the reference queues only the oldest overdue chunk per update,
// so a burst of lost chunks takes one round of updates per chunk to recover.
// Update instead queues every overdue chunk among the oldest resendScan, in
// sequence order, stopping before the queued chunks (headers included) would
// exceed resendBudget bytes: what one call adds fits in a single packet
// (resendScan < MaxPacketChunks), so it can cause at most one extra datagram
// per call and connection, however many chunks are overdue (called once per
// tick: at most 50 resend packets a second). A queued chunk's last-send time
// is reset, so each chunk is resent at most once per ResendInterval by
// Update. Receivers drop duplicates, so this is compatible. The queued chunks go out with the next flush, as in the
// reference. (A peer's RESEND flag, handled by Feed, queues every unacked
// chunk as the reference does, at most once per resendFlagInterval.)
func (c *Conn) Update(now time.Duration) {
	switch c.state {
	case StateOffline, StateError:
		return
	case StateToken:
		if now-c.since > TokenTimeout {
			c.fail(now, ReasonUnableToConnect)
			return
		}
	default:
		if now-c.lastRecv > TimeoutDuration {
			c.fail(now, ReasonTimeout)
			return
		}
	}
	switch c.state {
	case StateToken:
		if now-c.lastSend > HandshakeResendInterval {
			c.sendTokenRequest(now)
		}
	case StateConnect:
		if now-c.lastSend > HandshakeResendInterval {
			c.sendConnect(now)
		}
	case StatePending:
		if now-c.lastSend > HandshakeResendInterval {
			c.sendControl(now, CtrlAccept, nil)
		}
	case StateOnline:
		if c.resend.n > 0 {
			e := c.resend.at(0)
			if now-e.firstSend > ResendTimeout {
				c.fail(now, ReasonNotAcked)
				return
			}
			c.resendAllDue(now)
			c.resendOverdue(now)
		}
		if c.gapOpen && now-c.lastGapFlag >= gapFlagInterval {
			// the RESEND flag asking for the missing chunk may have been
			// lost: ask again
			c.outFlags |= FlagResend
			c.lastGapFlag = now
			c.Flush(now)
		}
		if now-c.lastSend > FlushInterval {
			c.Flush(now)
		}
		if now-c.lastSend > KeepAliveInterval {
			c.sendControl(now, CtrlKeepAlive, nil)
		}
	}
}

// resendOverdue queues the overdue chunks among the oldest resendScan, in
// order, until the next would take the queued bytes beyond resendBudget
// (see Update). The oldest chunk always fits: MaxChunkSize+MaxChunkHeaderSize
// <= resendBudget.
func (c *Conn) resendOverdue(now time.Duration) {
	budget := resendBudget
	for i := 0; i < c.resend.n && i < resendScan; i++ {
		e := c.resend.at(i)
		if now-e.lastSend <= ResendInterval {
			continue
		}
		need := int(e.size) + len(c.resend.ref(e)) + MaxChunkHeaderSize
		if need > budget {
			return
		}
		c.resendChunk(now, e)
		budget -= need
	}
}

// Poll appends the oldest datagram waiting to be sent to dst and reports
// whether there was one. Call it until it returns false after Feed, Send,
// Flush, Update and Disconnect.
func (c *Conn) Poll(dst []byte) ([]byte, bool) { return c.box.pop(dst) }

// Pending reports the number of datagrams waiting in the outbox.
func (c *Conn) Pending() int { return c.box.n }

// Warm loads the cache lines Feed, Recv and Send read first (the
// connection's fields, the outbox and resend ring heads, the packet under
// construction) and returns a byte of them, so a caller about to handle
// datagrams of many connections can overlap their misses; the value means
// nothing.
func (c *Conn) Warm() uint8 {
	var acc uint8
	head := unsafe.Pointer(c)
	for off := uintptr(0); off < unsafe.Offsetof(c.box); off += 64 {
		acc += *(*uint8)(unsafe.Add(head, off))
	}
	acc += uint8(c.box.n) + uint8(c.resend.n) + c.out[min(c.outLen, len(c.out)-1)]
	if c.resend.n > 0 {
		acc += uint8(c.resend.at(0).seq)
	}
	if b := c.box.slots[(c.box.head+c.box.n)%OutboxPackets]; cap(b) > 0 {
		acc += b[:1][0]
	}
	return acc
}
