//go:build unix

package web

import "syscall"

// canRawWrite: the writer writes to sockets without waiting (rawWrite).
const canRawWrite = true

// rawWrite writes v.p to the socket fd as far as its buffer takes it
// without waiting (the syscall.RawConn.Write callback; never asks to wait).
func (v *viewer) rawWrite(fd uintptr) bool {
	for v.n < len(v.p) {
		n, err := syscall.Write(int(fd), v.p[v.n:])
		if n > 0 {
			v.n += n
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return true
		case err != nil:
			v.werr = err
			return true
		case n <= 0:
			return true
		}
	}
	return true
}
