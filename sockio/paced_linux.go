//go:build linux

package sockio

import (
	"fmt"
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

// pacedUDP is the game socket on Linux: a UDP socket that the runtime's
// poller watches only while a goroutine waits to read it. A socket in the
// poller (epoll, edge-triggered) wakes an idle runtime thread for every
// datagram that arrives, whether or not a goroutine reads it, which is the
// very wake-up paced reads avoid. So the socket is opened by
// net.ListenUDP (addresses, dual stack, errors as usual), duplicated, and
// the original closed, which takes it out of the poller; the duplicate is
// read and written with system calls:
//
//   - ReadPaced: recvmmsg without waiting, with the kernel's arrival stamps
//     (SO_TIMESTAMPNS), as RawSyscall (it returns in microseconds). It
//     takes the socket out of the poller if ReadBatch left it there.
//   - ReadBatch: recvmmsg without waiting; on an empty socket it waits
//     through the runtime's poller on a second duplicate (polled),
//     registered for as long as reads go through ReadBatch. A read that
//     blocked its thread in the kernel instead would keep the goroutine's
//     P (runtime thread slot) until the runtime's sysmon took it back, up
//     to 20 ms later when sysmon sleeps long: with one P, every game of
//     the process waited behind such a read (ticks skipped at 1024
//     clients while they joined). Waiting in the poller parks only the
//     goroutine.
//   - WriteTo and WriteBatch: sendto/sendmmsg without waiting; a full send
//     buffer is waited for with poll(2), at most pacedWriteWait.
//
// Close marks the socket closed, closes polled (which wakes a waiting
// ReadBatch), and closes the descriptor once no call is using it.
type pacedUDP struct {
	fd     int
	family uint16 // AF_INET or AF_INET6 (dual-stack: IPv4 peers as IPv4-mapped)
	local  netip.AddrPort
	closed atomic.Bool
	use    sync.RWMutex // read-held by every call on fd, held by Close

	wmu sync.Mutex // WriteBatch may be called from several goroutines; guards msgBufs' send side

	msgBufs // send side under wmu; receive side owned by the one reading goroutine

	// polled while ReadBatch reads: the reading goroutine registers it,
	// ReadPaced and Close close it, file waits out (pmu) a registration's
	// moment of non-blocking mode.
	pollReg

	// read state, owned by the one reading goroutine
	ctl   [ReadBatchSize][4]uint64 // aligned; stampCmsgSpace bytes used
	rate  floodRate                // ReadBatch's receive rate (FloodReadRate)
	rcall func(fd uintptr) bool    // u.recvNow, made once
}

// Bounds of pacedUDP.
const (
	// PacedRecvBuffer is the receive buffer of a paced socket (capped by
	// the system's net.core.rmem_max): the datagrams of a caller's tick wait
	// in it until the tick reads them.
	PacedRecvBuffer = 1 << 20
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
// O_NONBLOCK with the original, closed after: a blocking descriptor stays
// out of the poller when File makes an *os.File of it; every call here
// says MSG_DONTWAIT), with the arrival stamps and the receive buffer of
// paced reads.
func (u *pacedUDP) setup() error {
	if err := unix.SetNonblock(u.fd, false); err != nil {
		return fmt.Errorf("blocking mode: %w", err)
	}
	if err := unix.SetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
		return fmt.Errorf("SO_TIMESTAMPNS: %w", err)
	}
	// A tick's datagrams wait in the socket until the tick reads them
	// (capped by net.core.rmem_max).
	if err := unix.SetsockoptInt(u.fd, unix.SOL_SOCKET, unix.SO_RCVBUF, PacedRecvBuffer); err != nil {
		return fmt.Errorf("SO_RCVBUF: %w", err)
	}
	setDontFragment(u.fd) // pmtu_linux.go
	u.rcall, u.open = u.recvNow, u.openPolled
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
	u.pmu.Lock() // not while register has the socket non-blocking
	defer u.pmu.Unlock()
	fd, err := unix.FcntlInt(uintptr(u.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sockio: duplicating the paced socket: %w", err)
	}
	return os.NewFile(uintptr(fd), "udp:"+u.local.String()), nil
}

// Close closes polled, waking a ReadBatch that waits in the poller, and
// closes the socket once no call uses it.
func (u *pacedUDP) Close() error {
	if u.closed.Swap(true) {
		return nil
	}
	u.unregister()
	u.use.Lock()
	defer u.use.Unlock()
	return unix.Close(u.fd)
}

// openPolled makes a new duplicate of the socket registered in the
// runtime's poller (pollReg.register's open, pmu held). os.NewFile
// registers a descriptor only in non-blocking mode, which the socket's
// descriptors share; the socket is put back in blocking mode at once,
// under pmu, so File never makes a file of it in the poller.
func (u *pacedUDP) openPolled() (io.Closer, syscall.RawConn, error) {
	fd, err := unix.FcntlInt(uintptr(u.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sockio: duplicating the paced socket: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("sockio: non-blocking mode: %w", err)
	}
	f := os.NewFile(uintptr(fd), "udp-polled")
	berr := unix.SetNonblock(u.fd, false)
	raw, err := f.SyscallConn()
	if err == nil {
		err = berr
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("sockio: registering the paced socket: %w", err)
	}
	return f, raw, nil
}

// errno turns a system call's errno into an error (nil for 0).
func errno(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// WriteTo sends one datagram (sendto), waiting once for room in a full
// send buffer.
func (u *pacedUDP) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	if !u.acquire() {
		return 0, net.ErrClosed
	}
	defer u.use.RUnlock()
	for waited := false; ; waited = true {
		n, e := sendto(u.fd, u.family, b, a)
		if e == unix.EAGAIN && !waited && u.waitWritable() {
			continue
		}
		if e == unix.EMSGSIZE { // over the path's MTU (pmtu_linux.go)
			if err := sendFragmentable(u.fd, u.family, b, a); err != nil {
				return 0, err
			}
			return len(b), nil
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
		if e == unix.EMSGSIZE { // ms[0] is over the path's MTU (pmtu_linux.go)
			if err := sendFragmentable(u.fd, u.family, ms[0].Buf[:ms[0].N], ms[0].Addr); err != nil {
				return sent, err
			}
			sent++
			ms = ms[1:]
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

// ReadBatch waits until datagrams arrive and reads up to len(ms) (at most
// ReadBatchSize) of them with one recvmmsg call, waiting in the runtime's
// poller (see pacedUDP). Under a flood (a receive rate of FloodReadRate or
// more, as udpConn measures it) each wait would return every few
// datagrams, each a wake-up: then the socket leaves the poller and, once a
// read finds it empty, the reader sleeps FloodReadPause and reads what
// queued meanwhile in full batches.
func (u *pacedUDP) ReadBatch(ms []Datagram) (int, error) {
	for {
		if u.rate.flood {
			n, err := u.recv(ms, nil)
			if err != nil {
				return 0, err
			}
			if u.rate.pausedRead(n) {
				return n, nil
			}
			continue
		}
		n, err := u.recvWait(ms)
		if n > 0 {
			if u.rate.add(time.Now(), n) {
				u.unregister()
			}
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// recvWait reads like recv without stamps, waiting in the poller while the
// socket is empty: 0 datagrams and no error when polled was closed under
// it by ReadPaced (read again), the poller's error otherwise.
func (u *pacedUDP) recvWait(ms []Datagram) (int, error) {
	k := u.prepRecv(ms, nil)
	if k == 0 {
		return 0, nil
	}
	raw, err := u.register(&u.closed)
	if err != nil {
		return 0, err
	}
	u.rn, u.rerr = k, 0
	err = raw.Read(u.rcall)
	for i := range k {
		u.riovs[i].Base = nil
	}
	switch {
	case u.closed.Load():
		return 0, net.ErrClosed
	case err != nil && !u.inPoll.Load(): // polled closed under it by ReadPaced: read again
		return 0, nil
	case err != nil:
		return 0, err
	case u.rerr != 0:
		return 0, u.rerr
	}
	u.finishRecv(ms, nil, u.rn, time.Now())
	return u.rn, nil
}

// ReadPaced reads up to len(ms) (at most ReadBatchSize) datagrams already
// queued on the socket with one recvmmsg call, without waiting: 0 when none
// is queued. at[i] is when datagram i reached the socket, from the kernel's
// arrival stamp converted to the monotonic clock, or the time of the read
// where the kernel gave none. The socket leaves the poller if ReadBatch
// left it there: the reading is the caller's now.
func (u *pacedUDP) ReadPaced(ms []Datagram, at []time.Time) (int, error) {
	if u.inPoll.Load() {
		u.unregister()
	}
	return u.recv(ms, at[:min(len(at), len(ms))])
}

// recv is one recvmmsg into ms without waiting (the reader goroutine
// only): 0 datagrams when the socket is empty. With at, it also takes the
// arrival stamps.
func (u *pacedUDP) recv(ms []Datagram, at []time.Time) (int, error) {
	k := u.prepRecv(ms, at)
	if k == 0 {
		return 0, nil
	}
	if !u.acquire() {
		return 0, net.ErrClosed
	}
	defer u.use.RUnlock()
	n, _, e := unix.RawSyscall6(unix.SYS_RECVMMSG, uintptr(u.fd), uintptr(unsafe.Pointer(&u.rhs[0])), uintptr(k), unix.MSG_DONTWAIT, 0, 0)
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
	u.finishRecv(ms, at, int(n), now)
	return int(n), nil
}

// prepRecv points the receive headers at ms (with stamp space when at is
// given) and returns how many it prepared.
func (u *pacedUDP) prepRecv(ms []Datagram, at []time.Time) int {
	k := min(len(ms), ReadBatchSize)
	if at != nil {
		k = min(k, len(at))
	}
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
	return k
}

// finishRecv fills in the n datagrams read at now (and their arrival
// times when at is given).
func (u *pacedUDP) finishRecv(ms []Datagram, at []time.Time, n int, now time.Time) {
	wall := now.UnixNano()
	for i := range n {
		ms[i].N = min(int(u.rhs[i].len), len(ms[i].Buf))
		ms[i].Addr = sockaddrAddrPort(&u.rnames[i])
		if at != nil {
			at[i] = now
			if st := u.stamp(i); st > 0 && st < wall {
				at[i] = now.Add(time.Duration(st - wall))
			}
		}
	}
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
