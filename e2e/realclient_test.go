package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"twserver/internal/deathsig"
	"twserver/internal/heavytest"
	"twserver/internal/netns"
	"twserver/internal/testenv"
	"twserver/loadclient"
	"twserver/snap"
	"twserver/world"
	"twserver/world/map06"
	"twserver/world/twmap"
)

// The test runs in two halves. The outer half (a normal `go test`) builds
// twserver and re-runs this test binary under `unshare --net`, so that the
// real client (which sends LAN-discovery broadcasts and master-server lookups
// at start) lives in a private network namespace that only has loopback. The
// inner half (env innerEnv=1) brings up lo, starts twserver, Xvfb and the
// client, plays, and checks the logs.

const (
	innerEnv  = "TWSERVER_E2E_INNER"
	binEnv    = "TWSERVER_E2E_BIN"
	outEnv    = "TWSERVER_E2E_OUT" // keep logs here (optional)
	clientBin = "/usr/games/teeworlds"
	e2ePort   = "8303"
	chatText  = "hello from the e2e test"
)

// snapshotErrRe matches what the 0.7.5 client (debug 1) prints when a server's
// snapshots or packets are wrong.
var snapshotErrRe = regexp.MustCompile(`snapshot crc error|delta unpack failed|couldn.t find the delta snapshot|invalid snapshot|snap invalidate problem|NETOBJ.*failed|error during packet`)

// lookTools stops the test (testenv: a skip, a failure under CI=true)
// unless the binaries every real-client test runs are installed.
func lookTools(t *testing.T) {
	t.Helper()
	for _, b := range []struct{ bin, pkg string }{
		{clientBin, "teeworlds"}, {"Xvfb", "xvfb"}, {"xdotool", "xdotool"}, {"unshare", "util-linux"}, {"ip", "iproute2"},
	} {
		testenv.LookPath(t, b.bin, b.pkg)
	}
}

func TestRealClient07(t *testing.T) {
	realClientTest(t, nil, func(t *testing.T) { inner(t, client07) })
}

// realClientTest runs a real-client test in its two halves. It skips in
// -short mode. In the private network namespace (innerEnv=1) it runs in;
// outside it calls outer (what only the outer half needs: tools, files,
// binaries; nil for nothing) and re-runs the test there (runIsolated).
func realClientTest(t *testing.T, outer func(), in func(t *testing.T)) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if os.Getenv(innerEnv) == "1" {
		in(t)
		return
	}
	if outer != nil {
		outer()
	}
	runIsolated(t)
}

// runIsolated is the outer half of a real-client test: it builds twserver
// and re-runs t's test of this binary under unshare --net, with
// innerEnv=1, binEnv and outEnv set.
func runIsolated(t *testing.T) {
	heavytest.Lock(t) // taken by the outer process, held while the inner one runs
	lookTools(t)
	if os.Geteuid() != 0 {
		testenv.Require(t, "root to create a private network namespace (unshare --net)", fmt.Errorf("euid %d", os.Geteuid()))
	}
	if out, err := exec.Command("unshare", "--net", "--", "true").CombinedOutput(); err != nil {
		testenv.Require(t, "a private network namespace (unshare --net)", fmt.Errorf("%v: %s", err, bytes.TrimSpace(out)))
	}
	out := os.Getenv(outEnv)
	if out == "" {
		out = t.TempDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ = filepath.Abs(out)
	bin := os.Getenv(binEnv) // a prebuilt twserver, else build one
	if bin == "" {
		bin = filepath.Join(out, "twserver")
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "twserver/cmd/twserver")
		build.Dir = ".."
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build twserver: %v\n%s", err, b)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"--net", "--", self, "-test.run", "^" + t.Name() + "$", "-test.v"}
	cmd := exec.CommandContext(ctx, "unshare", args...)
	cmd.Env = append(os.Environ(), innerEnv+"=1", binEnv+"="+bin, outEnv+"="+out)
	b, err := cmd.CombinedOutput()
	t.Logf("inner run (logs in %s):\n%s", out, b)
	if err != nil {
		t.Fatalf("inner run failed: %v", err)
	}
	if bytes.Contains(b, []byte("--- SKIP")) {
		t.Skip("inner run skipped")
	}
}

// proc is a started helper process whose output goes to a file.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

func start(t *testing.T, name, logPath string, stdin io.Reader, env []string, dir string, argv ...string) *proc {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = f, f, stdin
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	if err := deathsig.Start(t, cmd); err != nil { // never outlive the test
		f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); f.Close() }()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop sends SIGTERM, waits up to 5 s, then kills (by PID).
func (p *proc) stop(t *testing.T) error {
	select {
	case err := <-p.done:
		p.done <- err
		return err
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(5 * time.Second):
		t.Logf("%s did not stop within 5 s, killing", p.name)
		_ = p.cmd.Process.Kill()
		err := <-p.done
		p.done <- err
		return fmt.Errorf("%s killed after 5 s", p.name)
	}
}

// waitExit waits up to d for the process to exit.
func (p *proc) waitExit(d time.Duration) bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	case <-time.After(d):
		return false
	}
}

