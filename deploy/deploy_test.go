// Package deploy holds the deployment files (Dockerfiles, compose, the
// systemd unit, Kubernetes/Agones manifests) and the tests that check them
// with the real tools where they are installed: Docker, systemd-analyze,
// kubectl kustomize, docker-compose.
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"twserver/config"
	"twserver/internal/testenv"
)

// shutdownBound is how long twserver may take to exit after SIGTERM
// (cmd/twserver's shutdownGrace); every grace period must exceed it.
const shutdownBound = 5 * time.Second

// runtimeStage returns the lines of a Dockerfile from its runtime-stage
// marker on, with the COPY sources reduced to their path below "out/".
func runtimeStage(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "# --- runtime stage")
	if i < 0 {
		t.Fatalf("%s has no runtime-stage marker", name)
	}
	copySrc := regexp.MustCompile(`^COPY (--from=build )?((--chown=\S+ )?)/?out/`)
	var out []string
	for j, l := range strings.Split(s[i:], "\n") {
		if j == 0 {
			continue // the marker names the other file
		}
		out = append(out, copySrc.ReplaceAllString(l, "COPY $2out/"))
	}
	return out
}

// TestDockerfilesAgree: the runtime stage over a prebuilt binary
// (Dockerfile.runtime, what CI builds) is the runtime stage of the
// from-source Dockerfile.
func TestDockerfilesAgree(t *testing.T) {
	a, b := runtimeStage(t, "Dockerfile"), runtimeStage(t, "Dockerfile.runtime")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("runtime stages differ:\nDockerfile:\n%s\nDockerfile.runtime:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	joined := strings.Join(a, "\n")
	for _, want := range []string{"FROM scratch", "USER 65534:65534", "EXPOSE 8303/udp", `VOLUME ["/maps", "/config", "/recordings"]`, "STOPSIGNAL SIGTERM"} {
		if !strings.Contains(joined, want) {
			t.Errorf("runtime stage lacks %q", want)
		}
	}
}

// loadConfigText validates a server.toml given as text.
func loadConfigText(t *testing.T, name, text string) config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// readYAML decodes every document of a YAML file.
func readYAML(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s: %v", name, err)
		}
		docs = append(docs, d)
	}
	return docs
}

// at walks a decoded YAML value along a path of map keys and list indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("path %v: %v is not a map", path, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("path %v: %v is not a list with index %d", path, v, k)
			}
			v = l[k]
		}
	}
	return v
}

