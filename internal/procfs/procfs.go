// Package procfs reads the fields of Linux's /proc/PID/stat that the
// server's metrics and the load tool use, from bytes the caller read,
// without allocating.
package procfs

import "bytes"

// AfterComm returns what follows the command name of a /proc/PID/stat
// line: the name is in parentheses and may itself hold spaces and
// parentheses, so it ends at the last ')'. ok is false when there is none.
func AfterComm(stat []byte) (rest []byte, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, false
	}
	return stat[i+1:], true
}

// Uints reads the leading space-separated fields of rest (what AfterComm
// returned: field 0 is the state, field 3 of proc(5)) into v as unsigned
// decimals and returns how many it read, at most len(v). A field that is
// not a number reads as its digits (the state letter as 0); a number too
// big for 64 bits wraps. It stops at the end of the line.
func Uints(rest []byte, v []uint64) int {
	i, n := 0, 0
	for n < len(v) && i < len(rest) {
		for i < len(rest) && rest[i] == ' ' {
			i++
		}
		j := i
		for j < len(rest) && rest[j] != ' ' && rest[j] != '\n' {
			j++
		}
		if j == i {
			break
		}
		v[n] = 0
		for _, c := range rest[i:j] {
			if c >= '0' && c <= '9' {
				v[n] = v[n]*10 + uint64(c-'0')
			}
		}
		n++
		i = j
	}
	return n
}

// Field indexes for Uints of proc(5)'s fields: field k of proc(5) is
// index k-3.
const (
	PPID      = 1  // the parent's process id
	UTime     = 11 // user CPU time, in clock ticks (USER_HZ)
	STime     = 12 // system CPU time, in clock ticks
	StartTime = 19 // start after boot, in clock ticks
	VSize     = 20 // virtual memory, bytes
	RSS       = 21 // resident pages
)
