package web

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Bounds of the web endpoint's connections, requests and streams. A page
// holds one live stream and one connection for its polls (app.js makes
// them one after the other), so MaxStreams viewers fit in all, and
// MaxStreamsPerAddr from one address (one IPv4 address or IPv6 /64,
// addrKey). Over a bound the answer is at once: a connection is closed
// (after a 503 written without waiting), a request or stream gets 503 with
// Retry-After.
const (
	// MaxConnections bounds the open HTTP connections of all clients
	// (live streams included). At the bound the connection idle longest
	// (keep-alive, or not yet sent a whole request) is closed for the
	// new one; with none idle the new one is refused.
	MaxConnections = 512
	// MaxConnsPerAddr bounds the open connections of one address
	// (addrKey); more are refused at once. Addresses of
	// Options.TrustedProxies are not bounded (their clients are many).
	MaxConnsPerAddr = 24
	// MaxRequests bounds the requests being answered at a time (live
	// streams not counted); more get 503.
	MaxRequests = 256
	// MaxRequestsPerAddr bounds the requests of one client address being
	// answered at a time (live streams not counted); more get 503.
	MaxRequestsPerAddr = 8
	// MaxStreams bounds the live streams (/events) of all games; more get 503.
	MaxStreams = 200
	// MaxStreamsPerAddr bounds the live streams of one client address;
	// more get 503.
	MaxStreamsPerAddr = 8
	// MaxDownloads bounds the recordings being downloaded at a time (they
	// count among the requests too); more get 503. A download lasts as
	// long as its reader keeps up (DownloadStallTimeout a DownloadChunk),
	// so without a bound of their own slow readers from a few addresses
	// would hold every request's place and the page would answer 503.
	MaxDownloads = 16
	// MaxDownloadsPerAddr bounds the downloads of one client address; more
	// get 503.
	MaxDownloadsPerAddr = 2
	// RetryAfter is the Retry-After (seconds) of a 503 over a bound.
	RetryAfter = 5
	// refuseWait bounds the write of the 503 to a refused connection (its
	// socket buffer is empty: the write does not wait).
	refuseWait = 10 * time.Millisecond
)

// refusal is the answer written to a connection refused over a bound.
var refusal = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: " + strconv.Itoa(RetryAfter) +
	"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

// acquired is addrCounter.acquire's answer.
type acquired int

const (
	admitted  acquired = iota
	fullAddr           // the address has its share
	fullTotal          // all places are taken
)

// addrCounter counts something held by clients, per address key and in
// total, within the bounds per and max.
type addrCounter struct {
	per, max int
	mu       sync.Mutex
	n        map[netip.Prefix]int
	total    int
}

// newAddrCounter returns a counter bounded to per a key and max in all.
func newAddrCounter(per, max int) *addrCounter {
	return &addrCounter{per: per, max: max, n: map[netip.Prefix]int{}}
}

// acquire takes a place for key (unbounded per key when anyPer); it
// returns admitted or which bound is full.
func (a *addrCounter) acquire(key netip.Prefix, anyPer bool) acquired {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !anyPer && a.n[key] >= a.per {
		return fullAddr
	}
	if a.total >= a.max {
		return fullTotal
	}
	a.n[key]++
	a.total++
	return admitted
}

// release frees a place of key.
func (a *addrCounter) release(key netip.Prefix) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[key]--; a.n[key] <= 0 {
		delete(a.n, key)
	}
	a.total--
}

// count returns the places taken by key and in total.
func (a *addrCounter) count(key netip.Prefix) (byKey, total int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n[key], a.total
}

// setBounds changes the bounds (tests lift the one per address).
func (a *addrCounter) setBounds(per, max int) {
	a.mu.Lock()
	a.per, a.max = per, max
	a.mu.Unlock()
}

