package deploy

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/testenv"
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
// network namespace (nsenter), upgrades it live with `docker kill -s USR2`
// (PID 1 is twserver's init; every client stays connected) and stops it
// with `docker stop`: the
// container must exit 0 within the 5 s shutdown bound and every client must
// be closed with "Server shutdown". It skips with the reason where Docker
// cannot run (no docker CLI, no daemon, not root, no nsenter).
func TestDockerImage(t *testing.T) {
	nsenter := requireDocker(t)
	heavytest.Lock(t)
	removeNewImages(t)

	work := t.TempDir()
	twload := buildStatic(t, "twload")
	tag := buildRuntimeImage(t)

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
	ct := startContainer(t, tag, "--read-only", "--cap-drop", "ALL",
		"-v", cfgDir+":/config:ro", "-v", recDir+":/recordings", tag, "-config", "/config/server.toml")
	pid, logs, waitLog := ct.pid, ct.logs, ct.waitLog
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
	if m := ct.scrape(t, nsenter, "/healthz"); m != "ok\n" {
		t.Errorf("/healthz of the container: %q", m)
	}
	want := fmt.Sprintf("teeworlds_server_clients{dialect=\"0.7\",state=\"ingame\"} %d\n", clients)
	if m := ct.scrape(t, nsenter, "/metrics"); !strings.Contains(m, want) {
		t.Errorf("/metrics of the container lacks %q:\n%s", want, m)
	}

	// A live upgrade in the container: PID 1 is twserver's init (package
	// pid1), the server its child; `docker kill -s USR2` reaches the init,
	// which passes it on; the server hands over to a new process and exits,
	// and the init follows the new one. Every client stays connected (the
	// twload summary below: no failure but "Server shutdown").
	server := containerServer(t, pid)
	mustDocker(t, "kill", "-s", "USR2", ct.name)
	waitLog("upgrade: serving the games handed over", 1)
	waitLog("handed over to process", 1)
	if now := containerServer(t, pid); now == server {
		t.Errorf("the init's child is still process %d after the upgrade", server)
	}
	time.Sleep(time.Second) // play a little on the new process
	if m := ct.scrape(t, nsenter, "/metrics"); !strings.Contains(m, want) {
		t.Errorf("/metrics of the container after the upgrade lacks %q:\n%s", want, m)
	}

	took := stopContainer(t, ct)
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
		MaxGapMs  float64        `json:"max_snapshot_interval_ms"`
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
	t.Logf("docker stop took %v; %d clients closed with \"Server shutdown\"; longest time between snapshots %.0f ms (an upgrade between); recordings %v",
		took.Round(time.Millisecond), clients, sum.MaxGapMs, files)
}

// containerServer is the one child of the container's PID 1 (host pid
// init), the server under twserver's init; the test fails when the init
// has not exactly one child (and so when PID 1 is the server itself).
func containerServer(t *testing.T, init string) int {
	t.Helper()
	// Each thread lists the children it started: read them all.
	tasks, err := filepath.Glob("/proc/" + init + "/task/*/children")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("the threads of process %s: %v", init, err)
	}
	var f []string
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		f = append(f, strings.Fields(string(b))...)
	}
	if len(f) != 1 {
		t.Fatalf("the container's PID 1 has children %v, want one (the server under twserver's init)", f)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// requireDocker stops the test (testenv.Require: a skip, a failure under
// CI=true) unless a Docker engine, nsenter, curl and root are available; it
// returns the path of nsenter.
func requireDocker(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the Docker test")
	}
	testenv.LookPath(t, "docker", "docker.io")
	if out, err := docker(t, "info", "--format", "{{.ServerVersion}}"); err != nil {
		testenv.Require(t, "a running Docker engine (.ci/run starts dockerd)", fmt.Errorf("%v: %s", err, out))
	}
	nsenter := testenv.LookPath(t, "nsenter", "util-linux")
	testenv.LookPath(t, "curl", "curl") // scrape's, checked before the image build
	if os.Geteuid() != 0 {
		testenv.Require(t, "root (to enter the container's network namespace)", fmt.Errorf("euid %d", os.Geteuid()))
	}
	return nsenter
}

// container is a running test container.
type container struct {
	name, pid string
	logs      func() string
	waitLog   func(what string, n int)
}

