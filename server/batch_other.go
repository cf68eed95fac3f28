//go:build !linux

package server

// udpBatch is empty where sendmmsg and recvmmsg are not used: the batch
// calls move one datagram per system call.
type udpBatch struct{}

func (u *udpConn) initBatch() error { return nil }

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
