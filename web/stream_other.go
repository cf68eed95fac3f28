//go:build !unix

package web

// canRawWrite: without unix sockets the writer writes with a deadline.
const canRawWrite = false

// rawWrite is not used (canRawWrite).
func (v *viewer) rawWrite(uintptr) bool { return true }
