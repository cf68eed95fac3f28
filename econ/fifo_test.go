package econ_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/econ"
)

// writeFIFO opens the pipe for writing (it does not block: the FIFO holds
// it open), writes s and closes it, as `echo ... > PATH` does.
func writeFIFO(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitLines waits until rec has n lines.
func waitLines(t *testing.T, rec *recorder, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(rec.got()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("lines run: %q, want %d", rec.got(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return rec.got()
}

// TestFIFO: the pipe is created; lines of several writers in turn are run
// in order ("\r\n" accepted, blank lines and too long lines skipped, a
// writer's last line without newline run when it closes); a path that is
// not a pipe is refused; cancelling ends Run at once, also while a writer
// holds the pipe open; waiting for the next writer ends at once too.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "input")
	rec := &recorder{}
	p, err := econ.OpenFIFO(path, rec.exec, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("pipe not created as 0600: %v %v", st.Mode(), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()

	writeFIFO(t, path, "say one\r\n\n   \n"+strings.Repeat("x", econ.MaxFIFOLine+1)+"\nstatus\n")
	waitLines(t, rec, 2)
	// the last line of a writer ends with it, newline or not
	writeFIFO(t, path, "say from the second writer\nsay no newline")
	waitLines(t, rec, 4)
	writeFIFO(t, path, "say third\n")
	want := []string{"say one", "status", "say from the second writer", "say no newline", "say third"}
	if got := waitLines(t, rec, len(want)); !slices.Equal(got, want) {
		t.Fatalf("run %q, want %q", got, want)
	}
	// a writer that keeps the pipe open: cancelling ends the wait for data
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString("say held\n"); err != nil {
		t.Fatal(err)
	}
	want = append(want, "say held")
	if got := waitLines(t, rec, len(want)); !slices.Equal(got, want) {
		t.Fatalf("run %q, want %q", got, want)
	}
	t0 := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not end")
	}
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("Run took %v to end", d)
	}

	// the pipe stays and is opened again
	p2, err := econ.OpenFIFO(path, rec.exec, zerolog.Nop())
	if err != nil {
		t.Fatalf("reopening an existing pipe: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go p2.Run(ctx2)
	writeFIFO(t, path, "again\n")
	if got := waitLines(t, rec, len(want)+1); got[len(want)] != "again" {
		t.Fatalf("after reopening: %q", got)
	}

	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := econ.OpenFIFO(regular, rec.exec, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "not a named pipe") {
		t.Fatalf("regular file: %v", err)
	}
	if _, err := econ.OpenFIFO(filepath.Join(dir, "no", "such", "dir"), rec.exec, zerolog.Nop()); err == nil {
		t.Fatal("pipe in a missing directory: no error")
	}
}

// runFIFO runs a FIFO at a new path until the test ends.
func runFIFO(t *testing.T) (string, *recorder) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input")
	rec := &recorder{}
	p, err := econ.OpenFIFO(path, rec.exec, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go p.Run(ctx)
	return path, rec
}

// TestFIFOWritersBackToBack: writers that open, write and close the pipe
// one right after the other, as a script running echo in a loop does, are
// never refused (no EPIPE between two writers) and none of their lines is
// lost or reordered.
func TestFIFOWritersBackToBack(t *testing.T) {
	path, rec := runFIFO(t)
	const n = econ.FIFOLinesPerSecond // one burst of the rate
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("say writer %d", i)
		writeFIFO(t, path, want[i]+"\n")
	}
	if got := waitLines(t, rec, n); !slices.Equal(got, want) {
		t.Fatalf("run %q, want %q", got, want)
	}
}

// TestFIFORate: a script writing faster than FIFOLinesPerSecond is slowed
// down (after a burst of as many), not dropped.
func TestFIFORate(t *testing.T) {
	path, rec := runFIFO(t)
	const n = 2*econ.FIFOLinesPerSecond + 50
	var b strings.Builder
	for i := range n {
		b.WriteString("say " + strings.Repeat("y", i%7) + "\n")
	}
	start := time.Now()
	wrote := make(chan error, 1)
	go func() { wrote <- os.WriteFile(path, []byte(b.String()), 0o600) }()
	time.Sleep(500 * time.Millisecond)
	got, el := len(rec.got()), time.Since(start)
	if bound := econ.FIFOLinesPerSecond + int(el.Seconds()*econ.FIFOLinesPerSecond) + 2; got > bound {
		t.Errorf("%d lines run in the first %v; the bound is %d/s after a burst of as many", got, el, econ.FIFOLinesPerSecond)
	}
	waitLines(t, rec, n)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Duration(n-econ.FIFOLinesPerSecond)*time.Second/econ.FIFOLinesPerSecond*9/10 {
		t.Errorf("%d lines in %v: faster than the rate", n, d)
	}
}
