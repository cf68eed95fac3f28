package econ

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// feed gives the chunks to a fresh reader and collects the lines and the
// line ending after each line.
func feed(chunks ...string) (lines []string, endings []string, r *lineReader) {
	r = newLineReader()
	for _, ch := range chunks {
		n := copy(r.Space(), ch)
		r.Commit(n)
		for {
			l, ok := r.Next()
			if !ok {
				break
			}
			e := r.Ending()
			lines = append(lines, l)
			endings = append(endings, string(e[:]))
		}
	}
	return lines, endings, r
}

func TestLineReader(t *testing.T) {
	for _, tt := range []struct {
		name    string
		chunks  []string
		lines   []string
		endings []string // the ending in use when each line was taken
		final   string   // the ending at the end
	}{
		{"lf", []string{"a\nb\n"}, []string{"a", "b"}, []string{"\n\x00\x00", "\n\x00\x00"}, "\n\x00\x00"},
		// The ending is learnt from the run that follows the first line:
		// the reply to the first line still goes out with the default.
		{"crlf", []string{"pw\r\n", "cmd\r\n"}, []string{"pw", "cmd"}, []string{"\n\x00\x00", "\r\n\x00"}, "\r\n\x00"},
		{"cr", []string{"x\ry\r"}, []string{"x", "y"}, []string{"\n\x00\x00", "\r\x00\x00"}, "\r\x00\x00"},
		{"lfcr", []string{"x\n\ry\n"}, []string{"x", "y"}, []string{"\n\x00\x00", "\n\r\x00"}, "\n\r\x00"},
		// "\r\r" is not a pair: only the first character is taken
		{"crcr", []string{"x\r\ry\r"}, []string{"x", "y"}, []string{"\n\x00\x00", "\r\x00\x00"}, "\r\x00\x00"},
		{"split line", []string{"sta", "tus", "\n"}, []string{"status"}, []string{"\n\x00\x00"}, "\n\x00\x00"},
		{"leading endings and blank runs", []string{"\n\n\r\na\n\n\nb\n"}, []string{"a", "b"}, []string{"\n\x00\x00", "\n\x00\x00"}, "\n\x00\x00"},
		{"control characters become spaces", []string{"a\tb\x00c\x1fd\n"}, []string{"a b c d"}, []string{"\n\x00\x00"}, "\n\x00\x00"},
		{"no ending yet", []string{"abc"}, nil, nil, "\n\x00\x00"},
		{"utf8 kept", []string{"say héllo\n"}, []string{"say héllo"}, []string{"\n\x00\x00"}, "\n\x00\x00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lines, endings, r := feed(tt.chunks...)
			if strings.Join(lines, "|") != strings.Join(tt.lines, "|") {
				t.Errorf("lines %q, want %q", lines, tt.lines)
			}
			if strings.Join(endings, "|") != strings.Join(tt.endings, "|") {
				t.Errorf("endings %q, want %q", endings, tt.endings)
			}
			if e := r.Ending(); string(e[:]) != tt.final {
				t.Errorf("final ending %q, want %q", e[:], tt.final)
			}
		})
	}
}

// TestLineReaderBounds: a line of MaxLineLen bytes is taken; a longer one
// never is, and the buffer fills so the connection is dropped.
func TestLineReaderBounds(t *testing.T) {
	long := strings.Repeat("x", MaxLineLen)
	lines, _, r := feed(long+"\n", "next\n")
	if len(lines) != 2 || lines[0] != long || lines[1] != "next" || r.Full() {
		t.Fatalf("longest line: got %d lines, full %v", len(lines), r.Full())
	}
	// one byte more: with its ending it fills the buffer and is not taken
	lines, _, r = feed(strings.Repeat("y", MaxLineLen+1) + "\n")
	if len(lines) != 0 || !r.Full() {
		t.Fatalf("too long line: %d lines, full %v", len(lines), r.Full())
	}
	// a long line arriving in parts stalls until the buffer is full
	lines, _, r = feed(strings.Repeat("y", 1000), strings.Repeat("y", 399))
	if len(lines) != 0 || r.Full() {
		t.Fatalf("partial long line: %d lines, full %v", len(lines), r.Full())
	}
	r.Commit(copy(r.Space(), "\nmore\n"))
	if _, ok := r.Next(); ok || !r.Full() {
		t.Fatalf("stuck line: the buffer should be full (n=%d)", r.n)
	}
	// no line ending at all: full after InputBufferSize bytes
	_, _, r = feed(strings.Repeat("z", InputBufferSize))
	if !r.Full() {
		t.Fatal("unterminated input did not fill the buffer")
	}
}

