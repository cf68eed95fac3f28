package web

import (
	"errors"
	"net"
	"sync"
	"syscall"
)

// limitListener accepts at most n connections at a time (Accept waits
// for one to close). Unlike netutil.LimitListener its connections keep
// their socket's SyscallConn: the live stream's writer writes to a
// hijacked connection without waiting through it.
type limitListener struct {
	net.Listener
	sem       chan struct{} // one token per open connection
	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

// newLimitListener bounds ln's open connections to n.
func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free place, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, l: l}, nil
}

// Close closes the listener and ends waiting Accepts.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn is a connection of a limitListener: its Close frees its place.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

// Close closes the connection and frees its place (once).
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.l.sem })
	return err
}

// errNoSyscallConn is SyscallConn's error for a connection without a socket.
var errNoSyscallConn = errors.New("web: connection has no socket")

// SyscallConn returns the underlying socket's raw connection.
func (c *limitConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errNoSyscallConn
	}
	return sc.SyscallConn()
}
