package edge

import (
	"crypto/rand"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"twserver/netproto"
)

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

// Edge is the server's edge towards addresses without a slot: the
// reader's screening of every datagram, its budgets and counters, the
// addresses that own a slot, the published server info and the master
// hooks. Create it with New. See the package comment for which goroutine
// may call what.
type Edge struct {
	// Stats are the packet counters (atomic: any goroutine may read them;
	// the loop adds what it drops itself, such as bad messages).
	Stats Stats
	// Peers maps the addresses that own a slot to the slot (written by
	// the loop, read by the reader).
	Peers PeerTable
	// Budget holds the reader's rate limits; only the screening goroutine
	// uses it (tests replace it before any datagram is screened).
	Budget Budget
	// Master holds the master-registration hooks; set before the reader starts.
	Master Master

	info      atomic.Pointer[InfoSnapshot]
	tokens    atomic.Pointer[netproto.TokenGen] // the screener's, for Retoken
	accepted6 acceptedRing                      // DDNet ACCEPTs just handed to the loop (edge6.go)
	write     func(b []byte, to netip.AddrPort)
}

// New returns an edge that sends its replies with write (which must not
// block and must not keep b), with the default budgets and no info
// published yet.
func New(write func(b []byte, to netip.AddrPort)) *Edge {
	e := &Edge{write: write}
	e.Master.write = write
	e.Peers.m = make(map[netip.AddrPort]int)
	e.Budget = NewBudget(TokenRepliesPerSecond, InfoRepliesPerSecond, ConnectsPerSecond)
	return e
}

// Stats are counters of dropped and handled packets; read with atomic loads.
type Stats struct {
	// Received counts datagrams read from the socket.
	Received atomic.Uint64
	// Malformed counts datagrams dropped for size or header errors.
	Malformed atomic.Uint64
	// BadToken counts datagrams dropped for an invalid token or unknown address.
	BadToken atomic.Uint64
	// QueueFull counts datagrams dropped because the game loop was behind.
	QueueFull atomic.Uint64
	// ConnlessDropped counts connless requests over budget.
	ConnlessDropped atomic.Uint64
	// TokenReplies counts answered token requests.
	TokenReplies atomic.Uint64
	// InfoReplies counts answered server info requests.
	InfoReplies atomic.Uint64
	// Flood counts datagrams of connected clients over their per-second budget.
	Flood atomic.Uint64
	// BadMessages counts messages from connected clients that failed to decode.
	BadMessages atomic.Uint64
	// Retokened counts 0.7 connections that went on under another token
	// of their address (Retoken).
	Retokened atomic.Uint64
	// ReceivedBytes counts the bytes of the datagrams read from the socket.
	ReceivedBytes atomic.Uint64
}

// PeerTable maps the addresses that own a slot to the slot. The loop writes
// it (on accept and drop); the reader only reads it to let their packets
// through, tagged with the slot so the loop needs no second lookup.
type PeerTable struct {
	mu sync.RWMutex
	m  map[netip.AddrPort]int
}

// Lookup returns the slot of a, or -1.
func (t *PeerTable) Lookup(a netip.AddrPort) int {
	t.mu.RLock()
	cid, ok := t.m[a]
	t.mu.RUnlock()
	if !ok {
		return -1
	}
	return cid
}

// Has reports whether a owns a slot.
func (t *PeerTable) Has(a netip.AddrPort) bool { return t.Lookup(a) >= 0 }

// Add records that a owns slot cid (loop).
func (t *PeerTable) Add(a netip.AddrPort, cid int) {
	t.mu.Lock()
	t.m[a] = cid
	t.mu.Unlock()
}

// Remove forgets a's slot (loop).
func (t *PeerTable) Remove(a netip.AddrPort) {
	t.mu.Lock()
	delete(t.m, a)
	t.mu.Unlock()
}

