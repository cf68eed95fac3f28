package web

import (
	"context"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"twserver/loadclient"
)

// BrowserViewers is the number of pages of TestBrowserViewers;
// $TWSERVER_WEB_VIEWERS changes it (1..MaxStreams; the figure of
// docs/web-api.md is of 60).
const BrowserViewers = 20

// TestBrowserViewers: BrowserViewers real Chromium pages on one game,
// each under a host name of its own that the browser maps to 127.0.0.1
// (a browser opens at most six connections to one host, and a page's
// live stream holds one), served by the production listener and bounds:
// every page receives frames, and the server counts one live stream a
// page. All
// pages come from 127.0.0.1, so the bounds per address are lifted (as for
// a trusted proxy) and the totals are the production ones: the check is
// that a page's connections fit them.
func TestBrowserViewers(t *testing.T) {
	n := BrowserViewers
	if s := os.Getenv("TWSERVER_WEB_VIEWERS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > MaxStreams {
			t.Fatalf("TWSERVER_WEB_VIEWERS=%q: want 1..%d", s, MaxStreams)
		}
		n = v
	}
	ctx := browserFor(t, 60*time.Second+time.Duration(n)*6*time.Second, chromedp.Flag("host-resolver-rules", "MAP *.test 127.0.0.1"),
		chromedp.Flag("renderer-process-limit", "8"))
	game := startGame(t, "viewers", "dm")
	var bs bots
	bs.join(t, game, "walker", loadclient.PatternWalk)
	h, err := New([]Game{{Port: int(game.Addr().Port()), Server: game}},
		Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	h.streams.SetBounds(MaxStreams, MaxStreams)
	h.requests.SetBounds(MaxRequests, MaxRequests)
	sctx, cancel := context.WithCancel(context.Background())
	ln := listenLoopback(t)
	served := make(chan struct{})
	go func() { defer close(served); _ = h.ServeListener(sctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	// open the pages, four loading at a time
	start := time.Now()
	tabs := make([]context.Context, n)
	errs := make(chan error, n)
	var retries atomic.Int32
	sem := make(chan struct{}, 4)
	for i := range tabs {
		tctx, cancelTab := chromedp.NewContext(ctx)
		t.Cleanup(cancelTab)
		tabs[i] = tctx
		url := "http://v" + strconv.Itoa(i) + ".test:" + port + "/"
		go func() {
			sem <- struct{}{} // a few pages load at a time, as viewers come one by one
			defer func() { <-sem }()
			err := chromedp.Run(tctx, chromedp.Navigate(url))
			if err != nil && ctx.Err() == nil { // the browser's own trouble on a loaded machine: once more
				t.Logf("page %d: %v; opening it again", i, err)
				retries.Add(1)
				err = chromedp.Run(tctx, chromedp.Navigate(url))
			}
			errs <- err
		}()
	}
	for range tabs {
		if err := <-errs; err != nil {
			t.Fatalf("a page did not open: %v (the server refused %d connections)", err, h.conns.Load().Refused())
		}
	}
	t.Logf("%d pages opened in %v (%d opened a second time)", n, time.Since(start).Round(time.Millisecond), retries.Load())

	// frames counts each page's received frames
	frames := func() []int {
		out := make([]int, len(tabs))
		for i, tctx := range tabs {
			if err := chromedp.Run(tctx, chromedp.Evaluate(`Number((document.getElementById('minimap') || {dataset: {}}).dataset.received || 0)`, &out[i])); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	var f0 []int
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(time.Second) {
		f0 = frames()
		if !slices.ContainsFunc(f0, func(n int) bool { return n <= 0 }) || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("all pages with frames %v after the start; %d live streams counted", time.Since(start).Round(time.Millisecond), h.streamCount())
	time.Sleep(5 * time.Second) // more than StreamMaxInterval: every viewer was written
	f1 := frames()
	var stuck []int
	least := -1
	for i := range f1 {
		d := f1[i] - f0[i]
		if f0[i] <= 0 || d <= 0 {
			stuck = append(stuck, i)
		}
		if least < 0 || d < least {
			least = d
		}
	}
	t.Logf("over 5 s the pages received at least %d frames each; %d viewers dropped for a stalled write", least, h.games[0].stream.stalled.Load())
	if len(stuck) > 0 {
		t.Errorf("%d of %d pages received no frames in 5 s: %v", len(stuck), n, stuck)
	}
	if got := h.streamCount(); got != n {
		t.Errorf("%d live streams counted, want %d (one a page); %d viewers were dropped for a stalled write (StreamWriteTimeout)",
			got, n, h.games[0].stream.stalled.Load())
	}
	if bl := h.conns.Load(); bl != nil {
		conns := bl.Open()
		t.Logf("%d connections for %d pages; %d refused", conns, n, bl.Refused())
		if conns > 4*n || bl.Refused() != 0 {
			t.Errorf("%d connections for %d pages (want at most four a page), %d refused", conns, n, bl.Refused())
		}
	}
}