func (p *proc) exited() bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// holdTime is how long a movement key is held once the server sees it.
const holdTime = time.Second

func logSize(path string) int {
	b, _ := os.ReadFile(path)
	return len(b)
}

// waitLogAfter polls a file until re matches the part after offset.
func waitLogAfter(path string, offset int, re *regexp.Regexp, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) >= offset && re.Match(b[offset:]) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// waitLog polls a file until re matches or the timeout expires.
func waitLog(path string, re *regexp.Regexp, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && re.Match(b) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func xdo(t *testing.T, args ...string) string {
	t.Helper()
	out, err := xdoRun(args...)
	if err != nil {
		t.Log(err)
	}
	return out
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// xdoRun runs xdotool with args and returns its output, trimmed, and an
// error naming the call when it failed.
func xdoRun(args ...string) (string, error) {
	b, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("xdotool %v: %v %s", args, err, b)
	}
	return strings.TrimSpace(string(b)), err
}

var statusPosRe = regexp.MustCompile(`id=(\d+) [^\n]*name="?e2ebot"?[^\n]*pos=\((-?\d+),(-?\d+)\)`)

// playerPos sends "players" to the server console and returns the e2ebot position
// from the newest line of the players command.
func playerPos(t *testing.T, console io.Writer, serverLog string) (x, y int, ok bool) {
	t.Helper()
	before, _ := os.ReadFile(serverLog)
	fmt.Fprintln(console, "players")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(serverLog)
		if len(b) <= len(before) {
			continue
		}
		m := statusPosRe.FindAllSubmatch(b[len(before):], -1)
		if len(m) == 0 {
			continue
		}
		last := m[len(m)-1]
		x, _ = strconv.Atoi(string(last[2]))
		y, _ = strconv.Atoi(string(last[3]))
		return x, y, true
	}
	return 0, 0, false
}

// playerID sends "players" to the server console and returns the e2ebot's
// client id.
func playerID(t *testing.T, console io.Writer, serverLog string) (int, bool) {
	t.Helper()
	before, _ := os.ReadFile(serverLog)
	fmt.Fprintln(console, "players")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(serverLog)
		if len(b) <= len(before) {
			continue
		}
		if m := statusPosRe.FindAllSubmatch(b[len(before):], -1); len(m) > 0 {
			id, err := strconv.Atoi(string(m[len(m)-1][1]))
			return id, err == nil
		}
	}
	return 0, false
}

