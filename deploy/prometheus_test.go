package deploy

import (
	"net/netip"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/testenv"
	"twserver/metrics"
	"twserver/server"
	"twserver/sockio"
)

// TestPrometheusRules: the example Prometheus configuration and alerting
// rules pass the real `promtool check config`, `promtool check rules` and
// the rules' unit tests (`promtool test rules`), and every twserver_* or
// teeworlds_* metric they name is one the endpoint serves.
func TestPrometheusRules(t *testing.T) {
	rules, err := os.ReadFile("prometheus/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	served := servedMetrics(t)
	for _, name := range regexp.MustCompile(`\b(?:twserver|teeworlds)_[a-z0-9_]+`).FindAllString(string(rules), -1) {
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && served[b] {
				base = b
			}
		}
		if !served[base] {
			t.Errorf("rules.yml names %s, which /metrics does not serve", name)
		}
	}
	promtool := testenv.LookPath(t, "promtool", "prometheus")
	for _, args := range [][]string{
		{"check", "config", "prometheus/prometheus.yml"},
		{"check", "rules", "prometheus/rules.yml"},
		{"test", "rules", "prometheus/rules_test.yml"},
	} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// servedMetrics returns the names of the metric families a server's
// endpoint serves (the registration metrics included).
func servedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	mn := sockio.NewMemNet()
	conn, err := mn.Listen(netip.MustParseAddrPort("127.0.0.1:8303"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Config: config.Default(), Conn: conn, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := metrics.New(srv, metrics.Options{Register: func() []metrics.RegisterState {
		return []metrics.RegisterState{{Protocol: "tw-0.7+udp/ipv4"}}
	}, Upgrades: new(metrics.Upgrades)}) // as cmd/twserver serves them
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for line := range strings.Lines(string(ep.Exposition(nil))) {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, _, _ := strings.Cut(rest, " ")
			names[name] = true
		}
	}
	if len(names) == 0 {
		t.Fatal("the exposition names no family")
	}
	return names
}
