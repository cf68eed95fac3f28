package watch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"twserver/config"
	"twserver/demo"
	"twserver/internal/browsertest"
	"twserver/snap"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/watch/watchtest"
	"twserver/world"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// withCSP serves h with the page's security headers.
func withCSP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", CSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// demoPositions makes the free-view demo of the test game with
// replay.WriteDemo (what twhist demo writes) and returns, for tick, every
// character's position as a client shows it: the Character item's core
// advanced from its tick to tick, tick by tick, in an empty world.
func demoPositions(t *testing.T, tick int32) map[int][2]int32 {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", testGame))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := teehist.NewReader(f)
	h, err := rd.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	m, err := testSource{}.Map(h)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := replay.WriteDemo(&out, rd, h, m, replay.DemoOptions{View: replay.FreeView, To: tick}); err != nil {
		t.Fatalf("demo up to tick %d: %v", tick, err)
	}
	_, ticks, err := demo.ReadAll(out.Bytes(), snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ticks, func(x demo.Tick) bool { return x.Tick == tick })
	if i < 0 {
		t.Fatalf("tick %d not in the demo", tick)
	}
	w, err := world.New(m, world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[int][2]int32{}
	s := ticks[i].Snap
	for k := range s.NumItems() {
		it := s.Item(k)
		if it.Type != world.ObjCharacter || len(it.Data) < world.NetCoreSize {
			continue
		}
		var n world.NetCore
		n.Get(it.Data)
		if n.Tick == 0 {
			pos[int(it.ID)] = [2]int32{n.X, n.Y}
			continue
		}
		wc := world.WorldCore{Tuning: tuning.Default()}
		var c world.CharacterCore
		c.Init(&wc, w.Collision())
		c.Reset()
		c.Read(&n)
		for range tick - n.Tick {
			c.Tick(false)
			c.Move()
			c.Quantize()
		}
		pos[int(it.ID)] = [2]int32{vmath.RoundToInt(c.Pos.X), vmath.RoundToInt(c.Pos.Y)}
	}
	return pos
}

// drawnPositions reads the tees the page drew and the tick they are of.
func drawnPositions(t *testing.T, ctx context.Context) (int32, map[int][2]int32) {
	t.Helper()
	var s string
	browsertest.Eval(t, ctx, `(() => { const d = document.getElementById('minimap').dataset; return d.tick + ' ' + (d.tees || '') })()`, &s)
	fs := strings.Fields(s)
	tick, _ := strconv.Atoi(fs[0])
	pos := map[int][2]int32{}
	for _, f := range fs[1:] {
		var id int
		var x, y int32
		if _, err := fmt.Sscanf(f, "%d:%d,%d", &id, &x, &y); err != nil {
			t.Fatalf("%q: %v", f, err)
		}
		pos[id] = [2]int32{x, y}
	}
	return int32(tick), pos
}

// checkPositions compares the drawn tees with the demo's at the drawn tick.
func checkPositions(t *testing.T, ctx context.Context) int32 {
	t.Helper()
	tick, drawn := drawnPositions(t, ctx)
	want := demoPositions(t, tick)
	if len(want) < 2 {
		t.Fatalf("tick %d: only %d characters in the demo", tick, len(want))
	}
	if fmt.Sprint(drawn) != fmt.Sprint(want) {
		t.Fatalf("tick %d: drawn %v, the demo shows %v", tick, drawn, want)
	}
	t.Logf("tick %d: %d tees at the demo's positions %v", tick, len(drawn), drawn)
	return tick
}

// TestBrowserWatch watches the committed CTF game in Chromium: the four
// names (markup as text), the capture in the feed with the score of that
// moment, the positions of the demo twhist writes, playback, speeds,
// keyboard and the address's moment.
func TestBrowserWatch(t *testing.T) {
	ctx := browsertest.Start(t, 60*time.Second)
	cache := NewCache(context.Background(), testSource{"testdata"}, 1)
	h := NewHandler(cache, Options{Chat: true})
	mux := http.NewServeMux()
	h.Register(mux, true)
	srv := httptest.NewServer(withCSP(mux))
	defer srv.Close()
	rec := built(t, "testdata", testGame)
	info := rec.Info(true)
	var capture, kill *Event
	for i := range info.Events {
		e := &info.Events[i]
		if e.Kind == EventCapture && capture == nil {
			capture = e
		}
		if e.Kind == EventKill && kill == nil {
			kill = e
		}
	}
	url := srv.URL + "/watch/" + testGame
	start := time.Now()
	if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	names := append([]string(nil), watchtest.Names[:]...)
	slices.Sort(names)
	browsertest.Wait(t, ctx, 10*time.Second, "the four names on the scoreboard",
		`Array.from(document.querySelectorAll('#score tbody td:first-child')).map((e) => e.textContent).sort().join('|') === `+strconv.Quote(strings.Join(names, "|")))
	t.Logf("page to scoreboard: %v", time.Since(start))
	var markup int
	browsertest.Eval(t, ctx, `document.querySelectorAll('#score i, #feed i, #feed b').length`, &markup)
	if markup != 0 {
		t.Fatalf("%d elements made from names or chat", markup)
	}
	// the right arrow: 5 s on
	if err := chromedp.Run(ctx, chromedp.Focus("#minimap", chromedp.ByID), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 5*time.Second, "right arrow: 5 s on", `watchState().tick === 252`)
	checkPositions(t, ctx)

	// the next capture: its feed line and the score of that moment
	if err := chromedp.Run(ctx, chromedp.Click("#next-capture", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	ct := capture.Tick - capture.Tick%FrameTicks
	browsertest.Wait(t, ctx, 5*time.Second, "the capture's moment", fmt.Sprintf(`watchState().tick === %d`, ct))
	var last string
	browsertest.Eval(t, ctx, `(() => { const l = document.querySelector('#feed li:last-child'); return l.dataset.tick + ' ' + l.textContent })()`, &last)
	wantLine := fmt.Sprintf("%d %s", capture.Tick, "")
	if !strings.HasPrefix(last, wantLine) || !strings.Contains(last, "captured the") {
		t.Fatalf("feed's last line %q at the capture of tick %d", last, capture.Tick)
	}
	k := int(ct / ChunkTicks)
	_, frames := chunkFrames(t, rec, k)
	var score string
	for _, f := range frames {
		if f[0] == ct {
			p := parseTestFrame(f)
			score = fmt.Sprintf("red %d : %d blue", p.score[0], p.score[1])
		}
	}
	var shown string
	browsertest.Eval(t, ctx, `document.getElementById('teamscore').textContent`, &shown)
	if score == "" || shown != score || score == "red 0 : 0 blue" {
		t.Fatalf("score shown %q, the frame's %q", shown, score)
	}
	t.Logf("capture at tick %d: %q, %s", capture.Tick, last, shown)
	checkPositions(t, ctx)
	var hash string
	browsertest.Eval(t, ctx, `location.hash`, &hash)
	if want := fmt.Sprintf("#t=%d:%02d", ct/50/60, ct/50%60); hash != want {
		t.Fatalf("address %q, want %q", hash, want)
	}

	// the keyboard: k is the next kill after the capture
	var nextKill int32 = -1
	for _, e := range info.Events {
		if e.Kind == EventKill && e.Tick > ct {
			nextKill = e.Tick - e.Tick%FrameTicks
			break
		}
	}
	if err := chromedp.Run(ctx, chromedp.Focus("#minimap", chromedp.ByID), chromedp.KeyEvent("k")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 5*time.Second, "k: the next kill", fmt.Sprintf(`watchState().tick === %d`, nextKill))

	// a shared moment: the address sets it, following a player
	if err := chromedp.Run(ctx, chromedp.Navigate(url+"#t=0:41&follow="+"bram")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 10*time.Second, "the moment of the address", `watchState().tick === 2050 && watchState().follow === 'bram' && document.getElementById('follow').value === 'bram'`)
	checkPositions(t, ctx)

	// play at 8x: the game moves on by about 8 ticks per 20 ms
	if err := chromedp.Run(ctx, chromedp.SetValue("#speed", "8", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('speed').dispatchEvent(new Event('change'))`, nil),
		chromedp.KeyEvent(" ")); err != nil {
		t.Fatal(err)
	}
	var t0 int32
	browsertest.Eval(t, ctx, `watchState().tick`, &t0)
	time.Sleep(time.Second)
	var t1 int32
	var playing bool
	browsertest.Eval(t, ctx, `watchState().tick`, &t1)
	browsertest.Eval(t, ctx, `watchState().playing`, &playing)
	if !playing || t1-t0 < 150 || t1-t0 > 460 {
		t.Fatalf("at 8x: %d ticks in 1 s (playing %v)", t1-t0, playing)
	}
	// paused on a moment of the whole map for the docs' screenshot
	browsertest.Eval(t, ctx, `document.getElementById('play').click(); location.hash = '#t=0:41'; true`, nil)
	browsertest.Wait(t, ctx, 5*time.Second, "the screenshot's moment", `!watchState().playing && watchState().tick === 2050 && watchState().follow === ''`)
	browsertest.Screenshot(t, ctx, "watch.png")
	browsertest.CheckDialogs(t, ctx)
}

type testFrame struct{ score [2]int32 }

// parseTestFrame reads the team score of a frame's ints.
func parseTestFrame(f []int32) testFrame {
	i := 1
	skip := func(n int) { c := int(f[i]); i += 1 + c*n }
	skip(TeeInts)
	skip(3)
	skip(4)
	skip(3)
	skip(3)
	return testFrame{score: [2]int32{f[i+2], f[i+3]}}
}

// TestBrowserWatchBots: the viewer's scoreboard writes [bot] after a bot's
// name (the server's recording of bots filling a game) and nothing after a
// human's.
func TestBrowserWatchBots(t *testing.T) {
	ctx := browsertest.Start(t, 60*time.Second)
	cache := NewCache(context.Background(), testSource{"../teehist/testdata"}, 1)
	mux := http.NewServeMux()
	NewHandler(cache, Options{}).Register(mux, true)
	srv := httptest.NewServer(withCSP(mux))
	defer srv.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/watch/twserver_bots.teehistorian#t=0:05")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 10*time.Second, "a bot marked and a human not on the scoreboard",
		`(() => { const n = Array.from(document.querySelectorAll('#score tbody td:first-child')).map((e) => e.textContent);
		  return n.some((s) => s.endsWith(' [bot]')) && n.some((s) => !s.endsWith(' [bot]')) })()`)
	var names string
	browsertest.Eval(t, ctx, `Array.from(document.querySelectorAll('#score tbody td:first-child')).map((e) => e.textContent).join('|')`, &names)
	for _, n := range strings.Split(names, "|") {
		if bot := strings.TrimSuffix(n, " [bot]"); bot != n != slices.Contains(config.DefaultBotNames, bot) {
			t.Errorf("scoreboard name %q (all: %s)", n, names)
		}
	}
	browsertest.CheckDialogs(t, ctx)
}

// TestBrowserWatchHostileNames: player names holding markup are shown as
// text on the viewer's scoreboard and in its feed, and make no element and
// open no dialog.
func TestBrowserWatchHostileNames(t *testing.T) {
	names := [4]string{"<b>x", "<i>y</i>", "<img src=x>", `'&"<q>`}
	dir := t.TempDir()
	p, err := watchtest.GameOf(dir, 20*50, 3, names)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t, 60*time.Second)
	cache := NewCache(context.Background(), testSource{dir}, 1)
	mux := http.NewServeMux()
	NewHandler(cache, Options{}).Register(mux, true)
	srv := httptest.NewServer(withCSP(mux))
	defer srv.Close()
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/watch/"+filepath.Base(p)+"#t=0:15")); err != nil {
		t.Fatal(err)
	}
	browsertest.Wait(t, ctx, 10*time.Second, "the four names as text on the scoreboard",
		`(() => { const n = Array.from(document.querySelectorAll('#score tbody td:first-child')).map((e) => e.textContent);
		  return n.length === 4 && n.includes('<b>x') && n.includes('<i>y</i>') && n.includes('<img src=x>') && n.includes('\'&"<q>') })()`)
	var made string
	browsertest.Eval(t, ctx, `String(document.querySelectorAll('#score b, #score i, #score img, #score q, #feed b, #feed i, #feed img, #feed q').length)`, &made)
	if made != "0" {
		t.Errorf("%s elements made from player names", made)
	}
	browsertest.Screenshot(t, ctx, "watch-hostile-names.png")
	browsertest.CheckDialogs(t, ctx)
}
