package econ

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// Bounds of the command FIFO.
const (
	// MaxFIFOLine is the longest FIFO line run (the server's console line
	// bound); a longer line is skipped up to its newline, with a warning.
	MaxFIFOLine = 512
	// FIFOLinesPerSecond bounds the lines taken from the FIFO per second
	// (after a burst of as many): a faster writer waits (the pipe fills),
	// so a script cannot flood the game loop's console queue.
	FIFOLinesPerSecond = 100
	// fifoReadSize is the size of one read from the FIFO.
	fifoReadSize = 4096
	// fifoRetry is the pause before reopening the FIFO after a read error.
	fifoRetry = time.Second
)

// FIFO reads console commands from a named pipe, one per line, like
// DDNet's sv_input_fifo: `echo "say hello" > PATH`. The pipe is created
// (mode 0600) when missing; a path that exists and is not a named pipe is an
// error. It is held open for reading and writing, so writers may come and
// go: each line of each writer is run, in order.
type FIFO struct {
	path  string
	exec  func(ctx context.Context, line string) error
	log   zerolog.Logger
	limit *rate.Limiter
	f     *os.File
}

// OpenFIFO creates the named pipe at path if missing and opens it; exec
// runs a console line in the game loop (server.SubmitConsole).
func OpenFIFO(path string, exec func(ctx context.Context, line string) error, log zerolog.Logger) (*FIFO, error) {
	if err := syscall.Mkfifo(path, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("input fifo %s: %w", path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("input fifo %s: %w", path, err)
	}
	if st.Mode()&fs.ModeNamedPipe == 0 {
		return nil, fmt.Errorf("input fifo %s: exists and is not a named pipe", path)
	}
	// Read-write: opening never blocks, and reads wait for data instead
	// of returning end-of-file whenever no writer has the pipe open.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("input fifo %s: %w", path, err)
	}
	return &FIFO{path: path, exec: exec, log: log, f: f,
		limit: rate.NewLimiter(FIFOLinesPerSecond, FIFOLinesPerSecond)}, nil
}

// Run reads and runs lines until ctx is done; then it closes the pipe
// (which ends a waiting read at once).
func (p *FIFO) Run(ctx context.Context) {
	p.log.Info().Str("path", p.path).Msg("reading console commands from the input fifo")
	f := p.f
	stop := context.AfterFunc(ctx, func() { _ = f.Close() })
	defer func() { stop() }()
	var sp fifoSplitter
	buf := make([]byte, fifoReadSize)
	for ctx.Err() == nil {
		n, err := p.f.Read(buf)
		for rest := buf[:n]; ; {
			line, tooLong, more := sp.next(&rest)
			if !more {
				break
			}
			if tooLong {
				p.log.Warn().Int("max", MaxFIFOLine).Msg("input fifo: line too long, skipped")
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if p.limit.Wait(ctx) != nil {
				return
			}
			cmd := string(line)
			p.log.Info().Str("cmd", cmd).Msg("input fifo command")
			if err := p.exec(ctx, cmd); err != nil {
				if ctx.Err() == nil {
					p.log.Warn().Err(err).Str("cmd", cmd).Msg("input fifo command not run")
				}
				if errors.Is(err, context.Canceled) {
					return
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			// not expected while we hold a write end: reopen after a pause
			p.log.Warn().Err(err).Msg("input fifo read failed; reopening")
			_ = p.f.Close()
			select {
			case <-time.After(fifoRetry):
			case <-ctx.Done():
				return
			}
			stop()
			nf, err := os.OpenFile(p.path, os.O_RDWR, 0)
			if err != nil {
				p.log.Error().Err(err).Msg("input fifo cannot be reopened; commands from it stop")
				return
			}
			p.f = nf
			stop = context.AfterFunc(ctx, func() { _ = nf.Close() })
			sp = fifoSplitter{}
		}
	}
}

// fifoSplitter cuts a byte stream into '\n'-terminated lines of at most
// MaxFIFOLine bytes ("\r\n" accepted), skipping longer ones whole.
type fifoSplitter struct {
	buf  [MaxFIFOLine]byte
	n    int
	skip bool // inside a line that was too long
}

// next takes the next line from *in (advancing it); more is false when *in
// holds no further complete line (its rest is kept for the next call).
// tooLong reports a skipped line.
func (s *fifoSplitter) next(in *[]byte) (line []byte, tooLong, more bool) {
	for len(*in) > 0 {
		c := (*in)[0]
		*in = (*in)[1:]
		if c == '\n' {
			if s.skip {
				s.skip, s.n = false, 0
				return nil, true, true
			}
			line = bytes.TrimSuffix(s.buf[:s.n], []byte{'\r'})
			s.n = 0
			return line, false, true
		}
		if s.skip {
			continue
		}
		if s.n == len(s.buf) {
			s.skip = true
			continue
		}
		s.buf[s.n] = c
		s.n++
	}
	return nil, false, false
}
