package main

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"twserver/internal/procfs"
)

// maxCmdWords bounds the words of one -server command line.
const maxCmdWords = 4096

// splitWords splits a command line into words as a POSIX shell does,
// without running one: blanks separate words; 'single quotes' keep
// everything literally; "double quotes" keep everything but \" \\ \$ \`
// (unquoted \ escapes the next character). No variables, globs or
// operators: they stay literal text.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated " quote`)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New(`\ at the end`)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
		if len(words) > maxCmdWords {
			return nil, fmt.Errorf("more than %d words", maxCmdWords)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

// procTree returns root and every process descended from it (from the
// parent ids in /proc/*/stat).
func procTree(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []int{root}
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parent, ok := ppid(pid); ok {
			children[parent] = append(children[parent], pid)
		}
	}
	tree := []int{root}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// userSysTicks returns the user and system CPU time of process pid (utime
// and stime of /proc/PID/stat, in clock ticks; zeros for a process gone).
func userSysTicks(pid int) (user, sys int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	rest, ok := procfs.AfterComm(b)
	var v [procfs.STime + 1]uint64
	if !ok || procfs.Uints(rest, v[:]) < len(v) {
		return 0, 0
	}
	return int64(v[procfs.UTime]), int64(v[procfs.STime])
}

// ppid returns the parent of process pid (from /proc/PID/stat).
func ppid(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	rest, ok := procfs.AfterComm(b)
	var v [procfs.PPID + 1]uint64
	if !ok || procfs.Uints(rest, v[:]) < len(v) {
		return 0, false
	}
	return int(v[procfs.PPID]), true
}

// cpuNanos returns the CPU time the threads of pid have run, in
// nanoseconds: the sum of /proc/PID/task/*/schedstat (the scheduler's
// exact run time, not the clock-tick sampled utime+stime).
func cpuNanos(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return sum
}

// statusKB returns a "Key:  N kB" field of /proc/PID/status (VmRSS,
// VmHWM), 0 when missing.
func statusKB(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// treeSample is what the processes of a tree use at one moment.
type treeSample struct {
	CPUNanos int64 // run time so far, summed
	RSSKB    int64 // resident memory now, summed
	HWMKB    int64 // peak resident memory, summed over the processes
	// UserTicks and SysTicks are utime and stime so far, summed (clock
	// ticks: they split CPUNanos into user and system time)
	UserTicks, SysTicks int64
}

// sampleTree reads the CPU and memory of every process of pids.
func sampleTree(pids []int) treeSample {
	var s treeSample
	for _, p := range pids {
		s.CPUNanos += cpuNanos(p)
		s.RSSKB += statusKB(p, "VmRSS")
		s.HWMKB += statusKB(p, "VmHWM")
		u, sy := userSysTicks(p)
		s.UserTicks += u
		s.SysTicks += sy
	}
	return s
}

// sock is one socket of a process tree, from /proc/net/{udp,tcp}{,6}.
type sock struct {
	Proto  string // udp or tcp
	Local  netip.AddrPort
	Remote netip.AddrPort
	Listen bool // tcp in LISTEN state
}

// treeSockets returns the UDP and TCP sockets the processes of pids hold.
func treeSockets(pids []int) []sock {
	inodes := map[string]bool{}
	for _, p := range pids {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p))
		for _, fd := range fds {
			l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", p, fd.Name()))
			if err == nil && strings.HasPrefix(l, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
			}
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	var out []sock
	for _, table := range []string{"udp", "udp6", "tcp", "tcp6"} {
		f, err := os.Open("/proc/net/" + table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || !inodes[fs[9]] {
				continue
			}
			local, err1 := parseProcAddr(fs[1])
			remote, err2 := parseProcAddr(fs[2])
			if err1 != nil || err2 != nil {
				continue
			}
			proto := strings.TrimSuffix(table, "6")
			out = append(out, sock{Proto: proto, Local: local, Remote: remote, Listen: proto == "tcp" && fs[3] == "0A"})
		}
		f.Close()
	}
	return out
}

// parseProcAddr decodes an address of /proc/net/*: hex IP in host
// (little-endian) 32-bit words, a colon, hex port.
func parseProcAddr(s string) (netip.AddrPort, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, errors.New("no port")
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", ipHex)
	}
	for w := 0; w < len(raw); w += 4 { // each 32-bit word is little-endian
		raw[w], raw[w+1], raw[w+2], raw[w+3] = raw[w+3], raw[w+2], raw[w+1], raw[w]
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port %q", portHex)
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}

// offLoopback returns the first socket of socks that is bound to, or
// talks to, an address outside loopback (a wildcard bind counts: it
// accepts traffic from other machines), with what is wrong; ok when none.
func offLoopback(socks []sock) (string, bool) {
	for _, s := range socks {
		switch {
		case (s.Proto == "udp" || s.Listen) && !s.Local.Addr().IsLoopback():
			return fmt.Sprintf("%s socket bound to %v", s.Proto, s.Local), false
		case s.Remote.Port() != 0 && !s.Remote.Addr().IsLoopback():
			return fmt.Sprintf("%s socket connected to %v", s.Proto, s.Remote), false
		}
	}
	return "", true
}
