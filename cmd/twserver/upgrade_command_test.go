package main

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testport"
)

// TestUpgradeCommand: the console command upgrade (here from standard
// input; rcon, econ and the admin page run the same console) starts the
// upgrade SIGUSR2 starts, with the clients in game staying connected; a
// second upgrade asked for while the first has not ended is refused with
// the reason; the new process, reading the same standard input, upgrades
// again on the next command.
func TestUpgradeCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds twserver and runs clients")
	}
	heavytest.Lock(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "twserver")
	buildServer(t, bin, "-X main.version=upgrade-command")
	port := testport.Pick(t)
	cfg := filepath.Join(dir, "twserver.toml")
	body := fmt.Sprintf("[server]\nbind = \"127.0.0.1\"\nport = %d\nmax_clients = 16\nmax_clients_per_ip = 16\n[game]\ninactive_kick_time = 0\n", port)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := new(refserver.Buffer)
	cmd := exec.Command(bin, "-config", cfg, "-log-level", "info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	serving := cmd.Process.Pid
	t.Cleanup(func() {
		stdin.Close()
		_ = syscall.Kill(serving, syscall.SIGTERM)
		for i := 0; i < 100 && alive(serving); i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(serving) {
			_ = syscall.Kill(serving, syscall.SIGKILL)
		}
		if t.Failed() {
			t.Logf("output:\n%s", out.String())
		}
	})
	waitUntil(t, "server started", 10*time.Second, func() bool { return strings.Contains(out.String(), "server started") })
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	var in atomic.Int32
	run, stop := loadRun(t, addr, 30*time.Second, &in)

	upgraded := func(n int) {
		t.Helper()
		waitUntil(t, fmt.Sprintf("upgrade %d", n), 20*time.Second, func() bool {
			m := servesRE.FindAllStringSubmatch(out.String(), -1)
			if len(m) < n {
				return false
			}
			fmt.Sscan(m[n-1][1], &serving)
			return true
		})
	}
	first := serving
	fmt.Fprint(stdin, "upgrade\nupgrade\n")
	upgraded(1)
	o := out.String()
	if c := strings.Count(o, "upgrade: starting the new process; the log says how it ends"); c != 1 {
		t.Errorf("%d replies that the upgrade starts, want 1", c)
	}
	if !strings.Contains(o, "upgrade refused: an upgrade was asked for already") && !strings.Contains(o, "upgrade refused: an upgrade is under way") {
		t.Errorf("the second upgrade command was not refused with its reason")
	}
	if serving == first {
		t.Fatalf("the process serving is still %d", first)
	}
	// The clients back in game on the new process, then the next upgrade
	// by the new process's console.
	in.Store(0)
	waitUntil(t, "clients back in game", 10*time.Second, func() bool { return in.Load() == upgradeClients })
	fmt.Fprint(stdin, "upgrade\n")
	upgraded(2)
	time.Sleep(time.Second)
	stop()
	checkRun(t, "upgrades by the console command", <-run)
}