// boundListener accepts connections within MaxConnections and
// MaxConnsPerAddr without ever making Accept wait: over the bound of its
// address a new connection is refused at once; at the total bound the
// connection idle longest is closed for it, and with none idle it is
// refused. Idle connections are those the http.Server reports as new or
// idle (trackState is its ConnState). Its connections keep their socket's
// SyscallConn: the live stream's writer writes to a hijacked connection
// without waiting through it.
type boundListener struct {
	net.Listener
	conns   *addrCounter
	trusted []netip.Prefix

	mu   sync.Mutex
	idle map[*boundConn]time.Time // connections idle (or not yet active), since when

	refused atomic.Int64 // connections refused
	evicted atomic.Int64 // idle connections closed for new ones
}

// newBoundListener bounds ln's connections to perAddr an address (none
// for addresses in trusted) and max in all.
func newBoundListener(ln net.Listener, perAddr, max int, trusted []netip.Prefix) *boundListener {
	return &boundListener{Listener: ln, conns: newAddrCounter(perAddr, max), trusted: trusted,
		idle: map[*boundConn]time.Time{}}
}

// Accept returns the next connection within the bounds; those over a
// bound are refused meanwhile.
func (l *boundListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if bc := l.admit(c); bc != nil {
			return bc, nil
		}
	}
}

// admit counts c in, closing an idle connection at the total bound, or
// refuses it (nil).
func (l *boundListener) admit(c net.Conn) *boundConn {
	addr := connAddr(c)
	key, trusted := addrKey(addr), l.isTrusted(addr)
	for {
		switch l.conns.acquire(key, trusted) {
		case admitted:
			bc := &boundConn{Conn: c, l: l, key: key}
			l.mu.Lock()
			l.idle[bc] = time.Now() // until the server takes it up
			l.mu.Unlock()
			return bc
		case fullTotal:
			if old := l.oldestIdle(); old != nil {
				l.evicted.Add(1)
				_ = old.Close()
				continue
			}
		}
		l.refused.Add(1)
		refuse(c)
		return nil
	}
}

// refuse answers 503 on a new connection, without waiting, and closes it.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(refuseWait))
	_, _ = io.WriteString(c, refusal)
	_ = c.Close()
}

// isTrusted reports whether a is the address of a trusted proxy.
func (l *boundListener) isTrusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range l.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// oldestIdle takes the connection idle longest out of the idle set (nil:
// none).
func (l *boundListener) oldestIdle() *boundConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var old *boundConn
	var since time.Time
	for c, t := range l.idle {
		if old == nil || t.Before(since) {
			old, since = c, t
		}
	}
	delete(l.idle, old)
	return old
}

// trackState is the http.Server's ConnState: it keeps the set of idle
// connections (new ones that have not sent a whole request yet, and
// keep-alive ones between requests).
func (l *boundListener) trackState(c net.Conn, s http.ConnState) {
	bc, ok := c.(*boundConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case bc.closed:
	case s == http.StateNew || s == http.StateIdle:
		l.idle[bc] = time.Now()
	default:
		delete(l.idle, bc)
	}
}

// connAddr is the remote IP address of c (the zero Addr when it has none).
func connAddr(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// boundConn is a connection of a boundListener: its Close frees its place.
type boundConn struct {
	net.Conn
	l      *boundListener
	key    netip.Prefix
	closed bool // under l.mu
	once   sync.Once
}

// Close closes the connection and frees its place (once).
func (c *boundConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.closed = true
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		c.l.conns.release(c.key)
	})
	return err
}

// errNoSyscallConn is SyscallConn's error for a connection without a socket.
var errNoSyscallConn = errors.New("web: connection has no socket")

// SyscallConn returns the underlying socket's raw connection.
func (c *boundConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errNoSyscallConn
	}
	return sc.SyscallConn()
}

// BoundListener bounds ln's connections as the page's listener does:
// perAddr from one client address (IPv4 address, IPv6 /64) and max in
// all, a connection over a bound refused at once (never a waiting
// Accept), the longest-idle one closed for a new one at the total. The
// http.Server serving it must report its connections' states to the
// returned ConnState hook. For other servers of the project (twhist
// serve).
func BoundListener(ln net.Listener, perAddr, max int) (net.Listener, func(net.Conn, http.ConnState)) {
	bl := newBoundListener(ln, perAddr, max, nil)
	return bl, bl.trackState
}
