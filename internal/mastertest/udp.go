package mastertest

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"twserver/netproto"
)

// UDPMaster is a legacy 0.7 master for tests, written from net.md A6.5 and
// ops-facts.md 1.1: 0.7 connless packets behind a token exchange, the
// heartbeat "bea2" + port on its main socket, the firewall check from a
// second socket (token exchange with the game port, "fw??", expecting
// "fw!!"), then "fwok" — or "fwer" after CheckTries unanswered checks. It
// only talks to loopback addresses.
type UDPMaster struct {
	op, checker *net.UDPConn
	tokens      *netproto.TokenGen
	done        chan struct{}

	mu         sync.Mutex
	heartbeats []Heartbeat
	listed     map[netip.AddrPort]bool
	checks     map[netip.AddrPort]*check // by the checked game address
}

// Heartbeat is one heartbeat the master received.
type Heartbeat struct {
	From netip.AddrPort // source of the packet
	Port int            // port announced in it
}

type check struct {
	op        netip.AddrPort // where the heartbeat came from (FWOK/FWERROR go there)
	opToken   netproto.Token // the server's response token of the heartbeat
	gameToken netproto.Token // the server's token for the checker (TokenNone until known)
	tries     int
}

// CheckTries is how many firewall checks go unanswered before "fwer".
const CheckTries = 5

// checkEvery is the time between two firewall checks of one server.
const checkEvery = 200 * time.Millisecond

// StartUDP runs a legacy master on addr ("127.0.0.1:0").
func StartUDP(addr string) (*UDPMaster, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() || !ap.Addr().IsLoopback() {
		return nil, fmt.Errorf("mastertest: %q is not a 127.x address:port", addr)
	}
	op, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(ap))
	if err != nil {
		return nil, err
	}
	checker, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IP(ap.Addr().AsSlice())})
	if err != nil {
		op.Close()
		return nil, err
	}
	var secret netproto.TokenSecret
	_, _ = rand.Read(secret[:])
	m := &UDPMaster{op: op, checker: checker, tokens: netproto.NewTokenGen(secret, 0), done: make(chan struct{}),
		listed: map[netip.AddrPort]bool{}, checks: map[netip.AddrPort]*check{}}
	go m.readOp()
	go m.readChecker()
	go m.checkLoop()
	return m, nil
}

// Addr is the master's address ("host:port" for register.udp_masters).
func (m *UDPMaster) Addr() netip.AddrPort { return m.op.LocalAddr().(*net.UDPAddr).AddrPort() }

// Close stops the master.
func (m *UDPMaster) Close() {
	close(m.done)
	m.op.Close()
	m.checker.Close()
}

// Heartbeats returns the heartbeats received so far.
func (m *UDPMaster) Heartbeats() []Heartbeat {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Heartbeat(nil), m.heartbeats...)
}

// Listed reports whether the game server at addr passed the firewall check.
func (m *UDPMaster) Listed(addr netip.AddrPort) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.listed[addr]
}

func send(c *net.UDPConn, b []byte, to netip.AddrPort) {
	if to.Addr().IsLoopback() { // never a packet off this machine
		_, _ = c.WriteToUDPAddrPort(b, to)
	}
}

// readOp serves the main socket: token requests and heartbeats.
func (m *UDPMaster) readOp() {
	var buf [2048]byte
	for {
		n, from, err := m.op.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			return
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		b := buf[:n]
		if !netproto.IsConnless(b) {
			h, payload, err := netproto.ParsePacket(b)
			if err != nil || h.Flags&netproto.FlagControl == 0 {
				continue
			}
			ctl, err := netproto.ParseControl(payload)
			if err == nil && ctl.Type == netproto.CtrlToken && h.Token == netproto.TokenNone && ctl.Padded {
				send(m.op, netproto.AppendTokenResponse(nil, ctl.Token, m.tokens.Token(from.Addr())), from)
			}
			continue
		}
		h, payload, err := netproto.ParseConnless(b)
		if err != nil || !m.tokens.Check(from.Addr(), h.Token) {
			continue
		}
		if len(payload) == 10 && bytes.HasPrefix(payload, []byte("\xff\xff\xff\xffbea2")) {
			port := int(binary.BigEndian.Uint16(payload[8:]))
			game := netip.AddrPortFrom(from.Addr(), uint16(port))
			m.mu.Lock()
			m.heartbeats = append(m.heartbeats, Heartbeat{From: from, Port: port})
			if m.checks[game] == nil && !m.listed[game] {
				m.checks[game] = &check{op: from, opToken: h.ResponseToken, gameToken: netproto.TokenNone}
			}
			m.mu.Unlock()
		}
	}
}

// checkLoop probes the game ports of the servers being checked.
func (m *UDPMaster) checkLoop() {
	for {
		select {
		case <-m.done:
			return
		case <-time.After(checkEvery):
		}
		m.mu.Lock()
		for game, c := range m.checks {
			if c.tries == CheckTries {
				delete(m.checks, game)
				fwer := netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: c.opToken, ResponseToken: m.tokens.Token(c.op.Addr())}, []byte("\xff\xff\xff\xfffwer"))
				send(m.op, fwer, c.op)
				continue
			}
			c.tries++
			own := m.tokens.Token(game.Addr())
			if c.gameToken == netproto.TokenNone {
				send(m.checker, netproto.AppendTokenRequest(nil, own), game)
			} else {
				send(m.checker, netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: c.gameToken, ResponseToken: own}, []byte("\xff\xff\xff\xfffw??")), game)
			}
		}
		m.mu.Unlock()
	}
}

// readChecker serves the checker socket: token replies and FWRESPONSE.
func (m *UDPMaster) readChecker() {
	var buf [2048]byte
	for {
		n, from, err := m.checker.ReadFromUDPAddrPort(buf[:])
		if err != nil {
			return
		}
		from = netip.AddrPortFrom(from.Addr().Unmap(), from.Port())
		b := buf[:n]
		m.mu.Lock()
		c := m.checks[from]
		if c == nil {
			m.mu.Unlock()
			continue
		}
		if !netproto.IsConnless(b) {
			h, payload, err := netproto.ParsePacket(b)
			if err == nil && h.Flags&netproto.FlagControl != 0 && m.tokens.Check(from.Addr(), h.Token) {
				if ctl, err := netproto.ParseControl(payload); err == nil && ctl.Type == netproto.CtrlToken {
					c.gameToken = ctl.Token
				}
			}
			m.mu.Unlock()
			continue
		}
		h, payload, err := netproto.ParseConnless(b)
		if err == nil && m.tokens.Check(from.Addr(), h.Token) && bytes.Equal(payload, []byte("\xff\xff\xff\xfffw!!")) {
			delete(m.checks, from)
			m.listed[from] = true
			ok := []byte("\xff\xff\xff\xfffwok")
			send(m.checker, netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: c.gameToken, ResponseToken: m.tokens.Token(from.Addr())}, ok), from)
			send(m.op, netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: c.opToken, ResponseToken: m.tokens.Token(from.Addr())}, ok), c.op)
		}
		m.mu.Unlock()
	}
}
