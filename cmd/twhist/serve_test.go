package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
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
	dir, maps := t.TempDir(), t.TempDir()
	m, err := watchtest.Map()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(maps, watchtest.MapName+".map"), m.Data, 0o644); err != nil {
		t.Fatal(err)
	}
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
// that arrived meanwhile too) and says so once, with no SQLite error; when it cannot be made again (the
// directory is gone), that is logged once, not at every pass.
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
	listed := func() bool { return fmt.Sprint(names(archiveGames(t, base, "player=ada"))) == fmt.Sprint(want) }
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
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * poll)
	if n := strings.Count(logs.String(), "cannot be made again"); n != 1 {
		t.Errorf("the directory gone: said %d times, want 1; log:\n%s", n, logs.String())
	}
}