// startContainer runs image detached with no network but its own loopback
// (--network none) and the given docker-run arguments (image and command
// included), waits for "server started" and removes it when the test ends.
func startContainer(t *testing.T, image string, args ...string) *container {
	t.Helper()
	name := strings.NewReplacer(":", "-", "/", "-").Replace(image)
	run := append([]string{"run", "-d", "--name", name, "--network", "none"}, args...)
	mustDocker(t, run...)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := docker(t, "logs", name)
			t.Logf("container log:\n%s", out)
		}
		docker(t, "rm", "-f", "-v", name) // -v: the anonymous volumes of the image's VOLUMEs too
	})
	c := &container{name: name}
	c.logs = func() string { out, _ := docker(t, "logs", name); return out }
	c.waitLog = func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(c.logs(), what) < n {
			if time.Now().After(deadline) {
				t.Fatalf("container log never showed %d× %q:\n%s", n, what, c.logs())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	c.waitLog("server started", 1)
	c.pid = mustDocker(t, "inspect", "-f", "{{.State.Pid}}", name)
	return c
}

// scrape fetches path from the container's metrics listener
// (127.0.0.1:9100 inside it) with curl run in its network namespace;
// without curl the test stops (testenv.LookPath).
func (c *container) scrape(t *testing.T, nsenter, path string) string {
	t.Helper()
	curl := testenv.LookPath(t, "curl", "curl")
	out, err := exec.Command(nsenter, "--net=/proc/"+c.pid+"/ns/net", "--", curl, "-sS", "-m", "5", "http://127.0.0.1:9100"+path).CombinedOutput()
	if err != nil {
		t.Errorf("curl %s in the container's namespace: %v\n%s", path, err, out)
	}
	return string(out)
}

// stopContainer runs docker stop and checks the container ended with exit
// code 0 within the shutdown bound; it returns how long the stop took.
func stopContainer(t *testing.T, c *container) time.Duration {
	t.Helper()
	t0 := time.Now()
	mustDocker(t, "stop", "-t", "10", c.name)
	took := time.Since(t0)
	if took > shutdownBound {
		t.Errorf("docker stop took %v, want at most %v", took.Round(time.Millisecond), shutdownBound)
	}
	if code := mustDocker(t, "inspect", "-f", "{{.State.ExitCode}}", c.name); code != "0" {
		t.Errorf("container exit code %s, want 0", code)
	}
	return took
}

// TestDockerfileFromSource builds deploy/Dockerfile, the from-source build
// users run, with the real engine. No golang image can be pulled here, so
// the build stage runs on a local stand-in built first from
// testdata/toolchain.Dockerfile (this host's Go toolchain, a static busybox,
// the CA bundle and the module download cache; GOPROXY=off, docker build
// --network none). The image it produces must run as nobody, report the
// version passed as VERSION in twserver_build_info, answer /healthz and
// stop cleanly.
func TestDockerfileFromSource(t *testing.T) {
	nsenter := requireDocker(t)
	bb := testenv.LookPath(t, "busybox", "busybox-static")
	if f, err := elf.Open(bb); err != nil || f.Section(".interp") != nil {
		testenv.Require(t, "a static busybox (Debian package busybox-static)", fmt.Errorf("%s is dynamically linked (%v)", bb, err))
	}
	heavytest.Lock(t)
	removeNewImages(t)
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}

	// The toolchain image's context: rootfs/{bin/busybox, usr/local/go,
	// go/pkg/mod/cache/download, etc/ssl/certs/ca-certificates.crt}.
	tc := t.TempDir()
	root := filepath.Join(tc, "rootfs")
	for _, d := range []string{"bin", "usr/local", "go/pkg/mod/cache", "etc/ssl/certs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copies := [][2]string{
		{bb, filepath.Join(root, "bin/busybox")},
		{goEnv("GOROOT"), filepath.Join(root, "usr/local/go")},
		{filepath.Join(goEnv("GOMODCACHE"), "cache/download"), filepath.Join(root, "go/pkg/mod/cache/download")},
		{"/etc/ssl/certs/ca-certificates.crt", filepath.Join(root, "etc/ssl/certs/ca-certificates.crt")},
		{"testdata/toolchain.Dockerfile", filepath.Join(tc, "Dockerfile")},
	}
	for _, c := range copies {
		if out, err := exec.Command("cp", "-a", c[0], c[1]).CombinedOutput(); err != nil {
			t.Fatalf("cp %s: %v\n%s", c[0], err, out)
		}
	}
	stamp := time.Now().UnixNano()
	goImage := fmt.Sprintf("twserver-citest-go:%d", stamp)
	mustDocker(t, "build", "-q", "--network", "none", "-t", goImage, tc)
	t.Cleanup(func() { docker(t, "rmi", "-f", goImage) })

	tag := fmt.Sprintf("twserver-citest-src:%d", stamp)
	dockerfile, err := filepath.Abs("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	mustDocker(t, "build", "-q", "--network", "none", "--build-arg", "GO_IMAGE="+goImage,
		"--build-arg", "VERSION=citest", "-f", dockerfile, "-t", tag, "..")
	t.Cleanup(func() { docker(t, "rmi", "-f", tag) })
	if u := mustDocker(t, "image", "inspect", "-f", "{{.Config.User}}", tag); u != "65534:65534" {
		t.Errorf("image user %q, want 65534:65534", u)
	}

	cfgDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgDir, "server.toml"), []byte("[metrics]\nlisten = \"127.0.0.1:9100\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ct := startContainer(t, tag, "--read-only", "--cap-drop", "ALL", "-v", cfgDir+":/config:ro", tag, "-config", "/config/server.toml")
	if m := ct.scrape(t, nsenter, "/metrics"); !regexp.MustCompile(`(?m)^twserver_build_info\{go="[^"]+",version="citest"\} 1$`).MatchString(m) {
		t.Errorf("/metrics of the image built from source lacks twserver_build_info with version citest:\n%s", m)
	}
	if m := ct.scrape(t, nsenter, "/healthz"); m != "ok\n" {
		t.Errorf("/healthz: %q", m)
	}
	took := stopContainer(t, ct)
	if !strings.Contains(ct.logs(), "server shut down") {
		t.Errorf("container log lacks the shutdown:\n%s", ct.logs())
	}
	t.Logf("deploy/Dockerfile built from source on a local toolchain image; docker stop took %v", took.Round(time.Millisecond))
}

