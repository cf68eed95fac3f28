package agones

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/internal/agonestest"
	"twserver/internal/testport"
)

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// syncWriter collects log output from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// freePort returns a 127.0.0.1 TCP port that is free right now, outside
// the ephemeral range (see internal/testport).
func freePort(t *testing.T) int {
	return testport.Pick(t)
}

func startSidecar(t *testing.T, addr string, o agonestest.Options) *agonestest.Sidecar {
	t.Helper()
	s, err := agonestest.Start(addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// paths lists "METHOD /path" of the answered calls.
func paths(calls []agonestest.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Method+" "+c.Path)
	}
	return out
}

// TestAgentLifecycle (issue 9 proof 10): the agent retries while the
// sidecar starts, reads the GameServer, marks it Ready only after Started,
// pings Health more often than the period, tracks players, and calls
// Shutdown last when its context ends.
func TestAgentLifecycle(t *testing.T) {
	port := freePort(t)
	var logs syncWriter
	a := NewAgent(AgentOptions{Client: NewClient(port), Capacity: 16, Logger: zerolog.New(&logs)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()

	time.Sleep(700 * time.Millisecond) // the sidecar is not there yet: connection refused
	s := startSidecar(t, "127.0.0.1:"+strconv.Itoa(port), agonestest.Options{Name: "twserver-abcde", HostPort: 7431, PeriodSeconds: 1})
	select {
	case p := <-a.HostPort():
		if p != 7431 {
			t.Errorf("host port %d, want 7431", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no host port")
	}
	time.Sleep(300 * time.Millisecond)
	if got := paths(s.Calls()); len(got) != 1 || got[0] != "GET /gameserver" {
		t.Fatalf("before Started: calls %v, want only GET /gameserver", got)
	}
	a.Started()
	waitFor(t, "Ready", 3*time.Second, func() bool { return s.State() == "Ready" })
	a.PlayerJoined(3, "nameless tee")
	a.PlayerJoined(5, "brainless tee")
	waitFor(t, "two players", 3*time.Second, func() bool { return len(s.Players()) == 2 })
	a.PlayerLeft(3)
	a.PlayerLeft(7) // never joined: nothing to send
	waitFor(t, "one player", 3*time.Second, func() bool { return len(s.Players()) == 1 })
	if p := s.Players(); p[0] != "5:brainless tee" {
		t.Errorf("players %v", p)
	}
	time.Sleep(2 * time.Second) // health pings
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return")
	}

	calls := s.Calls()
	got := paths(calls)
	if got[0] != "GET /gameserver" || got[1] != "POST /ready" || got[2] != "PUT /alpha/player/capacity" || got[len(got)-1] != "POST /shutdown" {
		t.Errorf("call order %v", got)
	}
	if s.State() != "Shutdown" {
		t.Errorf("state %s", s.State())
	}
	var health []time.Time
	for _, c := range calls {
		if c.Code != 200 {
			t.Errorf("%s %s answered %d: %s", c.Method, c.Path, c.Code, c.Body)
		}
		if c.Path == "/health" {
			health = append(health, c.At)
		}
	}
	// Period 1 s from the sidecar: a ping every 400 ms, never 1 s apart.
	if len(health) < 5 {
		t.Fatalf("%d health pings in about 2.5 s", len(health))
	}
	for i := 1; i < len(health); i++ {
		if d := health[i].Sub(health[i-1]); d > 700*time.Millisecond || d < 200*time.Millisecond {
			t.Errorf("health ping %d came %v after the previous one, want about 400 ms", i, d)
		}
	}
	if c := strings.Count(logs.String(), "not reachable yet"); c != 1 {
		t.Errorf("%d 'not reachable' lines for the retries, want 1", c)
	}
}

// TestAgentHealthFollowsLoop: no health pings while the game loop is stalled.
func TestAgentHealthFollowsLoop(t *testing.T) {
	s := startSidecar(t, "127.0.0.1:0", agonestest.Options{HostPort: 7000})
	var alive atomic.Bool
	alive.Store(true)
	a := NewAgent(AgentOptions{Client: NewClient(s.Port()), HealthPeriod: 500 * time.Millisecond,
		Alive: alive.Load, Capacity: 4, Logger: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.Run(ctx)
	a.Started()
	waitFor(t, "Ready", 3*time.Second, a.Ready.Load)
	count := func() int {
		n := 0
		for _, c := range s.Calls() {
			if c.Path == "/health" {
				n++
			}
		}
		return n
	}
	time.Sleep(500 * time.Millisecond)
	alive.Store(false)
	time.Sleep(100 * time.Millisecond)
	before := count()
	time.Sleep(time.Second)
	if n := count(); n != before {
		t.Errorf("%d health pings while the loop was stalled", n-before)
	}
	alive.Store(true)
	waitFor(t, "pings again", 2*time.Second, func() bool { return count() > before+1 })
}

// TestAgentWithoutPlayerTracking: a sidecar without the alpha endpoints
// gets no player calls, and the rest works.
func TestAgentWithoutPlayerTracking(t *testing.T) {
	s := startSidecar(t, "127.0.0.1:0", agonestest.Options{NoPlayerTracking: true})
	a := NewAgent(AgentOptions{Client: NewClient(s.Port()), HealthPeriod: 500 * time.Millisecond, Logger: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	a.Started()
	a.PlayerJoined(0, "x")
	waitFor(t, "Ready", 3*time.Second, a.Ready.Load)
	time.Sleep(500 * time.Millisecond)
	cancel()
	<-done
	n404 := 0
	for _, c := range s.Calls() {
		if strings.HasPrefix(c.Path, "/alpha/") {
			n404++
		}
	}
	if n404 != 1 { // the capacity call finds out
		t.Errorf("%d alpha calls, want 1: %v", n404, paths(s.Calls()))
	}
	if s.State() != "Shutdown" {
		t.Errorf("state %s", s.State())
	}
}

func TestPortFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int
	}{{"", 9358}, {"9400", 9400}, {"x", 9358}, {"70000", 9358}} {
		t.Setenv(PortEnv, c.env)
		if got := PortFromEnv(); got != c.want {
			t.Errorf("%q: %d, want %d", c.env, got, c.want)
		}
	}
}

func TestHealthInterval(t *testing.T) {
	if d := HealthInterval(0); d != 2*time.Second {
		t.Errorf("default %v", d)
	}
	if d := HealthInterval(10 * time.Second); d != 4*time.Second {
		t.Errorf("10 s: %v", d)
	}
}

// TestAgentKeepsAllocated: an agent whose GameServer is already Allocated
// (the new process of a live upgrade) does not mark it Ready, which would
// offer it to the next allocation; a Ready one is marked (the control).
func TestAgentKeepsAllocated(t *testing.T) {
	for _, allocated := range []bool{true, false} {
		s := startSidecar(t, "127.0.0.1:0", agonestest.Options{})
		if allocated {
			resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/allocate", s.Port()), "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		a := NewAgent(AgentOptions{Client: NewClient(s.Port()), HealthPeriod: 500 * time.Millisecond, Logger: zerolog.Nop()})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { a.Run(ctx); close(done) }()
		a.Started()
		waitFor(t, "Ready", 3*time.Second, a.Ready.Load)
		state := s.State()
		cancel()
		<-done
		readies := 0
		for _, c := range s.Calls() {
			if c.Path == "/ready" {
				readies++
			}
		}
		want, wantReadies := "Ready", 1
		if allocated {
			want, wantReadies = "Allocated", 0
		}
		if state != want || readies != wantReadies {
			t.Errorf("allocated before: %v: state %s with %d Ready calls, want %s with %d", allocated, state, readies, want, wantReadies)
		}
	}
}
