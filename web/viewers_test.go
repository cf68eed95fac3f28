package web

import (
	"context"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"twserver/loadclient"
)

// BrowserViewers is the number of pages of TestBrowserViewers.
const BrowserViewers = 60

// TestBrowserViewers: BrowserViewers real Chromium pages on one game,
// each in its own browser context (a browser opens at most six
// connections to one host per context, and a page's live stream holds
// one), served by the production listener and bounds: every page
// receives frames, and the server counts one live stream a page. All
// pages come from 127.0.0.1, so the bounds per address are lifted (as for
// a trusted proxy) and the totals are the production ones: the check is
// that a page's connections fit them.
func TestBrowserViewers(t *testing.T) {
	ctx, _ := browser(t)
	game := startGame(t, "viewers", "dm")
	var bs bots
	bs.join(t, game, "walker", loadclient.PatternWalk)
	h, err := New([]Game{{Port: int(game.Addr().Port()), Server: game}},
		Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	h.streams.setBounds(MaxStreams, MaxStreams)
	h.requests.setBounds(MaxRequests, MaxRequests)
	sctx, cancel := context.WithCancel(context.Background())
	ln := listenLoopback(t)
	served := make(chan struct{})
	go func() { defer close(served); _ = h.ServeListener(sctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	url := "http://" + ln.Addr().String() + "/"

	start := time.Now()
	tabs := make([]context.Context, BrowserViewers)
	var wg sync.WaitGroup
	errs := make(chan error, BrowserViewers)
	sem := make(chan struct{}, 6) // navigations at a time
	for i := range tabs {
		tctx, cancelTab := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
		t.Cleanup(cancelTab)
		tabs[i] = tctx
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := chromedp.Run(tctx, chromedp.Navigate(url)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a page did not open: %v", err)
	}
	t.Logf("%d pages opened in %v", BrowserViewers, time.Since(start).Round(time.Millisecond))

	// frames counts each page's received frames
	frames := func() []int {
		out := make([]int, len(tabs))
		for i, tctx := range tabs {
			if err := chromedp.Run(tctx, chromedp.Evaluate(`Number(document.getElementById('minimap').dataset.received || 0)`, &out[i])); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	var f0 []int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
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
	t.Logf("over 5 s the pages received at least %d frames each", least)
	if len(stuck) > 0 {
		t.Errorf("%d of %d pages received no frames in 5 s: %v", len(stuck), BrowserViewers, stuck)
	}
	if n := h.streamCount(); n != BrowserViewers {
		t.Errorf("%d live streams counted, want %d (one a page)", n, BrowserViewers)
	}
	if bl := h.conns.Load(); bl != nil {
		_, conns := bl.conns.count(netip.Prefix{})
		t.Logf("%d connections for %d pages; %d refused", conns, BrowserViewers, bl.refused.Load())
		if conns > 2*BrowserViewers+4 || bl.refused.Load() != 0 {
			t.Errorf("%d connections for %d pages (want at most two a page), %d refused", conns, BrowserViewers, bl.refused.Load())
		}
	}
}
