package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CIEnv is the environment variable that marks a CI run when it is "true"
// (GitHub Actions, GitLab and .ci/run's machines set CI=true).
const CIEnv = "CI"

// InCI reports whether the tests run under CI=true, where every part of
// the test environment must be present.
func InCI() bool { return os.Getenv(CIEnv) == "true" }

// Require stops tb when err is not nil: what names what the test needs
// (e.g. "Xvfb (Debian xvfb)"), err says why it is not there. Outside CI the
// test is skipped; under CI=true it fails, because there the environment
// is complete by contract and a missing part is a fault of the machine or
// of .ci/run. With err nil Require does nothing.
func Require(tb testing.TB, what string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if InCI() {
		tb.Fatalf("%s=true and the test environment is incomplete: needs %s: %v", CIEnv, what, err)
		return
	}
	tb.Skipf("needs %s: %v", what, err)
}

// LookPath returns the path of the binary bin, found as exec.LookPath
// finds it; when it is missing the test is stopped with Require, naming
// pkg (the Debian package that installs it).
func LookPath(tb testing.TB, bin, pkg string) string {
	tb.Helper()
	p, err := exec.LookPath(bin)
	Require(tb, fmt.Sprintf("%s (Debian package %s)", bin, pkg), err)
	return p
}

// Stat requires the file or directory at path, installed by the Debian
// package pkg; see Require.
func Stat(tb testing.TB, path, pkg string) {
	tb.Helper()
	_, err := os.Stat(path)
	Require(tb, fmt.Sprintf("%s (Debian package %s)", path, pkg), err)
}

// Glob returns the files matching pattern, installed by the Debian package
// pkg; when there are none the test is stopped with Require.
func Glob(tb testing.TB, pattern, pkg string) []string {
	tb.Helper()
	paths, err := filepath.Glob(pattern)
	if err == nil && len(paths) == 0 {
		err = errors.New("no such files")
	}
	Require(tb, fmt.Sprintf("%s (Debian package %s)", pattern, pkg), err)
	return paths
}

// Partly is for a test that checks what it can without the missing part
// and more with it: with err nil it returns true; otherwise, under CI=true
// the test is marked failed (it goes on with the rest), and outside CI the
// part it cannot check is logged; it returns false.
func Partly(tb testing.TB, what string, err error) bool {
	tb.Helper()
	if err == nil {
		return true
	}
	if InCI() {
		tb.Errorf("%s=true and the test environment is incomplete: needs %s: %v", CIEnv, what, err)
	} else {
		tb.Logf("not checked here: needs %s: %v", what, err)
	}
	return false
}

// Missingf is Require with the cause given as a message: a skip outside
// CI, a failure under CI=true, saying format with args.
func Missingf(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("required under "+CIEnv+"=true: "+format, args...)
		return
	}
	tb.Skipf(format, args...)
}
