package sockio

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// Kind names a socket implementation, as logged and shown in the metrics
// (twserver_socket_info).
type Kind string

// The socket implementations.
const (
	// KindPaced is the game socket on Linux: outside the runtime's poller,
	// read without waiting at the caller's ticks (ReadPaced) with the
	// kernel's arrival stamps, or blocking in the kernel (paced_linux.go).
	KindPaced Kind = "paced"
	// KindBatch is the socket read through the runtime's poller, with
	// sendmmsg/recvmmsg on Linux and the pausing reader under a flood
	// (batch_linux.go): the game socket where the paced one cannot be set up.
	KindBatch Kind = "batch"
	// KindMem is an endpoint of the in-memory twin (MemNet).
	KindMem Kind = "mem"
	// KindOther is any other PacketConn (a test double).
	KindOther Kind = "other"
)

// ErrNoPaced is the reason ListenPaced gives where the platform has no
// paced socket (every system but Linux); it wraps errors.ErrUnsupported.
var ErrNoPaced = fmt.Errorf("sockio: no paced socket on this system: %w", errors.ErrUnsupported)

// Choice says which socket ListenUDP opened and why.
type Choice struct {
	// Kind is KindPaced or KindBatch.
	Kind Kind
	// Fallback is why the paced socket was not used: nil when Kind is
	// KindPaced, ErrNoPaced (errors.ErrUnsupported) where the system has
	// none, otherwise the failure of its setup, which the caller must
	// report (a server on Linux that runs the batch socket has regressed).
	Fallback error
}

// ListenUDP opens the game socket on addr (e.g. "0.0.0.0:8303" or ":8303"):
// the paced socket (ListenPaced) where it can be set up, else the batch
// socket (ListenBatch). The Choice names the socket and the reason for a
// fallback; the fallback is never silent.
func ListenUDP(addr string) (PacketConn, Choice, error) {
	return listenUDP(addr, pacedSocket)
}

// listenUDP is ListenUDP with the paced socket's setup as a parameter (the
// tests make it fail to see the fallback reported).
func listenUDP(addr string, paced func(*net.UDPConn) (PacedConn, error)) (PacketConn, Choice, error) {
	c, err := listen(addr)
	if err != nil {
		return nil, Choice{}, err
	}
	return wrapUDP(c, paced)
}

// WrapUDP makes the game socket of an open UDP socket, as ListenUDP does
// after it opened one: c is, for example, a socket inherited from the old
// process of a live upgrade (package handover). The paced socket puts the
// socket's file in blocking mode, the batch socket in non-blocking mode (a
// mode every descriptor of that socket shares).
func WrapUDP(c *net.UDPConn) (PacketConn, Choice, error) {
	return wrapUDP(c, pacedSocket)
}

// wrapUDP is WrapUDP with the paced socket's setup as a parameter.
func wrapUDP(c *net.UDPConn, paced func(*net.UDPConn) (PacedConn, error)) (PacketConn, Choice, error) {
	p, perr := paced(c)
	if perr == nil {
		return p, Choice{Kind: KindPaced}, nil
	}
	u, err := newUDPConn(c)
	if err != nil {
		return nil, Choice{}, err
	}
	return u, Choice{Kind: KindBatch, Fallback: perr}, nil
}

// ListenPaced opens the paced socket on addr; its error says why it cannot
// be set up (ErrNoPaced where the system has none).
func ListenPaced(addr string) (PacedConn, error) {
	c, err := listen(addr)
	if err != nil {
		return nil, err
	}
	p, err := pacedSocket(c)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return p, nil
}

// ListenBatch opens the batch socket on addr: read through the runtime's
// poller (pausing under a flood on Linux).
func ListenBatch(addr string) (BatchConn, error) {
	c, err := listen(addr)
	if err != nil {
		return nil, err
	}
	return newUDPConn(c)
}

// listen opens a UDP socket on addr through the net package (addresses,
// dual stack and errors as usual).
func listen(addr string) (*net.UDPConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	return net.ListenUDP("udp", ua)
}

// File returns a new descriptor of the game socket c as an *os.File, to
// pass to another process (a live upgrade); closing it leaves c open. The
// paced socket's file stays out of the runtime's poller: a descriptor in
// the poller (epoll, edge-triggered) wakes an idle runtime thread for
// every datagram that arrives, even one nobody reads, which is what the
// paced socket exists to avoid (net.UDPConn.File's descriptor, made while
// the socket is non-blocking, goes into the poller: kept open for the
// upgrade, it woke the process at every input). The batch socket's file is
// net.UDPConn.File's.
func File(c PacketConn) (*os.File, error) {
	switch c := c.(type) {
	case *udpConn:
		return c.c.File()
	case interface{ file() (*os.File, error) }:
		return c.file()
	}
	return nil, fmt.Errorf("sockio: no socket file for %s", KindOf(c))
}

// KindOf names the implementation of c.
func KindOf(c PacketConn) Kind {
	switch c.(type) {
	case *MemConn:
		return KindMem
	case *udpConn:
		return KindBatch
	case PacedConn:
		return KindPaced
	}
	return KindOther
}

// udpConn adapts *net.UDPConn to BatchConn without allocations per
// datagram: WriteTo and ReadFrom move one datagram, WriteBatch and
// ReadBatch several per system call (batch_linux.go; one per call on other
// systems). c is the socket as opened (on Linux only until the first flood).
type udpConn struct {
	c *net.UDPConn
	udpBatch
}

// newUDPConn wraps c, read through the runtime's poller (with the pausing
// reader under a flood on Linux); c is closed if that fails.
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