// seenByLoadClient runs one synthetic client (package loadclient) against the
// server for a few seconds and returns how many of its verified snapshots
// held the character of client realID, and that character's last position.
func seenByLoadClient(t *testing.T, realID int, camera [2]int32) (seen int, x, y int32, stats loadclient.Stats) {
	t.Helper()
	port, err := strconv.Atoi(e2ePort)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	cl := loadclient.New(loadclient.Config{
		Server:  netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)),
		Name:    "e2eload",
		Pattern: loadclient.PatternIdle,
		// A free-view spectator's camera follows its aim: look where the
		// server's world has the real client.
		IdleTarget: camera,
		OnSnapshot: func(_ int32, s *snap.Snapshot) {
			i := s.Find(snap.Key(world.ObjCharacter, uint16(realID)))
			if i < 0 {
				return
			}
			d := s.ItemData(i)
			mu.Lock()
			seen, x, y = seen+1, d[world.CharX], d[world.CharY]
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	stats = cl.Run(ctx)
	mu.Lock()
	defer mu.Unlock()
	return seen, x, y, stats
}

// realClient describes how to run one real client program.
type realClient struct {
	bin      string   // executable
	args     []string // console commands before the test's own and "connect"
	windowRe string   // xdotool search --name pattern of its window
	userDir  string   // its data directory below HOME
	// map06: a 0.6 client, which downloads the map's 0.6 variant (world/map06)
	map06 bool
}

// client07 is the Teeworlds 0.7.5 client.
var client07 = realClient{
	bin: clientBin,
	args: []string{"bindaddr 127.0.0.1", "gfx_fullscreen 0", "gfx_borderless 0", "gfx_screen_width 800", "gfx_screen_height 600",
		"gfx_vsync 0", "snd_enable 0", "snd_init 0", "debug 1", "gfx_limitfps 1", "gfx_maxfps 50",
		"console_output_level 2", "cl_auto_demo_record 0", "player_name e2ebot"},
	windowRe: "^Teeworlds$",
	userDir:  ".local/share/teeworlds",
}

// startConsoleServer starts twserver bin on 127.0.0.1:e2ePort (debug log
// in serverLog, working directory out, extra flags args) with its console
// on a pipe, and waits until it listens. It returns the server and the
// console, closed when the test ends.
func startConsoleServer(t *testing.T, bin, out, serverLog string, args ...string) (*proc, io.Writer) {
	t.Helper()
	consoleR, console, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { console.Close() })
	srv := start(t, "twserver", serverLog, consoleR, nil, out,
		append([]string{bin, "-bind", "127.0.0.1", "-port", e2ePort, "-log-level", "debug"}, args...)...)
	consoleR.Close()
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}
	return srv, console
}

