package refserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/internal/deathsig"
	"twserver/internal/netns"
	"twserver/internal/nodns"
	"twserver/internal/testenv"
)

// DDNetPath is DDNet-Server 16.4 (Debian ddnet-server).
const DDNetPath = "/usr/games/DDNet-Server"

// InnerTimeout bounds a test's re-run inside a private network namespace
// (RunInner).
const InnerTimeout = 90 * time.Second

// Inner reports whether this is the re-run of a test inside its private
// network namespace (RunInner set env); it then stops the test unless the
// namespace has nothing but lo up.
func Inner(tb testing.TB, env string) bool {
	tb.Helper()
	if os.Getenv(env) != "1" {
		return false
	}
	netns.RequireLoopbackOnly(tb)
	return true
}

// RunInner re-runs test t alone inside a new private network namespace
// (`unshare --net` plus unshareFlags, e.g. "--mount"), with env=1 so that
// the re-run knows it (Inner), within InnerTimeout, and logs its output. t
// fails when the re-run fails and is skipped when it skipped; when unshare,
// ip or the right to create a namespace are missing it is stopped with
// testenv.Require (a skip, a failure under CI=true).
func RunInner(t *testing.T, env string, unshareFlags ...string) {
	t.Helper()
	testenv.LookPath(t, "unshare", "util-linux")
	testenv.LookPath(t, "ip", "iproute2")
	flags := append([]string{"--net"}, unshareFlags...)
	if out, err := exec.Command("unshare", append(flags, "--", "true")...).CombinedOutput(); err != nil {
		testenv.Require(t, "a private network namespace (unshare "+strings.Join(flags, " ")+", as root)", fmt.Errorf("%v: %s", err, bytes.TrimSpace(out)))
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), InnerTimeout)
	defer cancel()
	args := append(flags, "--", self, "-test.run", "^"+t.Name()+"$", "-test.v")
	cmd := exec.CommandContext(ctx, "unshare", args...)
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("inner run:\n%s", out)
	if err != nil {
		t.Fatalf("inner run failed: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skip("inner run skipped")
	}
}

// DDNet is a DDNet-Server process started by StartDDNet.
type DDNet struct {
	// Port is its UDP port on 127.0.0.1.
	Port int
	// Logs collects its output.
	Logs Buffer

	cmd  *exec.Cmd
	done chan error
}

// StartDDNet starts DDNet-Server in a new directory holding files (paths
// relative to its working directory, such as "maps/dm1.map"), with HOME
// there too, on a free UDP port of 127.0.0.1 only, not registering, logging
// to its output (loglevel 3), then the given settings, which may override
// these, with its name look-ups confined to the machine (internal/nodns).
// Run it only inside a private network namespace (Inner). The
// process is killed with the test if still running.
func StartDDNet(tb testing.TB, files map[string][]byte, settings ...string) *DDNet {
	tb.Helper()
	dir := tb.TempDir()
	cwd := filepath.Join(dir, "cwd")
	for name, data := range files {
		path := filepath.Join(cwd, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	d := &DDNet{Port: FreeUDPPort(tb), done: make(chan error, 1)}
	d.cmd = nodns.Command(DDNetPath, append(DDNetArgs(d.Port), settings...)...)
	d.cmd.Dir = cwd
	d.cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	d.cmd.Stdout, d.cmd.Stderr = &d.Logs, &d.Logs
	if err := deathsig.Start(tb, d.cmd); err != nil {
		tb.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	tb.Cleanup(func() {
		select {
		case err := <-d.done:
			d.done <- err
		default:
			_ = d.cmd.Process.Kill()
			<-d.done
		}
	})
	return d
}

// DDNetArgs returns the DDNet-Server settings StartDDNet begins with: UDP
// port on 127.0.0.1 only, IPv4 only, not registering, logging to its
// output (loglevel 3).
func DDNetArgs(port int) []string {
	return []string{"bindaddr 127.0.0.1", "sv_ipv4only 1", "sv_port " + strconv.Itoa(port),
		"sv_register 0", "loglevel 3", `logfile ""`}
}

// Exited reports whether the process has ended, and then Wait's result.
func (d *DDNet) Exited() (bool, error) {
	select {
	case err := <-d.done:
		d.done <- err // for the next caller and the cleanup
		return true, err
	default:
		return false, nil
	}
}

// Stop asks the server to shut down (SIGINT, as Ctrl-C) and fails the test
// unless it has ended within timeout.
func (d *DDNet) Stop(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	if ended, _ := d.Exited(); ended {
		return
	}
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		tb.Fatal(err)
	}
	select {
	case err := <-d.done:
		d.done <- err
	case <-time.After(timeout):
		tb.Fatalf("DDNet-Server did not stop:\n%s", d.Logs.String())
	}
}
