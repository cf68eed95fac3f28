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

	"twserver/server"
)

// dialFrom connects to addr from the loopback address src (127.0.0.x).
func dialFrom(t testing.TB, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// acceptAll accepts l's connections into a channel until l is closed.
func acceptAll(l net.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 64)
	go func() {
		defer close(ch)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			ch <- c
		}
	}()
	return ch
}

// refused reports whether c was refused: it reads the 503 and then EOF
// (or a reset) within 2 s; false when c stays open.
func refused(t *testing.T, c net.Conn) bool { return closedWithin(t, c, 2*time.Second) }

// stillOpen reports whether c stays open for 300 ms.
func stillOpen(t *testing.T, c net.Conn) bool { return !closedWithin(t, c, 300*time.Millisecond) }

// closedWithin reports whether c is closed by the server within d (after
// at most a 503).
func closedWithin(t *testing.T, c net.Conn, d time.Duration) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	if len(b) > 0 && !strings.HasPrefix(string(b), "HTTP/1.1 503 ") {
		t.Errorf("refusal: %q", b)
	}
	return true
}

// TestBoundListener: connections over the bound of their address are
// refused at once while another address is admitted; a trusted proxy's
// are not bounded per address; at the total bound the idle connection is
// closed for the new one, and with none idle the new one is refused;
// Accept never waits; closed connections free their places; the
// connections keep their socket.
func TestBoundListener(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")}
	l := newBoundListener(listenLoopback(t), 2, 5, trusted)
	defer l.Close()
	addr := l.Addr().String()
	accepted := acceptAll(l)
	take := func() *boundConn {
		t.Helper()
		select {
		case c := <-accepted:
			return c.(*boundConn)
		case <-time.After(5 * time.Second):
			t.Fatal("not accepted")
		}
		return nil
	}
	a1, a2 := dialFrom(t, "127.0.0.1", addr), dialFrom(t, "127.0.0.1", addr)
	s1, s2 := take(), take()
	a3 := dialFrom(t, "127.0.0.1", addr)
	start := time.Now()
	if !refused(t, a3) {
		t.Fatal("a third connection of one address was not refused")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v", d)
	}
	if !stillOpen(t, a1) || !stillOpen(t, a2) {
		t.Fatal("the admitted connections were closed")
	}
	b1 := dialFrom(t, "127.0.0.2", addr) // another address: admitted
	sb := take()
	for range 2 { // a trusted proxy: not bounded per address
		dialFrom(t, "127.0.0.3", addr)
		take()
	}
	if n, total := l.conns.count(addrKey(netip.MustParseAddr("127.0.0.1"))); n != 2 || total != 5 {
		t.Fatalf("counted %d of 127.0.0.1, %d in all; want 2, 5", n, total)
	}
	// at the total bound, all but s1 active: s1 (idle longest) is closed for a new one
	for _, c := range []*boundConn{s2, sb} {
		l.trackState(c, http.StateActive)
	}
	l.mu.Lock()
	for c := range l.idle {
		if c != s1 {
			delete(l.idle, c)
		}
	}
	l.mu.Unlock()
	dialFrom(t, "127.0.0.4", addr)
	s4 := take()
	if !refused(t, a1) {
		t.Error("the idle connection was not closed for a new one at the total bound")
	}
	if l.evicted.Load() != 1 {
		t.Errorf("evicted %d, want 1", l.evicted.Load())
	}
	// none idle: the next is refused
	l.trackState(s4, http.StateActive)
	l.mu.Lock()
	clear(l.idle)
	l.mu.Unlock()
	c5 := dialFrom(t, "127.0.0.5", addr)
	if !refused(t, c5) {
		t.Error("a connection beyond the total bound with none idle was not refused")
	}
	if !stillOpen(t, b1) {
		t.Error("an active connection was closed")
	}
	if v := newViewer(s2, time.Now()); v.raw == nil {
		t.Error("a bounded connection has no raw write")
	}
	// a closed connection frees its place (once)
	_ = s2.Close()
	_ = s2.Close()
	dialFrom(t, "127.0.0.1", addr)
	take()
	if n, total := l.conns.count(addrKey(netip.MustParseAddr("127.0.0.1"))); n != 1 || total != 5 {
		t.Errorf("after the eviction, a close and a new one: %d of 127.0.0.1, %d in all; want 1, 5", n, total)
	}
	if got := l.refused.Load(); got != 2 {
		t.Errorf("refused %d, want 2", got)
	}
	l.Close()
	select {
	case _, ok := <-accepted:
		if ok {
			t.Fatal("accepted after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept outlived Close")
	}
}

// TestBoundsIPv6: IPv6 clients are counted per /64.
func TestBoundsIPv6(t *testing.T) {
	a := newAddrCounter(2, 10)
	k := func(s string) netip.Prefix { return addrKey(netip.MustParseAddr(s)) }
	if a.acquire(k("2001:db8::1"), false) != admitted || a.acquire(k("2001:db8::2:3"), false) != admitted {
		t.Fatal("refused below the bound")
	}
	if got := a.acquire(k("2001:db8::ffff"), false); got != fullAddr {
		t.Errorf("a third address of one /64: %d, want fullAddr", got)
	}
	if got := a.acquire(k("2001:db8:0:1::1"), false); got != admitted {
		t.Errorf("another /64: %d, want admitted", got)
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
	k1 := addrKey(netip.MustParseAddr("127.0.0.1"))
	for range MaxRequestsPerAddr {
		h.requests.acquire(k1, false)
	}
	if st, ra := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusServiceUnavailable || ra != strconv.Itoa(RetryAfter) {
		t.Errorf("over the requests of its address: %d Retry-After %q, want 503 %d", st, ra, RetryAfter)
	}
	if st, _ := getFrom(t, "127.0.0.2", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("another address: %d, want 200", st)
	}
	h.requests.release(k1)
	if st, _ := getFrom(t, "127.0.0.1", ts.URL+"/api/games"); st != http.StatusOK {
		t.Errorf("below the bound again: %d, want 200", st)
	}
	for range MaxRequestsPerAddr - 1 {
		h.requests.release(k1)
	}

	// streams: MaxStreamsPerAddr real ones from 127.0.0.1, then 503
	events := ts.URL + "/api/games/" + port + "/events"
	for range MaxStreamsPerAddr {
		collectStream(t, events)
	}
	if n, _ := h.streams.count(k1); n != MaxStreamsPerAddr {
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
	h.streams.setBounds(MaxStreamsPerAddr, MaxStreamsPerAddr)
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
	c := dialFrom(t, src, pu.Host)
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
