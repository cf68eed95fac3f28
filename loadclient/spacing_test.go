package loadclient

import (
	"testing"
	"time"
)

// TestSnapSpacing: on-time snapshots add 0, a late one adds its lateness,
// and ticks missing beyond the 2-tick spacing are counted as gaps.
func TestSnapSpacing(t *testing.T) {
	var s Stats
	s.noteSpacing(2, 40*time.Millisecond)                     // on time
	s.noteSpacing(2, 35*time.Millisecond)                     // early (after a late one): 0
	s.noteSpacing(2, 47*time.Millisecond)                     // 7 ms late
	s.noteSpacing(6, 120*time.Millisecond+3*time.Millisecond) // two snapshot ticks missing, 3 ms late
	s.noteSpacing(1, 20*time.Millisecond)                     // snapshot_rate 50: no gap
	if s.SnapGaps != 2 {
		t.Errorf("gaps %d, want 2", s.SnapGaps)
	}
	h := &s.SnapSpacing
	if h.Count() != 5 || h.Quantile(0.5) > HistBucket || h.Quantile(1) != 7*time.Millisecond {
		t.Errorf("spacing: count %d p50 %v max %v", h.Count(), h.Quantile(0.5), h.Quantile(1))
	}
	sum := Summarize([]Stats{s, s})
	if sum.SnapGaps != 4 || sum.SnapSpacingMs.Samples != 10 || sum.SnapSpacingMs.Max != 7 {
		t.Errorf("summary: gaps %d spacing %+v", sum.SnapGaps, sum.SnapSpacingMs)
	}
}
