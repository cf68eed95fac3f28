package watch

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory bounds the address space of this process (a build child) to
// what it has now plus extra bytes (RLIMIT_AS): a file that would make the
// replay grow beyond it ends the child, not the server.
func limitMemory(extra int64) error {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return syscall.EINVAL
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return err
	}
	lim := uint64(pages*int64(os.Getpagesize()) + extra)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}
