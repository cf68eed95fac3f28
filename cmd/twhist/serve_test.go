package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"twserver/internal/browsertest"
	"twserver/internal/refserver"
	"twserver/teehist/index"
	"twserver/watch/watchtest"
)

// mapDir is a new directory holding the recordings' map (watchtest.Map).
func mapDir(t *testing.T) string {
	t.Helper()
	m, err := watchtest.Map()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, watchtest.MapName+".map"), m.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// archiveGames asks the archive's list.
func archiveGames(t *testing.T, base, query string) []archiveGame {
	t.Helper()
	resp, err := http.Get(base + "/api/games?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l struct{ Games []archiveGame }
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v", query, resp.StatusCode, err)
	}
	return l.Games
}

// names lists the games' file names, sorted.
func names(gs []archiveGame) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	slices.Sort(out)
	return out
}

// startServe runs serveArchive of dir (maps in maps, indexed every poll)
// on a loopback port until the test ends; it returns the address and the
// log, which the test may read while serve writes it.
func startServe(t *testing.T, dir, maps string, poll time.Duration) (string, *refserver.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	logs := new(refserver.Buffer)
	go func() { done <- serveArchive(ctx, ln, dir, maps, true, poll, logs) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String(), logs
}

// TestServe: twhist serve indexes several recordings and a new one as it
// appears; the search by player finds exactly that player's games, by
// type and map theirs; the demo downloads are demos; in Chromium the
// search page lists a player's games and each watch link loads and plays.
func TestServe(t *testing.T) {
	start := time.Now()
	dir, maps := t.TempDir(), mapDir(t)
	games := map[string]string{}
	for i, ns := range [][4]string{{"ada", "bram", "cleo", "dora"}, {"ada", "ivo", "jon", "kim"}, {"lea", "max", "ned", "oli"}} {
		p, err := watchtest.GameOf(dir, 30*50, uint64(i+1), ns)
		if err != nil {
			t.Fatal(err)
		}
		games[strings.Join(ns[:], ",")] = filepath.Base(p)
	}
	lms, err := os.ReadFile("testdata/twserver_lms.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lms.teehistorian"), lms, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("generated: %v", time.Since(start))
	addr, logs := startServe(t, dir, maps, 200*time.Millisecond)
	base := "http://" + addr
	var all []archiveGame
	for end := time.Now().Add(20 * time.Second); len(all) < 4 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		all = archiveGames(t, base, "")
	}
	t.Logf("indexed: %v", time.Since(start))
	if len(all) != 4 {
		t.Fatalf("games listed: %v (%s)", names(all), logs.String())
	}
	for i := 1; i < len(all); i++ {
		if all[i].Start > all[i-1].Start {
			t.Fatalf("not newest first: %+v", all)
		}
	}
	ada := []string{games["ada,bram,cleo,dora"], games["ada,ivo,jon,kim"]}
	slices.Sort(ada)
	for q, want := range map[string][]string{
		"player=ada":                           ada,
		"player=oli":                           {games["lea,max,ned,oli"]},
		"player=nobody":                        nil,
		"type=lms":                             {"lms.teehistorian"},
		"map=" + watchtest.MapName:             names(all)[:0:0],
		"type=ctf&player=ada&since=2000-01-01": ada,
	} {
		got := names(archiveGames(t, base, q))
		if q == "map="+watchtest.MapName {
			want = names(archiveGames(t, base, "type=ctf"))
			if len(want) != 3 {
				t.Fatalf("ctf games %v", want)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	// a new recording is indexed as it appears
	p, err := watchtest.GameOf(dir, 10*50, 9, [4]string{"ada", "zed", "yan", "xia"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for end := time.Now().Add(10 * time.Second); len(got) != 3 && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		got = names(archiveGames(t, base, "player=ada"))
	}
	if !slices.Contains(got, filepath.Base(p)) || len(got) != 3 {
		t.Fatalf("after a new game: %v", got)
	}
	// demos: 0.7 and DDNet, a player's view, a clip
	for _, q := range []string{"", "?ddnet=1", "?view=1&from=100&to=600", "?ddnet=1&view=0&from=500&to=700"} {
		resp, err := http.Get(base + "/demo/" + ada[0] + q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.HasPrefix(b, []byte("TWDEMO\x00")) || len(b) < 1000 {
			t.Errorf("demo%s: %d, %d bytes %q", q, resp.StatusCode, len(b), b[:min(len(b), 40)])
		}
	}
	for _, q := range []string{"/demo/..%2fx.teehistorian", "/demo/" + ada[0] + "?from=x", "/demo/none.teehistorian"} {
		resp, err := http.Get(base + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("%s: 200", q)
		}
	}

	t.Logf("demos: %v", time.Since(start))
	// the page: a search by player, and each watch link plays
	bctx := browsertest.Start(t, 60*time.Second)
	if err := chromedp.Run(bctx, chromedp.Navigate(base+"/"),
		chromedp.SendKeys("#player", "ada", chromedp.ByID), chromedp.Submit("#player", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, bctx, 10*time.Second, "ada's three games", `document.querySelectorAll('#games tbody tr').length === 3`)
	var links []string
	browsertest.Eval(t, bctx, `Array.from(document.querySelectorAll('#games tbody a')).filter((a) => a.textContent === 'watch').map((a) => a.href)`, &links)
	if len(links) != 3 {
		t.Fatalf("watch links %v", links)
	}
	for _, l := range links {
		if err := chromedp.Run(bctx, chromedp.Navigate(l)); err != nil {
			t.Fatal(err)
		}
		browsertest.Wait(t, bctx, 10*time.Second, l+": loaded", `typeof watchState === 'function' && watchState().tick > 0 && document.querySelectorAll('#score tbody tr').length === 4`)
		var t0 int
		browsertest.Eval(t, bctx, `watchState().tick`, &t0)
		if err := chromedp.Run(bctx, chromedp.Click("#play", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		browsertest.Wait(t, bctx, 5*time.Second, l+": plays", fmt.Sprintf(`watchState().tick >= %d`, t0+50))
		var demo string
		browsertest.Eval(t, bctx, `document.querySelector('#downloads a') ? document.querySelector('#downloads a').getAttribute('href') : ''`, &demo)
		if !strings.HasPrefix(demo, "/demo/") {
			t.Errorf("%s: demo link %q", l, demo)
		}
	}
	t.Logf("browser: %v", time.Since(start))
	browsertest.Screenshot(t, bctx, "archive.png")
	browsertest.CheckDialogs(t, bctx)
}

// TestServeBounds: the archive's listener refuses at once a connection over
// ServeMaxConnsPerAddr from one address (never a waiting Accept), and an
// answer still reaches another address meanwhile.
func TestServeBounds(t *testing.T) {
	dir := t.TempDir()
	addr, _ := startServe(t, dir, "", time.Hour)
	from := func(src string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: time.Second}
		return d.Dial("tcp", addr)
	}
	var hogs []net.Conn
	defer func() {
		for _, c := range hogs {
			c.Close()
		}
	}()
	for range ServeMaxConnsPerAddr {
		c, err := from("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		hogs = append(hogs, c)
	}
	time.Sleep(200 * time.Millisecond) // the hogs accepted and counted
	over, err := from("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(2 * time.Second))
	start := time.Now()
	_, rerr := io.ReadAll(over) // refused: an answer or a close, at once
	if ne, ok := rerr.(net.Error); ok && ne.Timeout() {
		t.Errorf("a connection over the bound was left waiting %v", time.Since(start))
	}
	c := http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return from("127.0.0.2")
	}}}
	resp, err := c.Get("http://" + addr + "/api/games")
	if err != nil {
		t.Fatalf("another address while 127.0.0.1 is at its bound: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("another address: %d", resp.StatusCode)
	}
}

// TestServeIndexRemoved: when the index file is deleted while twhist
// serve runs, the next pass makes it again with every recording in it (one
// that arrived meanwhile too) and says so once, with no SQLite error (the
// deleted file's journal left behind is not taken for the new one's); a
// query meanwhile is answered 503 with Retry-After, never 500; when the
// index cannot be made again (the directory is gone), that is logged once,
// not at every pass, though the error's text changes.
func TestServeIndexRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "recordings")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := watchtest.GameOf(dir, 5*50, 1, [4]string{"ada", "bram", "cleo", "dora"})
	if err != nil {
		t.Fatal(err)
	}
	const poll = 50 * time.Millisecond
	addr, logs := startServe(t, dir, "", poll)
	base := "http://" + addr
	want := []string{filepath.Base(p)}
	unavailable := 0
	listed := func() bool { // 503 while the index is made again, never 500
		resp, err := http.Get(base + "/api/games?player=ada")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var l struct{ Games []archiveGame }
		switch err := json.NewDecoder(resp.Body).Decode(&l); {
		case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
			unavailable++
			return false
		case err != nil || resp.StatusCode != 200:
			t.Fatalf("player=ada: %d %v", resp.StatusCode, err)
		}
		return fmt.Sprint(names(l.Games)) == fmt.Sprint(want)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(poll) {
			if time.Now().After(end) {
				t.Fatalf("%s: not within 10 s; log:\n%s", what, logs.String())
			}
		}
	}
	waitFor("the game indexed", listed)
	dbPath := filepath.Join(dir, index.DBName)
	if err := os.Remove(dbPath); err != nil {
		t.Fatal(err)
	}
	// a recording that arrives meanwhile: its pass writes to the index
	p2, err := watchtest.GameOf(dir, 5*50, 2, [4]string{"ada", "ivo", "jon", "kim"})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, filepath.Base(p2))
	slices.Sort(want)
	waitFor("the index made again", func() bool { _, err := os.Stat(dbPath); return err == nil })
	waitFor("the game in the new index", listed)
	time.Sleep(20 * poll) // passes on the new index
	log := logs.String()
	if n := strings.Count(log, "was removed or replaced while serving"); n != 1 || strings.Contains(log, "readonly") || strings.Contains(log, "index:") {
		t.Errorf("after the index was deleted (said %d times), the log:\n%s", n, log)
	}
	if got := names(archiveGames(t, base, "")); len(got) != 2 {
		t.Errorf("listed after the rebuild: %v", got)
	}
	t.Logf("answered 503 %d times while the index was made again", unavailable)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * poll)
	if n := strings.Count(logs.String(), "cannot be made again"); n != 1 {
		t.Errorf("the directory gone: said %d times, want 1; log:\n%s", n, logs.String())
	}
}

// deadlineRecorder is a ResponseWriter that keeps the write deadline set
// on it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	deadline time.Time
}

func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error { d.deadline = t; return nil }

// TestServeWriteDeadlines: the archive's handler gives every answer
// ServeWriteTimeout (10 s) to be written and a demo ServeDemoWriteTimeout,
// so a client that does not read holds a connection of the archive (24
// an address) for seconds, not for a demo's time.
func TestServeWriteDeadlines(t *testing.T) {
	h := secure(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for path, want := range map[string]time.Duration{"/api/games": ServeWriteTimeout, "/watch.js": ServeWriteTimeout,
		"/watch/a.teehistorian/chunk/1": ServeWriteTimeout, "/demo/a.teehistorian": ServeDemoWriteTimeout} {
		w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
		start := time.Now()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if got := w.deadline.Sub(start); w.deadline.IsZero() || got < want || got > want+time.Second {
			t.Errorf("%s: write deadline %v from now (set: %v), want %v", path, got, !w.deadline.IsZero(), want)
		}
	}
	if ServeWriteTimeout > 10*time.Second || ServeDemoWriteTimeout <= ServeDemoTimeout {
		t.Errorf("ServeWriteTimeout %v, ServeDemoWriteTimeout %v (ServeDemoTimeout %v)", ServeWriteTimeout, ServeDemoWriteTimeout, ServeDemoTimeout)
	}
}

// TestServeIndexRemovedQuery: a query that finds the index removed has it
// made again at once, not at the next poll (here an hour away); meanwhile
// queries are answered from the old index or 503, never 500.
func TestServeIndexRemovedQuery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "recordings")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := watchtest.GameOf(dir, 5*50, 1, [4]string{"ada", "bram", "cleo", "dora"}); err != nil {
		t.Fatal(err)
	}
	addr, logs := startServe(t, dir, "", time.Hour)
	base := "http://" + addr
	if got := archiveGames(t, base, ""); len(got) != 1 {
		t.Fatalf("before: %v", names(got))
	}
	if err := os.Remove(filepath.Join(dir, index.DBName)); err != nil {
		t.Fatal(err)
	}
	if _, err := watchtest.GameOf(dir, 5*50, 2, [4]string{"ada", "ivo", "jon", "kim"}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(base + "/api/games")
		if err != nil {
			t.Fatal(err)
		}
		var l struct{ Games []archiveGame }
		err = json.NewDecoder(resp.Body).Decode(&l)
		resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != http.StatusServiceUnavailable || err != nil {
			t.Fatalf("answer %d %v; log:\n%s", resp.StatusCode, err, logs.String())
		}
		if len(l.Games) == 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the index not made again within 10 s of queries; log:\n%s", logs.String())
		}
	}
	if n := strings.Count(logs.String(), "was removed or replaced while serving"); n != 1 {
		t.Errorf("said %d times; log:\n%s", n, logs.String())
	}
}

