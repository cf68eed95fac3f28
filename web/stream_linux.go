//go:build linux

package web

import (
	"syscall"
	"unsafe"
)

// canRawWrite: the writer writes to sockets without waiting (rawWrite).
const canRawWrite = true

// rawWrite writes v.p to the socket fd as far as its buffer takes it
// without waiting (the syscall.RawConn.Write callback; never asks to wait).
// The socket is non-blocking, so the write is a raw system call: unlike
// syscall.Write it does not tell the runtime it might block, which would
// wake the runtime's monitor thread for every write of a mostly idle
// process (the game's UDP calls in sockio do the same).
func (v *viewer) rawWrite(fd uintptr) bool {
	for v.n < len(v.p) {
		p := v.p[v.n:]
		r, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		n := int(r)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return true
		case errno != 0:
			v.werr = errno
			return true
		case n <= 0:
			return true
		}
		v.n += n
	}
	return true
}
