package netproto

import (
	"errors"
	"time"
)

// ConnHandover is a server-side connection's state as it passes to a new
// process at a live upgrade (package handover): what the peer expects of
// it (tokens, sequence and ack numbers) and the vital chunks it has not
// acknowledged yet, which the new process resends. Packets being built or
// waiting in the outbox are not carried (the caller flushes first; vital
// chunks among them are in Resend).
type ConnHandover struct {
	State      ConnState
	Dialect    Dialect
	Sec        uint32
	UnknownSeq bool
	Token      Token
	PeerToken  Token
	Seq        uint16
	Ack        uint16
	PeerAck    uint16
	Copies     uint8
	// SRTT and RTTVar are the round-trip estimate (zero when RTTSampled
	// is false).
	SRTT, RTTVar time.Duration
	RTTSampled   bool
	// Resend holds the unacknowledged vital chunks, oldest first.
	Resend []ResendChunk
}

// ResendChunk is one unacknowledged vital chunk of a ConnHandover.
type ResendChunk struct {
	Seq uint16
	// Data is the chunk's message: what Send queued (or SendRef's head
	// followed by its ref).
	Data []byte
}

// ErrHandover is Import's error for a state it cannot take: not a
// server-side connection that is online or pending, or more chunks than
// the resend buffer holds.
var ErrHandover = errors.New("netproto: connection state cannot be imported")

// Export returns the connection's state for a new process (after Flush).
func (c *Conn) Export() ConnHandover {
	h := ConnHandover{State: c.state, Dialect: c.dialect, Sec: c.sec, UnknownSeq: c.unknownSeq,
		Token: c.token, PeerToken: c.peerToken, Seq: c.seq, Ack: c.ack, PeerAck: c.peerAck, Copies: c.copies,
		SRTT: c.srtt, RTTVar: c.rttvar, RTTSampled: c.rttSampled}
	for i := 0; i < c.resend.n; i++ {
		e := c.resend.at(i)
		h.Resend = append(h.Resend, ResendChunk{Seq: e.seq, Data: append(append([]byte(nil), c.resend.bytes(e)...), c.resend.ref(e)...)})
	}
	return h
}

// Import makes the offline connection c the connection h describes. The
// chunks of h.Resend count as sent at now (ResendTimeout runs from now) but
// overdue, so they go out again at the first Update: some of them may never have left the old process (a packet
// under construction), and the peer takes nothing newer before them, so
// waiting for the resend timeout would stall it (a peer that has them
// drops the copies). The packet clocks start at now.
func (c *Conn) Import(h ConnHandover, now time.Duration) error {
	if c.state != StateOffline || h.State != StateOnline && h.State != StatePending || len(h.Resend) > MaxResendChunks {
		return ErrHandover
	}
	c.Reset()
	c.state, c.dialect, c.sec, c.unknownSeq = h.State, h.Dialect, h.Sec, h.UnknownSeq
	c.token, c.peerToken, c.seq, c.ack, c.peerAck, c.copies = h.Token, h.PeerToken, h.Seq&SequenceMask, h.Ack&SequenceMask, h.PeerAck&SequenceMask, h.Copies
	c.srtt, c.rttvar, c.rttSampled = h.SRTT, h.RTTVar, h.RTTSampled
	c.lastSend, c.lastRecv, c.since = now, now, now
	for _, r := range h.Resend {
		if len(r.Data) > MaxChunkSize {
			c.Reset()
			return ErrHandover
		}
		// the data by reference: a copy of its own, never changed
		if !c.resend.push(r.Seq&SequenceMask, nil, append([]byte(nil), r.Data...), now) {
			c.Reset()
			return ErrHandover
		}
		c.resend.at(c.resend.n - 1).lastSend = now - ResendInterval - time.Millisecond // overdue: out at the first Update
	}
	return nil
}
