package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	allowPath := flag.String("allow", "", "allowlist of skips: PACKAGE TEST REASON per line")
	flag.Parse()
	allow := allowlist{}
	if *allowPath != "" {
		f, err := os.Open(*allowPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
		allow, err = parseAllowlist(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %s: %v\n", *allowPath, err)
			os.Exit(2)
		}
	}
	if !run(os.Stdin, os.Stdout, allow) {
		os.Exit(1)
	}
}

// maxOutputLines bounds the lines kept per test (and per package): a
// failing test shows its last maxOutputLines lines.
const maxOutputLines = 2000

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output, build-fail
}

// allowlist maps "PACKAGE TEST" to the reason the skip is allowed.
type allowlist map[string]string

// parseAllowlist reads PACKAGE TEST REASON lines.
func parseAllowlist(r io.Reader) (allowlist, error) {
	a := allowlist{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: want PACKAGE TEST REASON, got %q", n, line)
		}
		key := f[0] + " " + f[1]
		if _, dup := a[key]; dup {
			return nil, fmt.Errorf("line %d: %s listed twice", n, key)
		}
		a[key] = strings.Join(f[2:], " ")
	}
	return a, sc.Err()
}

// pkgState is what is known of one package while its events come in.
type pkgState struct {
	passed, failed, skipped int
	out                     map[string][]string // test ("" for the package) -> output kept
	running                 []string            // tests started and not yet ended, in order
}

// summary collects the events of a whole run.
type summary struct {
	w          io.Writer
	allow      allowlist
	pkgs       map[string]*pkgState
	build      map[string][]string // import path -> build output
	passed     int
	failed     int // failed tests, failed packages without a failed test, build failures
	skips      []skip
	usedAllow  map[string]bool
	otherLines int
}

type skip struct {
	pkg, test, reason string
	allowed           bool
}

func newSummary(w io.Writer, allow allowlist) *summary {
	return &summary{w: w, allow: allow, pkgs: map[string]*pkgState{}, build: map[string][]string{}, usedAllow: map[string]bool{}}
}

func keep(lines []string, s string) []string {
	if len(lines) >= maxOutputLines {
		lines = append(lines[:0:0], lines[len(lines)-maxOutputLines/2:]...)
		lines[0] = fmt.Sprintf("[... earlier output cut: %d lines kept]\n", maxOutputLines/2)
	}
	return append(lines, s)
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{out: map[string][]string{}}
		s.pkgs[name] = p
	}
	return p
}

// line takes one line of input: an event, or text that is not one (shown
// as it is).
func (s *summary) line(b []byte) {
	var e event
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil {
		if len(strings.TrimSpace(string(b))) > 0 {
			s.otherLines++
			fmt.Fprintf(s.w, "%s\n", b)
		}
		return
	}
	s.event(e)
}

func (s *summary) event(e event) {
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = keep(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		s.failed++
		fmt.Fprintf(s.w, "FAIL %s [build failed]\n%s", e.ImportPath, strings.Join(s.build[e.ImportPath], ""))
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		s.pkgEvent(e, p)
		return
	}
	switch e.Action {
	case "run":
		p.running = append(p.running, e.Test)
	case "output":
		p.out[e.Test] = keep(p.out[e.Test], e.Output)
	case "pass":
		p.passed++
		s.passed++
		s.end(p, e.Test)
	case "fail":
		p.failed++
		s.failed++
		fmt.Fprintf(s.w, "--- FAIL: %s %s (%.2fs)\n%s", e.Package, e.Test, e.Elapsed, strings.Join(p.out[e.Test], ""))
		s.end(p, e.Test)
	case "skip":
		p.skipped++
		key := e.Package + " " + e.Test
		_, ok := s.allow[key]
		if ok {
			s.usedAllow[key] = true
		}
		s.skips = append(s.skips, skip{e.Package, e.Test, skipReason(p.out[e.Test]), ok})
		s.end(p, e.Test)
	}
}

// end forgets a test that ended.
func (s *summary) end(p *pkgState, test string) {
	delete(p.out, test)
	if i := slices.Index(p.running, test); i >= 0 {
		p.running = slices.Delete(p.running, i, i+1)
	}
}

