package e2e

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/internal/servertest"
	"twserver/internal/testenv"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// nextBinEnv names the twserver build the upgrade test installs over the
// running one (another version string).
const nextBinEnv = "TWSERVER_E2E_NEXT_BIN"

// The builds' version strings (main.version), as the server info shows them.
const (
	upgradeOldVersion = "e2e-old"
	upgradeNewVersion = "e2e-new"
)

// TestRealClientsUpgrade: the real 0.7.5 client and the real DDNet 16.4
// client play in one game; the binary is replaced by a build with another
// version string and SIGUSR2 sent. Both clients stay in game (their logs
// show no state change: no disconnect, new connection or map load), chat
// and move through the new process, and the server info shows the new
// version.
func TestRealClientsUpgrade(t *testing.T) {
	realClientTest(t, func() { buildUpgradeBins(t) }, innerUpgrade)
}

// buildUpgradeBins is TestRealClientsUpgrade's outer half: it builds the
// old and the new binary and names them in binEnv and nextBinEnv.
func buildUpgradeBins(t *testing.T) {
	testenv.LookPath(t, ddnetClientBin, "ddnet")
	dir := t.TempDir()
	old, next := filepath.Join(dir, "twserver-old"), filepath.Join(dir, "twserver-new")
	for _, b := range []struct{ path, version string }{{old, upgradeOldVersion}, {next, upgradeNewVersion}} {
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version="+b.version, "-o", b.path, "twserver/cmd/twserver")
		build.Dir = ".."
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build twserver (%s): %v\n%s", b.version, err, out)
		}
	}
	t.Setenv(binEnv, old)
	t.Setenv(nextBinEnv, next)
}

