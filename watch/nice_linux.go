package watch

import (
	"runtime"
	"syscall"
)

// lowerPriority locks the calling goroutine to its OS thread and gives the
// thread the scheduling priority nice. The goroutine must not unlock the
// thread: it ends with the goroutine (Go then ends the thread), so the
// lowered priority never reaches another goroutine.
func lowerPriority(nice int) error {
	runtime.LockOSThread()
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}
