//go:build linux

package sockio

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// udpBatch is the batch form of the UDP socket on Linux: sendmmsg(2) and
// recvmmsg(2) on preallocated message headers, iovecs and sockaddrs, so
// nothing is allocated per datagram.
//
// Both are issued as raw, non-blocking system calls (MSG_DONTWAIT).
// golang.org/x/net's ipv4/ipv6 ReadBatch and WriteBatch were the first
// choice, and measured worse: ReadBatch allocates a net.UDPAddr and its IP
// per datagram, and both enter the system call through entersyscall, which
// wakes the runtime's sysmon thread from its idle sleep on every call; on a
// mostly idle game server (a datagram every few hundred microseconds) those
// wake-ups cost more than the system calls themselves. A non-blocking
// sendmmsg or recvmmsg returns in microseconds, so it does not need to hand
// its P to another thread while it runs.
//
// The socket has two descriptors. fd is the server's own (a duplicate,
// never registered with the runtime's poller): every system call goes
// through it. polled, the socket as opened (later a fresh duplicate), is
// registered with the poller, which the reader waits on when the socket is
// empty. Under a flood (FloodReadRate) that wait costs a wake-up per burst
// of datagrams: the poller's epoll wakes a thread for every datagram that
// arrives while nobody reads, even if the reader is not waiting. So then
// polled is closed (which removes the socket from the poller) and the
// reader, having emptied the socket, sleeps FloodReadPause and reads what
// queued meanwhile in full batches; once the rate has stayed below
// FloodReadRate for floodHold, a new polled duplicate is registered.
type udpBatch struct {
	family uint16 // AF_INET or AF_INET6 (dual-stack: IPv4 peers as IPv4-mapped)
	local  netip.AddrPort

	fd     int          // own descriptor, outside the poller; -1 once closed
	fdmu   sync.RWMutex // read-held around system calls on fd; Close write-holds it to close fd
	closed atomic.Bool

	pollReg // polled: the socket as opened, later a fresh duplicate; none under a flood

	wmu  sync.Mutex  // WriteBatch and WriteTo may be called from several goroutines; guards msgBufs' send side
	wone [1]Datagram // WriteTo's batch of one

	msgBufs // send side under wmu; receive side owned by the one reading goroutine

	// read state, owned by the one reading goroutine
	rcall func(fd uintptr) bool // u.recvNow, made once
	rone  [1]Datagram           // ReadFrom's batch of one
	rate  floodRate
}

// Reading under a flood (see udpBatch).
const (
	// FloodReadRate is the receive rate (datagrams per second, measured
	// over floodRateWindow) from which the reader stops waiting through
	// the runtime's poller and pauses FloodReadPause whenever it has
	// emptied the socket. A full 64-slot server receives about 4,000 a
	// second.
	FloodReadRate = 20000
	// FloodReadPause is the reader's pause under a flood: the most a
	// datagram waits in the socket's buffer before it is read (its arrival
	// time is stamped when it is read), about 100 datagrams at 100,000 a
	// second.
	FloodReadPause = time.Millisecond
	// FloodRecvBuffer is the socket's receive buffer (SO_RCVBUF; the
	// kernel doubles it and caps it at net.core.rmem_max): it holds what
	// arrives during a pause, with room for a late timer.
	FloodRecvBuffer = 1 << 20
	// floodRateWindow is the period over which the receive rate is measured.
	floodRateWindow = 20 * time.Millisecond
	// floodHold is how long the rate must stay below FloodReadRate before
	// the reader waits through the poller again.
	floodHold = time.Second
)

// floodRate measures the receive rate of the reader.
type floodRate struct {
	winStart time.Time
	winCount int
	flood    bool
	calmFrom time.Time // first window below the rate since the last flood window
}

// add counts n datagrams read at now and reports whether the reader is
// under a flood.
func (f *floodRate) add(now time.Time, n int) bool {
	f.winCount += n
	d := now.Sub(f.winStart)
	if d < floodRateWindow {
		return f.flood
	}
	high := float64(f.winCount) >= FloodReadRate*d.Seconds()
	f.winStart, f.winCount = now, 0
	switch {
	case high:
		f.flood, f.calmFrom = true, time.Time{}
	case f.flood && f.calmFrom.IsZero():
		f.calmFrom = now
	case f.flood && now.Sub(f.calmFrom) >= floodHold:
		f.flood = false
	}
	return f.flood
}

