package web

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"twserver/internal/browsertest"
	"twserver/loadclient"
	"twserver/server"
)

// browser starts headless Chromium (browsertest.Start: a JavaScript
// dialog fails the test) for at most 90 s.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browserFor(t, 90*time.Second)
}

// browserFor is browser for at most d, with the extra options.
func browserFor(t *testing.T, d time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	return browsertest.Start(t, d, append([]chromedp.ExecAllocatorOption{chromedp.WindowSize(1400, 1000)}, extra...)...)
}

// waitJS is browsertest.Wait: expr evaluated until it is true or d has
// passed (an evaluation a navigation interrupts is tried again); it
// returns how long that took.
func waitJS(t *testing.T, ctx context.Context, d time.Duration, what, expr string) time.Duration {
	t.Helper()
	return browsertest.Wait(t, ctx, d, what, expr)
}

// evalString evaluates expr to a string.
func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &s)); err != nil {
		t.Fatal(err)
	}
	return s
}

// screenshot saves the page as name in $TWSERVER_SCREENSHOTS (if set).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, name)
}

// teePos is the minimap's drawn position of client id ("" when not drawn).
func teePos(t *testing.T, ctx context.Context, id int) string {
	s := evalString(t, ctx, `document.getElementById('minimap').dataset.tees || ''`)
	for _, f := range strings.Fields(s) {
		if k, v, ok := strings.Cut(f, ":"); ok && k == strconv.Itoa(id) {
			return v
		}
	}
	return ""
}

// checkPlayback: over 5 s the minimap draws every frame the game
// published (one per server.FrameEvery ticks), each at least 40 ms after
// the one before (app.js's updates), at least 9.5 a second (the game's 10
// a second, within the window's edges); it returns the page's playback
// delay in ms.
func checkPlayback(t *testing.T, ctx context.Context, what string) int {
	t.Helper()
	const expr = `(() => { const d = document.getElementById('minimap').dataset;
	  return [d.frames, d.tick, d.delay, performance.now(), d.updates].map(Number) })()`
	var p0, p1 [5]float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &p0)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &p1)); err != nil {
		t.Fatal(err)
	}
	frames, ticks, ms, updates := p1[0]-p0[0], p1[1]-p0[1], p1[3]-p0[3], p1[4]-p0[4]
	rate := updates * 1000 / ms
	t.Logf("%s: %v frames drawn over %v ticks in %.0f ms, %v updates (%.1f/s), playback delay %v ms", what, frames, ticks, ms, updates, rate, p1[2])
	if rate < 9.5 || frames < ticks/server.FrameEvery-1 {
		t.Errorf("%s: the minimap drew %v frames over %v ticks in %.0f ms, %v updates (%.1f/s)", what, frames, ticks, ms, updates, rate)
	}
	return int(p1[2])
}

