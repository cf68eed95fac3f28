package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"twserver/internal/testenv"
)

// browserTimeout bounds a report's check in the headless browser.
const browserTimeout = 60 * time.Second

// checkReportInBrowser opens report.html from file in headless Chromium
// (no network: the page must need none), fails on any console error or
// uncaught exception, requires at least minPlots plots with drawn lines or
// bars and every plot's PNG export, and saves a screenshot next to the
// report (report.png) and, with TWLOAD_REPORT_SHOT=FILE, there too.
// Without a browser the test stops there (internal/testenv: skipped, and
// failed under CI). It returns the number of phase bands drawn (a
// scenario's).
func checkReportInBrowser(t *testing.T, report string, minPlots int) (bands int) {
	t.Helper()
	browser := testenv.LookPath(t, "chromium", "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000),
		chromedp.Flag("proxy-server", "127.0.0.1:9"), // nothing may leave the machine
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, browserTimeout)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Error())
		}
	})
	abs, err := filepath.Abs(report)
	if err != nil {
		t.Fatal(err)
	}
	var nplots, drawn, nbands string
	var shot []byte
	if err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+abs),
		chromedp.WaitReady("body[data-plots]"),
		chromedp.AttributeValue("body", "data-plots", &nplots, nil),
		chromedp.AttributeValue("body", "data-phase-bands", &nbands, nil),
		chromedp.Evaluate(`String([...document.querySelectorAll("figure svg")].filter(s => s.querySelector("path.series, rect.bar")).length)`, &drawn),
		chromedp.FullScreenshot(&shot, 90),
	); err != nil {
		t.Fatalf("opening %s: %v", report, err)
	}
	n, _ := strconv.Atoi(nplots)
	d, _ := strconv.Atoi(drawn)
	t.Logf("%s: %d plots, %d with lines or bars drawn", report, n, d)
	if n < minPlots || d != n {
		t.Errorf("%d plots of which %d drawn, want at least %d, all drawn", n, d, minPlots)
	}
	for i := range n {
		var url string
		if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("window.twPlotPNG(%d)", i), &url,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
			t.Fatalf("PNG export of plot %d: %v", i, err)
		}
		png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/png;base64,"))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 2000 {
			t.Errorf("plot %d: PNG export gave %d bytes (%.40q)", i, len(png), url)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: %s", report, p)
	}
	for _, f := range []string{filepath.Join(filepath.Dir(report), "report.png"), os.Getenv("TWLOAD_REPORT_SHOT")} {
		if f != "" {
			if err := os.WriteFile(f, shot, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	bands, _ = strconv.Atoi(nbands)
	return bands
}

// TestLoadReport: a single twload run with -o against a twserver process
// (-pid) writes report.json with the server's CPU and memory and every
// client's join time, and a report.html that opens without errors with
// its plots drawn and exportable.
func TestLoadReport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr, pid := startTwserverProcess(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"-addr", addr, "-n", "6", "-rampup", "1s", "-duration", "3s", "-status", "off", "-o", dir, "-pid", strconv.Itoa(pid)}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	rep := readReport(t, dir)
	if len(rep.Rows) != 1 || !rep.OK || !rep.ServerSampled {
		t.Fatalf("report: ok %v, sampled %v, %d rows", rep.OK, rep.ServerSampled, len(rep.Rows))
	}
	r := rep.Rows[0]
	if r.CPUPct <= 0 || r.PeakRSSMB <= 0 || r.InGame != 6 || len(r.JoinTimes) != 6 || len(r.Series) < 6 {
		t.Errorf("row: CPU %v %%, RSS %v MB, %d in game, %d join times, %d points", r.CPUPct, r.PeakRSSMB, r.InGame, len(r.JoinTimes), len(r.Series))
	}
	checkReportInBrowser(t, filepath.Join(dir, "report.html"), 9)
}

// readReport reads dir/report.json.
func readReport(t *testing.T, dir string) benchReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep benchReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}
