package main

import (
	"strings"
	"testing"
)

// ev builds go test -json lines: "ACTION PKG TEST [OUTPUT]", with "-" for
// an empty test name.
func ev(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		f := strings.SplitN(l, " ", 4)
		action, pkg, test := f[0], f[1], f[2]
		if test == "-" {
			test = ""
		}
		out := ""
		if len(f) == 4 {
			out = f[3] + "\n"
		}
		field := "Package"
		if strings.HasPrefix(action, "build-") {
			field = "ImportPath"
		}
		b.WriteString(`{"Action":"` + action + `","` + field + `":"` + pkg + `","Test":"` + test + `","Output":` + quote(out) + "}\n")
	}
	return b.String()
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestRun(t *testing.T) {
	allow := allowlist{"p/amd64 TestGOAMD64": "GOAMD64=v3 unavailable on this CPU"}
	for _, tc := range []struct {
		name  string
		in    string
		ok    bool
		want  []string // substrings of the output, in order
		never []string // substrings that must not appear
	}{
		{"all pass", ev("run p/a TestA", "output p/a TestA === RUN TestA", "output p/a TestA     a_test.go:9: chatter", "pass p/a TestA", "pass p/a -"),
			true, []string{"ok   p/a", "1 passed   0 failed   0 skipped", "ci: 1 passed, 0 failed, 0 skipped (allowlisted)"}, []string{"chatter"}},
		{"a failure shows the test's output", ev("run p/a TestA", "run p/a TestB", "output p/a TestB     b_test.go:3: got 2, want 3", "fail p/a TestB", "pass p/a TestA", "fail p/a -"),
			false, []string{"--- FAIL: p/a TestB", "got 2, want 3", "FAIL p/a", "ci: 1 passed, 1 failed, 0 skipped"}, []string{"package output"}},
		{"an allowlisted skip", ev("run p/amd64 TestGOAMD64", "output p/amd64 TestGOAMD64     x_test.go:5: no AVX2", "skip p/amd64 TestGOAMD64", "run p/amd64 TestB", "pass p/amd64 TestB", "pass p/amd64 -"),
			true, []string{"SKIP p/amd64 TestGOAMD64: x_test.go:5: no AVX2 (allowlisted: GOAMD64=v3 unavailable on this CPU)", "ci: 1 passed, 0 failed, 1 skipped (allowlisted)"}, nil},
		{"a skip not on the allowlist fails", ev("run p/e2e TestRealClient", "output p/e2e TestRealClient     e2e_test.go:50: needs Xvfb", "skip p/e2e TestRealClient", "run p/e2e TestB", "pass p/e2e TestB", "pass p/e2e -"),
			false, []string{"SKIP p/e2e TestRealClient: e2e_test.go:50: needs Xvfb (NOT ALLOWLISTED)", "ci: 1 passed, 0 failed, 1 skipped (1 not on the allowlist)"}, nil},
		{"a skipped subtest is named by its full name", ev("run p/a TestA", "run p/a TestA/sub", "skip p/a TestA/sub", "pass p/a TestA", "pass p/a -"),
			false, []string{"SKIP p/a TestA/sub", "NOT ALLOWLISTED"}, nil},
		{"a panic fails the package with its output", ev("run p/a TestA", "output p/a TestA === RUN TestA", "output p/a - panic: runtime error: index out of range", "fail p/a -"),
			false, []string{"FAIL p/a", "--- UNFINISHED: p/a TestA", "--- FAIL: p/a (package output)", "index out of range", "ci: 0 passed, 1 failed"}, nil},
		{"a build failure", ev("build-output p/b - b.go:3:1: syntax error", "build-fail p/b -", "output p/b - FAIL p/b [build failed]", "fail p/b -", "run p/a TestA", "pass p/a TestA", "pass p/a -"),
			false, []string{"FAIL p/b [build failed]", "b.go:3:1: syntax error", "ci: 1 passed, 2 failed"}, nil},
		{"nothing ran", "", false, []string{"nothing ran", "ci: 0 passed, 0 failed, 0 skipped"}, nil},
		{"packages without test files are not listed", ev("output p/n - ?   \tp/n\t[no test files]", "skip p/n -", "run p/a TestA", "pass p/a TestA", "pass p/a -"),
			true, []string{"ok   p/a", "ci: 1 passed"}, []string{"p/n"}},
		{"go test killed mid-package", ev("run p/a TestA", "output p/a TestA     waiting", "run p/b TestB", "pass p/b TestB", "pass p/b -"),
			false, []string{"FAIL p/a: the package never reported its end", "--- UNFINISHED: p/a TestA", "waiting", "1 failed"}, nil},
		{"lines that are not JSON are shown", "# p/c\nc.go:1: vet says no\n" + ev("run p/a TestA", "pass p/a TestA", "pass p/a -"),
			true, []string{"c.go:1: vet says no", "ci: 1 passed"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			ok := run(strings.NewReader(tc.in), &out, allow)
			got := out.String()
			if ok != tc.ok {
				t.Errorf("run = %v, want %v; output:\n%s", ok, tc.ok, got)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("output lacks %q (in order); output:\n%s", w, got)
					break
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tc.never {
				if strings.Contains(got, n) {
					t.Errorf("output shows %q; output:\n%s", n, got)
				}
			}
			if lines := strings.Split(strings.TrimSpace(got), "\n"); !strings.HasPrefix(lines[len(lines)-1], "ci: ") {
				t.Errorf("last line %q is not the ci: count", lines[len(lines)-1])
			}
		})
	}
}

func TestParseAllowlist(t *testing.T) {
	a, err := parseAllowlist(strings.NewReader("# comment\n\ntwserver/server TestPaced  no paced reads on this kernel\n"))
	if err != nil || a["twserver/server TestPaced"] != "no paced reads on this kernel" || len(a) != 1 {
		t.Fatalf("parse: %v %v", a, err)
	}
	for _, bad := range []string{
		"twserver/server TestPaced\n",      // no reason
		"twserver/server\n",                // no test
		"p T reason one\np T reason two\n", // twice
	} {
		if _, err := parseAllowlist(strings.NewReader(bad)); err == nil {
			t.Errorf("parseAllowlist(%q) accepted it", bad)
		}
	}
}

func TestStaleAllowlistEntryIsNoted(t *testing.T) {
	var out strings.Builder
	ok := run(strings.NewReader(ev("run p/a TestA", "pass p/a TestA", "pass p/a -")), &out, allowlist{"p/a TestGone": "was skipped once"})
	if !ok || !strings.Contains(out.String(), "note: allowlisted skip did not happen: p/a TestGone") {
		t.Errorf("ok %v, output:\n%s", ok, out.String())
	}
}