// pkgEvent handles the package's own output and its end.
func (s *summary) pkgEvent(e event, p *pkgState) {
	switch e.Action {
	case "output":
		p.out[""] = keep(p.out[""], e.Output)
		return
	case "pass", "fail", "skip":
	default:
		return
	}
	if e.Action == "skip" && p.passed+p.failed+p.skipped == 0 {
		delete(s.pkgs, e.Package) // no test files
		return
	}
	status := "ok  "
	if e.Action == "fail" {
		status = "FAIL"
	}
	fmt.Fprintf(s.w, "%s %-40s %4d passed %3d failed %3d skipped  %s\n", status, e.Package,
		p.passed, p.failed, p.skipped, (time.Duration(e.Elapsed*1000) * time.Millisecond).String())
	if e.Action == "fail" {
		// A panic, a timeout or a failing TestMain: the package's output
		// and that of the tests still running say why.
		for _, t := range p.running {
			fmt.Fprintf(s.w, "--- UNFINISHED: %s %s\n%s", e.Package, t, strings.Join(p.out[t], ""))
		}
		if p.failed == 0 || len(p.running) > 0 {
			s.failed++
			fmt.Fprintf(s.w, "--- FAIL: %s (package output)\n%s", e.Package, strings.Join(p.out[""], ""))
		}
	}
	p.out, p.running = nil, nil
}

// skipReason is the message a test skipped with: its output without the
// === and --- lines the test runner adds.
func skipReason(out []string) string {
	var r []string
	for _, l := range out {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		r = append(r, t)
	}
	if len(r) > 3 {
		r = r[len(r)-3:]
	}
	return strings.Join(r, " | ")
}

// finish prints the skips and the final line and reports whether the run
// passed.
func (s *summary) finish() bool {
	for name, p := range s.pkgs { // packages whose end never came (go test killed)
		if p.out != nil && p.passed+p.failed+p.skipped+len(p.running) > 0 {
			s.failed++
			fmt.Fprintf(s.w, "FAIL %s: the package never reported its end\n", name)
			for _, t := range p.running {
				fmt.Fprintf(s.w, "--- UNFINISHED: %s %s\n%s", name, t, strings.Join(p.out[t], ""))
			}
		}
	}
	notAllowed := 0
	if len(s.skips) > 0 {
		fmt.Fprintf(s.w, "skipped tests:\n")
	}
	for _, k := range s.skips {
		if k.allowed {
			fmt.Fprintf(s.w, "  SKIP %s %s: %s (allowlisted: %s)\n", k.pkg, k.test, k.reason, s.allow[k.pkg+" "+k.test])
		} else {
			notAllowed++
			fmt.Fprintf(s.w, "  SKIP %s %s: %s (NOT ALLOWLISTED)\n", k.pkg, k.test, k.reason)
		}
	}
	var stale []string
	for key := range s.allow {
		if !s.usedAllow[key] {
			stale = append(stale, key)
		}
	}
	slices.Sort(stale)
	for _, key := range stale {
		fmt.Fprintf(s.w, "note: allowlisted skip did not happen: %s\n", key)
	}
	ok := s.failed == 0 && notAllowed == 0 && s.passed > 0
	tail := fmt.Sprintf("%d skipped (allowlisted)", len(s.skips))
	if notAllowed > 0 {
		tail = fmt.Sprintf("%d skipped (%d not on the allowlist)", len(s.skips), notAllowed)
	}
	if s.passed == 0 {
		fmt.Fprintf(s.w, "ci: no test passed: nothing ran\n")
	}
	fmt.Fprintf(s.w, "ci: %d passed, %d failed, %s\n", s.passed, s.failed, tail)
	return ok
}

// run summarises the go test -json stream r on w and reports whether the
// run passed.
func run(r io.Reader, w io.Writer, allow allowlist) bool {
	s := newSummary(w, allow)
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			s.line([]byte(strings.TrimRight(string(b), "\r\n")))
		}
		if err != nil {
			break
		}
	}
	return s.finish()
}
