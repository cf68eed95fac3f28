package testenv

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// recTB records how Require stopped a test instead of stopping it.
type recTB struct {
	testing.TB
	skipped, failed string
}

func (r *recTB) Helper()                        {}
func (r *recTB) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *recTB) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func TestRequire(t *testing.T) {
	missing := errors.New("exec: \"Xvfb\": executable file not found in $PATH")
	for _, tc := range []struct {
		name            string
		ci              string
		err             error
		skipped, failed bool
	}{
		{"present", "true", nil, false, false},
		{"present outside CI", "", nil, false, false},
		{"missing outside CI skips", "", missing, true, false},
		{"missing with CI=false skips", "false", missing, true, false},
		{"missing under CI fails", "true", missing, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(CIEnv, tc.ci)
			r := &recTB{TB: t}
			Require(r, "Xvfb (Debian package xvfb)", tc.err)
			if (r.skipped != "") != tc.skipped || (r.failed != "") != tc.failed {
				t.Fatalf("skipped %q, failed %q; want skip %v, fail %v", r.skipped, r.failed, tc.skipped, tc.failed)
			}
			for _, msg := range []string{r.skipped, r.failed} {
				if msg != "" && (!strings.Contains(msg, "Xvfb (Debian package xvfb)") || !strings.Contains(msg, "executable file not found")) {
					t.Errorf("message %q does not name what is missing and why", msg)
				}
			}
		})
	}
}

func TestLookPath(t *testing.T) {
	t.Setenv(CIEnv, "true")
	t.Setenv("PATH", t.TempDir())
	r := &recTB{TB: t}
	if p := LookPath(r, "teeworlds", "teeworlds"); p != "" {
		t.Errorf("LookPath found %q in an empty PATH", p)
	}
	if !strings.Contains(r.failed, "teeworlds (Debian package teeworlds)") {
		t.Errorf("under CI a missing binary fails naming it and its package; got fail %q skip %q", r.failed, r.skipped)
	}
	r = &recTB{TB: t}
	Stat(r, "/nonexistent/teeworlds/maps", "teeworlds-data")
	if !strings.Contains(r.failed, "teeworlds-data") {
		t.Errorf("Stat of a missing path: fail %q", r.failed)
	}
}

func (r *recTB) Errorf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }
func (r *recTB) Logf(format string, a ...any)   { r.skipped = "logged: " + fmt.Sprintf(format, a...) }

func TestGlobAndPartly(t *testing.T) {
	t.Setenv(CIEnv, "true")
	r := &recTB{TB: t}
	if got := Glob(r, filepath.Join(t.TempDir(), "*.map"), "teeworlds-data"); len(got) != 0 || !strings.Contains(r.failed, "teeworlds-data") {
		t.Errorf("Glob of an empty directory under CI: %v, fail %q", got, r.failed)
	}
	r = &recTB{TB: t}
	if Partly(r, "mapres", errors.New("gone")) || !strings.Contains(r.failed, "mapres") {
		t.Errorf("Partly under CI with a missing part: fail %q", r.failed)
	}
	t.Setenv(CIEnv, "")
	r = &recTB{TB: t}
	if Partly(r, "mapres", errors.New("gone")) || r.failed != "" || !strings.Contains(r.skipped, "not checked here: needs mapres") {
		t.Errorf("Partly outside CI: fail %q, log %q", r.failed, r.skipped)
	}
	if !Partly(r, "mapres", nil) {
		t.Error("Partly with the part present returned false")
	}
}

func TestMissingf(t *testing.T) {
	for _, ci := range []string{"true", ""} {
		t.Setenv(CIEnv, ci)
		r := &recTB{TB: t}
		Missingf(r, "the paced socket: %v", errors.New("ENOPROTOOPT"))
		got := r.failed + r.skipped
		if (r.failed != "") != (ci == "true") || !strings.Contains(got, "the paced socket: ENOPROTOOPT") {
			t.Errorf("CI=%q: fail %q, skip %q", ci, r.failed, r.skipped)
		}
	}
}