// TestBrowserPage: the public page in headless Chromium against two real
// games of one process with synthetic clients: both games are listed; the
// names and scores show; a chat line appears within 2 s; the minimap's
// tee moves with its client and the minimap draws every frame at its pace,
// also when they come in bundles (a low write budget); a plot gains
// points; a hostile name and chat line are shown as text and open no
// dialog.
func TestBrowserPage(t *testing.T) {
	ctx := browser(t)
	a := startGame(t, "Arena <i>one</i>", "ctf")
	b := startGame(t, "Second game", "dm")
	h, ts := startWeb(t, Options{PublicChat: true, SampleEvery: 500 * time.Millisecond}, a, b)
	// the second game writes one write a second to two viewers, the page
	// and a plain reader: the page's frames come in bundles of twenty, 2 s
	// apart, as with 50 viewers and StreamWritesPerSecond
	h.byPort[int(b.Addr().Port())].stream.budget = 1
	collectStream(t, ts.URL+"/api/games/"+strconv.Itoa(int(b.Addr().Port()))+"/events")
	var bs bots
	alice := bs.join(t, a, "alice", loadclient.PatternWalk)
	evil := bs.join(t, a, "<b>x", loadclient.PatternIdle)
	bs.join(t, b, "bob", loadclient.PatternIdle)

	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "both games listed",
		`(() => { const b = document.querySelectorAll('#games button'); return b.length === 2 &&
		  b[0].textContent.includes('Arena <i>one</i>') && b[1].textContent.includes('Second game') })()`)
	waitJS(t, ctx, 5*time.Second, "players with scores",
		`(() => { const rows = [...document.querySelectorAll('#players tbody tr')].map(r => [...r.cells].map(c => c.textContent));
		  return rows.length === 2 && rows.some(r => r[0] === 'alice' && r[3] === '0') && rows.some(r => r[0] === '<b>x') })()`)
	// a player without a country (the clients send -1) shows "-"; two
	// games are listed in the bar, the plots have a time axis
	if got := evalString(t, ctx, `[...document.querySelectorAll('#players tbody tr')].map(r => r.cells[2].textContent).join(',')`); got != "-,-" {
		t.Errorf("country column %q, want -,-", got)
	}
	waitJS(t, ctx, 5*time.Second, "the plots' time axis", `(() => { const a = document.querySelector('#plot-players + .axis');
	  return !!a && a.lastChild.textContent === 'now' && !document.getElementById('games').hidden })()`)
	if n := evalString(t, ctx, `String(document.querySelectorAll('#players b, #g-name i').length)`); n != "0" {
		t.Errorf("%s elements made from player or server strings", n)
	}
	if got := evalString(t, ctx, `document.getElementById('g-name').textContent`); got != "Arena <i>one</i>" {
		t.Errorf("game name shown as %q", got)
	}

	say(t, alice, "hello from alice")
	took := waitJS(t, ctx, 2*time.Second, "chat line", `document.getElementById('feed').textContent.includes('alice: hello from alice')`)
	t.Logf("chat line shown %v after it was sent", took)
	say(t, evil, "<img src=x onerror=alert(1)>")
	waitJS(t, ctx, 2*time.Second, "hostile chat line as text", `document.getElementById('feed').textContent.includes('<b>x: <img src=x onerror=alert(1)>')`)
	if n := evalString(t, ctx, `String(document.querySelectorAll('#feed img, #feed b').length)`); n != "0" {
		t.Errorf("%s elements made from chat", n)
	}

	id := 0 // alice entered first
	p0 := teePos(t, ctx, id)
	seen := []string{p0}
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end) && seen[len(seen)-1] == p0; {
		time.Sleep(250 * time.Millisecond)
		seen = append(seen, teePos(t, ctx, id))
	}
	if p0 == "" || seen[len(seen)-1] == p0 {
		t.Errorf("alice's tee on the minimap does not move in 4 s: %q (all: %q)", seen, evalString(t, ctx, `document.getElementById('minimap').dataset.tees`))
	}
	if delay := checkPlayback(t, ctx, "one viewer, a write per frame"); delay >= 400 {
		t.Errorf("minimap: playback delay %d ms with a frame per write", delay)
	}
	pts0, _ := strconv.Atoi(evalString(t, ctx, `document.getElementById('plot-players').dataset.points`))
	waitJS(t, ctx, 12*time.Second, "plot gains points",
		`Number(document.getElementById('plot-players').dataset.points) > `+strconv.Itoa(pts0))
	// the snapshot plot draws the history's snapshot_bytes of the same sample
	lastT := evalString(t, ctx, `document.getElementById('plot-snapshot_bytes').dataset.lastT`)
	drawn, _ := strconv.ParseFloat(evalString(t, ctx, `document.getElementById('plot-snapshot_bytes').dataset.last`), 64)
	var hist struct{ Samples []Sample }
	getJSON(t, ts.Client(), ts.URL+"/api/games/"+strconv.Itoa(int(a.Addr().Port()))+"/history", &hist)
	found := false
	for _, s := range hist.Samples {
		if strconv.FormatInt(s.Time, 10) == lastT {
			found = true
			if math.Abs(s.SnapshotBytes-drawn) > 1e-9 || drawn < 4 {
				t.Errorf("snapshot plot draws %v, the sample has snapshot_bytes %v", drawn, s.SnapshotBytes)
			}
		}
	}
	if !found {
		t.Errorf("snapshot plot's last sample %q not in the history", lastT)
	}
	screenshot(t, ctx, "page.png")
	if err := chromedp.Run(ctx, chromedp.Click(`#follow`, chromedp.ByQuery), chromedp.SetValue(`#follow`, "0", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('follow').dispatchEvent(new Event('change'))`, nil)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	screenshot(t, ctx, "follow.png")
	if err := chromedp.Run(ctx, chromedp.Click(`#games button:nth-child(2)`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "switch to the second game",
		`document.getElementById('g-name').textContent === 'Second game' && [...document.querySelectorAll('#players tbody tr')].some(r => r.cells[0].textContent === 'bob')`)
	waitJS(t, ctx, 8*time.Second, "playback delay follows the bundles", `Number(document.getElementById('minimap').dataset.delay) >= 1600`)
	time.Sleep(4 * time.Second) // the delay grows to the largest gap of the first bundles
	if delay := checkPlayback(t, ctx, "two viewers at one write a second, twenty frames per write"); delay < 1600 || delay > 3000 {
		t.Errorf("minimap: playback delay %d ms with writes 2 s apart", delay)
	}
	browsertest.CheckDialogs(t, ctx)
}

