package register

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// The legacy 0.7 UDP registration (net.md A6.5, ops-facts.md 1.1): the
// server sends "\xff\xff\xff\xffbea2" + its port to a master from the game
// socket, the master probes the game port with FWCHECK, the server answers
// FWRESPONSE, and the master confirms with FWOK (or FWERROR when it could
// not reach the port). All are 0.7 connless packets, so every heartbeat is
// preceded by a token exchange with the master.

// Legacy master magics (mastersrv.h).
var (
	magicHeartbeat  = []byte("\xff\xff\xff\xffbea2")
	magicFWCheck    = []byte("\xff\xff\xff\xfffw??")
	magicFWResponse = []byte("\xff\xff\xff\xfffw!!")
	magicFWOK       = []byte("\xff\xff\xff\xfffwok")
	magicFWError    = []byte("\xff\xff\xff\xfffwer")
)

// Timing of the UDP heartbeat (the reference's register.cpp).
const (
	// HeartbeatInterval is the time between two heartbeats to a master.
	HeartbeatInterval = 15 * time.Second
	// HeartbeatTimeout: no FWOK for this long means the master is not responding.
	HeartbeatTimeout = 60 * time.Second
	// FWErrorRetry is the wait after a FWERROR before the next heartbeat.
	FWErrorRetry = 60 * time.Second
	// TokenRetry is the wait between token requests to a master.
	TokenRetry = time.Second
	// ResolveTimeout bounds one name resolution of a master.
	ResolveTimeout = 5 * time.Second
	// ResolveRetry is the wait before resolving a master that failed again.
	ResolveRetry = 30 * time.Second
	// MasterQueueLen bounds master packets waiting for the heartbeat; more are dropped.
	MasterQueueLen = 16
)

// Sender sends from the game socket (*server.Server implements it).
type Sender interface {
	// SendTokenRequest sends a TOKEN request carrying the server's global token.
	SendTokenRequest(to netip.AddrPort)
	// SendConnless sends a connless packet addressed with token.
	SendConnless(to netip.AddrPort, token uint32, payload []byte)
}

// HeartbeatOptions configure a Heartbeat.
type HeartbeatOptions struct {
	// Masters are "host:port" of legacy 0.7 masters (master port 8283).
	Masters []string
	// Port is the game port announced in the heartbeat.
	Port int
	// Send sends from the game socket.
	Send Sender
	// Logger receives one line per change of a master's state.
	Logger zerolog.Logger
}

// Heartbeat keeps the server in the lists of legacy 0.7 masters. It runs in
// its own goroutine (Run); the socket reader hands it the masters' packets
// through HandlePacket, which never blocks.
type Heartbeat struct {
	masters  []string
	port     int
	send     Sender
	log      zerolog.Logger
	interval time.Duration // HeartbeatInterval; shorter in tests

	addrs      atomic.Pointer[[]netip.Addr] // resolved master IPs, for HandlePacket
	in         chan masterPacket
	registered []atomic.Bool

	// Dropped counts master packets dropped because the queue was full.
	Dropped atomic.Uint64
}

type masterPacket struct {
	from       netip.AddrPort
	token      uint32
	tokenReply bool
	magic      [8]byte
}

// NewHeartbeat returns a heartbeat; nothing is sent before Run.
func NewHeartbeat(o HeartbeatOptions) *Heartbeat {
	h := &Heartbeat{masters: o.Masters, port: o.Port, send: o.Send, log: o.Logger, interval: HeartbeatInterval,
		in: make(chan masterPacket, MasterQueueLen), registered: make([]atomic.Bool, len(o.Masters))}
	h.addrs.Store(&[]netip.Addr{})
	return h
}

// SetPort changes the announced port. Call it before Run.
func (h *Heartbeat) SetPort(port int) { h.port = port }

// Registered reports whether master i (in Options.Masters order) confirmed
// the server with FWOK in the last HeartbeatTimeout.
func (h *Heartbeat) Registered(i int) bool {
	return i >= 0 && i < len(h.registered) && h.registered[i].Load()
}

// HandlePacket takes a packet a master sent to the game port: a token reply
// (payload nil, token = the master's token) or a FWCHECK/FWOK/FWERROR
// (token = the packet's response token). It reports whether the sender is
// a master. Called by the socket reader; never blocks, keeps nothing.
func (h *Heartbeat) HandlePacket(from netip.AddrPort, token uint32, payload []byte) bool {
	known := false
	for _, a := range *h.addrs.Load() {
		if a == from.Addr().Unmap() { // the port is not checked, as in the reference
			known = true
			break
		}
	}
	if !known {
		return false
	}
	p := masterPacket{from: from, token: token, tokenReply: payload == nil}
	copy(p.magic[:], payload)
	select {
	case h.in <- p:
	default:
		h.Dropped.Add(1)
	}
	return true
}

