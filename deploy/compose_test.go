package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"twserver/internal/heavytest"
	"twserver/internal/testenv"
)

// TestComposeUp runs the compose example with the real docker-compose and
// engine. What cannot run here is changed, nothing else: the image is the
// runtime image built over a static binary (no golang image to build
// from), and the service gets no network but its own loopback instead of
// published ports. Its volumes (the example config read-only, a named
// recordings volume), read-only root, dropped capabilities, command and
// stop settings and health check are the file's own. The server must answer
// /healthz from the example config's metrics listener, Docker must report
// it healthy through the compose healthcheck, the named volume must be owned by
// nobody (so recordings can be written), and `docker-compose stop` must end
// it with exit code 0 within the shutdown bound.
func TestComposeUp(t *testing.T) {
	nsenter := requireDocker(t)
	dc := testenv.LookPath(t, "docker-compose", "docker-compose")
	heavytest.Lock(t)
	removeNewImages(t)
	tag := buildRuntimeImage(t)

	var file map[string]any
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	svc := at(t, file, "services", "twserver").(map[string]any)
	delete(svc, "build")
	delete(svc, "ports")
	svc["image"] = tag
	svc["network_mode"] = "none"
	out, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	derived := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(derived, out, 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	project := fmt.Sprintf("twservercitest%d", time.Now().UnixNano())
	compose := func(args ...string) (string, error) {
		cmd := exec.Command(dc, append([]string{"-p", project, "-f", derived, "--project-directory", dir}, args...)...)
		b, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(b)), err
	}
	if out, err := compose("up", "-d", "--no-build"); err != nil {
		t.Fatalf("docker-compose up: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := compose("down", "-v"); err != nil {
			t.Errorf("docker-compose down: %v\n%s", err, out)
		}
	})
	id, err := compose("ps", "-q", "twserver")
	if err != nil || id == "" {
		t.Fatalf("docker-compose ps: %v %q", err, id)
	}
	ct := &container{name: id}
	ct.logs = func() string { out, _ := docker(t, "logs", id); return out }
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(ct.logs(), "server started") {
		if time.Now().After(deadline) {
			t.Fatalf("the compose service never started:\n%s", ct.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
	ct.pid = mustDocker(t, "inspect", "-f", "{{.State.Pid}}", id)
	if ro := mustDocker(t, "inspect", "-f", "{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}}", id); ro != "true [ALL]" {
		t.Errorf("read-only root and dropped capabilities: %q", ro)
	}
	if h := ct.scrape(t, nsenter, "/healthz"); h != "ok\n" {
		t.Errorf("/healthz of the compose service: %q", h)
	}
	// The compose healthcheck (twserver -healthcheck) reports healthy.
	deadline = time.Now().Add(30 * time.Second)
	for {
		h := mustDocker(t, "inspect", "-f", "{{.State.Health.Status}}", id)
		if h == "healthy" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health status %q after 30 s", h)
		}
		time.Sleep(500 * time.Millisecond)
	}
	vol := mustDocker(t, "volume", "inspect", "-f", "{{.Mountpoint}}", project+"_recordings")
	var st syscall.Stat_t
	if err := syscall.Stat(vol, &st); err != nil {
		t.Fatal(err)
	} else if st.Uid != 65534 {
		t.Errorf("the recordings volume is owned by uid %d, want 65534 (nobody)", st.Uid)
	}
	t0 := time.Now()
	if out, err := compose("stop"); err != nil {
		t.Fatalf("docker-compose stop: %v\n%s", err, out)
	}
	if took := time.Since(t0); took > shutdownBound {
		t.Errorf("docker-compose stop took %v, want at most %v", took.Round(time.Millisecond), shutdownBound)
	}
	if code := mustDocker(t, "inspect", "-f", "{{.State.ExitCode}}", id); code != "0" {
		t.Errorf("exit code %s, want 0\n%s", code, ct.logs())
	}
}