// shownHeaders is the page's headers (h3) a user sees, joined by commas.
const shownHeaders = `[...document.querySelectorAll('h3')].filter((h) => h.offsetParent !== null).map((h) => h.textContent).join()`

// TestBrowserPageSections: the public page shows no header over an empty
// list: on an empty game it says nobody is playing and shows neither
// "Spectators" nor "Chat and kills"; a client that joins makes a player
// and a feed line, one moved to the spectators makes the Spectators
// header appear (with its name as text) and the players' table go; a bot
// brings it back, its name followed by [bot].
func TestBrowserPageSections(t *testing.T) {
	ctx := browser(t)
	a := startGame(t, "Sections", "dm")
	_, ts := startWeb(t, Options{PublicChat: true}, a)
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the game shown", `document.getElementById('g-name').textContent === 'Sections'`)
	if got := evalString(t, ctx, shownHeaders); got != "Players,The last hour" {
		t.Errorf("an empty game shows the headers %q, want Players,The last hour", got)
	}
	if got := evalString(t, ctx, `String((document.getElementById('no-players') || {}).textContent)`); got != "Nobody is playing." {
		t.Errorf("an empty game says %q, want Nobody is playing.", got)
	}
	var bs bots
	bs.join(t, a, "<b>spec", loadclient.PatternIdle)
	waitJS(t, ctx, 5*time.Second, "a player and a feed line, no spectators",
		`document.querySelectorAll('#players tbody tr').length === 1 && document.getElementById('no-players').hidden && `+
			shownHeaders+` === 'Players,Chat and kills,The last hour'`)
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := a.RunAdmin(rctx, "test", "set_team 0 -1"); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the spectator under the Spectators header",
		`[...document.querySelectorAll('#spectators tbody tr')].map((r) => r.cells[0].textContent).join() === '<b>spec' && `+
			`!document.getElementById('no-players').hidden && document.getElementById('players').offsetParent === null && `+
			shownHeaders+` === 'Players,Spectators,Chat and kills,The last hour'`)
	if n := evalString(t, ctx, `String(document.querySelectorAll('#spectators b').length)`); n != "0" {
		t.Errorf("%s elements made from a spectator's name", n)
	}
	screenshot(t, ctx, "sections.png")
	// a bot plays: the players' table is back, the bot's name says it is one
	if _, err := a.RunAdmin(rctx, "test", "bot_add easy Ada"); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the bot in the players' table",
		`[...document.querySelectorAll('#players tbody tr')].map((r) => r.cells[0].textContent).join() === 'Ada [bot]' && document.getElementById('no-players').hidden`)
	browsertest.CheckDialogs(t, ctx)
}