// removeNewImages removes, when the test ends, every image (intermediate
// build-stage images included) that did not exist when it was called.
func removeNewImages(t *testing.T) {
	t.Helper()
	list := func() map[string]bool {
		m := map[string]bool{}
		out, _ := docker(t, "images", "-aq", "--no-trunc")
		for _, id := range strings.Fields(out) {
			m[id] = true
		}
		return m
	}
	before := list()
	t.Cleanup(func() {
		for id := range list() {
			if !before[id] {
				docker(t, "rmi", "-f", id)
			}
		}
	})
}

// buildRuntimeImage builds deploy/Dockerfile.runtime over a static
// twserver, checks it runs as nobody, and returns its tag (removed when
// the test ends).
func buildRuntimeImage(t *testing.T) string {
	t.Helper()
	ctxDir := filepath.Join(t.TempDir(), "context")
	bin := buildStatic(t, "twserver")
	if out, err := exec.Command("./docker-context.sh", bin, ctxDir).CombinedOutput(); err != nil {
		t.Fatalf("docker-context.sh: %v\n%s", err, out)
	}
	tag := fmt.Sprintf("twserver-citest:%d", time.Now().UnixNano())
	mustDocker(t, "build", "-q", "-f", "Dockerfile.runtime", "-t", tag, ctxDir)
	t.Cleanup(func() { docker(t, "rmi", "-f", tag) })
	// The image is the binary and a CA bundle, nothing else (docs/operating.md
	// gives its size as the binary's).
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	size, err := strconv.ParseInt(mustDocker(t, "image", "inspect", "-f", "{{.Size}}", tag), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if extra := size - fi.Size(); extra < 0 || extra > 1<<20 {
		t.Errorf("image %d bytes, binary %d: %d bytes besides the binary, want under 1 MiB", size, fi.Size(), extra)
	}
	t.Logf("runtime image %.1f MB, binary %.1f MB", float64(size)/1e6, float64(fi.Size())/1e6)
	if u := mustDocker(t, "image", "inspect", "-f", "{{.Config.User}}", tag); u != "65534:65534" {
		t.Errorf("image user %q, want 65534:65534", u)
	}
	return tag
}