// Budget holds the reader's rate limits (token buckets of
// golang.org/x/time/rate: the rate per second, with a burst of one second's
// worth).
type Budget struct {
	// Token bounds token replies (0.7 TOKEN, DDNet CONNECTACCEPT).
	Token *rate.Limiter
	// Info bounds info replies (both dialects) and the master hooks.
	Info *rate.Limiter
	// Connect bounds connection requests handed to the loop.
	Connect *rate.Limiter
	// Info6Full bounds 0.6 info replies with a client list (connless6.go).
	Info6Full *rate.Limiter
	// VanFull, VanReplies and PreconnDecompress bound the vanilla 0.6
	// anti-spoof handshake (edge6.go).
	VanFull, VanReplies, PreconnDecompress *rate.Limiter
}

// NewBudget returns the reader's budgets at the given rates per second
// (the 0.6 ones at their constants).
func NewBudget(token, info, connect int) Budget {
	return Budget{
		Token:   rate.NewLimiter(rate.Limit(token), token),
		Info:    rate.NewLimiter(rate.Limit(info), info),
		Connect: rate.NewLimiter(rate.Limit(connect), connect),

		Info6Full: rate.NewLimiter(Info6FullPerSecond, Info6FullPerSecond),

		VanFull:           rate.NewLimiter(VanillaAntispoofPerSecond, VanillaAntispoofPerSecond),
		VanReplies:        rate.NewLimiter(VanillaRepliesPerSecond, VanillaRepliesPerSecond),
		PreconnDecompress: rate.NewLimiter(PreconnDecompressPerSecond, PreconnDecompressPerSecond),
	}
}

// NewTokens returns the reader's token generator, keyed with a fresh
// random secret at now (the monotonic clock of netproto).
func NewTokens(now time.Duration) *netproto.TokenGen {
	return netproto.NewTokenGen(newSecret(), now)
}

// RotateTokens rotates t's secret as often as it is due at now.
func RotateTokens(t *netproto.TokenGen, now time.Duration) {
	for t.RotateDue(now) {
		t.Rotate(newSecret(), now)
	}
}

// Screener is the reader goroutine's side of the edge: its token
// generator, rotated on the loop's clock, and the buffer its answers are
// built in. Reader goroutine only (or the loop while the reader waits).
type Screener struct {
	e      *Edge
	tokens *netproto.TokenGen
	out    [netproto.MaxPacketSize]byte
}

// NewScreener returns e's screener for the reader, its tokens keyed at
// clock (the monotonic clock of netproto).
func (e *Edge) NewScreener(clock time.Duration) *Screener {
	sc := &Screener{e: e, tokens: NewTokens(clock)}
	e.tokens.Store(sc.tokens)
	return sc
}

// Feed feeds datagram b from the client at ip to its connection c
// (netproto.Conn.FeedDatagram, with scratch), letting a 0.7 connection go
// on under another token of ip (Retoken) instead of dropping the datagram
// (loop goroutine).
func (e *Edge) Feed(c *netproto.Conn, ip netip.Addr, now time.Duration, b, scratch []byte) error {
	err := c.FeedDatagram(now, b, scratch)
	if errors.Is(err, netproto.ErrBadToken) && e.Retoken(c, ip, b) {
		err = c.FeedDatagram(now, b, scratch)
	}
	return err
}

// Retoken lets the 0.7 connection c of the client at ip go on under the
// token of datagram b, which c refused (netproto.ErrBadToken), when that
// token is one the reader issues or accepts for ip now; it reports whether
// c took it (loop goroutine).
//
// Why: the 0.7.5 client takes the token of every TOKEN reply it gets,
// also one that comes after it sent CONNECT. When it asked twice (a
// second request 0.5 s after the first, from a slow frame) and the secret
// rotated between the two replies, it sends CONNECT with the first token,
// is accepted, and then sends everything under the second, which the
// connection, keeping the token of CONNECT (net.md A1.4) as the reference
// does, drops until the client times out without entering the game. Both
// tokens are the address's, so taking the second lets in no one who could
// not connect anyway.
func (e *Edge) Retoken(c *netproto.Conn, ip netip.Addr, b []byte) bool {
	tg := e.tokens.Load()
	if tg == nil || c.Dialect() != netproto.Dialect7 {
		return false
	}
	h, _, err := netproto.ParsePacket(b)
	if err != nil || h.Token == c.Token() || !tg.Check(ip, h.Token) {
		return false
	}
	c.Retoken(h.Token)
	e.Stats.Retokened.Add(1)
	return true
}

