package teehist

import (
	"bytes"
	"testing"
)

// TestZeroRuns: states code and read back; a run is one zero and its
// length; a payload cut inside a run's length or coding too much is
// refused.
func TestZeroRuns(t *testing.T) {
	for _, s := range [][]byte{nil, {0}, {1}, {0, 0, 0, 5, 0}, append(make([]byte, 300), 7, 7), make([]byte, 70000)} {
		p := AppendZeroRuns(nil, s)
		got, err := ReadZeroRuns(nil, p)
		if err != nil || !bytes.Equal(got, s) {
			t.Errorf("%d bytes: read back %d, %v", len(s), len(got), err)
		}
	}
	if p := AppendZeroRuns(nil, make([]byte, 300)); !bytes.Equal(p, []byte{0, 0xab, 0x02}) {
		t.Errorf("300 zeros coded as %x", p)
	}
	for _, p := range [][]byte{{0}, {0, 0x80}, {0, 0xff, 0xff, 0xff, 0x7f}, AppendZeroRuns(nil, make([]byte, MaxCheckpointState+1))} {
		if _, err := ReadZeroRuns(nil, p); err != ErrCheckpoint {
			t.Errorf("payload %x...: %v", p[:min(len(p), 8)], err)
		}
	}
}

// FuzzZeroRuns: any payload reads or fails without panicking, within the
// bound; what reads codes back to a payload that reads the same.
func FuzzZeroRuns(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 0, 0})
	f.Add(AppendZeroRuns(nil, append(make([]byte, 1000), 9)))
	f.Fuzz(func(t *testing.T, p []byte) {
		s, err := ReadZeroRuns(nil, p)
		if err != nil {
			return
		}
		if len(s) > MaxCheckpointState {
			t.Fatalf("%d bytes read", len(s))
		}
		s2, err := ReadZeroRuns(nil, AppendZeroRuns(nil, s))
		if err != nil || !bytes.Equal(s, s2) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
