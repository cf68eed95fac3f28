// Command testsummary reads the output of `go test -json` on stdin, prints
// one line per package (tests and subtests passed, failed, skipped), the
// output of every failed test and of every package that failed without a
// failing test (a build error, a panic, a timeout), and the skips. It
// exits 1 when anything failed, when nothing ran, or when a test skipped
// that the allowlist does not name; .ci/run pipes the README's test
// command through it so that CI cannot go green by skipping.
//
// Usage:
//
//	go test -json ./... | testsummary -allow .ci/skips
//
// The allowlist has one skip a line, "PACKAGE TEST REASON": the import
// path, the test's full name (subtests with "/") and why CI may skip it;
// blank lines and lines starting with # are ignored. A line without a
// reason is an error.
//
// It is CI tooling: only .ci/run calls it.
package main
