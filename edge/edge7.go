package edge

import (
	"net/netip"
	"time"

	"twserver/netproto"
)

// The 0.7 edge (net.md A1): a stranger asks for a token (TOKEN, padded so
// the answer is smaller than the request), then sends CONNECT with it. The
// token is a keyed hash of the source IP under the reader's rotating
// secret, so it is checked without state, and a sender that cannot receive
// at the address it claims never learns it.

// screen screens a 0.7 connection datagram from an address without a slot.
func (edge7) screen(e *Edge, b []byte, addr netip.AddrPort, tokens *netproto.TokenGen, now time.Time, out []byte) (int, bool) {
	h, payload, err := netproto.ParsePacket(b)
	if err != nil {
		e.Stats.Malformed.Add(1)
		return CIDNone, false
	}
	if h.Flags&netproto.FlagControl == 0 || h.Flags&netproto.FlagCompression != 0 {
		e.Stats.BadToken.Add(1)
		return CIDNone, false
	}
	ctl, err := netproto.ParseControl(payload)
	if err != nil {
		e.Stats.Malformed.Add(1)
		return CIDNone, false
	}
	ip := addr.Addr()
	switch {
	case ctl.Type == netproto.CtrlToken && h.Token == e.Master.Token && e.Master.Packet != nil:
		e.screenMasterTokenReply(addr, ctl.Token, now)
		return CIDNone, false
	case ctl.Type == netproto.CtrlToken && h.Token == netproto.TokenNone:
		if !ctl.Padded || ctl.Token == netproto.TokenNone {
			e.Stats.Malformed.Add(1)
			return CIDNone, false
		}
		if !e.Budget.Token.AllowN(now, 1) {
			e.Stats.ConnlessDropped.Add(1)
			return CIDNone, false
		}
		out = netproto.AppendTokenResponse(out, ctl.Token, tokens.Token(ip))
		e.write(out, addr)
		e.Stats.TokenReplies.Add(1)
		return CIDNone, false
	case ctl.Type == netproto.CtrlConnect:
		return CIDNone, e.passConnect(tokens.Check(ip, h.Token) && ctl.Padded, now)
	}
	e.Stats.BadToken.Add(1)
	return CIDNone, false
}

// request reads a 0.7 CONNECT.
func (edge7) request(_ *Edge, b []byte) (Request, bool) {
	h, payload, err := netproto.ParsePacket(b)
	if err != nil || h.Flags&netproto.FlagControl == 0 || h.Flags&netproto.FlagCompression != 0 {
		return Request{}, false
	}
	ctl, err := netproto.ParseControl(payload)
	if err != nil || ctl.Type != netproto.CtrlConnect {
		return Request{}, false
	}
	return Request7(h.Token, ctl.Token), true
}
