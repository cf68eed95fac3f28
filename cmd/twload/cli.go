package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"
)

// command is what the three modes of twload (load, hold, flood) share on
// their command line: the name their messages start with, the flag set,
// the -addr and -json flags and the exit status of a usage error (2).
type command struct {
	name    string
	stderr  io.Writer
	fs      *flag.FlagSet
	addr    *string
	jsonOut *string
	status  *string
}

// newCommand makes the flag set of mode name with the flags every mode has:
// -addr (with the given help) and -json.
func newCommand(name, addrHelp string, stderr io.Writer) *command {
	c := &command{name: name, stderr: stderr, fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.addr = c.fs.String("addr", "127.0.0.1:8303", addrHelp)
	c.jsonOut = c.fs.String("json", "-", "write the JSON summary to this file (- for stdout)")
	c.status = c.fs.String("status", "auto", "live status line on standard error: auto (when it is a terminal), on, off")
	return c
}

// liveStatus reports whether -status asks for the live status line (auto:
// when standard error is a terminal); ok is false for a bad value.
func (c *command) liveStatus() (live, ok bool) {
	switch *c.status {
	case "on":
		return true, true
	case "auto":
		return isTerminal(os.Stderr), true
	case "off":
		return false, true
	}
	return false, false
}

// statusLine shows line() on one rewritten line of standard error every
// half second, prefixed with the time elapsed and left of total, until
// the returned stop is called (which ends the line). With live false it
// shows nothing.
func (c *command) statusLine(live bool, total time.Duration, line func() string) (stop func()) {
	if !live {
		return func() {}
	}
	start := time.Now()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintln(c.stderr)
				return
			case <-t.C:
			}
			el := time.Since(start)
			fmt.Fprintf(c.stderr, "\r%5.1fs (%.0fs left)  %s\x1b[K", el.Seconds(), max(total-el, 0).Seconds(), line())
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// usage prints a usage error and returns exit status 2.
func (c *command) usage(format string, a ...any) int {
	fmt.Fprintf(c.stderr, c.name+": "+format+"\n", a...)
	return 2
}

// fail prints a run-time error and returns exit status 1.
func (c *command) fail(err error) int {
	fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
	return 1
}

// parse parses args (no positional arguments allowed) and -addr. When ok
// is false the command stops with exit status code: 0 after the usage
// asked for with -h, 2 after a usage error it printed.
func (c *command) parse(args []string) (server netip.AddrPort, code int, ok bool) {
	if err := c.fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return netip.AddrPort{}, 0, false
	} else if err != nil {
		return netip.AddrPort{}, 2, false
	}
	if c.fs.NArg() > 0 {
		return netip.AddrPort{}, c.usage("unexpected arguments %q", c.fs.Args()), false
	}
	server, err := netip.ParseAddrPort(*c.addr)
	if err != nil {
		return netip.AddrPort{}, c.usage("bad -addr: %v", err), false
	}
	return server, 0, true
}

// writeJSON writes v indented to the -json file (- for stdout); 0 on
// success, 1 otherwise.
func (c *command) writeJSON(v any, stdout io.Writer) int {
	out := stdout
	if *c.jsonOut != "-" {
		f, err := os.Create(*c.jsonOut)
		if err != nil {
			return c.fail(err)
		}
		defer f.Close()
		out = f
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return c.fail(err)
	}
	return 0
}
