package sockio

import (
	"errors"
	"net/netip"
	"sync"
)

// ErrClosed is returned by MemConn operations after Close.
var ErrClosed = errors.New("sockio: connection closed")

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
		return nil, errors.New("sockio: address in use")
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

// Net returns the network the endpoint is bound in.
func (c *MemConn) Net() *MemNet { return c.net }

// Queued returns how many datagrams wait to be read.
func (c *MemConn) Queued() int { return len(c.q) }

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
