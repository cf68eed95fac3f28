//go:build !linux

package web

// canRawWrite: outside Linux the writer writes with a deadline.
const canRawWrite = false

// rawWrite is not used (canRawWrite).
func (v *viewer) rawWrite(uintptr) bool { return true }