// pausedRead is one step of a pausing reader under a flood: it counts the
// n datagrams a read without waiting returned and reports whether the
// caller returns them; when there were none it sleeps FloodReadPause if the
// flood goes on (false either way: read again, or wait as usual once the
// flood is over).
func (f *floodRate) pausedRead(n int) bool {
	flood := f.add(time.Now(), n)
	if n > 0 {
		return true
	}
	if flood {
		time.Sleep(FloodReadPause)
	}
	return false
}

// msgBufs are a raw socket's message headers, iovecs and address buffers
// for sendmmsg (w...) and recvmmsg (r...), shared by udpConn and pacedUDP.
type msgBufs struct {
	whs    [SendBatchSize]mmsghdr
	wiovs  [SendBatchSize]unix.Iovec
	wnames [SendBatchSize]unix.RawSockaddrInet6
	rhs    [ReadBatchSize]mmsghdr
	riovs  [ReadBatchSize]unix.Iovec
	rnames [ReadBatchSize]unix.RawSockaddrInet6
	rn     int        // recvNow: in, the headers prepared; out, the datagrams read
	rerr   unix.Errno // recvNow's error
}

// link points each message header at its one iovec and its address
// buffer, once, before the first call.
func (b *msgBufs) link() {
	for i := range b.whs {
		b.whs[i].hdr.Iov = &b.wiovs[i]
		b.whs[i].hdr.SetIovlen(1)
		b.whs[i].hdr.Name = (*byte)(unsafe.Pointer(&b.wnames[i]))
	}
	for i := range b.rhs {
		b.rhs[i].hdr.Iov = &b.riovs[i]
		b.rhs[i].hdr.SetIovlen(1)
		b.rhs[i].hdr.Name = (*byte)(unsafe.Pointer(&b.rnames[i]))
	}
}

// prepSend points the send headers at the first datagrams of ms (at most
// SendBatchSize, for a socket of family) and returns how many.
func (b *msgBufs) prepSend(ms []Datagram, family uint16) int {
	k := min(len(ms), SendBatchSize)
	for i := range k {
		m := &ms[i]
		b.wiovs[i].Base = unsafe.SliceData(m.Buf)
		b.wiovs[i].SetLen(m.N)
		b.whs[i].hdr.Namelen = putSockaddr(&b.wnames[i], family, m.Addr)
		b.whs[i].len = 0
	}
	return k
}

// unrefSend drops the send headers' references to the caller's buffers.
func (b *msgBufs) unrefSend(k int) {
	for i := range k {
		b.wiovs[i].Base = nil
	}
}

// mmsghdr is struct mmsghdr of sendmmsg(2) and recvmmsg(2).
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
}