// Screen rotates the tokens when due at clock, then screens datagram b
// from addr, read at now (Edge.Screen): cid is the slot of addr (CIDNone,
// or CIDAccepted6), pass says the loop gets it.
func (sc *Screener) Screen(b []byte, addr netip.AddrPort, now time.Time, clock time.Duration) (cid int, pass bool) {
	RotateTokens(sc.tokens, clock)
	return sc.e.Screen(b, addr, sc.tokens, now, sc.out[:0])
}

func newSecret() netproto.TokenSecret {
	var s netproto.TokenSecret
	_, _ = rand.Read(s[:])
	return s
}

// Publish hands the reader a new server info (loop); info is never
// modified afterwards.
func (e *Edge) Publish(info *InfoSnapshot) { e.info.Store(info) }

// Info returns the info published last, or nil (any goroutine).
func (e *Edge) Info() *InfoSnapshot { return e.info.Load() }

// CIDNone is the slot of a datagram handed to the loop that is not (yet)
// a slot's traffic: a connection request.
const CIDNone = -1

// Screen decides what happens to datagram b from addr, read at now (the
// reader, or the loop while the reader waits for it): pass = hand it to
// the loop, tagged with cid (the slot of addr, CIDNone for a connection
// request, or CIDAccepted6). Token requests and info requests are answered
// here, composed in out (at least netproto.MaxPacketSize of capacity). The
// dialect of a datagram from an address without a slot is decided here,
// once, by its framing (netproto.Is7Packet, Is7Connless); packets from an
// address with a slot go to the loop, which reads them in the slot's dialect.
func (e *Edge) Screen(b []byte, addr netip.AddrPort, tokens *netproto.TokenGen, now time.Time, out []byte) (cid int, pass bool) {
	if len(b) < netproto.PacketHeaderSize6 || len(b) > netproto.MaxPacketSize {
		e.Stats.Malformed.Add(1)
		return CIDNone, false
	}
	if netproto.IsConnless(b) {
		e.screenConnless(b, addr, tokens, now, out)
		return CIDNone, false
	}
	if cid = e.Peers.Lookup(addr); cid >= 0 {
		return cid, true
	}
	return dialectOf(b).screen(e, b, addr, tokens, now, out)
}

// screenConnless handles a connless datagram: the master's, or a server
// info request of either dialect.
func (e *Edge) screenConnless(b []byte, addr netip.AddrPort, tokens *netproto.TokenGen, now time.Time, out []byte) {
	if e.screenMasterChallenge(b, now) {
		return
	}
	if !netproto.Is7Connless(b) {
		e.screenConnless6(addr, b, now, out)
		return
	}
	h, payload, err := netproto.ParseConnless(b)
	if err != nil {
		e.Stats.Malformed.Add(1)
		return
	}
	ip := addr.Addr()
	valid := tokens.Check(ip, h.Token)
	if e.screenMasterPacket(addr, h, payload, valid, now) {
		return
	}
	if !valid {
		e.Stats.BadToken.Add(1)
		return
	}
	if info := e.info.Load(); info != nil && !info.Accept07 {
		return // not listed in 0.7 browsers
	}
	if !e.Budget.Info.AllowN(now, 1) {
		e.Stats.ConnlessDropped.Add(1)
		return
	}
	e.answerConnless(addr, h, payload, tokens.Token(ip), out)
}

// passConnect decides on a connection request whose token check gave
// valid: it goes to the loop (true) within the connect budget.
func (e *Edge) passConnect(valid bool, now time.Time) bool {
	if !valid {
		e.Stats.BadToken.Add(1)
		return false
	}
	if !e.Budget.Connect.AllowN(now, 1) {
		e.Stats.ConnlessDropped.Add(1)
		return false
	}
	return true
}
