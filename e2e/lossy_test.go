package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/internal/testenv"
)

// The real 0.7.5 client through the project's lossy UDP proxy
// (testdata/lossyproxy.js, a copy of ../shared/realpeers/lossyproxy.js) at
// the loss profile P2 of README "Loss and jitter": 10 % loss and 1 %
// duplicates in each direction, 100±50 ms one-way (the proxy's delay 50 ms
// plus a uniform 0-100 ms, drawn per datagram, so it also reorders far more
// than P2's 10 %). The client connects to the proxy, the proxy to twserver,
// all inside the private network namespace.
const (
	lossyPlay      = 60 * time.Second
	lossyProxyPort = "8317"
)

// lossyErrRe matches what the client logs when its connection fails: an
// error state (offline error='Timeout' and the like) or a "too weak
// connection". ("flushed connection due to timeout" is its routine flush of
// queued chunks after 500 ms, not a failure.)
var lossyErrRe = regexp.MustCompile(`(?i)offline error|too weak connection|error='`)

func TestRealClientLossyP2(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if os.Getenv(innerEnv) == "1" {
		innerLossy(t)
		return
	}
	testenv.LookPath(t, "node", "nodejs") // the lossy proxy
	runIsolated(t, "TestRealClientLossyP2")
}

func innerLossy(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")
	start(t, "twserver", serverLog, nil, nil, out, bin,
		"-bind", "127.0.0.1", "-port", e2ePort, "-log-level", "debug", "-no-console")
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}
	proxy, err := filepath.Abs("testdata/lossyproxy.js")
	if err != nil {
		t.Fatal(err)
	}
	proxyLog, proxyStats := filepath.Join(out, "proxy.log"), filepath.Join(out, "proxy.json")
	px := start(t, "lossyproxy", proxyLog, nil, nil, out, "node", proxy, lossyProxyPort, "127.0.0.1:"+e2ePort,
		"--loss", "0.10", "--delay", "50", "--jitter", "100", "--dup", "0.01", "--seed", "1",
		"--seconds", "170", "--stats", proxyStats)
	if !waitLog(proxyLog, regexp.MustCompile(`lossyproxy: 127`), 10*time.Second) {
		t.Fatalf("proxy did not start (see %s)", proxyLog)
	}

	client, clientLog, _ := startRealClient(t, out, "127.0.0.1:"+lossyProxyPort, "bind f9 quit")
	online := regexp.MustCompile(`state change\. last=2 current=3`)
	t0 := time.Now()
	if !waitLog(clientLog, online, 60*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("client never reached the online state through the proxy; exited=%v; log tail:\n%s", client.exited(), tail(b, 40))
	}
	t.Logf("client online through the proxy after %v", time.Since(t0).Round(100*time.Millisecond))
	mark := logSize(clientLog)
	markSrv := logSize(serverLog)

	// Play: walk left and right, jump, fire, for lossyPlay.
	wid := xdo(t, "search", "--name", "^Teeworlds$")
	if i := strings.IndexByte(wid, '\n'); i >= 0 {
		wid = wid[:i]
	}
	if wid != "" {
		xdo(t, "windowfocus", wid)
	}
	end := time.Now().Add(lossyPlay)
	for i := 0; time.Now().Before(end); i++ {
		key := []string{"d", "a"}[i%2]
		xdo(t, "keydown", key)
		xdo(t, "key", "space")
		xdo(t, "click", "1")
		time.Sleep(time.Second)
		xdo(t, "keyup", key)
		time.Sleep(500 * time.Millisecond)
		if client.exited() {
			t.Fatalf("client exited while playing")
		}
	}
	cl, _ := os.ReadFile(clientLog)
	played := cl[mark:]
	if m := lossyErrRe.FindAll(played, -1); len(m) > 0 {
		t.Errorf("client logged %d timeouts/errors while playing, first: %s", len(m), m[0])
	}
	if regexp.MustCompile(`state change\. last=3 current=[0-2]`).Match(played) {
		t.Errorf("client left the game while playing")
	}
	sl, _ := os.ReadFile(serverLog)
	if regexp.MustCompile(`client dropped|player left the game`).Match(sl[markSrv:]) {
		t.Errorf("server dropped the client while it played: %s", tail(sl[markSrv:], 10))
	}
	quitClient(t, client, clientLog) // also checks the whole log for snapshot errors
	if err := px.stop(t); err != nil {
		t.Logf("proxy: %v", err)
	}
	stats, _ := os.ReadFile(proxyStats)
	t.Logf("played %v through the proxy; proxy counters: %s", lossyPlay, stats)
	if len(stats) == 0 {
		t.Errorf("the proxy wrote no counters")
	}
}
