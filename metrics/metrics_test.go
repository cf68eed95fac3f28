package metrics_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/edge"
	"twserver/internal/testenv"
	"twserver/loadclient"
	"twserver/metrics"
	"twserver/server"
)

// running is a twserver and its metrics endpoint on loopback.
type running struct {
	srv  *server.Server
	ep   *metrics.Endpoint
	base string // "http://127.0.0.1:port"
}

// startServer runs an in-process twserver on a free loopback UDP port and
// its metrics endpoint on a free loopback TCP port until the test ends.
func startServer(t *testing.T, maxClients int) *running {
	t.Helper()
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Server.MaxClients = maxClients
	cfg.Server.MaxClientsPerIP = maxClients
	cfg.Server.Name = "metrics test"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Config: cfg, Logger: zerolog.Nop(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := metrics.New(srv, metrics.Options{Version: "test", Upgrades: testUpgrades})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- srv.Run(ctx) }()
	httpDone := make(chan error, 1)
	go func() { httpDone <- ep.ServeListener(ctx, ln, zerolog.Nop()) }()
	t.Cleanup(func() {
		cancel()
		for _, ch := range []chan error{runDone, httpDone} {
			select {
			case err := <-ch:
				if err != nil {
					t.Errorf("stopped with %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("server or endpoint did not stop")
			}
		}
	})
	return &running{srv: srv, ep: ep, base: "http://" + ln.Addr().String()}
}

// get fetches a path of the endpoint.
func get(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// sample is one line of a text exposition.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// family is a metric family of a parsed exposition.
type family struct {
	typ     string
	samples []sample
}

// all returns f's samples (none for a nil family).
func (f *family) all() []sample {
	if f == nil {
		return nil
	}
	return f.samples
}

// parseExposition parses the text format as far as these tests need:
// # TYPE lines and samples with escaped label values (the real promtool
// checks the rest).
func parseExposition(body string) (map[string]*family, error) {
	fams := map[string]*family{}
	var cur *family
	for line := range strings.Lines(body) {
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(rest, " ")
			if fams[name] != nil {
				return nil, fmt.Errorf("family %s twice", name)
			}
			cur = &family{typ: typ}
			fams[name] = cur
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("sample before any TYPE: %q", line)
		}
		s := sample{labels: map[string]string{}}
		i := strings.IndexAny(line, "{ ")
		if i < 0 {
			return nil, fmt.Errorf("no value: %q", line)
		}
		s.name, line = line[:i], line[i:]
		if line[0] == '{' {
			line = line[1:]
			for line != "" && line[0] != '}' {
				name, rest, ok := strings.Cut(line, "=\"")
				if !ok {
					return nil, fmt.Errorf("bad label in %q", line)
				}
				var v strings.Builder
				for rest != "" && rest[0] != '"' {
					c := rest[0]
					if c == '\\' && len(rest) > 1 {
						rest = rest[1:]
						switch rest[0] {
						case 'n':
							c = '\n'
						case '\\', '"':
							c = rest[0]
						default:
							return nil, fmt.Errorf("bad escape in %q", line)
						}
					}
					v.WriteByte(c)
					rest = rest[1:]
				}
				if rest == "" {
					return nil, fmt.Errorf("unterminated label value in %q", line)
				}
				s.labels[name] = v.String()
				line = strings.TrimPrefix(rest[1:], ",")
			}
			line = strings.TrimPrefix(line, "}")
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if err != nil {
			return nil, fmt.Errorf("value of %s: %v", s.name, err)
		}
		s.value = f
		cur.samples = append(cur.samples, s)
	}
	return fams, nil
}

// scrape fetches /metrics and parses the text exposition.
func scrape(t *testing.T, base string) (string, map[string]*family) {
	t.Helper()
	code, body, h := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: status %d: %s", code, body)
	}
	if ct := h.Get("Content-Type"); ct != metrics.ContentType {
		t.Errorf("/metrics Content-Type %q", ct)
	}
	fams, err := parseExposition(body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	return body, fams
}

// value sums the samples of a gauge or counter family whose labels include want.
// testUpgrades are the upgrade counts the test endpoint shows: two hung.
var testUpgrades = func() *metrics.Upgrades {
	u := new(metrics.Upgrades)
	u[3].Add(2) // "hung"
	return u
}()

func value(fams map[string]*family, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	sum := 0.0
	for _, m := range f.samples {
		match := m.name == name
		for k, v := range want {
			match = match && m.labels[k] == v
		}
		if match {
			sum += m.value
		}
	}
	return sum, true
}

// promtoolCheck runs the real `promtool check metrics` on an exposition.
func promtoolCheck(t *testing.T, body string) {
	t.Helper()
	path := testenv.LookPath(t, "promtool", "prometheus")
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out.String())
	}
	if s := strings.TrimSpace(out.String()); s != "" {
		t.Fatalf("promtool check metrics reports problems:\n%s", s)
	}
}

// TestScrapeWithClients: synthetic 0.7 clients join a running server; the
// scraped client and player gauges match the number in game, the loop's
// counters move, the clients count falls back to 0 when they leave, and the
// exposition passes the real promtool's lint.
func TestScrapeWithClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the run with synthetic clients")
	}
	const n = 4
	r := startServer(t, 8)
	var inGame atomic.Int32
	runDone := make(chan error, 1)
	var sum loadclient.Summary
	go func() {
		var err error
		sum, err = loadclient.Run(context.Background(), loadclient.RunConfig{
			Server: r.srv.Addr(), Clients: n, RampUp: 200 * time.Millisecond, Duration: 4 * time.Second,
			Pattern: loadclient.PatternIdle, Seed: 3, Sources: 1, SourceBase: netip.MustParseAddr("127.0.0.1"),
			Status: func(s loadclient.Status) { inGame.Store(int32(s.InGame)) },
		})
		runDone <- err
	}()

	// Poll until the clients are in game as the server counts them.
	var body string
	var fams map[string]*family
	deadline := time.Now().Add(10 * time.Second)
	for {
		body, fams = scrape(t, r.base)
		v, _ := value(fams, "teeworlds_server_clients", map[string]string{"state": "ingame", "dialect": "0.7"})
		if v == n && inGame.Load() == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in-game clients on /metrics %v, loadclient says %d, want %d", v, inGame.Load(), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if v, _ := value(fams, "teeworlds_server_clients", nil); v != n {
		t.Errorf("teeworlds_server_clients sums to %v, want %d", v, n)
	}
	players, _ := value(fams, "teeworlds_server_players", nil)
	specs, _ := value(fams, "teeworlds_server_spectators", nil)
	if players+specs != n {
		t.Errorf("players %v + spectators %v, want %d", players, specs, n)
	}
	if v, _ := value(fams, "teeworlds_server_max_clients", nil); v != 8 {
		t.Errorf("teeworlds_server_max_clients %v, want 8", v)
	}
	if v, _ := value(fams, "teeworlds_server_info", map[string]string{"name": "metrics test", "gametype": "DM", "map": r.srv.MapName()}); v != 1 {
		t.Errorf("teeworlds_server_info with the server's name, game type and map: %v", v)
	}
	if v, _ := value(fams, "teeworlds_game_events_total", map[string]string{"event": "join"}); v != n {
		t.Errorf("join events %v, want %d", v, n)
	}
	if v, _ := value(fams, "twserver_connections_total", map[string]string{"result": "accepted"}); v < n {
		t.Errorf("accepted connections %v, want at least %d", v, n)
	}
	for _, dir := range []string{"in", "out"} {
		if v, _ := value(fams, "twserver_net_packets_total", map[string]string{"dir": dir}); v == 0 {
			t.Errorf("no %s packets counted", dir)
		}
		if v, _ := value(fams, "twserver_net_bytes_total", map[string]string{"dir": dir}); v == 0 {
			t.Errorf("no %s bytes counted", dir)
		}
	}
	if k := r.srv.Socket(); k == "" {
		t.Error("the server does not name its socket")
	} else if v, _ := value(fams, "twserver_socket_info", map[string]string{"kind": string(k)}); v != 1 {
		t.Errorf("twserver_socket_info{kind=%q} = %v, want 1", k, v)
	}
	if v, _ := value(fams, "twserver_build_info", map[string]string{"version": "test"}); v != 1 {
		t.Errorf("twserver_build_info{version=\"test\"} = %v", v)
	}
	for _, r := range metrics.UpgradeResults {
		want := 0.0
		if r == "hung" {
			want = 2 // testUpgrades
		}
		if v, ok := value(fams, "twserver_upgrades_total", map[string]string{"result": r}); !ok || v != want {
			t.Errorf("twserver_upgrades_total{result=%q} = %v (%v), want %v", r, v, ok, want)
		}
	}
	for _, h := range []string{"twserver_tick_duration_seconds", "twserver_tick_lateness_seconds", "twserver_snapshot_bytes"} {
		f, count := fams[h], 0.0
		for _, m := range f.all() {
			if m.name == h+"_count" {
				count = m.value
			}
		}
		if f == nil || f.typ != "histogram" || count == 0 {
			t.Errorf("histogram %s missing or empty", h)
		}
	}
	// No label carries a player name or an address.
	for name, f := range fams {
		for _, m := range f.samples {
			for k, v := range m.labels {
				if strings.Contains(v, "127.0.0.1") || strings.Contains(v, "client") {
					t.Errorf("%s has label %s=%q", name, k, v)
				}
			}
		}
	}
	promtoolCheck(t, body)

	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	if sum.Connected != n {
		t.Errorf("loadclient connected %d of %d", sum.Connected, n)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		_, fams = scrape(t, r.base)
		v, _ := value(fams, "teeworlds_server_clients", nil)
		if v == 0 {
			if left, _ := value(fams, "teeworlds_game_events_total", map[string]string{"event": "leave"}); left != n {
				t.Errorf("leave events %v, want %d", left, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("teeworlds_server_clients %v after every client left, want 0", v)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body, _ := get(t, r.base+"/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz of a running server: %d %q", code, body)
	}
}

// idleSource is a Source whose loop never ran.
type idleSource struct {
	stats  edge.Stats
	gauges metrics.Gauges
	ticks  metrics.TickTiming
}

func (s *idleSource) Stats() *edge.Stats                { return &s.stats }
func (s *idleSource) Gauges() *metrics.Gauges           { return &s.gauges }
func (s *idleSource) TickTiming() *metrics.TickTiming   { return &s.ticks }
func (s *idleSource) RecordCounters() map[string]uint64 { return nil }

// TestHealthz: 503 before the first tick and when the loop is more than
// HealthMaxTickAge behind its schedule (its last tick, or the heartbeat a
// sleeping game promised), 200 in between.
func TestHealthz(t *testing.T) {
	src := &idleSource{}
	now := time.Unix(1000, 0)
	ep, err := metrics.New(src, metrics.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	check := func(wantCode int, wantBody string) {
		t.Helper()
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if rec.Code != wantCode || !strings.Contains(rec.Body.String(), wantBody) {
			t.Errorf("/healthz: %d %q, want %d %q", rec.Code, rec.Body.String(), wantCode, wantBody)
		}
	}
	check(http.StatusServiceUnavailable, "not ticked yet")
	src.ticks.LastTick.Store(now.Add(-100 * time.Millisecond).UnixNano())
	check(http.StatusOK, "ok")
	now = now.Add(metrics.HealthMaxTickAge)
	check(http.StatusServiceUnavailable, "2.1 s behind its schedule")

	// The game falls asleep and will wake 5 s later: healthy until 2 s
	// past that heartbeat, whatever the age of its last tick.
	src.ticks.LastTick.Store(now.UnixNano())
	src.ticks.WakeBy.Store(now.Add(5 * time.Second).UnixNano())
	for _, c := range []struct {
		after time.Duration
		code  int
		body  string
	}{
		{4 * time.Second, http.StatusOK, "ok"},
		{5*time.Second + metrics.HealthMaxTickAge, http.StatusOK, "ok"},
		{5*time.Second + metrics.HealthMaxTickAge + 100*time.Millisecond, http.StatusServiceUnavailable, "2.1 s behind its schedule"},
	} {
		now = time.Unix(0, src.ticks.LastTick.Load()).Add(c.after)
		check(c.code, c.body)
	}
	// It wakes and ticks again: its ticks count, not the past heartbeat.
	src.ticks.LastTick.Store(now.UnixNano())
	check(http.StatusOK, "ok")
	now = now.Add(metrics.HealthMaxTickAge + 100*time.Millisecond)
	check(http.StatusServiceUnavailable, "2.1 s behind its schedule")
}

// TestIdleExpositionLints: the exposition of a server without clients or
// ticks (empty histograms, zero gauges) passes promtool too.
func TestIdleExpositionLints(t *testing.T) {
	ep, err := metrics.New(&idleSource{}, metrics.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `teeworlds_server_clients{dialect="0.7",state="ingame"} 0`) {
		t.Fatalf("/metrics: %d\n%s", rec.Code, rec.Body.String())
	}
	promtoolCheck(t, rec.Body.String())
}

// TestEdgeCountersExposed: every counter of the edge's stats line is on
// /metrics under its own series, with its value, and the exposition still
// lints. A counter added to edge.Stats without a series fails here.
func TestEdgeCountersExposed(t *testing.T) {
	series := map[string]struct {
		name   string
		labels map[string]string
	}{
		"received":         {"twserver_net_packets_total", map[string]string{"dir": "in"}},
		"malformed":        {"twserver_net_dropped_total", map[string]string{"reason": "malformed"}},
		"bad_token":        {"twserver_net_dropped_total", map[string]string{"reason": "bad_token"}},
		"queue_full":       {"twserver_net_dropped_total", map[string]string{"reason": "queue_full"}},
		"connless_dropped": {"twserver_net_dropped_total", map[string]string{"reason": "connless_budget"}},
		"flood":            {"twserver_net_dropped_total", map[string]string{"reason": "flood"}},
		"bad_messages":     {"twserver_net_dropped_total", map[string]string{"reason": "bad_message"}},
		"token_replies":    {"twserver_connless_replies_total", map[string]string{"kind": "token"}},
		"info_replies":     {"twserver_connless_replies_total", map[string]string{"kind": "info"}},
		"retokened":        {"twserver_retokened_total", nil},
	}
	src := &idleSource{}
	// Each counter a value of its own (1, 2, ...), so that a series
	// showing another counter's value fails too.
	fields := reflect.ValueOf(&src.stats).Elem()
	for i := 0; i < fields.NumField(); i++ {
		fields.Field(i).Addr().Interface().(*atomic.Uint64).Store(uint64(i + 1))
	}
	ep, err := metrics.New(src, metrics.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	fams, err := parseExposition(rec.Body.String())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range src.stats.Counters() {
		s, ok := series[name]
		if !ok {
			t.Errorf("edge counter %q has no series in this test (and maybe none on /metrics)", name)
			continue
		}
		if got, found := value(fams, s.name, s.labels); !found || got != float64(want) {
			t.Errorf("counter %q: %s%v = %v (found %v), want %d", name, s.name, s.labels, got, found, want)
		}
	}
	promtoolCheck(t, rec.Body.String())
}

// TestRegisterStatus: the registration hook's states become
// twserver_register_status (0/1) and twserver_register_errors_total per
// protocol, and the exposition still lints.
func TestRegisterStatus(t *testing.T) {
	states := []metrics.RegisterState{{Protocol: "tw-0.7+udp/ipv4", Registered: true}, {Protocol: "tw-0.6+udp/ipv4", Errors: 3}}
	ep, err := metrics.New(&idleSource{}, metrics.Options{Register: func() []metrics.RegisterState { return states }})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`twserver_register_status{protocol="tw-0.7+udp/ipv4"} 1`,
		`twserver_register_status{protocol="tw-0.6+udp/ipv4"} 0`,
		`twserver_register_errors_total{protocol="tw-0.6+udp/ipv4"} 3`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	promtoolCheck(t, body)
}

// TestConnectionBound: no connection waits to be accepted, whatever a
// caller of the package passes: one over MaxConnsPerAddr from an address
// is refused at once (503), and with MaxConnections idle connections from
// other addresses open /healthz is still answered within a second (the
// connection idle longest is closed for it). A listener whose Accept
// waits while full (netutil.LimitListener, the package's default until
// it always bounded its listener itself) fails both.
func TestConnectionBound(t *testing.T) {
	ep, err := metrics.New(&idleSource{}, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ep.ServeListener(ctx, ln, zerolog.Nop()) }()
	t.Cleanup(func() { cancel(); <-done }) // after the connections' (LIFO)
	from := func(src net.IP) net.Conn {
		t.Helper()
		c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: src}, Timeout: time.Second}).Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// MaxConnections idle connections, MaxConnsPerAddr from each of
	// 127.0.0.2 and up
	for i := range metrics.MaxConnections {
		from(net.IPv4(127, 0, 0, byte(2+i/metrics.MaxConnsPerAddr)))
	}
	over := from(net.IPv4(127, 0, 0, 2))
	_ = over.SetReadDeadline(time.Now().Add(time.Second))
	b, err := io.ReadAll(over)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("a connection over its address's bound was left waiting")
	} else if !strings.HasPrefix(string(b), "HTTP/1.1 503 ") {
		t.Errorf("a connection over its address's bound: %q, want a 503", b)
	}
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 {
		resp, err := client.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("/healthz %d with %d idle connections open: %v", i, metrics.MaxConnections, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "game loop has not ticked yet\n"; string(body) != want { // the idle source's answer, not a refusal
			t.Errorf("/healthz %d with %d idle connections open: %d %q, want %q", i, metrics.MaxConnections, resp.StatusCode, body, want)
		}
	}
}

// TestEscapedLabelsLint: a server name with a double quote, a backslash,
// a newline and a byte that is not UTF-8 (the name comes from the
// configuration) is escaped so that promtool accepts the exposition and
// the name parses back (the bad byte as U+FFFD).
func TestEscapedLabelsLint(t *testing.T) {
	src := &idleSource{}
	src.gauges.PublishInfo("say \"gg\" \\o/\nline two \xff", "DM", "dm1")
	ep, err := metrics.New(src, metrics.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	body := string(ep.Exposition(nil))
	promtoolCheck(t, body)
	fams, err := parseExposition(body)
	if err != nil {
		t.Fatal(err)
	}
	want := "say \"gg\" \\o/\nline two \uFFFD"
	if v, _ := value(fams, "teeworlds_server_info", map[string]string{"name": want, "map": "dm1"}); v != 1 {
		t.Errorf("teeworlds_server_info{name=%q} not found:\n%s", want, body)
	}
}