func (u *udpConn) initBatch() error {
	raw, err := u.c.SyscallConn()
	if err != nil {
		return err
	}
	var domain, fd int
	var serr error
	if err := raw.Control(func(f uintptr) {
		if domain, serr = unix.GetsockoptInt(int(f), unix.SOL_SOCKET, unix.SO_DOMAIN); serr != nil {
			return
		}
		// Best effort: the kernel caps it at net.core.rmem_max.
		_ = unix.SetsockoptInt(int(f), unix.SOL_SOCKET, unix.SO_RCVBUF, FloodRecvBuffer)
		setDontFragment(int(f)) // pmtu_linux.go
		fd, serr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	u.family = uint16(domain)
	u.local = u.c.LocalAddr().(*net.UDPAddr).AddrPort()
	u.fd = fd
	u.registered(u.c, raw)
	u.link()
	u.rcall, u.open = u.recvNow, u.openPolled
	return nil
}

// LocalAddr is the address the socket is bound to.
func (u *udpConn) LocalAddr() netip.AddrPort { return u.local }

// Close closes both descriptors; a reader waiting in ReadBatch returns
// net.ErrClosed.
func (u *udpConn) Close() error {
	if u.closed.Swap(true) {
		return net.ErrClosed
	}
	u.unregister() // wakes a reader waiting on the poller
	u.fdmu.Lock()  // no system call on fd is under way after this
	err := unix.Close(u.fd)
	u.fd = -1
	u.fdmu.Unlock()
	return err
}

// WriteTo sends one datagram.
func (u *udpConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	u.wone[0] = Datagram{Buf: b, N: len(b), Addr: a}
	_, err := u.writeLocked(u.wone[:])
	u.wone[0].Buf = nil
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// WriteBatch sends ms with sendmmsg, SendBatchSize datagrams per call. A
// datagram the kernel refuses (an error) ends the batch there.
func (u *udpConn) WriteBatch(ms []Datagram) (int, error) {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	return u.writeLocked(ms)
}

// sendWaitMillis bounds one wait for room in the socket's send buffer
// (poll(2)); the send is retried after it either way.
const sendWaitMillis = 10

func (u *udpConn) writeLocked(ms []Datagram) (int, error) {
	sent := 0
	for len(ms) > 0 {
		k := u.prepSend(ms, u.family)
		n, err := u.sendmmsg(k)
		u.unrefSend(k)
		if err == unix.EMSGSIZE { // ms[0] is over the path's MTU (pmtu_linux.go)
			if err := u.sendFragmentable(ms[0]); err != nil {
				return sent, err
			}
			sent++
			ms = ms[1:]
			continue
		}
		if err != nil {
			return sent, err
		}
		sent += n
		if n <= 0 {
			return sent, nil
		}
		ms = ms[n:]
	}
	return sent, nil
}

// sendmmsg sends the first k prepared messages on fd, waiting (poll(2))
// while the socket's send buffer is full.
func (u *udpConn) sendmmsg(k int) (int, error) {
	u.fdmu.RLock()
	defer u.fdmu.RUnlock()
	for {
		if u.fd < 0 {
			return 0, net.ErrClosed
		}
		n, _, errno := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(u.fd), uintptr(unsafe.Pointer(&u.whs[0])), uintptr(k),
			unix.MSG_DONTWAIT, 0, 0)
		switch errno {
		case 0:
			return int(n), nil
		case unix.EINTR:
		case unix.EAGAIN:
			pfd := [1]unix.PollFd{{Fd: int32(u.fd), Events: unix.POLLOUT}}
			_, _ = unix.Poll(pfd[:], sendWaitMillis)
		default:
			return 0, errno
		}
	}
}

// sendFragmentable sends m, which the socket refused as over the path's
// MTU, with fragmentation allowed (pmtu_linux.go).
func (u *udpConn) sendFragmentable(m Datagram) error {
	u.fdmu.RLock()
	defer u.fdmu.RUnlock()
	if u.fd < 0 {
		return net.ErrClosed
	}
	return sendFragmentable(u.fd, u.family, m.Buf[:m.N], m.Addr)
}

// ReadFrom reads one datagram (ReadBatch of one).
func (u *udpConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	u.rone[0] = Datagram{Buf: b}
	_, err := u.ReadBatch(u.rone[:])
	n, a := u.rone[0].N, u.rone[0].Addr
	u.rone[0] = Datagram{}
	return n, a, err
}

// ReadBatch blocks until datagrams arrive and reads up to len(ms) (at most
// ReadBatchSize) of them with one recvmmsg call. It waits through the
// runtime's poller, or under a flood by pausing (see udpBatch).
func (u *udpConn) ReadBatch(ms []Datagram) (int, error) {
	k := min(len(ms), ReadBatchSize)
	if k == 0 {
		return 0, nil
	}
	for i := range k {
		u.riovs[i].Base = unsafe.SliceData(ms[i].Buf)
		u.riovs[i].SetLen(len(ms[i].Buf))
		u.rhs[i].hdr.Namelen = unix.SizeofSockaddrInet6
		u.rhs[i].hdr.Flags = 0
		u.rhs[i].len = 0
	}
	n, err := u.readBatch(k)
	for i := range k {
		u.riovs[i].Base = nil
	}
	if err != nil {
		return 0, err
	}
	for i := range n {
		ms[i].N = min(int(u.rhs[i].len), len(ms[i].Buf))
		ms[i].Addr = sockaddrAddrPort(&u.rnames[i])
	}
	return n, nil
}

// readBatch reads up to k datagrams into the prepared messages.
func (u *udpConn) readBatch(k int) (int, error) {
	for {
		if u.closed.Load() {
			return 0, net.ErrClosed
		}
		if !u.rate.flood {
			praw, err := u.register(&u.closed)
			if err != nil {
				return 0, err
			}
			u.rn, u.rerr = k, 0
			err = praw.Read(u.rcall)
			if err == nil {
				err = errno(u.rerr)
			}
			if err != nil {
				if u.closed.Load() {
					return 0, net.ErrClosed
				}
				return 0, err
			}
			if u.rate.add(time.Now(), u.rn) {
				u.unregister()
			}
			return u.rn, nil
		}
		n, err := u.recvOwn(k)
		if err != nil {
			return 0, err
		}
		if u.rate.pausedRead(n) {
			return n, nil
		} // else, the flood over, wait through the poller again
	}
}

// recvOwn reads up to k datagrams from fd without waiting (0 when the
// socket is empty).
func (u *udpConn) recvOwn(k int) (int, error) {
	u.fdmu.RLock()
	defer u.fdmu.RUnlock()
	if u.fd < 0 {
		return 0, net.ErrClosed
	}
	u.rn, u.rerr = k, 0
	if !u.recvNow(uintptr(u.fd)) {
		return 0, nil
	}
	return u.rn, errno(u.rerr)
}

// openPolled registers a fresh duplicate of fd with the poller
// (pollReg.register's open).
func (u *udpConn) openPolled() (io.Closer, syscall.RawConn, error) {
	u.fdmu.RLock()
	nfd, err := unix.FcntlInt(uintptr(u.fd), unix.F_DUPFD_CLOEXEC, 0)
	u.fdmu.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	f := os.NewFile(uintptr(nfd), "udp")
	pc, err := net.FilePacketConn(f) // a further duplicate, registered
	_ = f.Close()
	if err != nil {
		return nil, nil, err
	}
	c, ok := pc.(*net.UDPConn)
	if !ok {
		_ = pc.Close()
		return nil, nil, errors.New("server: socket duplicate is not UDP")
	}
	raw, err := c.SyscallConn()
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	return c, raw, nil
}

// pollReg is a socket's registration with the runtime's poller: a
// duplicate descriptor (polled) on whose RawConn a reader waits while the
// socket is empty. The owner's own descriptor stays out of the poller.
type pollReg struct {
	pmu    sync.Mutex // guards polled and praw
	polled io.Closer  // nil when none
	praw   syscall.RawConn
	inPoll atomic.Bool // polled != nil, for a look without pmu
	// open makes a new registration (pmu held): the owner's method,
	// stored once so that register allocates nothing.
	open func() (io.Closer, syscall.RawConn, error)
}

// register returns the RawConn of polled, making a registration with
// open when there is none; net.ErrClosed once closed is set.
func (r *pollReg) register(closed *atomic.Bool) (syscall.RawConn, error) {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	if closed.Load() {
		return nil, net.ErrClosed
	}
	if r.praw != nil {
		return r.praw, nil
	}
	c, raw, err := r.open()
	if err != nil {
		return nil, err
	}
	r.registered(c, raw)
	return raw, nil
}

// registered records polled and its RawConn (pmu held, or before any
// reader runs).
func (r *pollReg) registered(polled io.Closer, raw syscall.RawConn) {
	r.polled, r.praw = polled, raw
	r.inPoll.Store(true)
}

// unregister closes polled, which takes the socket out of the poller (it
// stays open through the owner's descriptor) and wakes a read waiting on
// it.
func (r *pollReg) unregister() {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	if r.polled != nil {
		_ = r.polled.Close()
		r.polled, r.praw = nil, nil
		r.inPoll.Store(false)
	}
}

// recvNow is one recvmmsg of up to rn datagrams into the receive headers
// without waiting, the RawConn.Read callback of a reader waiting in the
// poller: false when the socket is empty (RawConn.Read then waits for it
// to become readable), else rn datagrams read or rerr the call's error.
func (b *msgBufs) recvNow(fd uintptr) bool {
	n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&b.rhs[0])), uintptr(b.rn),
		unix.MSG_DONTWAIT, 0, 0)
	switch {
	case e == unix.EAGAIN || e == unix.EINTR:
		return false
	case e != 0:
		b.rn, b.rerr = 0, e
	default:
		b.rn = int(n)
	}
	return true
}

