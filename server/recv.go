package server

import (
	"crypto/rand"
	"errors"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"twserver/netproto"
	"twserver/sockio"
)

// rxPacket is one received datagram travelling from the reader to the loop.
// Buffers come from a bounded pool (Server.free, at most rxPoolSize) and go
// back after use.
type rxPacket struct {
	n    int
	cid  int // slot of addr when the reader screened it, -1 for none (cidAccepted6: see there)
	addr netip.AddrPort
	at   time.Time // when the reader read it (arrival time, net.md A4.8)
	// spare marks the reader's spare buffers (read and dropped when the
	// pool is at its bound), never handed to the loop
	spare bool
	buf   [RecvBufSize]byte
}

func (p *rxPacket) data() []byte { return p.buf[:p.n] }

// peerTable maps the addresses that own a slot to the slot. The loop writes
// it (on accept and drop); the reader only reads it to let their packets
// through, tagged with the slot so the loop needs no second lookup.
type peerTable struct {
	mu sync.RWMutex
	m  map[netip.AddrPort]int
}

// lookup returns the slot of a, or -1.
func (t *peerTable) lookup(a netip.AddrPort) int {
	t.mu.RLock()
	cid, ok := t.m[a]
	t.mu.RUnlock()
	if !ok {
		return -1
	}
	return cid
}

func (t *peerTable) has(a netip.AddrPort) bool { return t.lookup(a) >= 0 }

func (t *peerTable) add(a netip.AddrPort, cid int) {
	t.mu.Lock()
	t.m[a] = cid
	t.mu.Unlock()
}

func (t *peerTable) remove(a netip.AddrPort) {
	t.mu.Lock()
	delete(t.m, a)
	t.mu.Unlock()
}

// Budgets of the reader for traffic from addresses without a slot.
const (
	// TokenRepliesPerSecond bounds answered token requests (each answer is
	// 12 bytes for a request of at least 520 bytes).
	TokenRepliesPerSecond = 2000
	// InfoRepliesPerSecond bounds answered server-info requests.
	InfoRepliesPerSecond = 500
	// ConnectsPerSecond bounds CONNECT packets handed to the game loop.
	ConnectsPerSecond = 200
)

// connlessBudget holds the reader's rate limits (token buckets of
// golang.org/x/time/rate: the rate per second, with a burst of one second's
// worth).
type connlessBudget struct {
	token, info, connect *rate.Limiter
	info6Full            *rate.Limiter // 0.6 info replies with a client list (connless6.go)
	// vanilla 0.6 anti-spoof handshake (edge6.go)
	vanFull, vanReplies, preconnDecompress *rate.Limiter
}

// newConnlessBudget returns the reader's budgets at the given rates per second.
func newConnlessBudget(token, info, connect int) connlessBudget {
	return connlessBudget{
		token:   rate.NewLimiter(rate.Limit(token), token),
		info:    rate.NewLimiter(rate.Limit(info), info),
		connect: rate.NewLimiter(rate.Limit(connect), connect),

		info6Full: rate.NewLimiter(Info6FullPerSecond, Info6FullPerSecond),

		vanFull:           rate.NewLimiter(VanillaAntispoofPerSecond, VanillaAntispoofPerSecond),
		vanReplies:        rate.NewLimiter(VanillaRepliesPerSecond, VanillaRepliesPerSecond),
		preconnDecompress: rate.NewLimiter(PreconnDecompressPerSecond, PreconnDecompressPerSecond),
	}
}

func newSecret() netproto.TokenSecret {
	var s netproto.TokenSecret
	_, _ = rand.Read(s[:])
	return s
}

