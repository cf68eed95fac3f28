// Package browsertest drives headless Chromium (Debian's chromium) for
// the tests of the pages: start it under the heavy-test lock, evaluate
// JavaScript, wait for a condition. Tests only.
package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"twserver/internal/deathsig"
	"twserver/internal/heavytest"
	"twserver/internal/testenv"
)

// ChromiumPath is the headless browser (Debian's chromium package; CI
// installs it).
const ChromiumPath = "/usr/bin/chromium"

// ControlMessage is the text of CheckDialogs' own alert, the one dialog
// a test may open.
const ControlMessage = "browsertest: the control dialog"

// dialogsKey is the context key of a browser's dialog counts.
type dialogsKey struct{}

// dialogs counts a browser's JavaScript dialogs.
type dialogs struct{ others, controls atomic.Int32 }

// Start starts headless Chromium for the test (skipped without it, failed
// under CI), with the extra options after the defaults (a WindowSize
// there replaces the default 1300x900). Every JavaScript dialog (alert,
// confirm, prompt) is dismissed and fails the test, except CheckDialogs'
// control. The browser ends with the test or after limit.
func Start(t *testing.T, limit time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	testenv.Stat(t, ChromiumPath, "chromium")
	heavytest.Lock(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(ChromiumPath),
		chromedp.NoSandbox, chromedp.WindowSize(1300, 900), chromedp.Flag("proxy-server", "direct://"))
	opts = append(opts, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, limit)
	t.Cleanup(func() { cancelT(); cancelB(); cancelA() })
	ds := new(dialogs)
	ctx = context.WithValue(ctx, dialogsKey{}, ds)
	chromedp.ListenTarget(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			if d.Message == ControlMessage {
				ds.controls.Add(1)
			} else {
				ds.others.Add(1)
				t.Errorf("the page opened a dialog: %q", d.Message)
			}
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
		}
	})
	// chromedp forks the browser with a parent-death signal: on a thread
	// kept for the test (deathsig), or a viewer build's thread ending kills it.
	var err error
	deathsig.OnKeptThread(t, func() { err = chromedp.Run(ctx) })
	if err != nil {
		t.Fatalf("cannot start %s: %v", ChromiumPath, err)
	}
	return ctx
}

// CheckDialogs is the positive control of Start's rule: no dialog opened
// so far, then an alert of the test's own (ControlMessage) must be seen.
func CheckDialogs(t *testing.T, ctx context.Context) {
	t.Helper()
	ds, _ := ctx.Value(dialogsKey{}).(*dialogs)
	if ds == nil {
		t.Fatal("CheckDialogs: not a context of Start")
	}
	if n := ds.others.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened", n)
	}
	before := ds.controls.Load()
	Eval(t, ctx, `setTimeout(() => alert(`+strconv.Quote(ControlMessage)+`), 0); true`, nil)
	for deadline := time.Now().Add(5 * time.Second); ds.controls.Load() == before && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := ds.controls.Load() - before; n != 1 {
		t.Errorf("the control alert: %d seen, want 1", n)
	}
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
		// An evaluation that meets a navigation (a click on a link just
		// before) fails while the browser lives on: it is tried again.
		err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok))
		if err != nil && ctx.Err() != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err == nil && ok {
			return time.Since(start)
		}
		if time.Since(start) > d {
			var text string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`location.href + ': ' + document.body.innerText.slice(0, 600)`, &text))
			t.Fatalf("%s: not within %v (%s, last error %v); the page: %s", what, d, expr, err, text)
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
