package netproto

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// varintGolden are the spec A2.2 vectors.
var varintGolden = []struct {
	v   int32
	hex string
}{
	{0, "00"}, {1, "01"}, {63, "3f"}, {64, "80 01"}, {100, "a4 01"}, {127, "bf 01"},
	{128, "80 02"}, {8191, "bf 7f"}, {8192, "80 80 01"}, {12345, "b9 c0 01"},
	{1048576, "80 80 80 01"}, {134217728, "80 80 80 80 01"}, {math.MaxInt32, "bf ff ff ff 0f"},
	{-1, "40"}, {-2, "41"}, {-64, "7f"}, {-65, "c0 01"}, {-100, "e3 01"}, {-8193, "c0 80 01"},
	{math.MinInt32, "ff ff ff ff 0f"},
}

func TestVarintGolden(t *testing.T) {
	for _, tc := range varintGolden {
		t.Run(tc.hex, func(t *testing.T) {
			want := unhex(t, tc.hex)
			got := AppendInt(nil, tc.v)
			if !bytes.Equal(got, want) {
				t.Fatalf("AppendInt(%d) = % x, want % x", tc.v, got, want)
			}
			if VarintLen(tc.v) != len(want) {
				t.Fatalf("VarintLen(%d) = %d, want %d", tc.v, VarintLen(tc.v), len(want))
			}
			v, n, err := ParseInt(append(want, 0xaa))
			if err != nil || v != tc.v || n != len(want) {
				t.Fatalf("ParseInt(% x) = %d, %d, %v", want, v, n, err)
			}
		})
	}
}

func TestParseIntEdge(t *testing.T) {
	tests := []struct {
		name string
		in   string
		v    int32
		n    int
		err  error
	}{
		{"empty", "", 0, 0, ErrTruncated},
		{"truncated after first", "80", 0, 0, ErrTruncated},
		{"truncated after fourth", "80 80 80 80", 0, 0, ErrTruncated},
		{"overlong zero", "80 00", 0, 2, nil},
		{"fifth byte ends value", "80 80 80 80 81 01", 1 << 27, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, n, err := ParseInt(unhex(t, tc.in))
			if !errors.Is(err, tc.err) || v != tc.v || n != tc.n {
				t.Fatalf("got %d, %d, %v; want %d, %d, %v", v, n, err, tc.v, tc.n, tc.err)
			}
		})
	}
}

// TestParseIntFifthByte pins the 0.7.5 reading of non-canonical five-byte
// varints (spec A2.2): all seven value bits of the fifth byte are shifted in
// at bit 27 and whatever lands beyond bit 31 is lost, before the sign flag
// complements the result.
func TestParseIntFifthByte(t *testing.T) {
	tests := []struct {
		in string
		v  int32
	}{
		{"ff ff ff ff ff", 0},             // magnitude wraps to all ones, complemented to 0
		{"bf ff ff ff 7f", -1},            // positive flag, all 32 bits set
		{"bf ff ff ff 0f", math.MaxInt32}, // canonical
		{"ff ff ff ff 0f", math.MinInt32}, // canonical
		{"80 80 80 80 10", math.MinInt32}, // bit 4 of the fifth byte is bit 31
		{"c0 80 80 80 10", math.MaxInt32}, // the same, complemented
		{"80 80 80 80 20", 0},             // bit 5 lands on bit 32: dropped
		{"80 80 80 80 70", math.MinInt32}, // bits 5 and 6 dropped, bit 4 kept
		{"bf ff ff ff ff 01", -1},         // bit 7 of the fifth byte does not continue
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			v, n, err := ParseInt(unhex(t, tc.in))
			if err != nil || v != tc.v || n != MaxVarintSize {
				t.Fatalf("ParseInt(%s) = %d, %d, %v; want %d, 5, nil", tc.in, v, n, err, tc.v)
			}
		})
	}
}

func TestVarintRoundTripRange(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 1 << 20, -(1 << 20), math.MaxInt32, math.MinInt32} {
		for d := int32(-3); d <= 3; d++ {
			x := v + d
			b := AppendInt(nil, x)
			got, n, err := ParseInt(b)
			if err != nil || got != x || n != len(b) || len(b) > MaxVarintSize {
				t.Fatalf("round trip %d: % x -> %d, %d, %v", x, b, got, n, err)
			}
		}
	}
}

func FuzzVarint(f *testing.F) {
	for _, tc := range varintGolden {
		f.Add(unhex(f, tc.hex))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, err := ParseInt(b)
		if err != nil {
			if n != 0 {
				t.Fatalf("error with n=%d", n)
			}
			return
		}
		if n < 1 || n > MaxVarintSize || n > len(b) {
			t.Fatalf("bad length %d for % x", n, b)
		}
		enc := AppendInt(nil, v)
		if len(enc) > n {
			t.Fatalf("canonical encoding of %d (% x) longer than parsed % x", v, enc, b[:n])
		}
		v2, n2, err := ParseInt(enc)
		if err != nil || v2 != v || n2 != len(enc) {
			t.Fatalf("re-parse of %d: %d, %d, %v", v, v2, n2, err)
		}
	})
}