func inner(t *testing.T, rc realClient) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")

	// One player slot: the real client plays, the synthetic client that
	// checks what others see of it joins as a free-view spectator.
	srv, console := startConsoleServer(t, bin, out, serverLog, "-player-slots", "1")
	// The client joins a game that sleeps, empty (server/sleep.go): no
	// ticks until its CONNECT wakes the game.
	if !waitLog(serverLog, regexp.MustCompile(`game asleep`), 5*time.Second) {
		t.Fatalf("the empty game did not fall asleep (see %s)", serverLog)
	}

	binds := []string{`bind f7 "say ` + chatText + `"`, "bind f8 disconnect", "bind f9 quit", "bind f10 spectate_next"}
	if rc.map06 {
		binds = append(binds, `bind f6 "player_name `+renamedTo+`"`)
	}
	client, clientLog, home := startRealClientKind(t, rc, out, "127.0.0.1:"+e2ePort, binds...)
	online := regexp.MustCompile(`state change\. last=2 current=3`)
	if !waitLog(clientLog, online, 40*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("client never reached the online state; client exited=%v; client log tail:\n%s", client.exited(), tail(b, 40))
	}
	t.Logf("client online")
	if !waitLog(serverLog, regexp.MustCompile(`entered the game`), 5*time.Second) {
		t.Errorf("server did not log that the player entered the game")
	}
	if !waitLog(serverLog, regexp.MustCompile(`game awake`), time.Second) {
		t.Errorf("server did not log that the game woke for the client")
	}
	time.Sleep(1500 * time.Millisecond) // let the tee spawn

	if wid := firstLine(xdo(t, "search", "--name", rc.windowRe)); wid != "" {
		xdo(t, "mousemove", "--window", wid, "400", "300")
		xdo(t, "windowfocus", wid)
	} else {
		t.Logf("client window not found by name; sending keys to the focused window")
	}
	x0, y0, ok0 := playerPos(t, console, serverLog)
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_ingame.png")

	xdo(t, "key", "F7") // say
	time.Sleep(300 * time.Millisecond)
	// Hold each key for a second of what the server saw: the key is held
	// until the server logs the new input direction (the client may be
	// slow on a loaded machine), then for holdTime more, and released until
	// the server logs direction 0 again.
	hold := func(key string, dir int) {
		mark := logSize(serverLog)
		xdo(t, "keydown", key)
		if !waitLogAfter(serverLog, mark, regexp.MustCompile(fmt.Sprintf(`direction=%d `, dir)), 10*time.Second) {
			t.Errorf("server never saw input direction %d after pressing %q", dir, key)
		}
		time.Sleep(holdTime)
		mark = logSize(serverLog)
		xdo(t, "keyup", key)
		if !waitLogAfter(serverLog, mark, regexp.MustCompile(`direction=0 `), 10*time.Second) {
			t.Errorf("server never saw input direction 0 after releasing %q", key)
		}
		time.Sleep(500 * time.Millisecond) // come to rest
	}
	hold("d", 1)
	x1, y1, ok1 := playerPos(t, console, serverLog)
	hold("a", -1)
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_moved.png")
	xdo(t, "keydown", "Tab") // the scoreboard: scores as points (DDNet: not as race times)
	time.Sleep(400 * time.Millisecond)
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_scoreboard.png")
	xdo(t, "keyup", "Tab")
	x2, _, ok2 := playerPos(t, console, serverLog)
	t.Logf("positions in the server's world: start (%d,%d) after right (%d,%d) after left x=%d", x0, y0, x1, y1, x2)
	switch {
	case !ok0 || !ok1 || !ok2:
		t.Errorf("server console status did not report the player's position")
	case x1 <= x0:
		t.Errorf("holding 'd' did not move the tee right in the server's world: x %d -> %d", x0, x1)
	case x2 >= x1:
		t.Errorf("holding 'a' did not move the tee left in the server's world: x %d -> %d", x1, x2)
	}
	if !waitLog(serverLog, regexp.MustCompile(regexp.QuoteMeta(chatText)), 3*time.Second) {
		t.Errorf("chat line typed in the client did not reach the server log")
	}

	// Every message the client sent decoded on the server side.
	statsBefore, _ := os.ReadFile(serverLog)
	fmt.Fprintln(console, "stats")
	statsRe := regexp.MustCompile(`bad_messages=(\d+)[^\n]*`)
	if waitLog(serverLog, statsRe, 3*time.Second) {
		b, _ := os.ReadFile(serverLog)
		if m := statsRe.FindSubmatch(b[len(statsBefore):]); m != nil {
			t.Logf("server counters: %s", m[0])
			if string(m[1]) != "0" {
				t.Errorf("server could not decode %s messages from the real client", m[1])
			}
		}
	}

	// A synthetic client sees the real client's character in its snapshots,
	// where the server's world has it.
	if id, ok := playerID(t, console, serverLog); !ok {
		t.Errorf("server console status did not report the real client's id")
	} else if x3, y3, ok := playerPos(t, console, serverLog); !ok {
		t.Errorf("server console status did not report the player's position")
	} else {
		seen, sx, sy, st := seenByLoadClient(t, id, [2]int32{int32(x3), int32(y3)})
		t.Logf("load client: entered=%v snapshots=%d crc_errors=%d; real client's character (id %d) in %d snapshots, last at (%d,%d)",
			st.Entered, st.Snapshots, st.CRCErrors, id, seen, sx, sy)
		switch {
		case !st.Entered || st.CRCErrors != 0 || st.DeltaErrors != 0 || st.BadItems != 0:
			t.Errorf("load client: entered=%v crc=%d delta=%d bad items=%d failure=%q", st.Entered, st.CRCErrors, st.DeltaErrors, st.BadItems, st.Failure)
		case seen == 0:
			t.Errorf("load client never saw the real client's character (id %d) in its snapshots", id)
		}
		if x4, y4, ok := playerPos(t, console, serverLog); ok && seen > 0 {
			if dx, dy := int(sx)-x4, int(sy)-y4; dx*dx+dy*dy > 64*64 {
				t.Errorf("load client saw the real client's character at (%d,%d), the server's world has it at (%d,%d)", sx, sy, x4, y4)
			}
		}
	}

	// Console commands as the real client sees them: a vote option added at
	// run time and carried out at once ("Admin forced server option"), the
	// option's command (a server chat line), the tuning sent again.
	mark := logSize(clientLog)
	fmt.Fprintln(console, `add_vote "Hello vote" say voted hello; force_vote option "hello VOTE" e2e; tune gravity 1`)
	for _, want := range []string{`Admin forced server option 'Hello vote' \(e2e\)`, `\*\*\* voted hello`} {
		if !waitLogAfter(clientLog, mark, regexp.MustCompile(want), 5*time.Second) {
			t.Errorf("client log has no %q after the console's add_vote and force_vote", want)
		}
	}

	playWithBots(t, console, serverLog, clientLog, out)

	if rc.map06 {
		renameInGame(t, console, serverLog, clientLog)
	}

	xdo(t, "key", "F8") // disconnect
	if !waitLog(serverLog, regexp.MustCompile(`(?i)left|leave|drop`), 5*time.Second) {
		t.Errorf("server did not log the client leaving")
	}
	cl := quitClient(t, client, clientLog)
	if !bytes.Contains(cl, []byte("download complete")) {
		t.Errorf("client did not download the map (no 'download complete' in its log)")
	}
	want := twmap.Default().Data
	if rc.map06 {
		v, err := map06.Derive(twmap.Default())
		if err != nil {
			t.Fatal(err)
		}
		want = v.Data
	}
	maps, _ := filepath.Glob(filepath.Join(home, rc.userDir, "downloadedmaps/*.map"))
	if len(maps) != 1 {
		t.Errorf("downloaded maps in the client's home: %v, want exactly one", maps)
	} else if got, err := os.ReadFile(maps[0]); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the client's downloaded map %s differs from the embedded default map (or its 0.6 variant) (%v)", maps[0], err)
	}

	// Shutdown: SIGINT must stop the server within 5 s.
	t0 := time.Now()
	if err := srv.stop(t); err != nil {
		t.Errorf("twserver exit: %v", err)
	}
	t.Logf("server stopped in %v", time.Since(t0).Round(time.Millisecond))
}

