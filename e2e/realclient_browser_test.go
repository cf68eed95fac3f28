package e2e

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/loadclient"
)

// TestRealClient07BrowserBots has the real 0.7.5 client's server browser
// count twserver's bots. The client starts offline in its browser with our
// server as a favourite and two browser filters of its own: "With bots"
// (favourites) and "Hide bots" (favourites with the client's "Hide bots"
// box, FILTER_BOTS). Each filter's header shows "N servers, M players";
// under "Hide bots" the client leaves out the clients whose server-info
// type has the bot bit (2). The test reads the two headers' text from
// screenshots (the bright pixels of their regions, compared between
// screenshots: no OCR) while the server goes through four states, the
// browser refreshed (Ctrl+R) after each:
//
//	S0 nobody                 With bots 0 players  Hide bots 0 players
//	S1 2 bots                 With bots 2 (≠ S0)   Hide bots 0 (= S0)
//	S2 2 humans, no bots      With bots 2 (= S1)   Hide bots 2 (≠ S0)
//	S3 2 humans and 2 bots    With bots 4 (≠ S2)   Hide bots 2 (= S2)
//
// S2 is the control that the S1 check can fail: the same two players, as
// humans, change the "Hide bots" count, so it is the bot type the client
// counts, not the server's player count.
func TestRealClient07BrowserBots(t *testing.T) {
	realClientTest(t, nil, innerBrowserBots)
}

// browserSettings is the real client's ui_settings.json: two filters of its
// own, both favourites only, the second with FILTER_BOTS (16) besides
// FILTER_FAVORITE (1024), and the second one open (its list shows our
// server's row). The client adds its standard filters around them, so the
// headers sit at browserWithBots and browserHideBots. Every field of a
// filter is given: the 0.7.5 client leaves a missing one uninitialized
// (a run filtered our server out by a stray address).
const browserSettings = `{"settings":{"sidebar_active":0,"sidebar_tab":0,"filters":[1,0]},
"filter":[
 {"With bots":{"type":0,"settings":{"filter_hash":1024,"filter_gametype":[],"filter_ping":999,"filter_serverlevel":0,"filter_address":"","filter_country":-1}}},
 {"Hide bots":{"type":0,"settings":{"filter_hash":1040,"filter_gametype":[],"filter_ping":999,"filter_serverlevel":0,"filter_address":"","filter_country":-1}}}
]}
`

// The regions of the 800x600 window holding the right-aligned
// "N servers, M players" text of the "With bots" and "Hide bots" filter
// headers (the second and third header: the client puts its standard
// "Teeworlds" filter first).
var (
	browserWithBots = image.Rect(440, 120, 630, 139)
	browserHideBots = image.Rect(440, 142, 630, 161)
)

