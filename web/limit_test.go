package web

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/httpserve"
	"twserver/server"
)

// TestBoundConnRawWrite: a connection accepted through the page's
// listener (httpserve.Listener) keeps its socket, so a viewer of the live
// stream writes to it without waiting (rawWrite) where the platform can.
func TestBoundConnRawWrite(t *testing.T) {
	l := httpserve.NewListener(listenLoopback(t), MaxConnsPerAddr, MaxConnections, nil)
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			accepted <- c
		}
	}()
	cli, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	select {
	case c := <-accepted:
		defer c.Close()
		if v := newViewer(c, time.Now()); (v.raw != nil) != canRawWrite {
			t.Errorf("a bounded connection's viewer: raw write %v, want %v", v.raw != nil, canRawWrite)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not accepted")
	}
}

// getFrom does a GET of u from the loopback address src; it returns the
// status and the Retry-After header.
func getFrom(t *testing.T, src, u string) (int, string) {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}).DialContext}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestRequestAndStreamBounds: over the requests in flight or the live
// streams of its address a client gets 503 with Retry-After at once,
// while another address is served; over the total bound everybody does.
func TestRequestAndStreamBounds(t *testing.T) {
	a := startGame(t, "bounds", "dm")
	h, ts := startWeb(t, Options{}, a)
	port := strconv.Itoa(int(a.Addr().Port()))
	k1 := httpserve.AddrKey(netip.MustParseAddr("127.0.0.1"))
	for range MaxRequestsPerAddr {
		h.requests.Acquire(k1, false)
	}
	if st, ra := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusServiceUnavailable || ra != strconv.Itoa(RetryAfter) {
		t.Errorf("over the requests of its address: %d Retry-After %q, want 503 %d", st, ra, RetryAfter)
	}
	if st, _ := getFrom(t, "127.0.0.2", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("another address: %d, want 200", st)
	}
	h.requests.Release(k1)
	if st, _ := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("below the bound again: %d, want 200", st)
	}
	for range MaxRequestsPerAddr - 1 {
		h.requests.Release(k1)
	}

	// streams: MaxStreamsPerAddr real ones from 127.0.0.1, then 503
	events := ts.URL + "/api/games/" + port + "/events"
	for range MaxStreamsPerAddr {
		collectStream(t, events)
	}
	if n, _ := h.streams.Count(k1); n != MaxStreamsPerAddr {
		t.Fatalf("%d streams of 127.0.0.1 counted, want %d", n, MaxStreamsPerAddr)
	}
	if st, ra := getFrom(t, "127.0.0.1", events); st != http.StatusServiceUnavailable || ra != strconv.Itoa(RetryAfter) {
		t.Errorf("a stream over its address's bound: %d Retry-After %q, want 503 %d", st, ra, RetryAfter)
	}
	if st, _ := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("a request while the streams are full: %d, want 200", st)
	}
	// another address gets a stream (it is read, then closed: status 200)
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(events)
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(resp.Body).ReadString('\n'); resp.StatusCode != http.StatusOK || !strings.HasPrefix(line, "event: ") {
		t.Errorf("another address's stream: %d %q", resp.StatusCode, line)
	}
	resp.Body.Close()
	// the total bound: everybody is refused
	h.streams.SetBounds(MaxStreamsPerAddr, MaxStreamsPerAddr)
	if st, _ := getFrom(t, "127.0.0.3", events); st != http.StatusServiceUnavailable {
		t.Errorf("a stream over the total bound: %d, want 503", st)
	}
}

// TestSecurityHeaders: the page is served with its CSP and nosniff.
func TestSecurityHeaders(t *testing.T) {
	a := startGame(t, "headers", "dm")
	_, ts := startWeb(t, Options{}, a)
	for _, p := range []string{"/", "/app.js", "/style.css", "/api/games/1"} { // (no game on port 1: an error answer)
		resp, err := ts.Client().Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q allows inline script", p, csp)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", p, got)
		}
		if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("%s: X-Frame-Options %q", p, got)
		}
	}
}

