package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
)

// docker runs the docker CLI and returns its trimmed combined output.
func docker(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0") // the classic builder needs no buildx plugin
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// mustDocker is docker that fails the test on an error.
func mustDocker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := docker(t, args...)
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestDockerImage builds the runtime image with the real Docker engine over
// a statically built twserver, runs it with no network but its own
// loopback, joins it with twload clients started inside the container's
// network namespace (nsenter), and stops it with `docker stop`: the
// container must exit 0 within the 5 s shutdown bound and every client must
// be closed with "Server shutdown". It skips with the reason where Docker
// cannot run (no docker CLI, no daemon, not root, no nsenter).
func TestDockerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Docker image test")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("docker CLI not installed (Debian package docker.io; .ci/run installs it)")
	}
	if out, err := docker(t, "info", "--format", "{{.ServerVersion}}"); err != nil {
		t.Skipf("Docker daemon not reachable (.ci/run starts dockerd): %s", out)
	}
	nsenter, err := exec.LookPath("nsenter")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("entering the container's network namespace needs nsenter and root")
	}
	heavytest.Lock(t)

	work := t.TempDir()
	bin := buildStatic(t, "twserver")
	twload := buildStatic(t, "twload")
	ctxDir := filepath.Join(work, "context")
	if out, err := exec.Command("./docker-context.sh", bin, ctxDir).CombinedOutput(); err != nil {
		t.Fatalf("docker-context.sh: %v\n%s", err, out)
	}
	tag := fmt.Sprintf("twserver-citest:%d", time.Now().UnixNano())
	name := strings.NewReplacer(":", "-").Replace(tag)
	mustDocker(t, "build", "-q", "-f", "Dockerfile.runtime", "-t", tag, ctxDir)
	t.Cleanup(func() { docker(t, "rmi", "-f", tag) })
	if u := mustDocker(t, "image", "inspect", "-f", "{{.Config.User}}", tag); u != "65534:65534" {
		t.Errorf("image user %q, want 65534:65534", u)
	}

	// The configuration and recordings are volumes of the host's temp dir;
	// recording is on so the run proves /recordings is writable by nobody.
	cfgDir, recDir := filepath.Join(work, "config"), filepath.Join(work, "recordings")
	os.MkdirAll(cfgDir, 0o755)
	os.MkdirAll(recDir, 0o777)
	os.Chmod(recDir, 0o777)
	cfg := "[server]\nname = \"docker test\"\nmax_clients = 8\n[record]\nteehistorian = true\ndir = \"/recordings\"\n" +
		"[metrics]\nlisten = \"127.0.0.1:9100\"\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "server.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	mustDocker(t, "run", "-d", "--name", name, "--network", "none", "--read-only", "--cap-drop", "ALL",
		"-v", cfgDir+":/config:ro", "-v", recDir+":/recordings", tag, "-config", "/config/server.toml")
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := docker(t, "logs", name)
			t.Logf("container log:\n%s", out)
		}
		docker(t, "rm", "-f", name)
	})
	logs := func() string { out, _ := docker(t, "logs", name); return out }
	waitLog := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(logs(), what) < n {
			if time.Now().After(deadline) {
				t.Fatalf("container log never showed %d× %q:\n%s", n, what, logs())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitLog("server started", 1)
	pid := mustDocker(t, "inspect", "-f", "{{.State.Pid}}", name)
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(status, []byte("\nUid:\t65534\t")) {
		t.Errorf("twserver in the container does not run as uid 65534:\n%s", status)
	}
	// The container's network namespace has only loopback (--network none).
	links, err := exec.Command(nsenter, "--net=/proc/"+pid+"/ns/net", "--", "ip", "-o", "link").CombinedOutput()
	if err == nil && strings.Count(strings.TrimSpace(string(links)), "\n") != 0 {
		t.Fatalf("the container's network namespace has more than lo:\n%s", links)
	}

	const clients = 3
	summary := filepath.Join(work, "twload.json")
	load := exec.Command(nsenter, "--net=/proc/"+pid+"/ns/net", "--", twload,
		"-addr", "127.0.0.1:8303", "-n", fmt.Sprint(clients), "-rampup", "300ms", "-duration", "60s",
		"-pattern", "walk", "-status", "off", "-json", summary)
	var loadOut bytes.Buffer
	load.Stdout, load.Stderr = &loadOut, &loadOut
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	loadDone := make(chan error, 1)
	go func() { loadDone <- load.Wait() }()
	t.Cleanup(func() {
		if load.ProcessState == nil {
			load.Process.Kill()
			<-loadDone
		}
	})
	waitLog("player has entered the game", clients)
	time.Sleep(time.Second) // play a little

	// /metrics and /healthz of the container, from inside its network namespace.
	if curl, err := exec.LookPath("curl"); err != nil {
		t.Log("curl not installed: the container's /metrics not scraped")
	} else {
		scrape := func(path string) string {
			out, err := exec.Command(nsenter, "--net=/proc/"+pid+"/ns/net", "--", curl, "-sS", "-m", "5", "http://127.0.0.1:9100"+path).CombinedOutput()
			if err != nil {
				t.Errorf("curl %s in the container's namespace: %v\n%s", path, err, out)
			}
			return string(out)
		}
		if h := scrape("/healthz"); h != "ok\n" {
			t.Errorf("/healthz of the container: %q", h)
		}
		want := fmt.Sprintf("teeworlds_server_clients{dialect=\"0.7\",state=\"ingame\"} %d\n", clients)
		if m := scrape("/metrics"); !strings.Contains(m, want) {
			t.Errorf("/metrics of the container lacks %q:\n%s", want, m)
		}
	}

	t0 := time.Now()
	mustDocker(t, "stop", "-t", "10", name)
	took := time.Since(t0)
	if took > shutdownBound {
		t.Errorf("docker stop took %v, want at most %v", took.Round(time.Millisecond), shutdownBound)
	}
	if code := mustDocker(t, "inspect", "-f", "{{.State.ExitCode}}", name); code != "0" {
		t.Errorf("container exit code %s, want 0", code)
	}
	select {
	case <-loadDone:
	case <-time.After(10 * time.Second):
		t.Fatal("twload did not end after the server stopped")
	}
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("twload summary: %v\n%s", err, loadOut.String())
	}
	var sum struct {
		Connected int            `json:"connected"`
		Failures  map[string]int `json:"failures"`
		CRCErrors int            `json:"crc_errors"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Connected != clients || sum.Failures["closed by server: Server shutdown"] != clients || sum.CRCErrors != 0 {
		t.Errorf("twload: connected %d, failures %v, crc errors %d; want %d connected, all closed with \"Server shutdown\"",
			sum.Connected, sum.Failures, sum.CRCErrors, clients)
	}
	l := logs()
	if !strings.Contains(l, "server shut down") {
		t.Errorf("container log lacks the shutdown:\n%s", l)
	}
	files, _ := filepath.Glob(filepath.Join(recDir, "*.teehistorian"))
	if len(files) == 0 {
		t.Errorf("no teehistorian file in the /recordings volume")
	}
	t.Logf("docker stop took %v; %d clients closed with \"Server shutdown\"; recordings %v", took.Round(time.Millisecond), clients, files)
}