// masterState is the heartbeat goroutine's state of one master.
type masterState struct {
	name     string
	addr     netip.AddrPort // zero until resolved
	next     time.Time      // next heartbeat (token request first)
	asked    time.Time      // last token request; zero when none is pending
	tries    int            // token requests for the pending heartbeat
	lastOK   time.Time      // last FWOK
	started  time.Time      // first heartbeat of this run (for the timeout)
	state    string         // logged state: "", "registered", "not responding", "unreachable"
	resolved bool
}

// Run sends heartbeats until ctx is done.
func (h *Heartbeat) Run(ctx context.Context) {
	ms := make([]*masterState, len(h.masters))
	for i, m := range h.masters {
		ms[i] = &masterState{name: m}
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	h.resolve(ctx, ms)
	resolved := time.Now()
	for {
		now := time.Now()
		for i, m := range ms {
			h.step(i, m, now)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case p := <-h.in:
			for i, m := range ms {
				if m.addr.Addr() == p.from.Addr().Unmap() {
					h.onPacket(i, m, p, time.Now())
				}
			}
		}
		if !allResolved(ms) && time.Since(resolved) >= ResolveRetry {
			h.resolve(ctx, ms)
			resolved = time.Now()
		}
	}
}

func allResolved(ms []*masterState) bool {
	for _, m := range ms {
		if !m.resolved {
			return false
		}
	}
	return true
}

// resolve looks up the masters' addresses (IPv4 first: 0.7 masters list
// IPv4 servers).
func (h *Heartbeat) resolve(ctx context.Context, ms []*masterState) {
	var addrs []netip.Addr
	for _, m := range ms {
		if !m.resolved {
			host, port, err := net.SplitHostPort(m.name)
			if err == nil {
				rctx, cancel := context.WithTimeout(ctx, ResolveTimeout)
				var ips []netip.Addr
				ips, err = net.DefaultResolver.LookupNetIP(rctx, "ip", host)
				cancel()
				var pn uint64
				if err == nil && len(ips) > 0 {
					pn, err = strconv.ParseUint(port, 10, 16)
				}
				if err == nil && len(ips) > 0 {
					ip := ips[0]
					for _, a := range ips {
						if a.Unmap().Is4() {
							ip = a
							break
						}
					}
					m.addr, m.resolved = netip.AddrPortFrom(ip.Unmap(), uint16(pn)), true
				}
			}
			if !m.resolved {
				h.log.Warn().Str("master", m.name).AnErr("error", err).Msg("cannot resolve the master server")
			}
		}
		if m.resolved {
			addrs = append(addrs, m.addr.Addr())
		}
	}
	h.addrs.Store(&addrs)
}

// step sends what is due for master m: a token request before each
// heartbeat (the master's tokens live 16 to 32 s), and notices a master that
// stopped confirming.
func (h *Heartbeat) step(i int, m *masterState, now time.Time) {
	if !m.resolved || now.Before(m.next) {
		return
	}
	if m.started.IsZero() {
		m.started = now
	}
	last := m.lastOK
	if last.IsZero() {
		last = m.started
	}
	if now.Sub(last) > HeartbeatTimeout {
		h.setState(i, m, "not responding")
		m.started, m.lastOK = now, time.Time{}
	}
	if m.asked.IsZero() || now.Sub(m.asked) >= TokenRetry {
		if m.tries >= 5 { // no token reply: try again at the next heartbeat
			m.asked, m.tries, m.next = time.Time{}, 0, now.Add(h.interval)
			return
		}
		h.send.SendTokenRequest(m.addr)
		m.asked = now
		m.tries++
	}
}

// onPacket handles a master's packet.
func (h *Heartbeat) onPacket(i int, m *masterState, p masterPacket, now time.Time) {
	magic := p.magic[:]
	switch {
	case p.tokenReply: // send the heartbeat now
		if m.asked.IsZero() {
			return
		}
		var b [len("\xff\xff\xff\xffbea2") + 2]byte
		copy(b[:], magicHeartbeat)
		binary.BigEndian.PutUint16(b[len(magicHeartbeat):], uint16(h.port))
		h.send.SendConnless(m.addr, p.token, b[:])
		m.asked, m.tries, m.next = time.Time{}, 0, now.Add(h.interval)
	case bytes.Equal(magic, magicFWCheck):
		h.send.SendConnless(p.from, p.token, magicFWResponse)
	case bytes.Equal(magic, magicFWOK):
		m.lastOK = now
		h.setState(i, m, "registered")
	case bytes.Equal(magic, magicFWError):
		h.setState(i, m, "unreachable")
		m.next = now.Add(FWErrorRetry)
		m.started, m.lastOK = time.Time{}, time.Time{}
	}
}

// setState records and logs a change of a master's state.
func (h *Heartbeat) setState(i int, m *masterState, state string) {
	h.registered[i].Store(state == "registered")
	if state == m.state {
		return
	}
	m.state = state
	l := h.log.With().Str("master", m.name).Logger()
	switch state {
	case "registered":
		l.Info().Msg("server registered with the legacy 0.7 master server")
	case "not responding":
		l.Warn().Msg("legacy master server is not responding")
	case "unreachable":
		l.Error().Int("port", h.port).Msg("the master server reports that clients can not connect to this server: let UDP through the firewall/NAT to this port")
	}
}
