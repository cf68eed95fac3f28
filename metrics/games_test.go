package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"twserver/metrics"
	"twserver/sockio"
)

// TestGamesLabelled: with several games every game figure carries the
// game label with the game's own value, process figures carry none, the
// exposition lints, and /healthz needs every game's loop to tick.
func TestGamesLabelled(t *testing.T) {
	a, b := &idleSource{}, &idleSource{}
	a.gauges.MaxClients.Store(64)
	b.gauges.MaxClients.Store(16)
	a.gauges.Socket, b.gauges.Socket = sockio.KindBatch, sockio.KindPaced
	now := time.Unix(1000, 0)
	ep, err := metrics.NewGames([]metrics.Game{
		{Name: "8303", Source: a, Register: func() []metrics.RegisterState {
			return []metrics.RegisterState{{Protocol: "tw-0.7+udp/ipv4", Registered: true}}
		}},
		{Name: "8304", Source: b},
	}, metrics.Options{Version: "test", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`teeworlds_server_max_clients{game="8303"} 64`,
		`teeworlds_server_max_clients{game="8304"} 16`,
		`teeworlds_server_clients{dialect="0.7",game="8304",state="ingame"} 0`,
		`twserver_register_status{game="8303",protocol="tw-0.7+udp/ipv4"} 1`,
		`twserver_socket_info{game="8303",kind="batch"} 1`,
		`twserver_socket_info{game="8304",kind="paced"} 1`,
		`twserver_build_info{go=`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(body, `twserver_build_info{game=`) || strings.Contains(body, "teeworlds_server_max_clients 64") {
		t.Errorf("process figures labelled or game figures unlabelled:\n%s", body)
	}
	promtoolCheck(t, body)

	health := func() int {
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rec.Code
	}
	a.ticks.LastTick.Store(now.UnixNano())
	if c := health(); c != http.StatusServiceUnavailable {
		t.Errorf("/healthz %d with one game never ticked", c)
	}
	b.ticks.LastTick.Store(now.UnixNano())
	if c := health(); c != http.StatusOK {
		t.Errorf("/healthz %d with both games ticking", c)
	}
	now = now.Add(metrics.HealthMaxTickAge / 2)
	a.ticks.LastTick.Store(now.UnixNano())
	now = now.Add(metrics.HealthMaxTickAge/2 + time.Millisecond)
	if c := health(); c != http.StatusServiceUnavailable {
		t.Errorf("/healthz %d with game 8304 stalled", c)
	}

	if _, err := metrics.NewGames([]metrics.Game{{Name: "x", Source: a}, {Name: "x", Source: b}}, metrics.Options{}); err == nil {
		t.Error("two games with one name accepted")
	}
}
