package session

import (
	"time"

	"twserver/netproto"
)

// RejoinWindow6 bounds the time from a connected DDNet client's new CONNECT
// to the ACCEPT that makes it rejoin.
const RejoinWindow6 = 5 * time.Second

// Rejoin is what a datagram from the address of a connected DDNet slot
// means for DDNet's reconnect (net.md B2.2: a client whose CLOSE was
// lost, reconnecting from the same socket).
type Rejoin uint8

const (
	// NoRejoin: not a rejoin datagram; the slot's connection reads it.
	NoRejoin Rejoin = iota
	// RejoinOffer: a new CONNECT; the loop answers it with a CONNECTACCEPT
	// carrying the slot's token (netproto.AppendConnectAccept6) and notes
	// the time of the offer.
	RejoinOffer
	// RejoinNow: the ACCEPT carrying that token within RejoinWindow6 of the
	// offer; the loop replaces the old connection with a new one (the old
	// player leaves, the client goes through INFO and the map again).
	RejoinNow
)

// Rejoin6 classifies datagram b from a DDNet slot whose security token is
// sec and whose last rejoin offer went out at offered (0 for none). A
// spoofed CONNECT only makes the server send the real client a
// CONNECTACCEPT it ignores; without the token no ACCEPT counts.
func Rejoin6(b []byte, sec uint32, offered, now time.Duration) Rejoin {
	// both are uncompressed control packets of a new connection (ack 0)
	if (len(b) != 8 && len(b) != 12) || b[0] != netproto.Flag6Control || b[1] != 0 {
		return NoRejoin
	}
	ctl, err := netproto.ParseControl6(b[netproto.PacketHeaderSize6:])
	switch {
	case err != nil:
		return NoRejoin
	case ctl.Type == netproto.Ctrl6Connect && ctl.TKEN:
		return RejoinOffer
	case ctl.Type == netproto.Ctrl6Accept && ctl.HasToken && ctl.Token == sec &&
		offered != 0 && now-offered < RejoinWindow6:
		return RejoinNow
	}
	return NoRejoin
}
