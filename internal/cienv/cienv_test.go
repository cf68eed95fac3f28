package cienv

import (
	"testing"
)

// recorder is a testing.TB that records how a test ended.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = format
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skip = format
}

// TestUnavailable: under CI=true a missing requirement fails, elsewhere it
// skips, with the cause either way.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		ci         string
		fail, skip bool
	}{{"true", true, false}, {"", false, true}, {"false", false, true}} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		Unavailable(r, "no %s", "thing")
		if (r.fatal != "") != tc.fail || (r.skip != "") != tc.skip {
			t.Errorf("CI=%q: fatal %q, skip %q; want fail %v, skip %v", tc.ci, r.fatal, r.skip, tc.fail, tc.skip)
		}
		if got := r.fatal + r.skip; got != "required under CI=true: no %s" && got != "no %s" {
			t.Errorf("CI=%q: message %q does not carry the cause", tc.ci, got)
		}
	}
}
