package metrics

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
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
	i := bytes.LastIndexByte(st, ')')
	boot, err := os.ReadFile("/proc/stat")
	if err != nil || i < 0 {
		return 0
	}
	// proc(5) field 22 (starttime): index 19 after the command name.
	var v [20]uint64
	if statUints(st[i+1:], v[:]) < len(v) {
		return 0
	}
	for line := range bytes.Lines(boot) {
		if b, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			btime, _ := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
			return float64(btime) + float64(v[19])/userHZ
		}
	}
	return 0
})

// statUints reads the leading fields of /proc/PID/stat after the command
// name (which may hold spaces and parentheses: field 0 is the state, field
// 3 of proc(5)) into v as unsigned decimals, without allocating; a field
// that is not a number reads as its digits. It returns how many it read.
func statUints(st []byte, v []uint64) int {
	i, n := 0, 0
	for n < len(v) && i < len(st) {
		for i < len(st) && st[i] == ' ' {
			i++
		}
		j := i
		for j < len(st) && st[j] != ' ' && st[j] != '\n' {
			j++
		}
		if j == i {
			break
		}
		v[n] = 0
		for _, c := range st[i:j] {
			if c >= '0' && c <= '9' {
				v[n] = v[n]*10 + uint64(c-'0')
			}
		}
		n++
		i = j
	}
	return n
}

// collectProcess writes the process_* figures, reading /proc into buf;
// one that cannot be read is left out.
func collectProcess(x *expo, buf []byte) {
	if st, ok := readSmall(procStat, buf); ok {
		// proc(5) fields 14, 15 (utime, stime), 23 (vsize), 24 (rss
		// pages): indexes 11, 12, 20, 21 after the command name.
		var v [22]uint64
		if statUints(st, v[:]) == len(v) {
			x.float(descCPU, float64(v[11]+v[12])/userHZ)
			x.uint(descVirt, v[20])
			x.uint(descRSS, v[21]*uint64(os.Getpagesize()))
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
	i := bytes.LastIndexByte(buf[:n], ')')
	if i < 0 {
		return nil, false
	}
	return buf[i+1 : n], true
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