// TestExampleConfigs: the server.toml of the container, of the systemd unit
// and of the Agones ConfigMap are valid twserver configurations with the
// documented values.
func TestExampleConfigs(t *testing.T) {
	b, err := os.ReadFile("config/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	c := loadConfigText(t, "config/server.toml", string(b))
	if c.Server.Port != 8303 || c.Record.Dir != "/recordings" || c.Metrics.Listen == "" {
		t.Errorf("container config: port %d record.dir %q metrics.listen %q", c.Server.Port, c.Record.Dir, c.Metrics.Listen)
	}
	b, err = os.ReadFile("systemd/server.toml")
	if err != nil {
		t.Fatal(err)
	}
	c = loadConfigText(t, "systemd/server.toml", string(b))
	if c.Metrics.Listen != "127.0.0.1:9100" || filepath.IsAbs(c.Record.Dir) {
		t.Errorf("systemd config: metrics.listen %q (want the host's loopback), record.dir %q (want below the state directory)", c.Metrics.Listen, c.Record.Dir)
	}
	cm := readYAML(t, "agones/configmap.yaml")[0]
	text, _ := at(t, cm, "data", "server.toml").(string)
	c = loadConfigText(t, "agones/configmap.yaml server.toml", text)
	if c.Server.Port != 8303 || !c.Agones.Enabled || c.Metrics.Listen != "0.0.0.0:9100" {
		t.Errorf("Agones config: port %d agones %v metrics %q", c.Server.Port, c.Agones.Enabled, c.Metrics.Listen)
	}
}

// TestAgonesManifests: the GameServer and the Fleet's template have a
// dynamic UDP game port on the configured container port, SDK health, safe
// eviction, a grace period beyond the shutdown bound and the /healthz
// liveness probe; the Fleet's template is the GameServer's spec. kubectl
// kustomize (when installed) renders the kustomization.
func TestAgonesManifests(t *testing.T) {
	gs := readYAML(t, "agones/gameserver.yaml")[0]
	fleet := readYAML(t, "agones/fleet.yaml")[0]
	if at(t, gs, "apiVersion") != "agones.dev/v1" || at(t, gs, "kind") != "GameServer" ||
		at(t, fleet, "apiVersion") != "agones.dev/v1" || at(t, fleet, "kind") != "Fleet" {
		t.Fatalf("kinds: %v %v / %v %v", gs["apiVersion"], gs["kind"], fleet["apiVersion"], fleet["kind"])
	}
	spec := at(t, gs, "spec")
	if fs := at(t, fleet, "spec", "template", "spec"); !reflect.DeepEqual(fs, spec) {
		t.Errorf("the Fleet's template differs from the GameServer's spec")
	}
	port := at(t, spec, "ports", 0)
	if at(t, port, "portPolicy") != "Dynamic" || at(t, port, "protocol") != "UDP" || at(t, port, "containerPort") != 8303 {
		t.Errorf("game port %v", port)
	}
	if at(t, spec, "eviction", "safe") != "Always" {
		t.Errorf("eviction %v", at(t, spec, "eviction"))
	}
	period, _ := at(t, spec, "health", "periodSeconds").(int)
	if period < 1 {
		t.Errorf("health %v", at(t, spec, "health"))
	}
	if at(t, port, "name") != "game" {
		t.Errorf("the game port is named %v; twserver's Agones client looks for \"game\"", at(t, port, "name"))
	}
	// The server's [agones] health_period must match the manifest (0 = Agones' default 5).
	text, _ := at(t, readYAML(t, "agones/configmap.yaml")[0], "data", "server.toml").(string)
	c := loadConfigText(t, "agones/configmap.yaml server.toml", text)
	if hp := c.Agones.HealthPeriod; hp != period && !(hp == 0 && period == 5) {
		t.Errorf("[agones] health_period %d, the manifests' health.periodSeconds %d", hp, period)
	}
	pod := at(t, spec, "template", "spec")
	grace, _ := at(t, pod, "terminationGracePeriodSeconds").(int)
	if time.Duration(grace)*time.Second <= shutdownBound {
		t.Errorf("terminationGracePeriodSeconds %d, want more than %v", grace, shutdownBound)
	}
	ctr := at(t, pod, "containers", 0)
	if at(t, ctr, "livenessProbe", "httpGet", "path") != "/healthz" {
		t.Errorf("liveness probe %v", at(t, ctr, "livenessProbe"))
	}
	if at(t, pod, "securityContext", "runAsUser") != 65534 || at(t, ctr, "securityContext", "readOnlyRootFilesystem") != true {
		t.Errorf("pod runs as %v, read-only root %v", at(t, pod, "securityContext", "runAsUser"), at(t, ctr, "securityContext", "readOnlyRootFilesystem"))
	}
	kubectl := testenv.LookPath(t, "kubectl", "kubernetes-client") // the kustomize rendering is the rest of the claim
	out, err := exec.Command(kubectl, "kustomize", "agones").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize agones: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "kind: Fleet") || !strings.Contains(string(out), "kind: ConfigMap") {
		t.Errorf("kustomize output lacks the Fleet or the ConfigMap:\n%s", out)
	}
}

