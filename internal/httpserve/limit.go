package httpserve

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

const (
	// RetryAfter is the Retry-After (seconds) of the 503 written to a
	// connection refused over a bound.
	RetryAfter = 5
	// refuseWait bounds the write of the 503 to a refused connection (its
	// socket buffer is empty: the write does not wait).
	refuseWait = 10 * time.Millisecond
)

// refusal is the answer written to a connection refused over a bound.
var refusal = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: " + strconv.Itoa(RetryAfter) +
	"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

// Admission is Counter.Acquire's answer: Admitted, or which bound is full.
type Admission int

const (
	// Admitted: the place is taken.
	Admitted Admission = iota
	// AddrFull: the key has its share.
	AddrFull
	// TotalFull: all places are taken.
	TotalFull
)

// Counter counts something held by clients (connections, requests,
// streams), per address key (AddrKey) and in total, within a bound per
// key and one in all. It is safe for concurrent use.
type Counter struct {
	per, max int
	mu       sync.Mutex
	n        map[netip.Prefix]int
	total    int
}

// NewCounter returns a counter bounded to per places a key and max in all.
func NewCounter(per, max int) *Counter {
	return &Counter{per: per, max: max, n: map[netip.Prefix]int{}}
}

// Acquire takes a place for key (unbounded per key when anyPer); it
// returns Admitted or which bound is full. An admitted place is given
// back with Release.
func (c *Counter) Acquire(key netip.Prefix, anyPer bool) Admission {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !anyPer && c.n[key] >= c.per {
		return AddrFull
	}
	if c.total >= c.max {
		return TotalFull
	}
	c.n[key]++
	c.total++
	return Admitted
}

// Release frees a place of key.
func (c *Counter) Release(key netip.Prefix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key]--; c.n[key] <= 0 {
		delete(c.n, key)
	}
	c.total--
}

// Count returns the places taken by key and in total.
func (c *Counter) Count(key netip.Prefix) (byKey, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key], c.total
}

// SetBounds changes the bounds (tests lift the one per key); places taken
// stay taken.
func (c *Counter) SetBounds(per, max int) {
	c.mu.Lock()
	c.per, c.max = per, max
	c.mu.Unlock()
}

// Listener bounds the connections of a net.Listener per client address
// (AddrKey) and in all without ever making Accept wait: over the bound of
// its address a new connection is refused at once (a 503 with RetryAfter
// written without waiting, then closed); at the total bound the connection
// idle longest is closed for it, and with none idle it is refused.
// Addresses of trusted proxies are not bounded per address (their clients
// are many). Idle connections are those the http.Server reports as new or
// idle: the server serving a Listener must have its ConnState method as
// its ConnState hook. Its connections keep their socket's SyscallConn
// (package web's live stream writes to a hijacked connection without
// waiting through it).
type Listener struct {
	net.Listener
	conns   *Counter
	trusted []netip.Prefix

	mu   sync.Mutex
	idle map[*conn]time.Time // connections idle (or not yet active), since when

	refused atomic.Int64 // connections refused
	evicted atomic.Int64 // idle connections closed for new ones
}

// NewListener bounds ln's connections to perAddr an address (none for
// addresses in trusted) and max in all.
func NewListener(ln net.Listener, perAddr, max int, trusted []netip.Prefix) *Listener {
	return &Listener{Listener: ln, conns: NewCounter(perAddr, max), trusted: trusted,
		idle: map[*conn]time.Time{}}
}

// Accept returns the next connection within the bounds; those over a
// bound are refused meanwhile.
func (l *Listener) Accept() (net.Conn, error) {
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

// Refused is the number of connections refused over a bound.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Evicted is the number of idle connections closed for new ones at the
// total bound.
func (l *Listener) Evicted() int64 { return l.evicted.Load() }

// Open is the number of connections accepted and not yet closed.
func (l *Listener) Open() int {
	_, n := l.conns.Count(netip.Prefix{})
	return n
}

// admit counts c in, closing an idle connection at the total bound, or
// refuses it (nil).
func (l *Listener) admit(c net.Conn) *conn {
	addr := connAddr(c)
	key, trusted := AddrKey(addr), l.isTrusted(addr)
	for {
		switch l.conns.Acquire(key, trusted) {
		case Admitted:
			bc := &conn{Conn: c, l: l, key: key}
			l.mu.Lock()
			l.idle[bc] = time.Now() // until the server takes it up
			l.mu.Unlock()
			return bc
		case TotalFull:
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
func (l *Listener) isTrusted(a netip.Addr) bool {
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
func (l *Listener) oldestIdle() *conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var old *conn
	var since time.Time
	for c, t := range l.idle {
		if old == nil || t.Before(since) {
			old, since = c, t
		}
	}
	delete(l.idle, old)
	return old
}

// ConnState is the http.Server's ConnState hook: it keeps the set of idle
// connections (new ones that have not sent a whole request yet, and
// keep-alive ones between requests). Connections not of l are ignored.
func (l *Listener) ConnState(c net.Conn, s http.ConnState) {
	bc, ok := c.(*conn)
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

// conn is a connection of a Listener: its Close frees its place.
type conn struct {
	net.Conn
	l      *Listener
	key    netip.Prefix
	closed bool // under l.mu
	once   sync.Once
}

// Close closes the connection and frees its place (once).
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		c.closed = true
		delete(c.l.idle, c)
		c.l.mu.Unlock()
		c.l.conns.Release(c.key)
	})
	return err
}

// errNoSyscallConn is SyscallConn's error for a connection without a socket.
var errNoSyscallConn = errors.New("httpserve: connection has no socket")

// SyscallConn returns the underlying socket's raw connection.
func (c *conn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errNoSyscallConn
	}
	return sc.SyscallConn()
}