// stopPid ends process pid: SIGTERM, then SIGKILL after 5 s.
func stopPid(t *testing.T, pid int) {
	if pid <= 0 || syscall.Kill(pid, syscall.SIGTERM) != nil {
		return
	}
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("process %d did not stop within 5 s, killing", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// upgradeClient is one real client of the upgrade test.
type upgradeClient struct {
	rc      realClient
	name    string // its player name
	out     string // its directory (log, home)
	log     string
	display string
	proc    *proc
}

// key sends key to the client's window on its own display.
func (c *upgradeClient) key(t *testing.T, action, key string) {
	t.Helper()
	os.Setenv("DISPLAY", c.display)
	wid := xdo(t, "search", "--name", c.rc.windowRe)
	if i := strings.IndexByte(wid, '\n'); i >= 0 {
		wid = wid[:i]
	}
	if wid != "" {
		xdo(t, "windowfocus", wid)
	}
	xdo(t, action, key)
}

func innerUpgrade(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out := os.Getenv(outEnv)
	bin := filepath.Join(out, "bin", "twserver") // the path upgrades start from
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	servertest.InstallBinary(t, os.Getenv(binEnv), bin)
	serverLog := filepath.Join(out, "server.log")
	consoleR, console, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer console.Close()
	recDir := filepath.Join(out, "rec")
	cfg := filepath.Join(out, "server.toml")
	if err := os.WriteFile(cfg, []byte("[record]\nteehistorian = true\ndemo = true\ndir = \""+recDir+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := start(t, "twserver", serverLog, consoleR, nil, out, bin, "-config", cfg,
		"-bind", "127.0.0.1", "-port", e2ePort, "-log-level", "debug", "-player-slots", "2")
	consoleR.Close()
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}
	addr := netip.MustParseAddrPort("127.0.0.1:" + e2ePort)
	if v, want := servertest.Info7Version(t, addr), "0.7.5, twserver "+upgradeOldVersion; v != want {
		t.Errorf("server info version before the upgrade %q, want %q", v, want)
	}

	clients := []*upgradeClient{{rc: client07, name: "e2e07"}, {rc: clientDDNet, name: "e2eddnet"}}
	for _, c := range clients {
		c.out = filepath.Join(out, c.name)
		if err := os.MkdirAll(c.out, 0o755); err != nil {
			t.Fatal(err)
		}
		binds := []string{"player_name " + c.name, `bind f6 "say before ` + c.name + `"`, `bind f7 "say after ` + c.name + `"`, "bind f9 quit"}
		c.proc, c.log, _ = startRealClientKind(t, c.rc, c.out, addr.String(), binds...)
		c.display = os.Getenv("DISPLAY")
	}
	online := regexp.MustCompile(`state change\. last=2 current=3`)
	for _, c := range clients {
		if !waitLog(c.log, online, 60*time.Second) {
			b, _ := os.ReadFile(c.log)
			t.Fatalf("%s never reached the online state; exited=%v; log tail:\n%s", c.name, c.proc.exited(), tail(b, 40))
		}
	}
	for _, c := range clients {
		if !waitLog(serverLog, regexp.MustCompile(`entered the game[^\n]*`+c.name), 10*time.Second) {
			t.Fatalf("the server did not log %s entering the game", c.name)
		}
	}
	time.Sleep(1500 * time.Millisecond) // spawn
	for _, c := range clients {
		c.key(t, "key", "F6")
		if !waitLog(serverLog, regexp.MustCompile(`before `+c.name), 5*time.Second) {
			t.Errorf("%s's chat before the upgrade did not reach the server", c.name)
		}
	}

	// The upgrade: a new build installed over the path, then the signal.
	marks := make([]int, len(clients))
	for i, c := range clients {
		marks[i] = logSize(c.log)
	}
	smark := logSize(serverLog)
	servertest.InstallBinary(t, os.Getenv(nextBinEnv), bin)
	oldPid := srv.cmd.Process.Pid
	if err := srv.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	served := regexp.MustCompile(`upgrade: the new process serves[^\n]*pid=(\d+)`)
	if !waitLogAfter(serverLog, smark, served, 20*time.Second) {
		b, _ := os.ReadFile(serverLog)
		t.Fatalf("the upgrade did not complete; server log tail:\n%s", tail(b[smark:], 30))
	}
	b, _ := os.ReadFile(serverLog)
	newPid, _ := strconv.Atoi(string(served.FindSubmatch(b[smark:])[1]))
	// The new process is the old one's child, not the test's: end it.
	t.Cleanup(func() { stopPid(t, newPid) })
	if !srv.waitExit(5 * time.Second) {
		t.Errorf("the old process %d did not exit after the upgrade", oldPid)
	}
	if v, want := servertest.Info7Version(t, addr), "0.7.5, twserver "+upgradeNewVersion; v != want {
		t.Errorf("server info version after the upgrade %q, want %q", v, want)
	}

	// Playing on: chat from both, movement from the 0.7.5 client, all
	// through the new process (its log goes to the same file: it inherits
	// the old one's standard output and console).
	time.Sleep(time.Second)
	for _, c := range clients {
		c.key(t, "key", "F7")
		if !waitLogAfter(serverLog, smark, regexp.MustCompile(`after `+c.name), 10*time.Second) {
			t.Errorf("%s's chat after the upgrade did not reach the new process", c.name)
		}
	}
	if !waitLogAfter(clients[1].log, marks[1], regexp.MustCompile(`after `+clients[0].name), 5*time.Second) {
		t.Errorf("the DDNet client did not receive the 0.7.5 client's chat after the upgrade")
	}
	mark := logSize(serverLog)
	c07 := clients[0]
	c07.key(t, "keydown", "d")
	if !waitLogAfter(serverLog, mark, regexp.MustCompile(`direction=1 `), 10*time.Second) {
		t.Errorf("the new process never saw the 0.7.5 client's input after the upgrade")
	}
	c07.key(t, "keyup", "d")
	fmt.Fprintln(console, "status")
	for _, c := range clients {
		if !waitLogAfter(serverLog, mark, regexp.MustCompile(`id=\d+ addr=\S+ client=\S+ name='`+c.name+`'`), 5*time.Second) {
			t.Errorf("the new process's status does not list %s in game", c.name)
		}
	}

	// No client left its game, not even for a map load: no state change
	// at all since the upgrade (offline 0, connecting 1, loading 2), and
	// both still running.
	reconnect := regexp.MustCompile(`state change\. last=\d current=\d`)
	for i, c := range clients {
		b, _ := os.ReadFile(c.log)
		if m := reconnect.Find(b[marks[i]:]); m != nil {
			t.Errorf("%s's log after the upgrade shows it leaving: %q\n%s", c.name, m, tail(b[marks[i]:], 20))
		}
		if c.proc.exited() {
			t.Errorf("%s exited", c.name)
		}
		t.Logf("%s's log since the upgrade:\n%s", c.name, tail(b[marks[i]:], 15))
	}
	for _, c := range clients {
		os.Setenv("DISPLAY", c.display)
		cl := quitClient(t, c.proc, c.log)
		if c.rc.map06 {
			if m := ddnetErrLineRe.FindAll(cl, -1); len(m) > 0 {
				t.Errorf("DDNet client logged %d error/warning lines, first: %s", len(m), m[0])
			}
		}
	}
	stopPid(t, newPid) // the new process ends its recordings
	checkUpgradeRecordings(t, recDir, filepath.Join(out, "demo"))
}

// checkUpgradeRecordings checks the recordings of the game across the
// upgrade in dir: the old process's teehistorian and the new one's (which
// starts from the world handed over and names the old one's game in
// prev_game_uuid) each replay to their end without divergence, and the new
// process's demo plays in the real 0.7.5 client.
func checkUpgradeRecordings(t *testing.T, dir, out string) {
	t.Helper()
	ths, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
	demos, _ := filepath.Glob(filepath.Join(dir, "*.demo"))
	if len(ths) != 2 || len(demos) != 2 {
		t.Fatalf("recordings across one upgrade: %d teehistorians and %d demos (%v %v), want 2 each", len(ths), len(demos), ths, demos)
	}
	var games, prevs []teehist.UUID
	for _, path := range ths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r := teehist.NewReader(f)
		h, err := r.ReadHeader()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		games, prevs = append(games, h.GameUUID), append(prevs, h.PrevGameUUID)
		res, err := replay.Run(r, h, twmap.Default())
		f.Close()
		switch {
		case err != nil:
			t.Errorf("replay of %s: %v", filepath.Base(path), err)
		case res.Divergence != nil || !res.Finished || res.Compared == 0:
			t.Errorf("replay of %s: divergence %v, finished %v, %d positions compared", filepath.Base(path), res.Divergence, res.Finished, res.Compared)
		default:
			t.Logf("replay of %s: %d ticks, %d positions compared, no divergence", filepath.Base(path), res.Ticks, res.Compared)
		}
	}
	if prevs[0] != games[1] && prevs[1] != games[0] {
		t.Errorf("neither teehistorian names the other's game in prev_game_uuid: games %v, prev %v", games, prevs)
	}
	newest := demos[0]
	for _, d := range demos[1:] {
		a, _ := os.Stat(newest)
		b, _ := os.Stat(d)
		if b.ModTime().After(a.ModTime()) {
			newest = d
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	playDemo(t, client07, out, newest)
}
