//go:build !linux

package watch

import "runtime"

// lowerPriority locks the calling goroutine to its OS thread; the thread's
// priority is lowered on Linux only.
func lowerPriority(int) error {
	runtime.LockOSThread()
	return nil
}

// lowerSpareThread lowers nothing but on Linux.
func lowerSpareThread(int) error { return nil }

// lowerProcess lowers nothing but on Linux.
func lowerProcess(int) error { return nil }

// onMainThread is false but on Linux.
func onMainThread() bool { return false }
