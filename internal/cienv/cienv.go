// Package cienv is the sockio split's name for what package testenv does:
// a missing requirement skips outside CI and fails under CI=true. Its two
// functions forward to testenv, so that there is one rule; new tests call
// testenv.
package cienv

import (
	"testing"

	"twserver/internal/testenv"
)

// Required reports whether the environment must be complete (testenv.InCI).
func Required() bool { return testenv.InCI() }

// Unavailable ends tb because what it needs is missing (testenv.Missingf):
// a failure under CI=true, a skip otherwise; the message (format, args)
// says what and why.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	testenv.Missingf(tb, format, args...)
}
