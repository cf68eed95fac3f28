package procfs

import (
	"os"
	"testing"
)

// TestStat: a real line's fields, a command name holding ") (" and
// spaces, short and malformed lines.
func TestStat(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		ok   bool
		want []uint64 // Uints of the rest, as many as it reads (at most 22)
	}{
		{"plain", "123 (twserver) S 1 123 123 0 -1 4194560 500 0 0 0 7 3 0 0 20 0 6 0 4242 1000000 2500 18446744073709551615 1\n", true,
			[]uint64{0, 1, 123, 123, 0, 1, 4194560, 500, 0, 0, 0, 7, 3, 0, 0, 20, 0, 6, 0, 4242, 1000000, 2500}},
		{"name with ) ( and spaces", "7 (a) (b c) R 9 7\n", true, []uint64{0, 9, 7}},
		{"empty name", "7 () S 2\n", true, []uint64{0, 2}},
		{"no parenthesis", "7 twserver S 1", false, nil},
		{"nothing after", "7 (x)", true, []uint64{}},
		{"stops at the line end", "7 (x) S 1\n2 3", true, []uint64{0, 1}},
		{"2^64 wraps to 0", "7 (x) S 18446744073709551616 18446744073709551617", true, []uint64{0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rest, ok := AfterComm([]byte(tc.line))
			if ok != tc.ok {
				t.Fatalf("AfterComm ok %v, want %v", ok, tc.ok)
			}
			var v [22]uint64
			n := Uints(rest, v[:])
			if n != len(tc.want) {
				t.Fatalf("Uints read %d fields %v, want %d %v", n, v[:n], len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if v[i] != w {
					t.Errorf("field %d = %d, want %d", i, v[i], w)
				}
			}
		})
	}
}

// TestSelf: this process's own line gives its parent and a start time.
func TestSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	rest, ok := AfterComm(b)
	var v [22]uint64
	if !ok || Uints(rest, v[:]) != len(v) {
		t.Fatalf("cannot read %q", b)
	}
	if v[PPID] != uint64(os.Getppid()) {
		t.Errorf("PPID %d, want %d", v[PPID], os.Getppid())
	}
	if v[StartTime] == 0 || v[RSS] == 0 {
		t.Errorf("start time %d, RSS %d pages: want both above 0", v[StartTime], v[RSS])
	}
}

// TestUintsAllocs: reading the fields allocates nothing.
func TestUintsAllocs(t *testing.T) {
	line := []byte("123 (twserver) S 1 123 123 0 -1 4194560 500 0 0 0 7 3 0 0 20 0 6 0 4242 1000000 2500\n")
	var v [22]uint64
	if a := testing.AllocsPerRun(100, func() {
		rest, _ := AfterComm(line)
		Uints(rest, v[:])
	}); a != 0 {
		t.Errorf("%v allocations per read", a)
	}
}

// FuzzStat: any bytes: no panic, at most len(v) fields, each field read
// from the rest only.
func FuzzStat(f *testing.F) {
	f.Add([]byte("123 (twserver) S 1 123 123 0 -1 4194560 500 0 0 0 7 3 0 0 20 0 6 0 4242 1000000 2500\n"))
	f.Add([]byte("7 (a) (b c) R 9 7\n"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rest, ok := AfterComm(b)
		if !ok {
			return
		}
		var v [4]uint64
		if n := Uints(rest, v[:]); n < 0 || n > len(v) {
			t.Fatalf("read %d fields into %d", n, len(v))
		}
	})
}
