package server

import (
	"time"

	"twserver/netproto"
)

// The 0.6 edge: connection packets from addresses without a slot whose
// framing is 0.6 (net.md B1-B2). Only DDNet's security-token handshake
// opens a slot:
//
//	C→S CONNECT "TKEN" ff ff ff ff      answered here, statelessly:
//	S→C CONNECTACCEPT "TKEN" T          T = tokens.Token6(source IP)
//	C→S ACCEPT T                        T checked here, then the loop opens
//	                                    the slot (Online, token T)
//
// T is a keyed hash of the source IP under the reader's rotating secret
// (the 0.7 token's generator), so, exactly as with the 0.7 token, a sender
// that cannot receive at the address it claims never learns T and gets no
// slot. The CONNECT costs a reply of its own size (no amplification) under
// the token budget, the ACCEPT a budgeted hand-off to the loop.
//
// Vanilla 0.6 CONNECTs (no TKEN) carry nothing a reply could be checked
// against: they are not accepted (counted as BadToken), so a flood of them
// with spoofed sources takes no slot and costs no reply.

// screen6 screens a 0.6 connection datagram from an address without a
// slot (reader goroutine); true hands it to the loop.
func (s *Server) screen6(p *rxPacket, tokens *netproto.TokenGen, now time.Time, out []byte) bool {
	h, payload, err := netproto.ParsePacket6(p.data())
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	// DDNet never compresses control packets; nothing else from an unknown
	// address is looked at, so no Huffman work is spent on strangers.
	if h.Flags&netproto.Flag6Control == 0 || h.Flags&netproto.Flag6Compression != 0 {
		s.stats.BadToken.Add(1)
		return false
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	ip := p.addr.Addr()
	switch {
	case ctl.Type == netproto.Ctrl6Connect && ctl.TKEN:
		if !s.budget.token.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		s.write(netproto.AppendConnectAccept6(out, tokens.Token6(ip), true), p.addr)
		s.stats.TokenReplies.Add(1)
		return false
	case ctl.Type == netproto.Ctrl6Accept && ctl.HasToken:
		if !tokens.Check6(ip, ctl.Token) {
			s.stats.BadToken.Add(1)
			return false
		}
		if !s.budget.connect.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		return true
	}
	s.stats.BadToken.Add(1)
	return false
}

// connect6 opens a slot for a checked DDNet ACCEPT (loop): the reader has
// verified the token; b is the datagram.
func (s *Server) connect6(p *rxPacket) {
	h, payload, err := netproto.ParsePacket6(p.data())
	if err != nil || h.Flags&netproto.Flag6Control == 0 {
		return
	}
	ctl, err := netproto.ParseControl6(payload)
	if err != nil || ctl.Type != netproto.Ctrl6Accept || !ctl.HasToken {
		return
	}
	s.onConnect(p.addr, connectReq{dialect: netproto.DialectDDNet, sec: ctl.Token})
}
