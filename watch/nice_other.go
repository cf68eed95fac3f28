//go:build !linux

package watch

import "runtime"

// lowerPriority locks the calling goroutine to its OS thread; the thread's
// priority is lowered on Linux only.
func lowerPriority(int) error {
	runtime.LockOSThread()
	return nil
}
