package main

import (
	"fmt"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"twserver/agones"
	"twserver/internal/agonestest"
	"twserver/internal/heavytest"
	"twserver/internal/refserver"
	"twserver/internal/testport"
)

// TestAgonesUpgrade runs twserver as an Agones game server's container
// does, with the init in front (TWSERVER_INIT=1: what PID 1 does by
// itself), against the test SDK sidecar: the GameServer is marked Ready,
// players join, it is Allocated, and SIGUSR2 to the init upgrades it. The
// new process must leave the GameServer Allocated (no Ready, which would
// hand it to the next allocation, and no Shutdown from the old one), keep
// its health pings going and its players connected; SIGTERM to the init
// afterwards shuts the GameServer down and the init exits 0.
func TestAgonesUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds twserver and runs clients")
	}
	heavytest.Lock(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "twserver")
	buildServer(t, bin, "-X main.version=agones-upgrade")
	sidecar, err := agonestest.Start("127.0.0.1:0", agonestest.Options{Name: "twserver-up", HostPort: 7431, PeriodSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sidecar.Close()
	port := testport.Pick(t)
	cfg := filepath.Join(dir, "twserver.toml")
	body := upgradeConfig(port, 16) + "[agones]\nenabled = true\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := new(refserver.Buffer)
	cmd := exec.Command(bin, "-config", cfg, "-no-console", "-log-level", "info")
	cmd.Env = append(os.Environ(), InitEnv+"=1", agones.PortEnv+"="+strconv.Itoa(sidecar.Port()))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		if t.Failed() {
			t.Logf("output:\n%s", out.String())
		}
	})
	waitUntil(t, "Ready", 10*time.Second, func() bool { return sidecar.State() == "Ready" })

	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	var in atomic.Int32
	run, stop := loadRun(t, addr, 30*time.Second, &in, new(continuity))
	waitUntil(t, "players tracked", 5*time.Second, func() bool { return len(sidecar.Players()) == upgradeClients })
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/allocate", sidecar.Port()), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sidecar.State() != "Allocated" {
		t.Fatalf("state %s after /allocate", sidecar.State())
	}
	allocatedAt := len(sidecar.Calls())

	if err := cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the init following the new process", 15*time.Second, func() bool {
		return strings.Contains(out.String(), "handed over to process")
	})
	time.Sleep(2500 * time.Millisecond) // the new agent connects and pings (1 s period)
	stop()
	checkRun(t, "Agones upgrade", <-run)

	var after []string
	health := 0
	for _, c := range sidecar.Calls()[allocatedAt:] {
		if c.Path == "/health" {
			health++
			continue
		}
		after = append(after, c.Method+" "+c.Path)
	}
	got := strings.Join(after, ", ")
	if !strings.Contains(got, "GET /gameserver") || strings.Contains(got, "/ready") || strings.Contains(got, "/shutdown") {
		t.Errorf("calls after the allocation (without health): %s; want the new process's GET /gameserver and neither Ready nor Shutdown", got)
	}
	if s := sidecar.State(); s != "Allocated" {
		t.Errorf("state %s after the upgrade, want Allocated", s)
	}
	if !strings.Contains(out.String(), "Agones GameServer is Allocated: it stays so") {
		t.Errorf("the new process did not log that it keeps the GameServer Allocated")
	}
	if health < 2 {
		t.Errorf("%d health pings after the allocation", health)
	}
	t.Logf("after the allocation and the upgrade: %s; %d health pings; players tracked %d", got, health, len(sidecar.Players()))

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the init exited with %v, want status 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the init did not exit within 10 s of SIGTERM")
	}
	if s := sidecar.State(); s != "Shutdown" {
		t.Errorf("state %s after SIGTERM, want Shutdown", s)
	}
}