// putSockaddr writes a as a sockaddr of the socket's family into sa and
// returns its length (IPv4 peers of an IPv6 socket as IPv4-mapped).
func putSockaddr(sa *unix.RawSockaddrInet6, family uint16, a netip.AddrPort) uint32 {
	port := a.Port()
	ip := a.Addr()
	if family == unix.AF_INET && ip.Unmap().Is4() { // an IPv6 peer of an IPv4 socket: the kernel refuses it
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ip.Unmap().As4()}
		p := (*[2]byte)(unsafe.Pointer(&sa4.Port))
		p[0], p[1] = byte(port>>8), byte(port)
		return unix.SizeofSockaddrInet4
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ip.As16()}
	p := (*[2]byte)(unsafe.Pointer(&sa.Port))
	p[0], p[1] = byte(port>>8), byte(port)
	return unix.SizeofSockaddrInet6
}

// sockaddrAddrPort decodes the sender address recvmmsg stored (IPv4, or
// IPv6 with IPv4-mapped addresses unmapped, as ReadFrom reports them).
func sockaddrAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	switch sa.Family {
	case unix.AF_INET:
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		p := (*[2]byte)(unsafe.Pointer(&sa4.Port))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), uint16(p[0])<<8|uint16(p[1]))
	case unix.AF_INET6:
		p := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), uint16(p[0])<<8|uint16(p[1]))
	}
	return netip.AddrPort{}
}