// TestComposeFile: the compose example publishes the game port over UDP and
// the metrics only on the host's loopback, waits longer than the shutdown
// bound, and passes `docker-compose config` when that is installed.
func TestComposeFile(t *testing.T) {
	svc := at(t, readYAML(t, "compose.yaml")[0], "services", "twserver")
	ports := at(t, svc, "ports").([]any)
	var game, metrics bool
	for _, p := range ports {
		s := p.(string)
		game = game || s == "8303:8303/udp"
		if strings.HasSuffix(s, ":9100/tcp") {
			metrics = strings.HasPrefix(s, "127.0.0.1:")
			if !metrics {
				t.Errorf("metrics published beyond loopback: %q", s)
			}
		}
	}
	if !game || !metrics {
		t.Errorf("ports %v", ports)
	}
	grace, err := time.ParseDuration(at(t, svc, "stop_grace_period").(string))
	if err != nil || grace <= shutdownBound {
		t.Errorf("stop_grace_period %v (%v), want more than %v", at(t, svc, "stop_grace_period"), err, shutdownBound)
	}
	if at(t, svc, "read_only") != true {
		t.Error("the container's root file system is writable")
	}
	dc := testenv.LookPath(t, "docker-compose", "docker-compose") // its config check is the rest of the claim
	out, err := exec.Command(dc, "-f", "compose.yaml", "config", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("docker-compose config: %v\n%s", err, out)
	}
}

// binDir holds the binaries the tests build, once per run (TestMain).
var (
	binDir string
	built  = map[string]string{}
)

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "twserver-deploy-test-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// buildStatic builds a static cmd/NAME (once per test run) and returns its path.
func buildStatic(t *testing.T, name string) string {
	t.Helper()
	if p, ok := built[name]; ok {
		return p
	}
	out := filepath.Join(binDir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/"+name)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, b)
	}
	built[name] = out
	return out
}

// TestSystemdUnit: `systemd-analyze verify` accepts the unit without a
// warning (ExecStart pointed at a freshly built binary, the only change),
// and `systemd-analyze security` rates its sandbox at most 2.0 ("OK").
func TestSystemdUnit(t *testing.T) {
	sa := testenv.LookPath(t, "systemd-analyze", "systemd")
	unit, err := os.ReadFile("systemd/twserver.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DynamicUser=yes", "ProtectSystem=strict", "NoNewPrivileges=yes", "KillSignal=SIGTERM", "ExecReload=/bin/kill -USR2 $MAINPID", "NotifyAccess=main",
		"RestartPreventExitStatus=2",  // a configuration error is not restarted in a loop
		"RuntimeDirectory=twserver"} { // operating.md's FIFO, /run/twserver/commands, can be made
		if !strings.Contains(string(unit), "\n"+want+"\n") {
			t.Errorf("unit lacks %s", want)
		}
	}
	m := regexp.MustCompile(`\nTimeoutStopSec=(\d+)s\n`).FindStringSubmatch(string(unit))
	if m == nil {
		t.Fatal("unit has no TimeoutStopSec=Ns")
	}
	if n, _ := strconv.Atoi(m[1]); time.Duration(n)*time.Second <= shutdownBound {
		t.Errorf("TimeoutStopSec=%ss, want more than %v", m[1], shutdownBound)
	}
	bin := buildStatic(t, "twserver")
	path := filepath.Join(t.TempDir(), "twserver.service")
	if err := os.WriteFile(path, bytes.ReplaceAll(unit, []byte("/usr/local/bin/twserver"), []byte(bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(sa, "security", "--offline=true", "--no-pager", path).CombinedOutput()
	if err != nil && bytes.Contains(out, []byte("offline")) && bytes.Contains(out, []byte("unrecognized")) {
		testenv.Require(t, "systemd-analyze security --offline (systemd 247 or later)", fmt.Errorf("%v: %s", err, out))
	}
	m = regexp.MustCompile(`Overall exposure level for twserver\.service: ([0-9.]+) (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	if score, _ := strconv.ParseFloat(m[1], 64); score > 2.0 {
		t.Errorf("exposure %s %s, want at most 2.0", m[1], m[2])
	}
	t.Logf("systemd-analyze security: exposure %s %s", m[1], m[2])
}