// readLoop is the reader goroutine: it does only stateless checks (size,
// header, token, budgets), answers token requests and server-info requests
// itself, and hands packets that belong to a slot (or valid CONNECTs) to the
// game loop through the bounded rx channel. It takes every datagram already
// queued on the socket per wake-up (ReadBatch, up to ReadBatchSize) when the
// socket has the batch form. It returns when the socket is closed.
func (s *Server) readLoop(done chan<- struct{}) {
	defer close(done)
	r := &reader{tokens: netproto.NewTokenGen(newSecret(), s.now())}
	r.bc, r.batched = s.conn.(sockio.BatchConn)
	pc, pacing := s.conn.(sockio.PacedConn) // paced.go
	r.pc = pc
	r.k = 1
	if r.batched {
		r.k = sockio.ReadBatchSize
	}
	for i := range r.spares {
		r.spares[i].spare = true
	}
	s.pace.r = r
	for {
		if pacing && s.paceWait(&r.pace) {
			continue // the loop read at its ticks meanwhile
		}
		n, now, err := s.readOnce(r, false)
		if err != nil {
			if errors.Is(err, sockio.ErrClosed) || isClosedErr(err) {
				return
			}
			continue
		}
		if pacing {
			s.paceAfter(&r.pace, n, now)
		}
	}
}

// readOnce reads one batch of datagrams and screens them: waiting for the
// first one, or with paced (a PacedConn) taking only what is queued, each
// datagram with its kernel arrival stamp. It returns the datagrams read and
// when. r is the reader goroutine's, or the loop's while the reader waits
// for it (paced.go).
func (s *Server) readOnce(r *reader, paced bool) (int, time.Time, error) {
	// Give every slot of the batch a buffer: slots keep theirs until
	// it is handed to the loop; a spare (the pool was at its bound) is
	// swapped for a pooled buffer as soon as one is free.
	k := r.k
	for i := range k {
		if p := r.pkts[i]; p == nil || p.spare {
			r.pkts[i] = r.get(s, i)
		}
		r.ms[i] = sockio.Datagram{Buf: r.pkts[i].buf[:]}
	}
	var n int
	var err error
	if paced {
		n, err = r.pc.ReadPaced(r.ms[:k], r.pace.at[:k])
	} else if r.batched {
		n, err = r.bc.ReadBatch(r.ms[:k])
	} else {
		r.ms[0].N, r.ms[0].Addr, err = s.conn.ReadFrom(r.ms[0].Buf)
		n = 1
	}
	now := time.Now() // the arrival time of every datagram of an unpaced batch
	if err != nil {
		return 0, now, err
	}
	for i := range n {
		at := now
		if paced {
			at = r.pace.at[i] // the kernel's stamp
		}
		if s.received(r, r.pkts[i], r.ms[i].N, r.ms[i].Addr, at) {
			r.pkts[i] = nil
		}
	}
	return n, now, nil
}

// reader is the reader goroutine's state.
type reader struct {
	tokens *netproto.TokenGen
	pkts   [sockio.ReadBatchSize]*rxPacket // the batch's buffers; nil once handed to the loop
	ms     [sockio.ReadBatchSize]sockio.Datagram
	spares [sockio.ReadBatchSize]rxPacket // read targets when the pool is at its bound (one per slot)
	pooled int                            // buffers allocated so far; the pool grows with the peak queue, up to rxPoolSize
	out    [netproto.MaxPacketSize]byte
	pace   readerPace // paced.go

	bc      sockio.BatchConn // the socket's batch form, if batched
	batched bool
	pc      sockio.PacedConn // its paced form, nil if none
	k       int              // datagrams per read
}

// get returns a pooled buffer for slot i of the batch, or the slot's spare
// when the pool is empty and at its bound.
func (r *reader) get(s *Server, i int) *rxPacket {
	select {
	case p := <-s.free:
		return p
	default:
	}
	if r.pooled < rxPoolSize {
		r.pooled++
		return new(rxPacket)
	}
	return &r.spares[i]
}

