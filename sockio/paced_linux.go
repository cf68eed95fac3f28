//go:build linux

package sockio

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pacedUDP is the game socket on Linux: a UDP socket that the runtime's
// poller does not watch. A socket in the poller (epoll, edge-triggered)
// wakes an idle runtime thread for every datagram that arrives, whether or
// not a goroutine reads it, which is the very wake-up paced reads avoid.
// So the socket is opened by net.ListenUDP (addresses, dual stack, errors
// as usual), duplicated, and the original closed, which takes it out of
// the poller; the duplicate is read and written with system calls:
//
//   - ReadPaced: recvmmsg without waiting, with the kernel's arrival stamps
//     (SO_TIMESTAMPNS), as RawSyscall (it returns in microseconds).
//   - ReadBatch: recvmmsg that blocks the reading thread in the kernel until
//     a datagram comes (MSG_WAITFORONE), entered as a blocking system call
//     so the runtime runs other goroutines meanwhile; the socket's receive
//     timeout (pacedReadTimeout) makes it look at Close now and then.
//   - WriteTo and WriteBatch: sendto/sendmmsg without waiting; a full send
//     buffer is waited for with poll(2), at most pacedWriteWait.
//
// Close marks the socket closed, shuts it down (which wakes a blocked
// read), and closes the descriptor once no call is using it.
type pacedUDP struct {
	fd     int
	family uint16 // AF_INET or AF_INET6 (dual-stack: IPv4 peers as IPv4-mapped)
	local  netip.AddrPort
	closed atomic.Bool
	use    sync.RWMutex // read-held by every call on fd, held by Close

	wmu sync.Mutex // WriteBatch may be called from several goroutines; guards msgBufs' send side

	msgBufs // send side under wmu; receive side owned by the one reading goroutine

	// read state, owned by the one reading goroutine
	ctl  [ReadBatchSize][4]uint64 // aligned; stampCmsgSpace bytes used
	rate floodRate                // ReadBatch's receive rate (FloodReadRate)
}

// Bounds of pacedUDP.
const (
	// PacedRecvBuffer is the receive buffer of a paced socket (capped by
	// the system's net.core.rmem_max): the datagrams of a caller's tick wait
	// in it until the tick reads them.
	PacedRecvBuffer = 1 << 20
	// pacedReadTimeout is the receive timeout of the socket: a blocked
	// ReadBatch or ReadFrom looks whether the socket was closed this often.
	// Close wakes a blocked read at once (shutdown), so this is only a
	// fallback. Each timeout wakes the reading thread, and its return into
	// the blocking call wakes the runtime's sysmon thread, which an empty
	// game that sleeps (server/sleep.go) pays while it waits: at 2 s that
	// was a sixth of an idle game's wake-ups, and with 64 sleeping games 32
	// wake-ups a second. Hence long.
	pacedReadTimeout = 30 * time.Second
	// pacedWriteWait bounds the wait for room in a full send buffer; the
	// datagram is dropped after it, as UDP may.
	pacedWriteWait = 20 * time.Millisecond
)

// stampCmsgSpace is the control space of one SCM_TIMESTAMPNS message (32
// bytes on 64-bit Linux, within the 32 of each pacedUDP.ctl).
var stampCmsgSpace = min(unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{}))), 32)

// pacedSocket turns c into a pacedUDP, closing c; on an error (why the
// paced socket cannot be set up) c is left as it is.
func pacedSocket(c *net.UDPConn) (PacedConn, error) {
	u := &pacedUDP{fd: -1, local: c.LocalAddr().(*net.UDPAddr).AddrPort()}
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("sockio: paced socket: %w", err)
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		var domain int
		if domain, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN); serr != nil {
			serr = fmt.Errorf("SO_DOMAIN: %w", serr)
			return
		}
		u.family = uint16(domain)
		if u.fd, serr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0); serr != nil {
			serr = fmt.Errorf("duplicating the descriptor: %w", serr)
		}
	}); err != nil {
		return nil, fmt.Errorf("sockio: paced socket: %w", err)
	}
	if serr != nil {
		return nil, fmt.Errorf("sockio: paced socket: %w", serr)
	}
	if err := u.setup(); err != nil {
		_ = unix.Close(u.fd)
		return nil, fmt.Errorf("sockio: paced socket: %w", err)
	}
	_ = c.Close() // out of the poller; the duplicate keeps the socket
	u.link()
	return u, nil
}