// stallWriter is a ResponseWriter whose client does not read: its first
// Write says so on started and blocks until release is closed.
type stallWriter struct {
	header   http.Header
	started  chan struct{}
	release  chan struct{}
	stalling bool
}

func (s *stallWriter) Header() http.Header { return s.header }
func (s *stallWriter) WriteHeader(int)     {}
func (s *stallWriter) Write(b []byte) (int, error) {
	if !s.stalling {
		s.stalling = true
		close(s.started)
	}
	<-s.release
	return len(b), nil
}

// TestServeDemoPlaceFreed: a demo's build gives its place back when the
// demo is made, not when the client has read it, so ServeDemoBuilds
// clients that do not read still leave the next one a demo (before, they
// held every place: 503 "too many demos being made" for as long as they
// stalled, up to ServeDemoWriteTimeout); a client that leaves before its
// demo is made gives the place back too.
func TestServeDemoPlaceFreed(t *testing.T) {
	dir, maps := t.TempDir(), mapDir(t)
	p, err := watchtest.GameOf(dir, 10*50, 1, [4]string{"ada", "bram", "cleo", "dora"})
	if err != nil {
		t.Fatal(err)
	}
	a := &archive{dir: dir, mapDir: maps, demos: make(chan struct{}, ServeDemoBuilds), kick: make(chan struct{}, 1)}
	request := func(ctx context.Context) *http.Request {
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/demo/"+filepath.Base(p), nil)
		r.SetPathValue("name", filepath.Base(p))
		return r
	}
	release := make(chan struct{})
	var stalled []chan struct{}
	for range ServeDemoBuilds {
		s := &stallWriter{header: http.Header{}, started: make(chan struct{}), release: release}
		stalled = append(stalled, s.started)
		go a.demo(s, request(context.Background()))
	}
	defer close(release)
	for _, c := range stalled {
		select {
		case <-c:
		case <-time.After(30 * time.Second):
			t.Fatal("a demo was not made within 30 s")
		}
	}
	// a client gone before its demo is made
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a.demo(httptest.NewRecorder(), request(ctx))
	for end := time.Now().Add(10 * time.Second); len(a.demos) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d of %d places still held by clients that do not read or left", len(a.demos), ServeDemoBuilds)
		}
	}
	for i := range 2 {
		w := httptest.NewRecorder()
		a.demo(w, request(context.Background()))
		if w.Code != http.StatusOK || !bytes.HasPrefix(w.Body.Bytes(), []byte("TWDEMO\x00")) {
			t.Fatalf("request %d beside %d clients that do not read: %d %.80q", i, ServeDemoBuilds, w.Code, w.Body.String())
		}
	}
}
