package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testport"
	"twserver/loadclient"
)

// TestUpgradeCommand: the console command upgrade (here from standard
// input; rcon, econ and the admin page run the same console) starts the
// upgrade SIGUSR2 starts, with the clients in game staying connected; a
// second upgrade asked for while the first has not ended is refused with
// the reason; the new process, reading the same standard input, upgrades
// again on the next command. A ban made before the upgrade still refuses
// its address on the new process (another address, the control, gets in).
func TestUpgradeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds twserver and runs clients")
	}
	heavytest.Lock(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "twserver")
	buildServer(t, bin, "-X main.version=upgrade-command")
	port, metricsPort := testport.Pick(t), testport.Pick(t)
	r, stdin := startConsoleRig(t, bin, upgradeConfig(port, 16)+fmt.Sprintf("[metrics]\nlisten = \"127.0.0.1:%d\"\n", metricsPort))
	out := r.out
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	var in atomic.Int32
	run, stop := loadRun(t, addr, 30*time.Second, &in, new(continuity))

	upgraded := func(n int) {
		t.Helper()
		waitUntil(t, fmt.Sprintf("upgrade %d", n), 20*time.Second, func() bool {
			m := servesRE.FindAllStringSubmatch(out.String(), -1)
			if len(m) < n {
				return false
			}
			fmt.Sscan(m[n-1][1], &r.pid)
			return true
		})
	}
	first := r.pid
	// A ban before the upgrade; the new process must still refuse it.
	banned, free := netip.MustParseAddr("127.0.0.200"), netip.MustParseAddr("127.0.0.201")
	fmt.Fprint(stdin, "ban 127.0.0.200 30 banned before the upgrade\n")
	waitUntil(t, "the ban", 5*time.Second, func() bool { return strings.Contains(out.String(), "banned before the upgrade") })
	fmt.Fprint(stdin, "upgrade\nupgrade\n")
	upgraded(1)
	if !strings.Contains(out.String(), "upgrade: bans restored bans=1") && !strings.Contains(out.String(), `"bans":1`) {
		t.Errorf("the new process did not log the ban it restored")
	}
	// The log says which of the two ways the clients went on (before, one
	// line named both).
	if !strings.Contains(out.String(), "upgrade: clients taken over with the game's world: they play on") {
		t.Errorf("the new process did not say the clients play on in the world handed over")
	}
	// The clients back in game on the new process, then the next upgrade
	// by the new process's console.
	in.Store(0)
	waitUntil(t, "clients back in game", 10*time.Second, func() bool { return in.Load() == upgradeClients })
	// The banned address is refused by the new process; another one, the
	// control, gets in.
	for _, c := range []struct {
		src    netip.Addr
		banned bool
	}{{banned, true}, {free, false}} {
		sum := joinFrom(t, addr, c.src)
		refused := false
		for reason := range sum.Failures {
			refused = refused || strings.Contains(reason, "You have been banned") && strings.Contains(reason, "banned before the upgrade")
		}
		if refused != c.banned || (!c.banned && sum.Connected != 1) {
			t.Errorf("a client from %s after the upgrade: connected %d, failures %v; want banned %v", c.src, sum.Connected, sum.Failures, c.banned)
		}
	}
	o := out.String()
	if c := strings.Count(o, "upgrade: starting the new process; the log says how it ends"); c != 1 {
		t.Errorf("%d replies that the upgrade starts, want 1", c)
	}
	if !strings.Contains(o, "upgrade refused: an upgrade was asked for already") && !strings.Contains(o, "upgrade refused: an upgrade is under way") {
		t.Errorf("the second upgrade command was not refused with its reason")
	}
	if r.pid == first {
		t.Fatalf("the process serving is still %d", first)
	}
	fmt.Fprint(stdin, "upgrade\n")
	upgraded(2)
	// The process serving counts the upgrades that took over (each was
	// counted by a process that exited at once: before, the count seen
	// stayed 0).
	// The durations of the upgrade say their unit (before: paused=16.79
	// took=22.86, milliseconds unsaid).
	if !regexp.MustCompile(`this one exits paused_ms=[0-9.]+ pid=\d+ took_ms=[0-9.]+`).MatchString(out.String()) {
		t.Errorf("the upgrade's line does not name its durations' unit")
	}
	scrape := fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)
	waitUntil(t, "twserver_upgrades_total", 5*time.Second, func() bool {
		return strings.Contains(httpGet(t, scrape), "twserver_upgrades_total{result=\"ready\"} 2\n")
	})
	time.Sleep(time.Second)
	stop()
	checkRun(t, "upgrades by the console command", <-run)
}

// startConsoleRig writes the configuration body, starts bin with it and a
// console on its standard input (the writer returned; a new process of an
// upgrade reads the same), waits for "server started", and stops the
// process serving (r.pid) when the test ends.
func startConsoleRig(t *testing.T, bin, body string) (*upgradeRig, io.WriteCloser) {
	t.Helper()
	cfg := filepath.Join(filepath.Dir(bin), "twserver.toml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &upgradeRig{t: t, out: new(refserver.Buffer)}
	cmd := exec.Command(bin, "-config", cfg, "-log-level", "info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	r.pid = cmd.Process.Pid
	t.Cleanup(func() {
		stdin.Close()
		_ = syscall.Kill(r.pid, syscall.SIGTERM)
		for i := 0; i < 100 && alive(r.pid); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(r.pid) {
			_ = syscall.Kill(r.pid, syscall.SIGKILL)
		}
		if t.Failed() {
			o := r.out.String()
			t.Logf("output (last 8 KiB):\n%s", o[max(0, len(o)-8192):])
		}
	})
	waitUntil(t, "server started", 10*time.Second, func() bool { return strings.Contains(r.out.String(), "server started") })
	return r, stdin
}

// joinFrom runs one twload client from src against addr for a moment,
// again (up to 5 times, a second apart) while the server says too many
// clients are connecting (its join rate bound, after the clients' rejoin).
func joinFrom(t *testing.T, addr netip.AddrPort, src netip.Addr) loadclient.Summary {
	t.Helper()
	for try := 1; ; try++ {
		sum, err := loadclient.Run(context.Background(), loadclient.RunConfig{
			Server: addr, Clients: 1, Duration: 1500 * time.Millisecond, Pattern: loadclient.PatternRandom,
			Seed: 2, Sources: 1, SourceBase: src, NamePrefix: "ban", EnterTimeout: 3 * time.Second,
		})
		if err != nil {
			t.Fatalf("twload from %s: %v", src, err)
		}
		busy := false
		for reason := range sum.Failures {
			busy = busy || strings.Contains(reason, "Too many clients are connecting")
		}
		if !busy || try == 5 {
			return sum
		}
		time.Sleep(time.Second)
	}
}

// httpGet returns the body of url, "" when it cannot be read.
func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
