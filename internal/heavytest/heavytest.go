// Package heavytest serializes the tests that need most of the machine: the
// real client under Xvfb and the minute-long load runs. `go test ./...` runs
// several packages at once; two such tests side by side on a small machine
// starve each other and fail for reasons that have nothing to do with the
// code under test. Each of them calls Lock first and so runs alone among
// them, whatever package it is in.
package heavytest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// LockFile is the file, in the system's temporary directory, whose exclusive
// flock(2) the heavy tests take in turn.
const LockFile = "twserver-heavytest.lock"

// Lock blocks until no other heavy test of this machine runs, then holds the
// lock until tb's test ends. The time it waited is logged.
func Lock(tb testing.TB) {
	tb.Helper()
	lockPath(tb, filepath.Join(os.TempDir(), LockFile))
}

// lockPath is Lock on the lock file at path.
func lockPath(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		tb.Fatalf("heavytest: %v", err)
	}
	start := time.Now()
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		tb.Fatalf("heavytest: lock %s: %v", path, err)
	}
	if waited := time.Since(start); waited > time.Second {
		tb.Logf("heavytest: waited %v for other heavy tests", waited.Round(time.Second))
	}
	tb.Cleanup(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