// setup makes the descriptor blocking (the duplicate shares the file's
// O_NONBLOCK with the original, closed after), with the receive timeout, the
// arrival stamps and the receive buffer of paced reads.
func (u *pacedUDP) setup() error {
	if err := unix.SetNonblock(u.fd, false); err != nil {
		return fmt.Errorf("blocking mode: %w", err)
	}
	tv := unix.NsecToTimeval(int64(pacedReadTimeout))
	if err := unix.SetsockoptTimeval(u.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("SO_RCVTIMEO: %w", err)
	}
	if err := unix.SetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	// A tick's datagrams wait in the socket until the tick reads them
	// (capped by net.core.rmem_max).
	if err := unix.SetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, PacedRecvBuffer); err != nil {
		return fmt.Errorf("SO_RCVBUF: %w", err)
	}
	return nil
}

// acquire read-holds the descriptor for one call; false once closed.
func (u *pacedUDP) acquire() bool {
	u.use.RLock()
	if u.closed.Load() {
		u.use.RUnlock()
		return false
	}
	return true
}

// LocalAddr is the address the socket is bound to.
func (u *pacedUDP) LocalAddr() netip.AddrPort { return u.local }

// file returns a new descriptor of the socket as an *os.File (File). The
// socket is in blocking mode (setup), so os.NewFile leaves the descriptor
// out of the runtime's poller.
func (u *pacedUDP) file() (*os.File, error) {
	if !u.acquire() {
		return nil, net.ErrClosed
	}
	defer u.use.RUnlock()
	fd, err := unix.FcntlInt(uintptr(u.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sockio: duplicating the paced socket: %w", err)
	}
	return os.NewFile(uintptr(fd), "udp:"+u.local.String()), nil
}

// Close shuts the socket down, waking a blocked read, and closes it once
// no call uses it.
func (u *pacedUDP) Close() error {
	if u.closed.Swap(true) {
		return nil
	}
	_ = unix.Shutdown(u.fd, unix.SHUT_RDWR) // ENOTCONN on UDP, but it wakes readers
	u.use.Lock()
	defer u.use.Unlock()
	return unix.Close(u.fd)
}

// errno turns a system call's errno into an error (nil for 0).
func errno(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// WriteTo sends one datagram (no allocation: the address is built on the
// stack).
func (u *pacedUDP) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	if !u.acquire() {
		return 0, net.ErrClosed
	}
	defer u.use.RUnlock()
	var sa unix.RawSockaddrInet6
	salen := putSockaddr(&sa, u.family, a)
	for waited := false; ; waited = true {
		n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(u.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
			unix.MSG_DONTWAIT, uintptr(unsafe.Pointer(&sa)), uintptr(salen))
		if e == unix.EAGAIN && !waited && u.waitWritable() {
			continue
		}
		return int(n), errno(e)
	}
}

// waitWritable waits up to pacedWriteWait for room in the send buffer.
func (u *pacedUDP) waitWritable() bool {
	fds := [1]unix.PollFd{{Fd: int32(u.fd), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds[:], int(pacedWriteWait/time.Millisecond))
	return err == nil && n > 0
}

// WriteBatch sends ms with sendmmsg, SendBatchSize datagrams per call. A
// datagram the kernel refuses (an error) ends the batch there.
func (u *pacedUDP) WriteBatch(ms []Datagram) (int, error) {
	if !u.acquire() {
		return 0, net.ErrClosed
	}
	defer u.use.RUnlock()
	u.wmu.Lock()
	defer u.wmu.Unlock()
	sent := 0
	waited := false
	for len(ms) > 0 {
		k := u.prepSend(ms, u.family)
		n, _, e := unix.RawSyscall6(unix.SYS_SENDMMSG, uintptr(u.fd), uintptr(unsafe.Pointer(&u.whs[0])), uintptr(k),
			unix.MSG_DONTWAIT, 0, 0)
		u.unrefSend(k)
		if e == unix.EAGAIN && !waited && u.waitWritable() {
			waited = true
			continue
		}
		if e != 0 {
			return sent, e
		}
		if n == 0 {
			return sent, nil
		}
		sent += int(n)
		ms = ms[n:]
	}
	return sent, nil
}

// ReadFrom reads one datagram, blocking until one comes.
func (u *pacedUDP) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	var d [1]Datagram
	d[0].Buf = b
	n, err := u.ReadBatch(d[:])
	if err != nil || n == 0 {
		return 0, netip.AddrPort{}, err
	}
	return d[0].N, d[0].Addr, nil
}

// ReadBatch blocks until datagrams arrive and reads up to len(ms) (at most
// ReadBatchSize) of them with one recvmmsg call. Under a flood (a receive
// rate of FloodReadRate or more, as udpConn measures it) a blocking read
// would return every few datagrams, each a wake-up of the reading thread:
// then, once a read finds the socket empty, it sleeps FloodReadPause and
// reads what queued meanwhile in full batches.
func (u *pacedUDP) ReadBatch(ms []Datagram) (int, error) {
	for {
		if u.rate.flood {
			n, err := u.recv(ms, nil, unix.MSG_DONTWAIT)
			if err != nil {
				return 0, err
			}
			if u.rate.pausedRead(n) {
				return n, nil
			}
			continue
		}
		n, err := u.recv(ms, nil, unix.MSG_WAITFORONE)
		if n > 0 {
			u.rate.add(time.Now(), n)
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// ReadPaced reads up to len(ms) (at most ReadBatchSize) datagrams already
// queued on the socket with one recvmmsg call, without waiting: 0 when none
// is queued. at[i] is when datagram i reached the socket, from the kernel's
// arrival stamp converted to the monotonic clock, or the time of the read
// where the kernel gave none.
func (u *pacedUDP) ReadPaced(ms []Datagram, at []time.Time) (int, error) {
	return u.recv(ms, at[:min(len(at), len(ms))], unix.MSG_DONTWAIT)
}

// recv is one recvmmsg into ms with flags (the reader goroutine only):
// MSG_DONTWAIT returns at once (a RawSyscall), MSG_WAITFORONE blocks until
// a datagram or the receive timeout (a blocking system call; 0 datagrams
// on the timeout). With at, it also takes the arrival stamps.
func (u *pacedUDP) recv(ms []Datagram, at []time.Time, flags uintptr) (int, error) {
	k := min(len(ms), ReadBatchSize)
	if at != nil {
		k = min(k, len(at))
	}
	if k == 0 {
		return 0, nil
	}
	if !u.acquire() {
		return 0, net.ErrClosed
	}
	defer u.use.RUnlock()
	for i := range k {
		u.riovs[i].Base = unsafe.SliceData(ms[i].Buf)
		u.riovs[i].SetLen(len(ms[i].Buf))
		h := &u.rhs[i].hdr
		h.Namelen = unix.SizeofSockaddrInet6
		h.Flags = 0
		if at != nil {
			h.Control = (*byte)(unsafe.Pointer(&u.ctl[i]))
			h.SetControllen(stampCmsgSpace)
		} else {
			h.Control = nil
			h.SetControllen(0)
		}
		u.rhs[i].len = 0
	}
	var n uintptr
	var e unix.Errno
	if flags&unix.MSG_DONTWAIT != 0 {
		n, _, e = unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(u.fd), uintptr(unsafe.Pointer(&u.rhs[0])), uintptr(k), flags, 0, 0)
	} else {
		n, _, e = unix.Syscall6(unix.SYS_RECVMMSG, uintptr(u.fd), uintptr(unsafe.Pointer(&u.rhs[0])), uintptr(k), flags, 0, 0)
	}
	now := time.Now()
	for i := range k {
		u.riovs[i].Base = nil
	}
	switch {
	case u.closed.Load():
		return 0, net.ErrClosed
	case e == unix.EAGAIN || e == unix.EINTR:
		return 0, nil
	case e != 0:
		return 0, e
	}
	wall := now.UnixNano()
	for i := range int(n) {
		ms[i].N = min(int(u.rhs[i].len), len(ms[i].Buf))
		ms[i].Addr = sockaddrAddrPort(&u.rnames[i])
		if at != nil {
			at[i] = now
			if st := u.stamp(i); st > 0 && st < wall {
				at[i] = now.Add(time.Duration(st - wall))
			}
		}
	}
	return int(n), nil
}

// stamp returns the SCM_TIMESTAMPNS arrival stamp (Unix nanoseconds) of
// read header i, 0 when it has none.
func (u *pacedUDP) stamp(i int) int64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&u.ctl[i])), stampCmsgSpace)
	if int(u.rhs[i].hdr.Controllen) < unix.SizeofCmsghdr || len(b) < unix.SizeofCmsghdr {
		return 0
	}
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	data := unix.CmsgLen(0)
	if h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_TIMESTAMPNS ||
		int(h.Len) < data+int(unsafe.Sizeof(unix.Timespec{})) || int(h.Len) > len(b) {
		return 0
	}
	return (*unix.Timespec)(unsafe.Pointer(&b[data])).Nano()
}