// received screens one datagram read at now and reports whether it was
// handed to the loop (which returns the buffer to the pool).
func (s *Server) received(r *reader, p *rxPacket, n int, addr netip.AddrPort, now time.Time) bool {
	s.stats.Received.Add(1)
	s.stats.ReceivedBytes.Add(uint64(n))
	p.n, p.addr, p.at, p.cid = n, addr, now, -1
	for nowD := s.now(); r.tokens.RotateDue(nowD); {
		r.tokens.Rotate(newSecret(), nowD)
	}
	if !s.screen(p, r.tokens, now, r.out[:0]) {
		return false
	}
	if p.spare {
		s.stats.QueueFull.Add(1)
		return false
	}
	select {
	case s.rx <- p:
	default:
		s.stats.QueueFull.Add(1)
		return false
	}
	if p.cid < 0 || p.cid >= 64 || s.ingame.Load()&(1<<uint(p.cid)) == 0 {
		if !r.pace.urgent {
			r.pace.urgentCID, r.pace.urgentAddr = p.cid, p.addr
		}
		r.pace.urgent = true
		select { // not in game: handle it now
		case s.wake <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	return true
}

// screen decides what happens to a datagram in the reader: true = hand to
// the loop. Token requests and info requests are answered here. The
// dialect of a datagram from an address without a slot is decided here,
// once, by its framing (netproto.Is7Packet, Is7Connless); packets from an
// address with a slot go to the loop, which reads them in the slot's dialect.
func (s *Server) screen(p *rxPacket, tokens *netproto.TokenGen, now time.Time, out []byte) bool {
	b := p.data()
	if len(b) < netproto.PacketHeaderSize6 || len(b) > netproto.MaxPacketSize {
		s.stats.Malformed.Add(1)
		return false
	}
	ip := p.addr.Addr()
	if netproto.IsConnless(b) {
		if s.screenMasterChallenge(b, now) {
			return false
		}
		if !netproto.Is7Connless(b) {
			s.screenConnless6(p.addr, b, now, out)
			return false
		}
		h, payload, err := netproto.ParseConnless(b)
		if err != nil {
			s.stats.Malformed.Add(1)
			return false
		}
		valid := tokens.Check(ip, h.Token)
		if s.screenMasterPacket(p.addr, h, payload, valid, now) {
			return false
		}
		if !valid {
			s.stats.BadToken.Add(1)
			return false
		}
		if info := s.info.Load(); info != nil && !info.accept07 {
			return false // not listed in 0.7 browsers
		}
		if !s.budget.info.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		s.answerConnless(p.addr, h, payload, tokens.Token(ip), out)
		return false
	}
	if p.cid = s.peers.lookup(p.addr); p.cid >= 0 {
		return true
	}
	if !netproto.Is7Packet(b) {
		return s.screen6(p, tokens, now, out)
	}
	h, payload, err := netproto.ParsePacket(b)
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	if h.Flags&netproto.FlagControl == 0 || h.Flags&netproto.FlagCompression != 0 {
		s.stats.BadToken.Add(1)
		return false
	}
	ctl, err := netproto.ParseControl(payload)
	if err != nil {
		s.stats.Malformed.Add(1)
		return false
	}
	switch {
	case ctl.Type == netproto.CtrlToken && h.Token == s.globalToken && s.masterPacket != nil:
		s.screenMasterTokenReply(p.addr, ctl.Token, now)
		return false
	case ctl.Type == netproto.CtrlToken && h.Token == netproto.TokenNone:
		if !ctl.Padded || ctl.Token == netproto.TokenNone {
			s.stats.Malformed.Add(1)
			return false
		}
		if !s.budget.token.AllowN(now, 1) {
			s.stats.ConnlessDropped.Add(1)
			return false
		}
		out = netproto.AppendTokenResponse(out, ctl.Token, tokens.Token(ip))
		s.write(out, p.addr)
		s.stats.TokenReplies.Add(1)
		return false
	case ctl.Type == netproto.CtrlConnect:
		return s.passConnect(tokens.Check(ip, h.Token) && ctl.Padded, now)
	}
	s.stats.BadToken.Add(1)
	return false
}

// passConnect decides on a connection request whose token check gave
// valid: it goes to the loop (true) within the connect budget.
func (s *Server) passConnect(valid bool, now time.Time) bool {
	if !valid {
		s.stats.BadToken.Add(1)
		return false
	}
	if !s.budget.connect.AllowN(now, 1) {
		s.stats.ConnlessDropped.Add(1)
		return false
	}
	return true
}
