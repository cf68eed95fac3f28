//go:build !linux

package sockio

import (
	"net"
	"net/netip"
)

// udpBatch is empty where sendmmsg and recvmmsg are not used: the batch
// calls move one datagram per system call.
type udpBatch struct{}

func (u *udpConn) initBatch() error { return nil }

func (u *udpConn) ReadFrom(b []byte) (int, netip.AddrPort, error) {
	n, a, err := u.c.ReadFromUDPAddrPort(b)
	return n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), err
}
func (u *udpConn) WriteTo(b []byte, a netip.AddrPort) (int, error) {
	return u.c.WriteToUDPAddrPort(b, a)
}
func (u *udpConn) LocalAddr() netip.AddrPort {
	return u.c.LocalAddr().(*net.UDPAddr).AddrPort()
}
func (u *udpConn) Close() error { return u.c.Close() }

// WriteBatch sends ms one WriteTo at a time.
func (u *udpConn) WriteBatch(ms []Datagram) (int, error) {
	for i := range ms {
		if _, err := u.WriteTo(ms[i].Buf[:ms[i].N], ms[i].Addr); err != nil {
			return i, err
		}
	}
	return len(ms), nil
}

// ReadBatch reads one datagram.
func (u *udpConn) ReadBatch(ms []Datagram) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	n, a, err := u.ReadFrom(ms[0].Buf)
	if err != nil {
		return 0, err
	}
	ms[0].N, ms[0].Addr = n, a
	return 1, nil
}