// renamedTo is the name the DDNet client takes in game.
const renamedTo = "e2ebot2"

// renameInGame has the DDNet client change its name in game (player_name,
// which it sends as Cl_ChangeInfo): the server applies it, its console
// lists the new name, and the client shows the server's chat line.
func renameInGame(t *testing.T, console io.Writer, serverLog, clientLog string) {
	t.Helper()
	mark, cmark := logSize(serverLog), logSize(clientLog)
	xdo(t, "key", "F6")
	if !waitLogAfter(serverLog, mark, regexp.MustCompile(`player changed name[^\n]* name=`+renamedTo+` old=e2ebot`), 5*time.Second) {
		t.Errorf("server did not log the real client's name change to %q", renamedTo)
	}
	mark = logSize(serverLog)
	fmt.Fprintln(console, "status")
	if !waitLogAfter(serverLog, mark, regexp.MustCompile(`name='`+renamedTo+`'`), 3*time.Second) {
		t.Errorf("server console status does not list the new name %q", renamedTo)
	}
	chat := regexp.MustCompile(`[^\n]*\*\*\* 'e2ebot' changed name to '` + renamedTo + `'`)
	if !waitLogAfter(clientLog, cmark, chat, 3*time.Second) {
		t.Errorf("client log has no chat line of its name change")
		return
	}
	b, _ := os.ReadFile(clientLog)
	t.Logf("the real client renamed in game; its log: %s", chat.Find(b[cmark:]))
}