// TestBrowserAdmin: the admin page in headless Chromium: a wrong token is
// refused, the right one logs in, and the kick button kicks the client; a
// bot's row offers remove instead, which removes the bot (the API refuses
// to kick it); a page without the session cannot kick.
func TestBrowserAdmin(t *testing.T) {
	ctx := browser(t)
	a := startGame(t, "Admin test", "dm")
	_, ts := startWeb(t, Options{AdminToken: testToken, PublicChat: true}, a)
	var bs bots
	bs.join(t, a, "<b>x", loadclient.PatternIdle)
	bs.join(t, a, "stays", loadclient.PatternIdle)

	// without a session the action is refused
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	var status int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch('/admin/api/action', {method: 'POST', body: new URLSearchParams({action: 'kick', id: '0'})}).then(r => r.status)`,
		&status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if status != 401 {
		t.Errorf("kick without the token: %d, want 401", status)
	}

	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/admin"),
		chromedp.WaitVisible(`#token`, chromedp.ByID),
		chromedp.SendKeys(`#token`, "wrong-token-000000", chromedp.ByID),
		chromedp.Submit(`#token`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "wrong token refused", `(document.getElementById('failed') || {hidden: true}).hidden === false`)
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`#token`, testToken, chromedp.ByID),
		chromedp.Submit(`#token`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "admin page with players", `document.getElementById('aplayers') !== null`)
	waitJS(t, ctx, 5*time.Second, "admin page with players",
		`document.querySelectorAll('#aplayers tbody tr').length === 2`)
	if err := chromedp.Run(ctx, chromedp.SendKeys(`#cmdline`, "status", chromedp.ByID),
		chromedp.Click(`form[data-action="command"] button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "console output", `document.getElementById('output').textContent.includes('name="<b>x"') || document.getElementById('output').textContent.includes('<b>x')`)
	screenshot(t, ctx, "admin.png")
	if err := chromedp.Run(ctx, chromedp.Click(`#aplayers tbody tr[data-id="0"] button[data-action="kick"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "kicked client gone",
		`[...document.querySelectorAll('#aplayers tbody tr')].map(r => r.cells[1].textContent).join() === 'stays'`)
	if n := evalString(t, ctx, `String(document.querySelectorAll('#aplayers b, #output b').length)`); n != "0" {
		t.Errorf("%s elements made from player strings", n)
	}
	// a bot says it is one; its row offers remove where a connected
	// client's offers kick, and remove removes it
	if err := chromedp.Run(ctx, chromedp.SetValue(`#cmdline`, "bot_add easy Ada", chromedp.ByID),
		chromedp.Click(`form[data-action="command"] button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the bot marked as a bot",
		`[...document.querySelectorAll('#aplayers tbody tr')].map(r => r.cells[1].textContent).join() === 'stays,Ada [bot]'`)
	if got := evalString(t, ctx, `[...document.querySelectorAll('#aplayers tbody tr')].map(r => r.cells[1].textContent + ': ' +
		[...r.querySelectorAll('button')].map(b => b.textContent + '=' + b.dataset.action).join(' ')).join(', ')`); got != "stays: kick=kick spectate=spectate, Ada [bot]: remove=remove spectate=spectate" {
		t.Errorf("the rows' buttons: %q", got)
	}
	screenshot(t, ctx, "admin-bot.png")
	// the API refuses to kick the bot and names the action that removes it
	var refused string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch('/admin/api/session').then(r => r.json()).then(s => fetch('/admin/api/action', {method: 'POST',
		headers: {'X-CSRF-Token': s.csrf}, body: new URLSearchParams({action: 'kick', id: document.querySelector('#aplayers tbody tr:last-child').dataset.id})}))
		.then(r => r.json().then(j => r.status + ' ' + j.error))`, &refused, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(refused, "400 kick takes a connected client: client ") || !strings.HasSuffix(refused, " is the bot 'Ada' (action remove removes it)") {
		t.Errorf("kick of the bot by the API: %q", refused)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#aplayers tbody tr:last-child button[data-action="remove"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the removed bot gone",
		`document.getElementById('output').textContent === '> bot_remove "Ada"\nremoved 1 bot' &&
		 [...document.querySelectorAll('#aplayers tbody tr')].map(r => r.cells[1].textContent).join() === 'stays'`)
	// logout (CSRF token and origin checked) ends the session: back to the login form
	if err := chromedp.Run(ctx, chromedp.Click(`#logout`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "the login form after logout", `document.getElementById('token') !== null`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch('/admin/api/session').then(r => r.status)`,
		&status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if status != 401 {
		t.Errorf("session after logout: %d, want 401", status)
	}
	browsertest.CheckDialogs(t, ctx)
}

// TestBrowserRecordings: on the page of a recording game no recording is
// listed while its first game runs; after a map change the first game's
// demo and teehistorian appear as links that download the files.
func TestBrowserRecordings(t *testing.T) {
	ctx := browser(t)
	dir := t.TempDir()
	s := startRecordingGame(t, dir)
	_, ts := startWebGames(t, Options{Recordings: RecordingsPublic, PublicChat: true}, Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir})
	if err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "game shown", `document.getElementById('g-name').textContent === 'recorded'`)
	time.Sleep(500 * time.Millisecond) // the first listing
	if got := evalString(t, ctx, `String(document.querySelectorAll('#recordings a[download]').length) + ' ' + document.getElementById('rec-section').hidden`); got != "0 true" {
		t.Errorf("before the map change: links and hidden: %s", got)
	}
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.RunAdmin(rctx, "test", "change_map beta"); err != nil {
		t.Fatal(err)
	}
	took := waitJS(t, ctx, 12*time.Second, "links to the first game's recordings",
		`(() => { const a = [...document.querySelectorAll('#recordings a[download]')];
		  return a.length === 2 && a.some(x => x.textContent.endsWith('.demo')) && a.some(x => x.textContent.endsWith('.teehistorian')) &&
		    !document.getElementById('rec-section').hidden })()`)
	t.Logf("links shown %v after the map change", took)
	var n int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch(document.querySelector('#recordings a').href).then(r => r.ok ? r.arrayBuffer() : null).then(b => b ? b.byteLength : -1)`,
		&n, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		t.Errorf("the link's file: %d bytes", n)
	}
	screenshot(t, ctx, "recordings.png")
	// the teehistorian's watch link opens the viewer on the first game
	if err := chromedp.Run(ctx, chromedp.Click(`#recordings a:not([download])`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 10*time.Second, "the viewer of the first game",
		`location.pathname.endsWith('.teehistorian') && !!document.getElementById('title') && document.getElementById('title').textContent.includes('alpha') && document.getElementById('timeline').max > 0`)

	// the default ("admin"): the public page lists none, the admin page
	// lists both and its links download with the session cookie
	_, ats := startWebGames(t, Options{AdminToken: testToken}, Game{Port: int(s.Addr().Port()), Server: s, RecordDir: dir})
	if err := chromedp.Run(ctx, chromedp.Navigate(ats.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 5*time.Second, "game shown", `document.getElementById('g-name').textContent === 'recorded'`)
	time.Sleep(500 * time.Millisecond) // the first listing
	if got := evalString(t, ctx, `String(document.querySelectorAll('#recordings a').length) + ' ' + document.getElementById('rec-section').hidden`); got != "0 true" {
		t.Errorf("public page of private recordings: links and hidden: %s", got)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(ats.URL+"/admin"),
		chromedp.WaitVisible(`#token`, chromedp.ByID),
		chromedp.SendKeys(`#token`, testToken, chromedp.ByID),
		chromedp.Submit(`#token`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, 8*time.Second, "the admin page's recordings", `document.querySelectorAll('#arecordings a').length === 2`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch(document.querySelector('#arecordings a').href).then(r => r.ok ? r.arrayBuffer() : null).then(b => b ? b.byteLength : -1)`,
		&n, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		t.Errorf("the admin link's file: %d bytes", n)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch(document.querySelector('#arecordings a').href, {credentials: 'omit'}).then(r => r.status)`,
		&n, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if n != 401 {
		t.Errorf("the admin link without the cookie: %d, want 401", n)
	}
	// the viewer follows the downloads' rule: with the admin's session it
	// opens a recording, without it there is no such recording
	var watched string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch('/admin/api/games/`+strconv.Itoa(int(s.Addr().Port()))+`/recordings').then(r => r.json())
		.then(j => j.recordings.find(x => x.watch).watch + '/info')
		.then(u => Promise.all([fetch(u).then(r => r.status), fetch(u, {credentials: 'omit'}).then(r => r.status)]))
		.then(a => a.join(' '))`, &watched, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	if watched != "200 404" {
		t.Errorf("the viewer's info with and without the admin's session: %s, want 200 404", watched)
	}
	screenshot(t, ctx, "admin-recordings.png")
	browsertest.CheckDialogs(t, ctx)
}
