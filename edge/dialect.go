package edge

import (
	"net/netip"
	"time"

	"twserver/netproto"
)

// dialect is one protocol dialect's edge: how a connection datagram from
// an address without a slot is screened (reader) and how the connection
// request the reader let through is read (loop). The dialect of a stranger
// is decided once, by the framing of its datagram (dialectOf); from then
// on its slot's Conn carries it.
type dialect interface {
	// screen screens b from addr (no slot): pass hands it to the loop.
	screen(e *Edge, b []byte, addr netip.AddrPort, tokens *netproto.TokenGen, now time.Time, out []byte) (cid int, pass bool)
	// request reads the checked connection request in b, a datagram
	// screen let through with CIDNone.
	request(e *Edge, b []byte) (Request, bool)
}

// edge7 is the 0.7 edge (edge7.go), edge6 the 0.6/DDNet one (edge6.go).
type (
	edge7 struct{}
	edge6 struct{}
)

// dialectOf decides the dialect of a stranger's connection datagram by
// its framing.
func dialectOf(b []byte) dialect {
	if netproto.Is7Packet(b) {
		return edge7{}
	}
	return edge6{}
}

// Request is a checked connection request of either dialect: what the
// loop's accept checks need to refuse it in its dialect or to start its Conn.
type Request struct {
	// Dialect is the dialect the slot will speak.
	Dialect   netproto.Dialect
	own, peer netproto.Token // 0.7: our token the client used, the client's token
	sec       uint32         // DDNet: the security token the client echoed
}

// Request returns the connection request in b, a datagram from addr that
// Screen handed to the loop with CIDNone (loop goroutine; the reader
// checked its token).
func (e *Edge) Request(b []byte) (Request, bool) {
	return dialectOf(b).request(e, b)
}

// Request7 is the request of a 0.7 CONNECT that used our token own and
// announced the client's token peer.
func Request7(own, peer netproto.Token) Request {
	return Request{Dialect: netproto.Dialect7, own: own, peer: peer}
}

// DDNetRequest is the request of a DDNet client that echoed security token
// sec (a rejoin on a slot's address, checked by the loop against the slot).
func DDNetRequest(sec uint32) Request {
	return Request{Dialect: netproto.DialectDDNet, sec: sec}
}

// AppendClose appends a pre-connection CLOSE in the request's dialect
// (DDNet's carries the client's token, as DDNet sends it after the ACCEPT).
func (r Request) AppendClose(dst []byte, reason string) []byte {
	if r.Dialect == netproto.Dialect7 {
		return netproto.AppendClose(dst, 0, r.peer, reason)
	}
	return netproto.AppendClose6(dst, 0, reason, r.sec, r.Dialect == netproto.DialectDDNet)
}

// Start starts the slot's Conn for the request.
func (r Request) Start(c *netproto.Conn, now time.Duration) {
	if r.Dialect == netproto.Dialect7 {
		c.Accept(now, r.own, r.peer)
		return
	}
	if r.Dialect == netproto.Dialect6 {
		c.AcceptVanilla(now, AntispoofSeq) // after the stateless anti-spoof reply
		return
	}
	c.Accept6(now, r.Dialect, r.sec)
}
