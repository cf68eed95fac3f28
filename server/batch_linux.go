//go:build linux

package server

import (
	"net"
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

// udpBatch is the batch form of the UDP socket on Linux. Writes go through
// golang.org/x/net's WriteBatch (sendmmsg), with one preallocated
// *net.UDPAddr per slot so nothing is allocated per datagram. Reads use
// recvmmsg directly: x/net's ReadBatch allocates a net.UDPAddr and its IP
// for every datagram read, and the reader must not allocate per packet; here
// the sender addresses are decoded from preallocated sockaddr buffers into
// netip.AddrPort values.
type udpBatch struct {
	raw syscall.RawConn

	wmu   sync.Mutex // WriteBatch may be called from several goroutines
	wbat  batchWriter
	wmsgs [SendBatchSize]ipv4.Message
	waddr [SendBatchSize]net.UDPAddr
	wip   [SendBatchSize][16]byte
	wbuf  [SendBatchSize][1][]byte

	// read state, owned by the one reading goroutine
	hs    [ReadBatchSize]mmsghdr
	iovs  [ReadBatchSize]unix.Iovec
	names [ReadBatchSize]unix.RawSockaddrInet6
	rn    int   // datagrams read by the last recvmmsg
	rerr  error // its error
	rcall func(fd uintptr) bool
}

// batchWriter is the WriteBatch of x/net's ipv4 or ipv6 PacketConn.
type batchWriter interface {
	WriteBatch(ms []ipv4.Message, flags int) (int, error)
}

// mmsghdr is struct mmsghdr of recvmmsg(2).
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
	if la, ok := u.c.LocalAddr().(*net.UDPAddr); ok && la.IP.To4() != nil {
		u.wbat = ipv4.NewPacketConn(u.c)
	} else {
		u.wbat = ipv6.NewPacketConn(u.c) // also carries IPv4 peers (dual-stack socket)
	}
	for i := range u.wmsgs {
		u.wmsgs[i].Buffers = u.wbuf[i][:]
		u.wmsgs[i].Addr = &u.waddr[i]
	}
	for i := range u.hs {
		u.hs[i].hdr.Iov = &u.iovs[i]
		u.hs[i].hdr.SetIovlen(1)
		u.hs[i].hdr.Name = (*byte)(unsafe.Pointer(&u.names[i]))
	}
	u.rcall = u.recvmmsg
	return nil
}

// WriteBatch sends ms with sendmmsg, SendBatchSize datagrams per call.
func (u *udpConn) WriteBatch(ms []Datagram) (int, error) {
	u.wmu.Lock()
	defer u.wmu.Unlock()
	sent := 0
	for len(ms) > 0 {
		k := min(len(ms), SendBatchSize)
		for i := range k {
			m := &ms[i]
			a := &u.waddr[i]
			ip := m.Addr.Addr()
			if ip.Is4() {
				b := ip.As4()
				a.IP = append(u.wip[i][:0], b[:]...)
			} else {
				b := ip.As16()
				a.IP = append(u.wip[i][:0], b[:]...)
			}
			a.Port = int(m.Addr.Port())
			u.wbuf[i][0] = m.Buf[:m.N]
		}
		n, err := u.wbat.WriteBatch(u.wmsgs[:k], 0)
		for i := range k {
			u.wbuf[i][0] = nil // keep no reference to the caller's buffers
		}
		if n > 0 {
			sent += n
		}
		if err != nil {
			return sent, err
		}
		if n <= 0 {
			return sent, nil
		}
		ms = ms[n:]
	}
	return sent, nil
}

// ReadBatch blocks until datagrams arrive and reads up to len(ms) (at most
// ReadBatchSize) of them with one recvmmsg call.
func (u *udpConn) ReadBatch(ms []Datagram) (int, error) {
	k := min(len(ms), ReadBatchSize)
	if k == 0 {
		return 0, nil
	}
	for i := range k {
		u.iovs[i].Base = unsafe.SliceData(ms[i].Buf)
		u.iovs[i].SetLen(len(ms[i].Buf))
		u.hs[i].hdr.Namelen = unix.SizeofSockaddrInet6
		u.hs[i].hdr.Controllen = 0
		u.hs[i].hdr.Flags = 0
		u.hs[i].len = 0
	}
	u.rn, u.rerr = k, nil
	if err := u.raw.Read(u.rcall); err != nil {
		return 0, err
	}
	if u.rerr != nil {
		return 0, u.rerr
	}
	n := u.rn
	for i := range n {
		ms[i].N = min(int(u.hs[i].len), len(ms[i].Buf))
		ms[i].Addr = sockaddrToAddrPort(&u.names[i])
	}
	for i := range k {
		u.iovs[i].Base = nil
	}
	return n, nil
}

// recvmmsg is the RawConn.Read callback: false asks the runtime to wait for
// the socket to become readable.
func (u *udpConn) recvmmsg(fd uintptr) bool {
	n, _, errno := unix.Syscall6(unix.SYS_RECVMMSG, fd, uintptr(unsafe.Pointer(&u.hs[0])), uintptr(u.rn),
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

// sockaddrToAddrPort decodes the sender address recvmmsg stored (IPv4, or
// IPv6 with IPv4-mapped addresses unmapped, as ReadFrom reports them).
func sockaddrToAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
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
