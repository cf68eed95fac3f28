package map06

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/internal/refserver"
	"twserver/world/twmap"
)

const (
	// ddnetServer is DDNet-Server 16.4 (Debian ddnet-server).
	ddnetServer = "/usr/games/DDNet-Server"
	// ddnetServerInnerEnv marks the re-run of the test inside a private
	// network namespace.
	ddnetServerInnerEnv = "TWSERVER_MAP06_DDNET_INNER"
)

// TestRealDDNetServerLoadsVariant: the real DDNet-Server 16.4 serves each
// map the way it serves both client families, the 0.6 variant as
// maps/NAME.map and the original 0.7 file as maps7/NAME.map. It loads the
// variant with DDNet's map loader (the one its clients share), builds its
// world on it, reports the same SHA-256 for both files as Derive and the map
// do, and keeps running. (Given the original dm1 as maps/dm1.map instead,
// the same server aborts with heap corruption right after loading it: it
// writes the run-length blob as width*height raw tiles. Seen by hand, not
// asserted here.) The maps: dm1, ctf2 (when teeworlds-data is
// installed) and the embedded default map. The server runs only inside a
// private network namespace with nothing but lo (`unshare --net`), bound to
// 127.0.0.1 and registering nowhere.
func TestRealDDNetServerLoadsVariant(t *testing.T) {
	if os.Getenv(ddnetServerInnerEnv) != "" {
		ddnetServerInner(t)
		return
	}
	if testing.Short() {
		t.Skip("reference-server test skipped in -short mode")
	}
	if _, err := os.Stat(ddnetServer); err != nil {
		t.Skipf("needs %s (Debian ddnet-server): %v", ddnetServer, err)
	}
	for _, b := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("needs %s (util-linux, iproute2)", b)
		}
	}
	if err := exec.Command("unshare", "--net", "--", "true").Run(); err != nil {
		t.Skipf("cannot create a private network namespace (needs root): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--", self, "-test.run", "^TestRealDDNetServerLoadsVariant$", "-test.v")
	cmd.Env = append(os.Environ(), ddnetServerInnerEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("inner run:\n%s", out)
	if err != nil {
		t.Fatalf("inner run failed: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skip("inner run skipped")
	}
}

func ddnetServerInner(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	dm1, err := twmap.Load("dm1", b)
	if err != nil {
		t.Fatal(err)
	}
	maps := []*twmap.Map{dm1, twmap.Default()}
	if b, err := os.ReadFile(filepath.Join(systemMaps, "ctf2.map")); err == nil {
		ctf2, err := twmap.Load("ctf2", b)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, ctf2)
	} else {
		t.Logf("no ctf2 (teeworlds-data): %v", err)
	}
	for _, m := range maps {
		t.Run(m.Name, func(t *testing.T) { ddnetServe(t, m) })
	}
}

func ddnetServe(t *testing.T, m *twmap.Map) {
	v, err := Derive(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name := "v06_" + m.Name
	for sub, data := range map[string][]byte{"maps": v.Data, "maps7": m.Data} {
		if err := os.MkdirAll(filepath.Join(dir, "cwd", sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cwd", sub, name+".map"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := refserver.FreeUDPPort(t)
	args := []string{"bindaddr 127.0.0.1", "sv_ipv4only 1", "sv_port " + strconv.Itoa(port), "sv_map " + name,
		"sv_sixup 1", "sv_register 0", "loglevel 3", `logfile ""`}
	var logs refserver.Buffer
	cmd := exec.Command(ddnetServer, args...)
	cmd.Dir = filepath.Join(dir, "cwd")
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	}()

	want := []string{
		"maps/" + name + ".map sha256 is " + hex.EncodeToString(v.SHA256[:]),
		"maps7/" + name + ".map sha256 is " + hex.EncodeToString(m.SHA256[:]),
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := logs.String()
		if strings.Contains(s, "failed to load map") || strings.Contains(s, "couldn't load map") {
			t.Fatalf("DDNet-Server refused the map:\n%s", s)
		}
		if strings.Contains(s, want[0]) && strings.Contains(s, want[1]) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("DDNet-Server exited (%v) before loading the map:\n%s", err, s)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The game world is built right after the load; it must keep running.
	select {
	case err := <-done:
		t.Fatalf("DDNet-Server exited (%v) after loading the map:\n%s", err, logs.String())
	case <-time.After(1500 * time.Millisecond):
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("DDNet-Server did not stop:\n%s", logs.String())
	}
	t.Logf("DDNet-Server 16.4 loaded %s: 0.6 variant %d bytes (sha256 %x...), 0.7 original %d bytes", name, v.Size, v.SHA256[:4], m.Size)
}
