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
	// fifoRetry is the pause before opening the FIFO again after an error.
	fifoRetry = time.Second
)

// FIFO reads console commands from a named pipe, one per line, like
// DDNet's sv_input_fifo: `echo "say hello" > PATH`. The pipe is created
// (mode 0600) when missing; a path that exists and is not a named pipe is an
// error. Run holds the pipe open for reading the whole time, so a writer's
// open never waits and nothing a writer wrote is lost or refused between
// writers; it waits in the runtime's poller (no polling) for data, and a
// last line without a newline ends when every writer has closed the pipe.
// (Two writers that follow each other before the first one's close is seen
// share the pipe's stream, as with any reader of a pipe: end lines with a
// newline, as echo does.)
type FIFO struct {
	path  string
	exec  func(ctx context.Context, line string) error
	log   zerolog.Logger
	limit *rate.Limiter
}

// OpenFIFO creates the named pipe at path if missing and checks it is one;
// exec runs a console line in the game loop (server.SubmitConsole).
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
	return &FIFO{path: path, exec: exec, log: log,
		limit: rate.NewLimiter(FIFOLinesPerSecond, FIFOLinesPerSecond)}, nil
}

// Run reads and runs lines until ctx is done, which also ends a wait for
// data at once.
func (p *FIFO) Run(ctx context.Context) {
	p.log.Info().Str("path", p.path).Msg("reading console commands from the input fifo")
	buf := make([]byte, fifoReadSize)
	for ctx.Err() == nil {
		// Non-blocking: the open does not wait for a writer, and the
		// reads wait in the poller.
		f, err := os.OpenFile(p.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			err = p.read(ctx, f, buf)
			_ = f.Close()
		}
		if err == nil || ctx.Err() != nil {
			return
		}
		p.log.Warn().Err(err).Msg("input fifo cannot be read; opening it again")
		select {
		case <-time.After(fifoRetry):
		case <-ctx.Done():
			return
		}
	}
}

// read runs the lines of f until ctx ends (nil) or reading fails.
//
// A read of the pipe gives data, EAGAIN while writers hold it open with
// nothing written, or 0 bytes while no writer holds it. Only data and a
// writer's close wake the poller (not the mere presence of no writer), so a
// 0-byte read after data means the writers are gone: the line they left
// without a newline is run then, and the wait goes on for the next writer.
func (p *FIFO) read(ctx context.Context, f *os.File, buf []byte) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = f.Close() })
	defer stop()
	var (
		sp   fifoSplitter
		n    int
		rerr error
	)
	readOnce := func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), buf)
			if rerr != syscall.EINTR {
				break
			}
		}
		switch {
		case rerr == syscall.EAGAIN:
			return false // writers, no data yet
		case rerr != nil:
			return true
		case n == 0:
			return sp.pending() // no writer: a line left to end, or wait
		}
		return true
	}
	for {
		if err := rc.Read(readOnce); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if rerr != nil {
			return rerr
		}
		rest := buf[:n]
		for {
			line, tooLong, more := sp.next(&rest)
			if !more && n == 0 {
				line, tooLong, more = sp.end()
			}
			if !more {
				break
			}
			if !p.run(ctx, line, tooLong) {
				return nil
			}
		}
	}
}

// run runs one line within the rate; it reports false when ctx ended.
func (p *FIFO) run(ctx context.Context, line []byte, tooLong bool) bool {
	if tooLong {
		p.log.Warn().Int("max", MaxFIFOLine).Msg("input fifo: line too long, skipped")
		return true
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return true
	}
	if p.limit.Wait(ctx) != nil {
		return false
	}
	cmd := string(line)
	p.log.Info().Str("cmd", cmd).Msg("input fifo command")
	if err := p.exec(ctx, cmd); err != nil {
		if ctx.Err() != nil {
			return false
		}
		p.log.Warn().Err(err).Str("cmd", cmd).Msg("input fifo command not run")
	}
	return true
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

// pending reports whether a line without its newline is held.
func (s *fifoSplitter) pending() bool { return s.n > 0 || s.skip }

// end takes the line left without a newline when the input ended.
func (s *fifoSplitter) end() (line []byte, tooLong, more bool) {
	switch {
	case s.skip:
		s.skip, s.n = false, 0
		return nil, true, true
	case s.n > 0:
		line = bytes.TrimSuffix(s.buf[:s.n], []byte{'\r'})
		s.n = 0
		return line, false, true
	}
	return nil, false, false
}
