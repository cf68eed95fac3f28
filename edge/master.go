package edge

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"net/netip"
	"time"

	"twserver/netproto"
)

// Master is the game socket's side of master registration: what the
// reader hands to it (set before the reader starts, never changed while it
// runs), and the datagrams it sends from the game socket.
type Master struct {
	// Token is the server's global 0.7 token: announced to the master and
	// accepted from any address on its challenge packet.
	Token netproto.Token
	// Challenge, if set, is called with the payload of a master's
	// registration challenge; it reports whether it was valid.
	Challenge func(payload []byte) bool
	// Packet, if set, is called with a legacy 0.7 master's packets (token
	// replies with a nil payload, FWCHECK/FWOK/FWERROR); it reports whether
	// the packet came from a master it knows.
	Packet func(from netip.AddrPort, token uint32, payload []byte) bool

	write func(b []byte, to netip.AddrPort) // the Edge's (New)
}

// SendTokenRequest sends a 0.7 TOKEN request carrying the global token from
// the game socket (to a legacy master). Safe from any goroutine.
func (m *Master) SendTokenRequest(to netip.AddrPort) {
	m.write(netproto.AppendTokenRequest(nil, m.Token), to)
}

// SendConnless sends a 0.7 connless packet from the game socket, addressed
// with token and answering to the global token. Safe from any goroutine;
// payload must fit netproto.MaxPayload.
func (m *Master) SendConnless(to netip.AddrPort, token uint32, payload []byte) {
	m.write(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: netproto.Token(token), ResponseToken: m.Token}, payload), to)
}

// NewGlobalToken returns a random token other than TokenNone (the
// server's global 0.7 token, Master.Token).
func NewGlobalToken() netproto.Token {
	var b [4]byte
	for {
		_, _ = rand.Read(b[:])
		if t := netproto.Token(binary.BigEndian.Uint32(b[:])); t != netproto.TokenNone {
			return t
		}
	}
}

// masterMagics start the legacy masters' packets to a server (FWCHECK,
// FWOK, FWERROR; net.md A6.5).
var masterMagics = [][]byte{[]byte("\xff\xff\xff\xfffw??"), []byte("\xff\xff\xff\xfffwok"), []byte("\xff\xff\xff\xfffwer")}

// screenMasterPacket hands a legacy master's connless packet to the hook;
// it reports whether the packet was one (then nothing else is to be done).
func (e *Edge) screenMasterPacket(from netip.AddrPort, h netproto.ConnlessHeader, payload []byte, validToken bool, now time.Time) bool {
	if e.Master.Packet == nil || (!validToken && h.Token != e.Master.Token) {
		return false
	}
	for _, m := range masterMagics {
		if bytes.HasPrefix(payload, m) {
			if !e.Budget.Info.AllowN(now, 1) {
				e.Stats.ConnlessDropped.Add(1)
				return true
			}
			return e.Master.Packet(from, uint32(h.ResponseToken), payload)
		}
	}
	return false
}

// screenMasterTokenReply hands a token reply to our own token request to the hook.
func (e *Edge) screenMasterTokenReply(from netip.AddrPort, token netproto.Token, now time.Time) {
	if token == netproto.TokenNone || !e.Budget.Token.AllowN(now, 1) {
		e.Stats.ConnlessDropped.Add(1)
		return
	}
	if !e.Master.Packet(from, uint32(token), nil) {
		e.Stats.BadToken.Add(1)
	}
}

// Master challenge framing (net.md B6.6).
var (
	challengeMagic = []byte("\xff\xff\xff\xffchal")
	// connless6Header is the 0.6 connless header in front of a 0.6 challenge.
	connless6Header = []byte("\xff\xff\xff\xff\xff\xff")
)

// screenMasterChallenge handles a master's challenge in the reader; it
// reports whether b was one (then nothing else is to be done with it). The
// info budget bounds how many reach the hook.
func (e *Edge) screenMasterChallenge(b []byte, now time.Time) bool {
	var payload []byte
	if rest, ok := bytes.CutPrefix(b, connless6Header); ok && bytes.HasPrefix(rest, challengeMagic) {
		payload = rest
	} else if h, p, err := netproto.ParseConnless(b); err == nil && h.Token == e.Master.Token && bytes.HasPrefix(p, challengeMagic) {
		payload = p
	} else {
		return false
	}
	if e.Master.Challenge == nil || !e.Budget.Info.AllowN(now, 1) {
		e.Stats.ConnlessDropped.Add(1)
		return true
	}
	if !e.Master.Challenge(payload) {
		e.Stats.Malformed.Add(1)
	}
	return true
}
