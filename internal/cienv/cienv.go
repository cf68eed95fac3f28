// Package cienv decides what a test does when its environment lacks
// something it needs (a binary, a kernel feature, a socket option): on a
// developer's machine it skips with the cause; under CI=true, where the
// environment is meant to be complete, it fails with the cause, so CI
// cannot go green by skipping the check.
package cienv

import (
	"os"
	"testing"
)

// Required reports whether the environment must be complete: the CI
// variable is "true" (as GitHub Actions, GitLab CI and .ci/run set it).
func Required() bool { return os.Getenv("CI") == "true" }

// Unavailable ends tb because what it needs is missing: a failure under
// CI=true, a skip otherwise; the message (format, args) says what and why.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if Required() {
		tb.Fatalf("required under CI=true: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}
