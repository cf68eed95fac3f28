package server

import (
	"errors"
	"net"
	"net/netip"
	"sync"
)

// PacketConn is the datagram socket the server reads from and writes to. The
// UDP implementation is ListenUDP; MemNet provides an in-memory twin for tests.
// ReadFrom is called by one goroutine only; WriteTo may be called concurrently.
type PacketConn interface {
	// ReadFrom reads one datagram into b. A datagram larger than b is truncated
	// and reported with n == len(b) so the caller can reject it.
	ReadFrom(b []byte) (n int, addr netip.AddrPort, err error)
	// WriteTo sends one datagram.
	WriteTo(b []byte, addr netip.AddrPort) (int, error)
	// LocalAddr is the address the socket is bound to.
	LocalAddr() netip.AddrPort
	// Close unblocks ReadFrom and releases the socket.
	Close() error
}

// udpConn adapts *net.UDPConn to BatchConn without allocations per
// datagram: WriteTo and ReadFrom move one datagram, WriteBatch and
// ReadBatch several per system call (batch_linux.go; one per call on other
// systems). c is the socket as opened (on Linux only until the first flood).
type udpConn struct {
	c *net.UDPConn
	udpBatch
}

// ListenUDP opens a UDP socket on addr (e.g. "0.0.0.0:8303" or ":8303"):
// on Linux a socket outside the runtime's poller with paced reads
// (pacedUDP, paced.go), else (or if that cannot be set up) a udpConn.
func ListenUDP(addr string) (PacketConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	if p, ok := pacedSocket(c); ok { // paced.go: Linux
		return p, nil
	}
	return newUDPConn(c)
}

// newUDPConn wraps c read through the runtime's poller (with the pausing
// reader under a flood on Linux): ListenUDP's form where pacedSocket is not
// available.
func newUDPConn(c *net.UDPConn) (*udpConn, error) {
	u := &udpConn{c: c}
	if err := u.initBatch(); err != nil {
		_ = c.Close()
		return nil, err
	}
	return u, nil
}

// ReadFrom, WriteTo, LocalAddr and Close are in batch_linux.go (the socket
// read outside the runtime's poller under a flood) and batch_other.go.

// ErrClosed is returned by MemConn operations after Close.
var ErrClosed = errors.New("server: connection closed")

// memQueueLen bounds the datagrams queued for one MemConn; further ones are dropped.
const memQueueLen = 1024

type memPacket struct {
	from netip.AddrPort
	data []byte
}

// MemNet is an in-memory datagram network for deterministic tests. Datagrams
// are delivered in order; a full receive queue drops, like UDP.
type MemNet struct {
	mu    sync.Mutex
	conns map[netip.AddrPort]*MemConn
	// Drop, if set, is consulted for every datagram; returning true drops it.
	Drop func(from, to netip.AddrPort, b []byte) bool
}

// NewMemNet returns an empty in-memory network.
func NewMemNet() *MemNet { return &MemNet{conns: make(map[netip.AddrPort]*MemConn)} }

// Listen creates an endpoint bound to addr.
func (n *MemNet) Listen(addr netip.AddrPort) (*MemConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.conns[addr]; ok {
		return nil, errors.New("server: address in use")
	}
	c := &MemConn{net: n, addr: addr, q: make(chan memPacket, memQueueLen), done: make(chan struct{})}
	n.conns[addr] = c
	return c, nil
}

// MemConn is one endpoint of a MemNet. It implements PacketConn.
type MemConn struct {
	net       *MemNet
	addr      netip.AddrPort
	q         chan memPacket
	done      chan struct{}
	closeOnce sync.Once
}

// ReadFrom blocks until a datagram arrives or the endpoint is closed.
func (c *MemConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	select {
	case p := <-c.q:
		return copy(b, p.data), p.from, nil
	case <-c.done:
		return 0, netip.AddrPort{}, ErrClosed
	}
}

// WriteTo copies b and queues it at the endpoint bound to addr (silently lost
// if there is none, like UDP).
func (c *MemConn) WriteTo(b []byte, addr netip.AddrPort) (int, error) {
	select {
	case <-c.done:
		return 0, ErrClosed
	default:
	}
	c.net.mu.Lock()
	dst := c.net.conns[addr]
	drop := c.net.Drop
	c.net.mu.Unlock()
	if dst == nil || (drop != nil && drop(c.addr, addr, b)) {
		return len(b), nil
	}
	p := memPacket{from: c.addr, data: append([]byte(nil), b...)}
	select {
	case dst.q <- p:
	default:
	}
	return len(b), nil
}

// WriteBatch queues every datagram of ms, in order, like WriteTo.
func (c *MemConn) WriteBatch(ms []Datagram) (int, error) {
	for i := range ms {
		if _, err := c.WriteTo(ms[i].Buf[:ms[i].N], ms[i].Addr); err != nil {
			return i, err
		}
	}
	return len(ms), nil
}

// ReadBatch blocks until a datagram arrives, then takes the ones already
// queued, up to len(ms).
func (c *MemConn) ReadBatch(ms []Datagram) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	var err error
	if ms[0].N, ms[0].Addr, err = c.ReadFrom(ms[0].Buf); err != nil {
		return 0, err
	}
	n := 1
	for n < len(ms) {
		select {
		case p := <-c.q:
			ms[n].N, ms[n].Addr = copy(ms[n].Buf, p.data), p.from
			n++
		default:
			return n, nil
		}
	}
	return n, nil
}

// LocalAddr returns the endpoint's address.
func (c *MemConn) LocalAddr() netip.AddrPort { return c.addr }

// Close unbinds the endpoint and unblocks ReadFrom.
func (c *MemConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.net.mu.Lock()
		delete(c.net.conns, c.addr)
		c.net.mu.Unlock()
	})
	return nil
}
