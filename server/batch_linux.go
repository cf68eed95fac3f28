//go:build linux

package server

import (
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// udpBatch is the batch form of the UDP socket on Linux: sendmmsg(2) and
// recvmmsg(2) on preallocated message headers, iovecs and sockaddrs, so
// nothing is allocated per datagram.
//
// Both are issued as raw, non-blocking system calls (MSG_DONTWAIT inside
// RawConn.Read/Write, which wait on the runtime's poller when the socket is
// not ready). golang.org/x/net's ipv4/ipv6 ReadBatch and WriteBatch were the
// first choice, and measured worse: ReadBatch allocates a net.UDPAddr and
// its IP per datagram, and both enter the system call through
// entersyscall, which wakes the runtime's sysmon thread from its idle sleep
// on every call; on a mostly idle game server (a datagram every few hundred
// microseconds) those wake-ups cost more than the system calls themselves.
// A non-blocking sendmmsg or recvmmsg returns in microseconds, so it does not
// need to hand its P to another thread while it runs.
type udpBatch struct {
	raw    syscall.RawConn
	family uint16 // AF_INET or AF_INET6 (dual-stack: IPv4 peers as IPv4-mapped)

	wmu    sync.Mutex // WriteBatch may be called from several goroutines
	whs    [SendBatchSize]mmsghdr
	wiovs  [SendBatchSize]unix.Iovec
	wnames [SendBatchSize]unix.RawSockaddrInet6
	wn     int   // in: datagrams to send; out: datagrams sent
	werr   error // error of the last sendmmsg
	wcall  func(fd uintptr) bool

	// read state, owned by the one reading goroutine
	rhs    [ReadBatchSize]mmsghdr
	riovs  [ReadBatchSize]unix.Iovec
	rnames [ReadBatchSize]unix.RawSockaddrInet6
	rn     int   // in: buffers offered; out: datagrams read
	rerr   error // error of the last recvmmsg
	rcall  func(fd uintptr) bool
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
	u.raw = raw
	var domain int
	var serr error
	if err := raw.Control(func(fd uintptr) {
		domain, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
	}); err != nil {
		return err
	}
	if serr != nil {
		return serr
	}
	u.family = uint16(domain)
	for i := range u.whs {
		u.whs[i].hdr.Iov = &u.wiovs[i]
		u.whs[i].hdr.SetIovlen(1)
		u.whs[i].hdr.Name = (*byte)(unsafe.Pointer(&u.wnames[i]))
	}
	for i := range u.rhs {
		u.rhs[i].hdr.Iov = &u.riovs[i]
		u.rhs[i].hdr.SetIovlen(1)
		u.rhs[i].hdr.Name = (*byte)(unsafe.Pointer(&u.rnames[i]))
	}
	u.wcall = u.sendmmsg
	u.rcall = u.recvmmsg
	return nil
}

// WriteBatch sends ms with sendmmsg, SendBatchSize datagrams per call. A
// datagram the kernel refuses (an error) ends the batch there.
func (u *udpConn) WriteBatch(ms []Datagram) (int, error) {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	sent := 0
	for len(ms) > 0 {
		k := min(len(ms), SendBatchSize)
		for i := range k {
			m := &ms[i]
			u.wiovs[i].Base = unsafe.SliceData(m.Buf)
			u.wiovs[i].SetLen(m.N)
			u.whs[i].hdr.Namelen = putSockaddr(&u.wnames[i], u.family, m.Addr)
			u.whs[i].len = 0
		}
		u.wn, u.werr = k, nil
		err := u.raw.Write(u.wcall)
		for i := range k {
			u.wiovs[i].Base = nil // keep no reference to the caller's buffers
		}
		if err == nil {
			err = u.werr
		}
		if err != nil {
			return sent, err
		}
		sent += u.wn
		if u.wn <= 0 {
			return sent, nil
		}
		ms = ms[u.wn:]
	}
	return sent, nil
}

// sendmmsg is the RawConn.Write callback: false asks the runtime to wait
// until the socket is writable.
func (u *udpConn) sendmmsg(fd uintptr) bool {
	n, _, errno := unix.RawSyscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&u.whs[0])), uintptr(u.wn),
		unix.MSG_DONTWAIT, 0, 0)
	switch {
	case errno == unix.EAGAIN || errno == unix.EINTR:
		return false
	case errno != 0:
		u.wn, u.werr = 0, errno
	default:
		u.wn = int(n)
	}
	return true
}

// ReadBatch blocks until datagrams arrive and reads up to len(ms) (at most
// ReadBatchSize) of them with one recvmmsg call.
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
	u.rn, u.rerr = k, nil
	err := u.raw.Read(u.rcall)
	for i := range k {
		u.riovs[i].Base = nil
	}
	if err == nil {
		err = u.rerr
	}
	if err != nil {
		return 0, err
	}
	n := u.rn
	for i := range n {
		ms[i].N = min(int(u.rhs[i].len), len(ms[i].Buf))
		ms[i].Addr = sockaddrAddrPort(&u.rnames[i])
	}
	return n, nil
}

// recvmmsg is the RawConn.Read callback: false asks the runtime to wait for
// the socket to become readable.
func (u *udpConn) recvmmsg(fd uintptr) bool {
	n, _, errno := unix.RawSyscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&u.rhs[0])), uintptr(u.rn),
		unix.MSG_DONTWAIT, 0, 0)
	switch {
	case errno == unix.EAGAIN || errno == unix.EINTR:
		return false
	case errno != 0:
		u.rn, u.rerr = 0, errno
	default:
		u.rn = int(n)
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
