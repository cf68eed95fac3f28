// Package browsertest drives headless Chromium (Debian's chromium) for
// the tests of the pages: start it under the heavy-test lock, evaluate
// JavaScript, wait for a condition. Tests only.
package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"twserver/internal/heavytest"
	"twserver/internal/testenv"
)

// ChromiumPath is the headless browser (Debian's chromium package; CI
// installs it).
const ChromiumPath = "/usr/bin/chromium"

// Start starts headless Chromium for the test (skipped without it, failed
// under CI); a JavaScript dialog fails the test. The browser ends with the
// test or after limit.
func Start(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	testenv.Stat(t, ChromiumPath, "chromium")
	heavytest.Lock(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(ChromiumPath),
		chromedp.NoSandbox, chromedp.WindowSize(1300, 900), chromedp.Flag("proxy-server", "direct://"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	chromedp.ListenTarget(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			t.Errorf("the page opened a dialog: %q", d.Message)
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("cannot start %s: %v", ChromiumPath, err)
	}
	return ctx
}

// Eval evaluates expr into out.
func Eval(t *testing.T, ctx context.Context, expr string, out any) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, out)); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
}

// Wait evaluates expr every 20 ms until it is true or d has passed (the
// test fails, showing the page's text); it returns how long that took.
func Wait(t *testing.T, ctx context.Context, d time.Duration, what, expr string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		var ok bool
		Eval(t, ctx, expr, &ok)
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > d {
			var text string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`location.href + ': ' + document.body.innerText.slice(0, 600)`, &text))
			t.Fatalf("%s: not within %v (%s); the page: %s", what, d, expr, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Screenshot saves the page as name in $TWSERVER_SCREENSHOTS (if set).
func Screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("TWSERVER_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 90)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
