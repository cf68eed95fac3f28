package watch

import (
	"errors"
	"os"
	"runtime"
	"strconv"
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

// onMainThread says whether the calling goroutine runs on the process's
// main thread now.
func onMainThread() bool { return syscall.Gettid() == syscall.Getpid() }

// errMainThread is lowerSpareThread's error on the process's main thread.
var errMainThread = errors.New("watch: the main thread keeps its priority")

// lowerSpareThread is lowerPriority on any thread but the process's main
// thread, which Go does not end: a goroutine that ends locked to it leaves
// it asleep for good, at the lowered priority for ps and top to show the
// whole process with. There it locks nothing and returns errMainThread.
func lowerSpareThread(nice int) error {
	runtime.LockOSThread()
	if onMainThread() {
		runtime.UnlockOSThread()
		return errMainThread
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice)
}

// lowerProcess gives every thread of this process the scheduling priority
// nice; threads made later inherit it from the one that makes them. Twice,
// for a thread made while the first pass ran.
func lowerProcess(nice int) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice) // a thread that ended meanwhile
			}
		}
	}
	return nil
}
