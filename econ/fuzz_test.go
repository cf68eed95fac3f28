package econ

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// modelLines is the obviously-correct line splitting: segments between
// runs of '\r'/'\n' that are followed by an ending, control characters made
// spaces, stopping at the first segment longer than MaxLineLen (the
// reference never takes it, so nothing after it is taken either).
func modelLines(in []byte) []string {
	var out []string
	for {
		i := bytes.IndexFunc(in, func(r rune) bool { return r != '\r' && r != '\n' })
		if i < 0 {
			return out
		}
		in = in[i:]
		j := bytes.IndexAny(in, "\r\n")
		if j < 0 || j > MaxLineLen {
			return out
		}
		b := make([]byte, j)
		for k, c := range in[:j] {
			if c < 32 {
				c = ' '
			}
			b[k] = c
		}
		out = append(out, string(b))
		in = in[j:]
	}
}

var validEndings = []string{"\n\x00\x00", "\r\x00\x00", "\r\n\x00", "\n\r\x00"}

// FuzzLineReader feeds input in chunks (sizes from cuts) and checks every
// line against the model, the bounds and the line ending.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("secret\r\nstatus\r\n"), []byte{3, 5})
	f.Add([]byte("\n\nsay x\ny"), []byte{1})
	f.Add([]byte(strings.Repeat("a", 1500)+"\n"), []byte{200, 255})
	f.Add([]byte("a\x00b\tc\rd\n\r"), []byte{})
	f.Fuzz(func(t *testing.T, in []byte, cuts []byte) {
		r := newLineReader()
		var lines []string
		rest := in
		for k := 0; len(rest) > 0 && !r.Full(); k++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(n, int(cuts[k%len(cuts)])+1)
			}
			m := copy(r.Space(), rest[:n])
			r.Commit(m)
			rest = rest[m:]
			for {
				l, ok := r.Next()
				if !ok {
					break
				}
				if l == "" || len(l) > MaxLineLen || strings.ContainsFunc(l, func(c rune) bool { return c >= 0 && c < 32 }) {
					t.Fatalf("bad line %q", l)
				}
				lines = append(lines, l)
			}
			if e := r.Ending(); !slices.Contains(validEndings, string(e[:])) {
				t.Fatalf("line ending %q", e[:])
			}
			if r.n < 0 || r.n > InputBufferSize {
				t.Fatalf("buffer fill %d", r.n)
			}
		}
		want := modelLines(in)
		if r.Full() {
			want = want[:min(len(want), len(lines))] // dropped here: a prefix
		}
		if !slices.Equal(lines, want) {
			t.Fatalf("lines %q\nwant %q", lines, want)
		}
	})
}

// FuzzSession runs input lines through the login state machine and checks
// its rules: at most MaxAuthTries wrong passwords, no command before the
// exact password, nothing after a drop, a drop only with a reason.
func FuzzSession(f *testing.F) {
	f.Add([]byte("pw\nstatus\nlogout\nstatus\n"))
	f.Add([]byte("a\nb\nc\npw\n"))
	f.Add([]byte("pw\r\n say x \r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newLineReader()
		s := session{password: "pw"}
		r.Commit(copy(r.Space(), in))
		authed, dropped := false, false
		for {
			l, ok := r.Next()
			if !ok {
				break
			}
			st := s.line(l)
			if dropped && st != (step{}) {
				t.Fatalf("step after the drop: %+v", st)
			}
			if st.authed && (l != "pw" || authed) {
				t.Fatalf("authed by %q (already %v)", l, authed)
			}
			if st.cmd != "" && !authed {
				t.Fatalf("command %q before login", st.cmd)
			}
			if st.wrong && (authed || s.tries > MaxAuthTries) {
				t.Fatalf("wrong password step when authed %v, tries %d", authed, s.tries)
			}
			if st.ban && st.drop != reasonTooMany {
				t.Fatalf("ban without the drop: %+v", st)
			}
			authed = authed || st.authed
			dropped = dropped || st.drop != ""
		}
	})
}