func TestSession(t *testing.T) {
	s := session{password: "pw"}
	want := func(st step, reply, drop string, authed, wrong, ban bool) {
		t.Helper()
		if st.reply != reply || st.drop != drop || st.authed != authed || st.wrong != wrong || st.ban != ban {
			t.Fatalf("step %+v; want reply %q drop %q authed %v wrong %v ban %v", st, reply, drop, authed, wrong, ban)
		}
	}
	want(s.line("nope"), "Wrong password 1/3.", "", false, true, false)
	want(s.line("pw "), "Wrong password 2/3.", "", false, true, false)
	want(s.line("pw"), "Authentication successful. External console access granted.", "", true, false, false)
	if st := s.line("status"); st.cmd != "status" || st.drop != "" {
		t.Fatalf("command step %+v", st)
	}
	if st := s.line(" logout "); !st.logout || st.drop != "Logout" || st.cmd != " logout " {
		t.Fatalf("logout step %+v", st)
	}
	if st := s.line("status"); st != (step{}) {
		t.Fatalf("line after logout: %+v", st)
	}

	s = session{password: "pw"}
	s.line("a")
	s.line("b")
	want(s.line("c"), "Wrong password 3/3.", "Too many authentication tries", false, true, true)
	if st := s.line("pw"); st != (step{}) {
		t.Fatalf("line after the third wrong password: %+v", st)
	}
}

func TestBans(t *testing.T) {
	var l banList
	now := time.Unix(1000, 0)
	ip := netip.MustParseAddr("127.0.0.2")
	if got := l.add(netip.MustParseAddr("127.0.0.1"), 5*time.Minute, "r", now); got != "ban failed (localhost)" {
		t.Errorf("localhost: %q", got)
	}
	if got := l.add(netip.MustParseAddr("::1"), 5*time.Minute, "r", now); got != "ban failed (localhost)" {
		t.Errorf("::1: %q", got)
	}
	if got := l.add(ip, 5*time.Minute, "Too many authentication tries", now); got != "banned '127.0.0.2' for 5 minutes (Too many authentication tries)" {
		t.Errorf("add: %q", got)
	}
	// the ban's own time counts as the last query: no text within 5 s
	if text, banned := l.check(ip, now.Add(3*time.Second)); !banned || text != "" {
		t.Errorf("check at 3 s: %q %v", text, banned)
	}
	if text, banned := l.check(ip, now.Add(6*time.Second)); !banned || text != "" {
		t.Errorf("check at 6 s (3 s after the last): %q %v", text, banned)
	}
	if text, banned := l.check(ip, now.Add(12*time.Second)); !banned || text != "You have been banned for 5 minutes (Too many authentication tries)" {
		t.Errorf("check at 12 s: %q %v", text, banned)
	}
	if text, banned := l.check(ip, now.Add(4*time.Minute+30*time.Second)); !banned || text != "You have been banned for 1 minute (Too many authentication tries)" {
		t.Errorf("check at 4:30: %q %v", text, banned)
	}
	if _, banned := l.check(ip, now.Add(5*time.Minute)); banned || l.len() != 0 {
		t.Errorf("expired ban still there")
	}
	if got := l.add(ip, time.Minute, "x", now); got != "banned '127.0.0.2' for 1 minute (x)" {
		t.Errorf("re-add: %q", got)
	}
	if got := l.add(ip, 3*time.Minute, "y", now); got != "'127.0.0.2' banned for 3 minutes (y)" {
		t.Errorf("update: %q", got)
	}
	for i := range MaxBans + 10 {
		l.add(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), time.Minute, "f", now)
	}
	if l.len() != MaxBans {
		t.Errorf("%d bans, bound %d", l.len(), MaxBans)
	}
	if got := l.add(netip.MustParseAddr("192.0.2.1"), time.Minute, "f", now); got != "ban failed (full banlist)" {
		t.Errorf("full: %q", got)
	}
}

func TestFIFOSplitter(t *testing.T) {
	var s fifoSplitter
	var got []string
	in := []byte("say a\r\n\n" + strings.Repeat("x", MaxFIFOLine+5) + "\nstatus\npart")
	for {
		line, tooLong, more := s.next(&in)
		if !more {
			break
		}
		if tooLong {
			got = append(got, "<long>")
			continue
		}
		got = append(got, string(line))
	}
	in = []byte("ial\n")
	line, _, more := s.next(&in)
	got = append(got, string(line))
	if want := "say a||<long>|status|partial"; strings.Join(got, "|") != want || !more {
		t.Fatalf("got %q, want %q", strings.Join(got, "|"), want)
	}
	// the end of the input ends the last line, too long or not
	for _, tt := range []struct {
		in      string
		line    string
		tooLong bool
		more    bool
	}{
		{"", "", false, false},
		{"last\r", "last", false, true},
		{strings.Repeat("z", MaxFIFOLine+1), "", true, true},
	} {
		in := []byte(tt.in)
		if _, _, more := s.next(&in); more {
			t.Fatalf("%q: a line before the end", tt.in)
		}
		line, tooLong, more := s.end()
		if string(line) != tt.line || tooLong != tt.tooLong || more != tt.more {
			t.Errorf("end of %q: %q %v %v", tt.in, line, tooLong, more)
		}
		if _, _, more := s.end(); more {
			t.Errorf("end of %q twice", tt.in)
		}
	}
}
