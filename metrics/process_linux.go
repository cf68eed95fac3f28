package metrics

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"twserver/internal/procfs"
)

// Process figures read from /proc (Linux).
var (
	descCPU     = newFamily("process_cpu_seconds_total", "CPU time the process used, user and system, in seconds.", typeCounter)
	descRSS     = newFamily("process_resident_memory_bytes", "Resident memory of the process (RSS) in bytes.", typeGauge)
	descVirt    = newFamily("process_virtual_memory_bytes", "Virtual memory of the process in bytes.", typeGauge)
	descFDs     = newFamily("process_open_fds", "Open file descriptors.", typeGauge)
	descMaxFDs  = newFamily("process_max_fds", "Limit on open file descriptors (RLIMIT_NOFILE).", typeGauge)
	descStarted = newFamily("process_start_time_seconds", "Unix time at which the process started.", typeGauge)
)

// userHZ is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture Go supports.
const userHZ = 100

// startTime is the process's start (Unix seconds), read once.
var startTime = sync.OnceValue(func() float64 {
	st, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	rest, ok := procfs.AfterComm(st)
	boot, err := os.ReadFile("/proc/stat")
	if err != nil || !ok {
		return 0
	}
	var v [procfs.StartTime + 1]uint64
	if procfs.Uints(rest, v[:]) < len(v) {
		return 0
	}
	for line := range bytes.Lines(boot) {
		if b, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			btime, _ := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
			return float64(btime) + float64(v[procfs.StartTime])/userHZ
		}
	}
	return 0
})

// collectProcess writes the process_* figures, reading /proc into buf;
// one that cannot be read is left out.
func collectProcess(x *expo, buf []byte) {
	if st, ok := readSmall(procStat, buf); ok {
		var v [procfs.RSS + 1]uint64
		if procfs.Uints(st, v[:]) == len(v) {
			x.float(descCPU, float64(v[procfs.UTime]+v[procfs.STime])/userHZ)
			x.uint(descVirt, v[procfs.VSize])
			x.uint(descRSS, v[procfs.RSS]*uint64(os.Getpagesize()))
		}
	}
	if n, ok := countFDs(buf); ok {
		x.uint(descFDs, uint64(n))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		x.uint(descMaxFDs, lim.Cur)
	}
	if t := startTime(); t > 0 {
		x.float(descStarted, t)
	}
}

// The /proc paths read at every scrape, NUL-terminated for openat(2).
var (
	procStat = []byte("/proc/self/stat\x00")
	procFD   = []byte("/proc/self/fd\x00")
)

// openProc opens a NUL-terminated path read-only: syscall.Open would copy
// the path into a new allocation at every scrape.
func openProc(path []byte, flags int) (int, bool) {
	dir := atFDCWD
	fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(&path[0])),
		uintptr(syscall.O_RDONLY|syscall.O_CLOEXEC|flags), 0, 0, 0)
	return int(fd), errno == 0
}

// atFDCWD is AT_FDCWD: openat resolves the path like open.
const atFDCWD = -100

// readSmall reads /proc/PID/stat into buf without allocating and returns
// what follows the command name's closing parenthesis.
func readSmall(path, buf []byte) ([]byte, bool) {
	fd, ok := openProc(path, 0)
	if !ok {
		return nil, false
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf)
	if err != nil || n <= 0 || n == len(buf) {
		return nil, false
	}
	return procfs.AfterComm(buf[:n])
}

// countFDs counts the entries of /proc/self/fd, reading the directory into
// buf (the descriptor it opens itself is not counted).
func countFDs(buf []byte) (int, bool) {
	fd, ok := openProc(procFD, syscall.O_DIRECTORY)
	if !ok {
		return 0, false
	}
	defer syscall.Close(fd)
	count := 0
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return 0, false
		}
		if n <= 0 {
			break
		}
		// Each linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
		for off := 0; off+19 <= n; {
			reclen := int(buf[off+16]) | int(buf[off+17])<<8
			if reclen == 0 {
				return 0, false
			}
			if name := buf[off+19]; name != '.' {
				count++
			}
			off += reclen
		}
	}
	return max(count-1, 0), true
}
