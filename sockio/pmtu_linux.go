package sockio

import (
	"net/netip"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The game sockets send IPv4 datagrams (on a dual-stack socket, those to
// IPv4-mapped peers too) with IP_PMTUDISC_DO instead of the kernel's
// default, IP_PMTUDISC_WANT. Both set DF on a datagram that fits the path's
// MTU as the kernel knows it, which is every datagram of a game on almost
// every path. Under WANT the kernel may still fragment a datagram (its
// ignore_df), so it draws each datagram's IP id from the shared,
// locked-per-bucket generator (__ip_select_ident), about 3 % of the
// server's CPU at 63 clients; under DO the id of an unfragmentable datagram
// is 0 and costs nothing.
//
// The difference shows on a path whose MTU is below a datagram (a tunnel,
// once an ICMP "fragmentation needed" taught the kernel its MTU): WANT
// fragments the datagram, DO refuses it with EMSGSIZE. The sockets then
// send that one datagram again with WANT (sendFragmentable), so a player
// behind such a path gets the same datagrams as under the default (map
// chunks are the largest, up to netproto.MaxPacketSize).
// TestOversizeDatagramFragments lowers lo's MTU in a private network
// namespace and sends through it.

// setDontFragment sets IP_PMTUDISC_DO on the socket fd (IPv4 peers; on a
// dual-stack IPv6 socket, IPv4-mapped ones), best effort: a socket where it
// does not take keeps the kernel's default, which only costs more.
func setDontFragment(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
}

// fragMu serializes sendFragmentable's switches of a socket's mode, so two
// goroutines refused at once (a game loop's batch and a reader's answer)
// cannot turn DO back on under each other's send. One lock for every
// socket: the path is taken only for a datagram over a path's MTU.
var fragMu sync.Mutex

// sendFragmentable sends the datagram b to a on fd once with the kernel's
// default (IP_PMTUDISC_WANT), which fragments it where the path's MTU is
// below its size, then turns IP_PMTUDISC_DO back on: for a datagram the
// socket refused with EMSGSIZE under DO. The caller holds whatever keeps
// fd open.
func sendFragmentable(fd int, family uint16, b []byte, a netip.AddrPort) error {
	fragMu.Lock()
	defer fragMu.Unlock()
	if err := unix.SetsockoptInt(fd, unix.SOL_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_WANT); err != nil {
		return err
	}
	_, e := sendto(fd, family, b, a)
	if err := unix.SetsockoptInt(fd, unix.SOL_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO); err != nil && e == 0 {
		return err
	}
	return errno(e)
}

// sendto sends the datagram b to a on fd without waiting, as one raw
// system call (no allocation: the address is built on the stack).
func sendto(fd int, family uint16, b []byte, a netip.AddrPort) (int, unix.Errno) {
	var sa unix.RawSockaddrInet6
	salen := putSockaddr(&sa, family, a)
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
		unix.MSG_DONTWAIT, uintptr(unsafe.Pointer(&sa)), uintptr(salen))
	return int(n), e
}
