package loadclient

import (
	"bytes"
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"twserver/gamemsg"
	"twserver/internal/heavytest"
	"twserver/internal/nodns"
	"twserver/internal/refserver"
)

// startRefServer runs the reference 0.7.5 server on 127.0.0.1 (never
// registering with a master) until the test ends.
func startRefServer(t *testing.T, perIP int) netip.AddrPort {
	t.Helper()
	bin := refserver.Require(t)
	port := refserver.FreeUDPPort(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := nodns.CommandContext(ctx, bin, refserver.Args(refserver.Settings{
		Port: port, Name: "twload-test", LogLevel: 2, PerIP: perIP, PlayerSlots: 64})...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var log refserver.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			os.WriteFile(filepath.Join(t.TempDir(), "server.log"), []byte(log.String()), 0o644)
			t.Logf("server log:\n%s", log.String())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains([]byte(log.String()), []byte(refserver.Ready)) {
		if time.Now().After(deadline) {
			t.Fatalf("reference server did not start:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
}

// TestAgainstReferenceServer runs 8 clients for 10 s against the real 0.7.5
// server, spread over 4 source addresses under a per-IP limit of 2, and
// requires every client in game with every snapshot intact.
func TestAgainstReferenceServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 10 s run against the reference server")
	}
	heavytest.Lock(t)
	addr := startRefServer(t, 2)
	var last Status
	sum, err := Run(context.Background(), RunConfig{
		Server: addr, Clients: 8, RampUp: time.Second, Duration: 10 * time.Second,
		Pattern: PatternRandom, Seed: 42, Sources: 4, SourceBase: netip.MustParseAddr("127.0.0.2"),
		Status: func(s Status) { last = s },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("last status: %s", last)
	t.Logf("connected %d failed %v snaps/s %+v latency %+v rx B/s %+v",
		sum.Connected, sum.Failures, sum.SnapsPerSec, sum.LatencyMs, sum.BytesInPerSec)
	if !sum.OK() || sum.Connected != 8 {
		t.Fatalf("run not clean: %+v", sum)
	}
	if sum.MapDownloads < 1 {
		t.Error("no client downloaded the map")
	}
	if sum.SnapsPerSec.Min < 5 { // 25 on an idle machine; the reference drops snapshots when it wakes late
		t.Errorf("snapshots per second per client min %.1f, want 25 (at least 5 on a loaded machine)", sum.SnapsPerSec.Min)
	}
	if sum.LatencyMs.Samples == 0 || sum.LatencyMs.P50 <= 0 || sum.LatencyMs.P50 > 200 {
		t.Errorf("latency %+v", sum.LatencyMs)
	}
	srcs := map[string]bool{}
	for _, c := range sum.PerClient {
		h, _, _ := net.SplitHostPort(c.Source)
		srcs[h] = true
	}
	if len(srcs) != 4 {
		t.Errorf("clients used %d source addresses, want 4: %v", len(srcs), srcs)
	}
}

// TestReferenceServerPerIPLimit checks that a failure is reported with the
// server's reason: 3 clients from one address against a per-IP limit of 2.
func TestReferenceServerPerIPLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startRefServer(t, 2)
	sum, err := Run(context.Background(), RunConfig{
		Server: addr, Clients: 3, Duration: 2 * time.Second, Pattern: PatternIdle,
		Sources: 1, SourceBase: netip.MustParseAddr("127.0.0.1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Connected != 2 || sum.Failed != 1 || sum.OK() {
		t.Fatalf("connected %d failed %d failures %v", sum.Connected, sum.Failed, sum.Failures)
	}
	for reason := range sum.Failures {
		if reason != "closed by server: Only 2 players with the same IP are allowed" {
			t.Errorf("failure reason %q", reason)
		}
	}
}

// TestReferenceServerSend: a message sent with Client.Send reaches the
// reference server: a Cl_Kill makes the client's tee die by WEAPON_SELF,
// which the server announces with a kill message.
func TestReferenceServerSend(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := startRefServer(t, 4)
	var mu sync.Mutex
	self, killed := int32(-1), false
	cl := New(Config{Server: addr, Name: "sender", Pattern: PatternIdle,
		OnGameMessage: func(m gamemsg.Message) {
			mu.Lock()
			defer mu.Unlock()
			switch m := m.(type) {
			case *gamemsg.SvClientInfo:
				if m.Local {
					self = m.ClientID
				}
			case *gamemsg.SvKillMsg:
				killed = killed || (m.Victim == self && m.Killer == self && m.Weapon == weaponSelf)
			}
		}})
	if cl.Send(&gamemsg.ClKill{}) {
		t.Fatal("Send succeeded before the client was in game")
	}
	// the tee spawns 0.5 s after entering; a kill before that is ignored
	st := runInGame(t, cl, time.Second, func() bool { return cl.Send(&gamemsg.ClKill{}) }, "Send", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return killed
	})
	if !killed || st.Failure != "" {
		t.Fatalf("killed %v (client id %d), failure %q", killed, self, st.Failure)
	}
}

// weaponSelf is WEAPON_SELF, the weapon of a kill request.
const weaponSelf = -2

// runInGame runs cl for at most 8 s: once it is in game and wait has
// passed, send (named what) must succeed; then the client runs until done
// holds or the 8 s are over. It returns the client's stats.
func runInGame(t *testing.T, cl *Client, wait time.Duration, send func() bool, what string, done func() bool) *Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	stats := make(chan *Stats, 1)
	go func() { st := cl.Run(ctx); stats <- &st }()
	for !cl.Entered() && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(wait)
	if !send() {
		cancel()
		<-stats
		t.Fatal(what + " failed in game")
	}
	for ctx.Err() == nil && !done() {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	return <-stats
}