// TestGamesWaitOnce: /api/games with three sleeping games wakes them all
// at once and waits once: within FrameWait, not one heartbeat per game
// (the games' heartbeats fall on the same instants, and a game woken
// without a demand sleeps on), and every game's frame is fresh.
func TestGamesWaitOnce(t *testing.T) {
	var games []*server.Server
	for _, n := range []string{"one", "two", "three"} {
		games = append(games, startGame(t, n, "dm"))
	}
	_, ts := startWeb(t, Options{}, games...)
	asleep := func() bool {
		for _, g := range games {
			f := g.Live().Acquire()
			stale := f.Seq == 0 || time.Since(f.Time) > time.Second
			f.Release()
			if !stale {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(15 * time.Second); !asleep(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the empty games did not go to sleep")
		}
	}
	var ticks [3]int32
	for i, g := range games {
		f := g.Live().Acquire()
		ticks[i] = f.Tick
		f.Release()
	}
	start := time.Now()
	var l struct{ Games []apiGame }
	if st := getJSON(t, ts.Client(), ts.URL+"/api/games", &l); st != http.StatusOK || len(l.Games) != 3 {
		t.Fatalf("status %d, %d games", st, len(l.Games))
	}
	took := time.Since(start)
	t.Logf("/api/games with three sleeping games: %v", took)
	if took > FrameWait+500*time.Millisecond {
		t.Errorf("/api/games took %v with three sleeping games, want within FrameWait %v", took, FrameWait)
	}
	for i, g := range l.Games {
		if g.Tick <= ticks[i] {
			t.Errorf("game %d: tick %d, asleep at %d: not a fresh frame", g.Port, g.Tick, ticks[i])
		}
	}
}

// holdDownload asks for u from the loopback address src and reads only
// the status line: the answer's status, the connection left open and
// unread until the test ends (a reader that stalls).
func holdDownload(t *testing.T, src, u string) int {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096) // the server's writes stall soon
	}
	if _, err := io.WriteString(c, "GET "+pu.RequestURI()+" HTTP/1.1\r\nHost: "+pu.Host+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("download from %s: %v", src, err)
	}
	var st int
	if _, err := fmt.Sscanf(line, "HTTP/1.1 %d", &st); err != nil {
		t.Fatalf("download from %s: status line %q", src, line)
	}
	return st
}

// TestDownloadBounds: downloads whose readers stall hold their places for
// DownloadStallTimeout each, so they have bounds of their own: over
// MaxDownloadsPerAddr a client's download gets 503 while its requests for
// the page are still answered (MaxRequestsPerAddr stalled downloads would
// take them all), and over MaxDownloads everybody's download gets 503 while
// the page answers.
func TestDownloadBounds(t *testing.T) {
	a := startGame(t, "downloads", "dm")
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.demo"))
	if err == nil {
		err = errors.Join(f.Truncate(64<<20), f.Close()) // more than any socket buffer holds
	}
	if err != nil {
		t.Fatal(err)
	}
	_, ts := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true},
		Game{Port: int(a.Addr().Port()), Server: a, RecordDir: dir})
	dl := ts.URL + "/api/games/" + strconv.Itoa(int(a.Addr().Port())) + "/recordings/big.demo"
	ok := 0
	for range MaxRequestsPerAddr {
		switch st := holdDownload(t, "127.0.0.1", dl); st {
		case http.StatusOK:
			ok++
		case http.StatusServiceUnavailable:
		default:
			t.Fatalf("download: %d", st)
		}
	}
	if ok != MaxDownloadsPerAddr {
		t.Errorf("%d of %d stalled downloads of one address admitted, want %d", ok, MaxRequestsPerAddr, MaxDownloadsPerAddr)
	}
	if st, _ := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("the page for the address with stalled downloads: %d, want 200", st)
	}
	// the total: other addresses fill it, then nobody's download is admitted
	src := 2
	for n := ok; n < MaxDownloads; src++ {
		for range MaxDownloadsPerAddr {
			if st := holdDownload(t, fmt.Sprintf("127.0.0.%d", src), dl); st != http.StatusOK {
				t.Fatalf("download %d from 127.0.0.%d: %d", n, src, st)
			}
			n++
		}
	}
	next := fmt.Sprintf("127.0.0.%d", src)
	if st := holdDownload(t, next, dl); st != http.StatusServiceUnavailable {
		t.Errorf("a download over MaxDownloads: %d, want 503", st)
	}
	if st, _ := getFrom(t, next, ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("the page while the downloads are full: %d, want 200", st)
	}
}
