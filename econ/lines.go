package econ

import (
	"crypto/subtle"
	"strconv"
	"strings"
)

// Input and output bounds of one connection (the reference's buffers).
const (
	// InputBufferSize is the input buffer of a connection
	// (NET_MAX_PACKETSIZE): bytes received but not yet taken as lines. A
	// connection whose buffer is full is dropped with "too weak connection
	// (out of buffer)".
	InputBufferSize = 1400
	// MaxLineLen is the longest input line taken. A longer line is never
	// taken: it stays in the buffer until the buffer is full and the
	// connection is dropped, as in the reference.
	MaxLineLen = InputBufferSize - 2
	// MaxOutputText is the longest output line in bytes before its 3-byte
	// line ending (the reference's 1024-byte send buffer).
	MaxOutputText = 1021
	// MaxAuthTries is the number of wrong passwords after which a
	// connection is dropped (MAX_AUTH_TRIES).
	MaxAuthTries = 3
)

// lineReader splits a connection's input into lines exactly as the
// reference does (CConsoleNetConnection::Recv): lines end at '\r' or '\n';
// runs of line endings between lines are skipped; the first run seen sets
// the line ending of the connection's output (its first character, plus a
// second, different one of '\r'/'\n' if it follows at once); control
// characters in a line become spaces. It does no I/O: read into Space, then
// Commit, then take lines with Next.
type lineReader struct {
	buf      [InputBufferSize]byte
	n        int
	ending   [3]byte
	detected bool
}

// newLineReader returns a reader whose output line ending is the
// reference's default on Unix, "\n\0\0".
func newLineReader() *lineReader { return &lineReader{ending: [3]byte{'\n', 0, 0}} }

// Full reports whether the buffer is full (the connection must be dropped).
func (r *lineReader) Full() bool { return r.n >= len(r.buf) }

// Space is the free part of the buffer to read into.
func (r *lineReader) Space() []byte { return r.buf[r.n:] }

// Commit adds n bytes read into Space.
func (r *lineReader) Commit(n int) { r.n += n }

// Ending is the 3-byte line ending the connection's output uses now.
func (r *lineReader) Ending() [3]byte { return r.ending }

// Next takes the next complete line; ok is false when there is none yet.
func (r *lineReader) Next() (line string, ok bool) {
	if r.n == 0 {
		return "", false
	}
	start := 0
	for isEnd(r.buf[start]) {
		if !r.detected {
			r.ending[0] = r.buf[start]
			if start+1 < r.n && isEnd(r.buf[start+1]) && r.buf[start] != r.buf[start+1] {
				r.ending[1] = r.buf[start+1]
			}
			r.detected = true
		}
		start++
		if start >= r.n {
			r.n = 0
			return "", false
		}
	}
	end := start
	for !isEnd(r.buf[end]) {
		end++
		if end >= r.n {
			r.compact(start)
			return "", false
		}
	}
	if end-start > MaxLineLen {
		r.compact(start)
		return "", false
	}
	b := make([]byte, end-start)
	for i, c := range r.buf[start:end] {
		if c < 32 {
			c = ' '
		}
		b[i] = c
	}
	r.n = copy(r.buf[:], r.buf[end:r.n])
	return string(b), true
}

// compact moves the buffer's content from start to the front.
func (r *lineReader) compact(start int) {
	if start > 0 {
		r.n = copy(r.buf[:], r.buf[start:r.n])
	}
}

func isEnd(c byte) bool { return c == '\r' || c == '\n' }

// Connection states of the login state machine.
const (
	stateConnected = iota // waiting for the password
	stateAuthed           // logged in: lines are commands
	stateClosed           // dropped: nothing more is taken
)

// Texts sent to econ clients (econ.cpp).
const (
	textEnterPassword = "Enter password:"
	textAuthed        = "Authentication successful. External console access granted."
	reasonTooMany     = "Too many authentication tries"
	reasonAuthTimeout = "authentication timeout"
	reasonLogout      = "Logout"
	reasonOutOfBuffer = "too weak connection (out of buffer)"
	reasonClosed      = "remote end closed the connection"
	reasonFailure     = "connection failure"
	reasonSendFailed  = "failed to send packet"
	reasonClosing     = "Closing console"
	textNoFreeSlot    = "no free slot available"
)

// session is the login state machine of one connection (CEcon::Update).
type session struct {
	password string
	state    int
	tries    int
}

// step is what a connection does for one input line.
type step struct {
	reply  string // line to send to this client ("" = none)
	authed bool   // the client has just logged in
	wrong  bool   // a wrong password
	ban    bool   // ban the address (with the drop), when bans are on
	cmd    string // console line to run (logged in); "" = none
	logout bool   // the command was logout: drop with reasonLogout
	drop   string // drop the connection with this reason ("" = keep it)
}

// line runs one input line through the state machine.
func (s *session) line(l string) step {
	switch s.state {
	case stateConnected:
		if subtle.ConstantTimeCompare([]byte(l), []byte(s.password)) == 1 {
			s.state = stateAuthed
			return step{reply: textAuthed, authed: true}
		}
		s.tries++
		st := step{reply: "Wrong password " + strconv.Itoa(s.tries) + "/" + strconv.Itoa(MaxAuthTries) + ".", wrong: true}
		if s.tries >= MaxAuthTries {
			s.state = stateClosed
			st.ban, st.drop = true, reasonTooMany
		}
		return st
	case stateAuthed:
		if name, _, _ := strings.Cut(strings.TrimSpace(l), " "); name == "logout" {
			s.state = stateClosed
			return step{cmd: l, logout: true, drop: reasonLogout}
		}
		return step{cmd: l}
	}
	return step{}
}