// textMask is the set of bright (text) pixels of region r of the PNG at
// path, as a string of '#' and '.' rows: the headers' text is white over
// a dark translucent bar, the menu background behind it moves but stays
// dark.
func textMask(path string, r image.Rectangle) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return "", err
	}
	if !r.In(img.Bounds()) {
		return "", fmt.Errorf("%s is %v, smaller than the region %v", path, img.Bounds(), r)
	}
	var b strings.Builder
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if min(cr, cg, cb)>>8 >= 170 {
				b.WriteByte('#')
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// maskDiff is the number of pixels two masks of the same region differ in.
func maskDiff(a, b string) int {
	if len(a) != len(b) {
		return max(len(a), len(b))
	}
	n := 0
	for i := range len(a) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// maskInk is the number of text pixels of a mask.
func maskInk(m string) int { return strings.Count(m, "#") }

// Mask comparisons: the same text differs in at most sameText pixels (the
// edges of anti-aliased glyphs over the moving background), another digit
// in at least otherText.
const (
	sameText  = 4
	otherText = 12
)

// browserHeaders is one screenshot's two header masks.
type browserHeaders struct {
	with, hide string
	shot       string
}

// browserShot takes a screenshot named name and reads the two headers.
func browserShot(t *testing.T, out, name string) (browserHeaders, error) {
	t.Helper()
	p := filepath.Join(out, name)
	if b, err := exec.Command("import", "-display", os.Getenv("DISPLAY"), "-window", "root", p).CombinedOutput(); err != nil {
		return browserHeaders{}, fmt.Errorf("screenshot %s: %v %s", name, err, b)
	}
	w, err := textMask(p, browserWithBots)
	if err != nil {
		return browserHeaders{}, err
	}
	h, err := textMask(p, browserHideBots)
	if err != nil {
		return browserHeaders{}, err
	}
	return browserHeaders{with: w, hide: h, shot: p}, nil
}

// refreshedHeaders refreshes the client's browser (Ctrl+R) and takes
// screenshots until done says the headers show the new state and two
// screenshots in a row agree (a refresh empties the list for a moment),
// for up to 10 s. It returns the last headers and whether done held.
func refreshedHeaders(t *testing.T, out, clientLog, state string, done func(browserHeaders) bool) (browserHeaders, bool) {
	t.Helper()
	// The client sees Ctrl+R only when both keys are down in one of its
	// frames (slow on a loaded machine): hold them, and press again when
	// its log does not show the refresh.
	name := strings.ToLower(strings.NewReplacer(" ", "_", "(", "", ")", "", ",", "").Replace(state))
	asked := regexp.MustCompile(`requesting server info from 127\.0\.0\.1:` + e2ePort)
	refreshed := false
	for try := 0; try < 4 && !refreshed; try++ {
		mark := logSize(clientLog)
		xdo(t, "keydown", "ctrl")
		xdo(t, "keydown", "r")
		time.Sleep(200 * time.Millisecond)
		xdo(t, "keyup", "r")
		xdo(t, "keyup", "ctrl")
		refreshed = waitLogAfter(clientLog, mark, asked, 2*time.Second)
	}
	if !refreshed {
		t.Errorf("%s: the client did not ask our server for its info after Ctrl+R, 4 times", state)
	}
	var prev browserHeaders
	var h browserHeaders
	for i, deadline := 0, time.Now().Add(10*time.Second); time.Now().Before(deadline); i++ {
		time.Sleep(250 * time.Millisecond)
		var err error
		h, err = browserShot(t, out, "browser_"+name+".png")
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && done(h) && maskDiff(h.with, prev.with) <= sameText && maskDiff(h.hide, prev.hide) <= sameText {
			return h, true
		}
		prev = h
	}
	return h, false
}

// headerWant names one filter header of a state to compare with.
type headerWant struct {
	hide bool           // the "Hide bots" header, else "With bots"
	from browserHeaders // the state compared with
	name string         // its name in messages
}

func (w headerWant) of(h browserHeaders) string {
	if w.hide {
		return h.hide
	}
	return h.with
}

func (w headerWant) String() string {
	if w.hide {
		return `"Hide bots"`
	}
	return `"With bots"`
}

// browserStep refreshes the browser for the server's new state and
// checks it: the header changes must differ from its earlier state's (which
// also shows that the refresh came through), the header keeps must be the
// same as its earlier state's; why says what it means when it is not.
func browserStep(t *testing.T, out, clientLog, state, why string, changes, keeps headerWant) browserHeaders {
	t.Helper()
	h, ok := refreshedHeaders(t, out, clientLog, state, func(h browserHeaders) bool {
		return maskDiff(changes.of(h), changes.of(changes.from)) >= otherText
	})
	dc, dk := maskDiff(changes.of(h), changes.of(changes.from)), maskDiff(keeps.of(h), keeps.of(keeps.from))
	t.Logf("%s: %v header %d pixels from %s's, %v header %d pixels from %s's", state, changes, dc, changes.name, keeps, dk, keeps.name)
	if !ok {
		t.Errorf("%s: the %v header did not change from %s's (%s)", state, changes, changes.name, h.shot)
	}
	if dk > sameText {
		t.Errorf("%s: the %v header differs from %s's in %d pixels: %s (%s)", state, keeps, keeps.name, dk, why, h.shot)
	}
	return h
}

// addBots adds bots ("skill name" each) over the console and waits for the
// server to log them entering.
func addBots(t *testing.T, console io.Writer, serverLog string, bots ...string) {
	t.Helper()
	mark := logSize(serverLog)
	for _, b := range bots {
		fmt.Fprintln(console, "bot_add "+b)
	}
	for _, b := range bots {
		name := b[strings.LastIndexByte(b, ' ')+1:]
		if !waitLogAfter(serverLog, mark, regexp.MustCompile(`bot has entered the game.*name=`+name), 5*time.Second) {
			t.Fatalf("the server did not log bot %s entering", name)
		}
	}
}

func innerBrowserBots(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")
	srv, console := startConsoleServer(t, bin, out, serverLog, "-name", "twserver with bots")

	// The client starts offline in its browser (no welcome popup, no start
	// menu), our server its favourite, over a menu background without the
	// animated map.
	display := startXvfb(t, out)
	home := filepath.Join(out, "home")
	os.RemoveAll(home)
	userDir := filepath.Join(home, client07.userDir)
	if err := os.MkdirAll(userDir, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := "cl_show_welcome 0\ncl_skip_start_menu 1\ncl_show_menu_map 0\nadd_favorite 127.0.0.1:" + e2ePort + "\n"
	if err := os.WriteFile(filepath.Join(userDir, "settings07.cfg"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "ui_settings.json"), []byte(browserSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := slicesWithout(append(os.Environ(), "HOME="+home, "DISPLAY="+display), "XDG_DATA_HOME=")
	var args []string
	for _, a := range client07.args {
		if !strings.HasPrefix(a, "player_name") {
			args = append(args, a)
		}
	}
	clientLog := filepath.Join(out, "client.log")
	client := start(t, "teeworlds", clientLog, nil, env, out, append([]string{client07.bin}, args...)...)
	if !waitLog(clientLog, regexp.MustCompile(`requesting server info from 127\.0\.0\.1:`+e2ePort), 20*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the client's browser never asked our server for its info; client log tail:\n%s", tail(b, 30))
	}
	wid := firstLine(xdo(t, "search", "--name", client07.windowRe))
	if wid == "" {
		t.Fatal("client window not found")
	}
	xdo(t, "windowfocus", wid)
	xdo(t, "mousemove", "--window", wid, "5", "595") // away from the headers (hover lights them)

	s0, ok := refreshedHeaders(t, out, clientLog, "S0 (empty)", func(h browserHeaders) bool {
		return maskInk(h.with) > otherText && maskInk(h.hide) > otherText
	})
	if !ok {
		t.Fatalf("S0: the browser's filter headers show no text in %v and %v (see %s)", browserWithBots, browserHideBots, s0.shot)
	}
	t.Logf("S0 (empty server): ink with=%d hide=%d, with vs hide %d pixels apart", maskInk(s0.with), maskInk(s0.hide), maskDiff(s0.with, s0.hide))

	// S1: two bots, no human.
	addBots(t, console, serverLog, "hard Ada", "easy Bert")
	s1 := browserStep(t, out, clientLog, "S1 (2 bots)", "the browser counts the bots as humans",
		headerWant{from: s0, name: "S0"}, headerWant{hide: true, from: s0, name: "S0"})

	// S2: the same number of players, humans (synthetic clients).
	mark := logSize(serverLog)
	fmt.Fprintln(console, "bot_remove all")
	if !waitLogAfter(serverLog, mark, regexp.MustCompile(`(?s)bot left the game.*bot left the game`), 5*time.Second) {
		t.Fatalf("the server did not log both bots leaving")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, _ := strconv.Atoi(e2ePort)
	humans := make([]*loadclient.Client, 2)
	stats := make(chan *loadclient.Stats, len(humans))
	for i := range humans {
		humans[i] = loadclient.New(loadclient.Config{
			Server:  netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)),
			Name:    "human" + strconv.Itoa(i+1),
			Pattern: loadclient.PatternIdle,
			Seed:    uint64(i + 1),
			Index:   i,
		})
		go func(c *loadclient.Client) { st := c.Run(ctx); stats <- &st }(humans[i])
	}
	for _, c := range humans {
		for deadline := time.Now().Add(10 * time.Second); !c.Entered(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("a synthetic human did not get in game")
			}
		}
	}
	s2 := browserStep(t, out, clientLog, "S2 (2 humans)", "2 humans and 2 bots are not the same count without the filter",
		headerWant{hide: true, from: s0, name: "S0"}, headerWant{from: s1, name: "S1"})

	// S3: the humans and two bots (the screenshot in docs/bots.md).
	addBots(t, console, serverLog, "hard Ada", "normal Bert")
	browserStep(t, out, clientLog, "S3 (2 humans, 2 bots)", "the browser counts the bots beside the humans",
		headerWant{from: s2, name: "S2"}, headerWant{hide: true, from: s2, name: "S2"})

	cancel()
	for range humans {
		if st := <-stats; !st.Entered || st.CRCErrors != 0 {
			t.Errorf("synthetic human %d: entered %v crc errors %d failure %q", st.Index, st.Entered, st.CRCErrors, st.Failure)
		}
	}
	client.stop(t)
	srv.stop(t)
}
