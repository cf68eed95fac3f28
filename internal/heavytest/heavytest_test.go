package heavytest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLockExcludes checks that while a test holds the lock, another
// descriptor of the same file cannot take it, and that it is free again
// once the holder's test ended.
func TestLockExcludes(t *testing.T) {
	t.Run("holder", func(t *testing.T) {
		Lock(t)
		f, err := os.Open(filepath.Join(os.TempDir(), LockFile))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != syscall.EWOULDBLOCK {
			t.Fatalf("second exclusive lock while held: err = %v, want EWOULDBLOCK", err)
		}
	})
	f, err := os.Open(filepath.Join(os.TempDir(), LockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("lock not released after the holder's test ended: %v", err)
	}
}
