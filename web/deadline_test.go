package web

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"
)

// dialRcvBuf dials addr with a receive buffer of n bytes.
func dialRcvBuf(t *testing.T, addr string, n int) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestWriteDeadlines: an answer never read is given up within its write
// deadline, and so is a download never read (its stall bound); a download
// read slowly but steadily, for many times the stall bound, arrives whole,
// where the same reader of a plain answer is cut off at its deadline (the
// positive control of the progress).
func TestWriteDeadlines(t *testing.T) {
	const (
		writeD = 300 * time.Millisecond
		stallD = 300 * time.Millisecond
		size   = 3 << 20
	)
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	ended := make(chan string, 8)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = boundWrites(w, r.URL.Path == "/download", writeD, stallD)
		http.ServeContent(w, r, "x", time.Time{}, bytes.NewReader(body))
		ended <- r.URL.Path
	}))
	ts.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		_ = c.(*net.TCPConn).SetWriteBuffer(32 << 10) // the kernel would take megabytes on loopback
		return ctx
	}
	ts.Start()
	defer ts.Close()
	addr := ts.Listener.Addr().String()
	get := func(c net.Conn, path string) {
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitEnd := func(what string, within time.Duration) {
		t.Helper()
		select {
		case <-ended:
		case <-time.After(within):
			t.Fatalf("%s: the handler still writes after %v", what, within)
		}
	}
	// slowRead reads c at about 32 KiB per 20 ms until it has the body's
	// size (with the head) or the connection ends; it returns the bytes read
	slowRead := func(c net.Conn) int {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		buf := make([]byte, 32<<10)
		n := 0
		for {
			k, err := c.Read(buf)
			n += k
			if err != nil || n >= size {
				return n
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	start := time.Now()
	get(dialRcvBuf(t, addr, 4<<10), "/plain")
	waitEnd("a plain answer never read", writeD+2*time.Second)
	t.Logf("a plain answer never read: given up after %v", time.Since(start))
	start = time.Now()
	get(dialRcvBuf(t, addr, 4<<10), "/download")
	waitEnd("a download never read", stallD+2*time.Second)
	t.Logf("a download never read: given up after %v", time.Since(start))

	c := dialRcvBuf(t, addr, 64<<10)
	get(c, "/download")
	start = time.Now()
	n := slowRead(c)
	took := time.Since(start)
	waitEnd("a slow download", 5*time.Second)
	t.Logf("a slow download: %d bytes in %v", n, took)
	if n < size || took < 3*stallD {
		t.Errorf("a slow download got %d of %d bytes in %v (want the whole file over more than %v)", n, size, took, 3*stallD)
	}
	c = dialRcvBuf(t, addr, 64<<10)
	get(c, "/plain")
	if n := slowRead(c); n >= size {
		t.Errorf("a plain answer read slowly got all %d bytes past its write deadline", n)
	}
	waitEnd("a slow plain answer", 5*time.Second)
}

// TestDeadlineRoutes: the recordings' downloads are the answers whose
// deadline moves on with their progress, the live stream is the one
// counted apart from the requests.
func TestDeadlineRoutes(t *testing.T) {
	a := startGame(t, "routes", "dm")
	h, _ := startWeb(t, Options{}, a)
	for path, want := range map[string]string{
		"/api/games/8303/recordings/game_1.demo":       downloadPattern,
		"/admin/api/games/8303/recordings/game_1.demo": adminDownloadPattern,
		"/api/games/8303/events":                       eventsPattern,
	} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if _, p := h.mux.Handler(r); p != want {
			t.Errorf("%s: pattern %q, want %q", path, p, want)
		}
	}
}
