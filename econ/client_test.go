package econ_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/econ"
)

// frameEnd is the 3 bytes after every econ line (the 0.7.5 server on Unix).
const frameEnd = "\n\x00\x00"

// timePrefix matches the time and system of a console line.
var timePrefix = regexp.MustCompile(`^\[(\d\d:\d\d:\d\d)\]\[([^\]]+)\]: `)

// eclient is a raw TCP econ client for the tests.
type eclient struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

// dialEcon connects to addr from the loopback address src ("" = default).
func dialEcon(t *testing.T, addr netip.AddrPort, src string) *eclient {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	nc, err := d.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &eclient{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// frame reads one line with its 3-byte ending and returns it whole.
func (c *eclient) frame(timeout time.Duration) (string, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
	s, err := c.r.ReadString('\n')
	if err != nil {
		return s, err
	}
	var z [2]byte
	if _, err := io.ReadFull(c.r, z[:]); err != nil {
		return s, err
	}
	return s + string(z[:]), nil
}

// expect reads the next line and requires exactly text + "\n\0\0".
func (c *eclient) expect(text string) {
	c.t.Helper()
	f, err := c.frame(5 * time.Second)
	if err != nil || f != text+frameEnd {
		c.t.Fatalf("got %q (%v), want %q", f, err, text+frameEnd)
	}
}

// await reads lines until one, without its time prefix, matches re; it
// returns that line whole (with the prefix and the ending) and checks the
// framing and the prefix of every line it reads.
func (c *eclient) await(re *regexp.Regexp) string {
	c.t.Helper()
	seen := c.awaitAll(re)
	return seen[len(seen)-1]
}

// awaitAll is await returning every line it read, the match last.
func (c *eclient) awaitAll(re *regexp.Regexp) []string {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var seen []string
	for {
		f, err := c.frame(time.Until(deadline))
		if err != nil {
			c.t.Fatalf("waiting for %v: %v; skipped %q", re, err, seen)
		}
		seen = append(seen, f)
		if !strings.HasSuffix(f, frameEnd) {
			c.t.Fatalf("line %q does not end with \\n\\0\\0", f)
		}
		body := strings.TrimSuffix(f, frameEnd)
		m := timePrefix.FindStringSubmatch(body)
		if m == nil {
			c.t.Fatalf("line %q lacks the [HH:MM:SS][system]: prefix", body)
		}
		if re.MatchString("[" + m[2] + "]: " + body[len(m[0]):]) {
			return seen
		}
	}
}

// awaitText waits for the line whose text after the time prefix is exactly s.
func (c *eclient) awaitText(s string) string {
	c.t.Helper()
	return c.await(regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$"))
}

func (c *eclient) send(s string) {
	c.t.Helper()
	if _, err := c.nc.Write([]byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

// closed reads the rest of the stream and requires the peer to close it
// within timeout; it returns what came.
func (c *eclient) closed(timeout time.Duration) string {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
	b, err := io.ReadAll(c.r)
	if err != nil {
		c.t.Fatalf("not closed by the server: %v (got %q)", err, b)
	}
	return string(b)
}

// login reads the prompt, sends the password and reads the answers.
func (c *eclient) login(pw string) {
	c.t.Helper()
	c.expect("Enter password:")
	c.send(pw + "\n")
	c.expect("Authentication successful. External console access granted.")
}

// recorder is an Exec function that records the lines.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) exec(_ context.Context, line string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	return nil
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// startEcon runs an econ on a free loopback port; it stops with the test
// and must stop within the shutdown bound.
func startEcon(t *testing.T, o econ.Options) *econ.Server {
	t.Helper()
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Password == "" {
		o.Password = "secret"
	}
	if o.AuthTimeout == 0 {
		o.AuthTimeout = 30 * time.Second
	}
	if o.Exec == nil {
		o.Exec = (&recorder{}).exec
	}
	e, err := econ.Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("econ did not stop within 5 s")
		}
	})
	return e
}

// logCounter counts the log lines by message (a zerolog hook).
type logCounter struct {
	mu     sync.Mutex
	n      map[string]int
	levels map[string]zerolog.Level
}

// Run implements zerolog.Hook.
func (c *logCounter) Run(_ *zerolog.Event, level zerolog.Level, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n, c.levels = map[string]int{}, map[string]zerolog.Level{}
	}
	c.n[msg]++
	c.levels[msg] = level
}

// level is the level of the last line msg was logged at.
func (c *logCounter) level(msg string) zerolog.Level {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.levels[msg]
}

func (c *logCounter) count(msg string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[msg]
}

func (c *logCounter) logger() zerolog.Logger { return zerolog.New(io.Discard).Hook(c) }
