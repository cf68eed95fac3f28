package console

import (
	"bufio"
	"io"
	"strings"
)

// ReadLines reads the lines of r (standard input) into out, each trimmed,
// empty ones skipped, at most max bytes each, until r ends or stop closes;
// it closes done when it returns. A game's loop reads out.
func ReadLines(r io.Reader, max int, out chan<- string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, max), max)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		select {
		case out <- line:
		case <-stop:
			return
		}
	}
}