func slicesWithout(env []string, prefix string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startRealClient starts Xvfb on a free display and the real 0.7.5 client
// on it, connecting to addr, with its home below out; extra are more
// console commands for the client. It returns the client, its log and home.
func startRealClient(t *testing.T, out, addr string, extra ...string) (client *proc, clientLog, home string) {
	t.Helper()
	return startRealClientKind(t, client07, out, addr, extra...)
}

// startRealClientKind is startRealClient for the real client rc; with addr
// "" the client starts in its menu, not connecting.
func startRealClientKind(t *testing.T, rc realClient, out, addr string, extra ...string) (client *proc, clientLog, home string) {
	t.Helper()
	clientLog = filepath.Join(out, "client.log")
	display := startXvfb(t, out)
	home = filepath.Join(out, "home")
	os.RemoveAll(home)
	os.MkdirAll(home, 0o755)
	env := append(os.Environ(), "HOME="+home, "DISPLAY="+display)
	env = slicesWithout(env, "XDG_DATA_HOME=")
	cargs := append(append([]string{rc.bin}, rc.args...), extra...)
	if addr != "" { // else the test connects it (a console command bound to a key)
		cargs = append(cargs, "connect "+addr)
	}
	client = start(t, filepath.Base(rc.bin), clientLog, nil, env, out, cargs...)
	return client, clientLog, home
}

// startXvfb starts Xvfb on a free display (800x600) until the test ends,
// sets DISPLAY and returns it.
func startXvfb(t *testing.T, out string) string {
	t.Helper()
	dispR, dispW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	xvfb := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "800x600x24", "-nolisten", "tcp", "-noreset")
	xvfb.ExtraFiles = []*os.File{dispW}
	xlog, _ := os.Create(filepath.Join(out, "xvfb.log"))
	xvfb.Stdout, xvfb.Stderr = xlog, xlog
	if err := deathsig.Start(t, xvfb); err != nil {
		testenv.Require(t, "a running Xvfb", err)
	}
	dispW.Close()
	t.Cleanup(func() { _ = xvfb.Process.Kill(); _ = xvfb.Wait(); xlog.Close() })
	line, err := bufio.NewReader(dispR).ReadString('\n')
	dispR.Close()
	if err != nil {
		xlog.Sync()
		b, _ := os.ReadFile(filepath.Join(out, "xvfb.log"))
		testenv.Require(t, "a running Xvfb", fmt.Errorf("it reported no display: %v; its log: %s", err, tail(b, 10)))
	}
	display := ":" + strings.TrimSpace(line)
	os.Setenv("DISPLAY", display)
	return display
}

// quitClient makes the real client quit (its F9 binding, else a signal),
// checks its log for snapshot and packet errors and returns the log.
func quitClient(t *testing.T, client *proc, clientLog string) []byte {
	t.Helper()
	xdo(t, "key", "F9") // quit
	if !client.waitExit(5 * time.Second) {
		t.Logf("client did not quit on its own")
	}
	client.stop(t)
	cl, _ := os.ReadFile(clientLog)
	if m := snapshotErrRe.FindAll(cl, -1); len(m) > 0 {
		t.Errorf("client logged %d snapshot/packet errors, first: %s", len(m), m[0])
	}
	return cl
}
