package heavytest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLockExcludes checks that while a test holds the lock, another
// descriptor of the same file cannot take it, and that it is free again
// once the holder's test ended. It uses a lock file of its own, so heavy
// tests running meanwhile do not interfere.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), LockFile)
	tryLock := func() error {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	t.Run("holder", func(t *testing.T) {
		lockPath(t, path)
		if err := tryLock(); err != syscall.EWOULDBLOCK {
			t.Fatalf("second exclusive lock while held: err = %v, want EWOULDBLOCK", err)
		}
	})
	if err := tryLock(); err != nil {
		t.Fatalf("lock not released after the holder's test ended: %v", err)
	}
}
