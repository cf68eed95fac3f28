package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsTerminal: the new process of an upgrade reads no console from a
// terminal (its shell takes it back as the old process exits; before, the
// operator's next shell command ran as a console command), and still reads
// a pipe or a file. isTerminal tells them apart: a pseudo-terminal is one,
// a pipe and a reader are not.
func TestIsTerminal(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if !isTerminal(pts) {
		t.Error("a pseudo-terminal is no terminal")
	}
	if isTerminal(r) || isTerminal(strings.NewReader("status\n")) {
		t.Error("a pipe or a reader is a terminal")
	}
}
