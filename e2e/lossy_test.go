package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"twserver/internal/losstest"
	"twserver/internal/netns"
	"twserver/internal/testenv"
)

// The real 0.7.5 client through the project's lossy UDP proxy
// (testdata/lossyproxy.js, grown from ../shared/realpeers/lossyproxy.js:
// it also measures the delay it applies and can start paused) at
// the loss profile P2 of docs/reliability.md "Loss and jitter": 10 % loss and 1 %
// duplicates in each direction, 100±50 ms one-way (the proxy's delay 50 ms
// plus a uniform 0-100 ms, drawn per datagram, so it also reorders far more
// than P2's 10 %). The client connects to the proxy, the proxy to twserver,
// all inside the private network namespace.
const (
	lossyPlay      = 60 * time.Second
	lossyProxyPort = "8317"
)

// lossyP2 is the proxy's impairment for TestRealClientLossyP2: the
// arguments it is started with, and what its counters are checked against.
var lossyP2 = proxyProfile{Loss: 0.10, DelayMs: 50, JitterMs: 100, Dup: 0.01}

// proxyProfile is an impairment of testdata/lossyproxy.js, the same in
// both directions.
type proxyProfile struct {
	Loss, Dup         float64
	DelayMs, JitterMs float64
}

// args are the proxy's command-line options for the profile.
func (p proxyProfile) args() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []string{"--loss", f(p.Loss), "--delay", f(p.DelayMs), "--jitter", f(p.JitterMs), "--dup", f(p.Dup)}
}

// proxyStats are the counters the proxy writes on exit (--stats).
type proxyStats struct {
	LossUp      float64 `json:"loss_up"`
	LossDown    float64 `json:"loss_down"`
	Delay       float64 `json:"delay"`
	Jitter      float64 `json:"jitter"`
	Dup         float64 `json:"dup"`
	UpIn        int64   `json:"up_in"`
	UpDropped   int64   `json:"up_dropped"`
	UpOut       int64   `json:"up_out"`
	DownIn      int64   `json:"down_in"`
	DownDropped int64   `json:"down_dropped"`
	DownOut     int64   `json:"down_out"`
	DupsUp      int64   `json:"dups_up"`
	DupsDown    int64   `json:"dups_down"`
	Delayed     int64   `json:"delayed"`
	DelayMsSum  float64 `json:"delay_ms_sum"`
	DelayMsMin  float64 `json:"delay_ms_min"`
	DelayMsMax  float64 `json:"delay_ms_max"`
}

// Bounds of checkProxyStats.
const (
	// proxyMinDatagrams is the least traffic each direction must carry for
	// the counts to prove the impairment: at 500, a lossless proxy lies 50
	// datagrams from 10 %, beyond the bound of 41 (the real client sent
	// 1236 up and got 1623 in its minute).
	proxyMinDatagrams = 500
	// proxyMaxPending bounds the datagrams still held for their delay when
	// the proxy stopped (counted in, not out).
	proxyMaxPending = 100
	// proxyLateMs bounds how much later than asked a delayed datagram
	// leaves on average (timers on a loaded machine), proxyEarlyMs how much
	// earlier (the mean of the random part over a few thousand draws, and
	// the timers' millisecond rounding).
	proxyLateMs  = 30
	proxyEarlyMs = 5
)

// checkProxyStats checks the proxy's counters against the profile it was
// asked for: loss and duplicates are binomial in the datagrams offered
// (losstest.Binomial), every datagram sent was delayed, the least delay is
// the profile's and the mean is the profile's base plus half its jitter.
// It returns every disagreement.
func checkProxyStats(st proxyStats, p proxyProfile) []error {
	var errs []error
	check := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	if st.LossUp != p.Loss || st.LossDown != p.Loss || st.Delay != p.DelayMs || st.Jitter != p.JitterMs || st.Dup != p.Dup {
		errs = append(errs, fmt.Errorf("the proxy ran with loss %v/%v, delay %v, jitter %v, dup %v; want %+v", st.LossUp, st.LossDown, st.Delay, st.Jitter, st.Dup, p))
	}
	for _, d := range []struct {
		name                   string
		in, dropped, dups, out int64
	}{{"up", st.UpIn, st.UpDropped, st.DupsUp, st.UpOut}, {"down", st.DownIn, st.DownDropped, st.DupsDown, st.DownOut}} {
		if d.in < proxyMinDatagrams {
			errs = append(errs, fmt.Errorf("%s: %d datagrams, want at least %d", d.name, d.in, proxyMinDatagrams))
		}
		check(d.name+" loss", losstest.Binomial(d.dropped, d.in, p.Loss))
		check(d.name+" duplicates", losstest.Binomial(d.dups, max(d.in-d.dropped, 0), p.Dup))
		if want := d.in - d.dropped + d.dups; d.out > want || d.out < want-proxyMaxPending {
			errs = append(errs, fmt.Errorf("%s: %d sent, want %d (kept and duplicated) less at most %d still held", d.name, d.out, want, proxyMaxPending))
		}
	}
	if p.DelayMs > 0 {
		if sent := st.UpOut + st.DownOut; st.Delayed != sent {
			errs = append(errs, fmt.Errorf("delay: %d of %d datagrams sent were delayed", st.Delayed, sent))
		}
		// node truncates a timer's delay to whole milliseconds and counts
		// from its loop's cached clock: up to 2 ms less than drawn
		if st.DelayMsMin < p.DelayMs-2 {
			errs = append(errs, fmt.Errorf("delay: least %.1f ms, want at least %v ms", st.DelayMsMin, p.DelayMs))
		}
		want := p.DelayMs + p.JitterMs/2
		if mean := st.DelayMsSum / float64(max(st.Delayed, 1)); mean < want-proxyEarlyMs || mean > want+proxyLateMs {
			errs = append(errs, fmt.Errorf("delay: mean %.1f ms, want %.0f ms (-%d/+%d)", mean, want, proxyEarlyMs, proxyLateMs))
		}
	} else if st.Delayed != 0 {
		errs = append(errs, fmt.Errorf("delay: %d datagrams delayed without a delay", st.Delayed))
	}
	return errs
}

// lossyErrRe matches what the client logs when its connection fails: an
// error state (offline error='Timeout' and the like) or a "too weak
// connection". ("flushed connection due to timeout" is its routine flush of
// queued chunks after 500 ms, not a failure.)
var lossyErrRe = regexp.MustCompile(`(?i)offline error|too weak connection|error='`)

func TestRealClientLossyP2(t *testing.T) {
	realClientTest(t, func() { testenv.LookPath(t, "node", "nodejs") }, innerLossy) // node: the lossy proxy
}

// startLossyProxy starts testdata/lossyproxy.js on 127.0.0.1:port in front
// of target with the options args, logging to dir/proxy.log, and waits
// until it listens. It returns the process and the log's path.
func startLossyProxy(t *testing.T, dir, port, target string, args ...string) (*proc, string) {
	t.Helper()
	proxy, err := filepath.Abs("testdata/lossyproxy.js")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "proxy.log")
	px := start(t, "lossyproxy", log, nil, nil, dir, append([]string{"node", proxy, port, target}, args...)...)
	if !waitLog(log, regexp.MustCompile(`lossyproxy: 127`), 10*time.Second) {
		t.Fatalf("proxy did not start (see %s)", log)
	}
	return px, log
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
	statsPath := filepath.Join(out, "proxy.json")
	px, proxyLog := startLossyProxy(t, out, lossyProxyPort, "127.0.0.1:"+e2ePort,
		append(lossyP2.args(), "--seed", "1", "--seconds", "170", "--stats", statsPath)...)

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

	// Play: walk left and right, jump, fire, for lossyPlay. Every xdotool
	// call must work: a client that got no input would prove nothing.
	wid := firstLine(xdo(t, "search", "--name", "^Teeworlds$"))
	if wid == "" {
		t.Fatalf("client window not found")
	}
	xdoFails := 0
	do := func(args ...string) {
		if _, err := xdoRun(args...); err != nil {
			xdoFails++
			t.Log(err)
		}
	}
	do("windowfocus", wid)
	end := time.Now().Add(lossyPlay)
	for i := 0; time.Now().Before(end); i++ {
		key := []string{"d", "a"}[i%2]
		do("keydown", key)
		do("key", "space")
		do("click", "1")
		time.Sleep(time.Second)
		do("keyup", key)
		time.Sleep(500 * time.Millisecond)
		if client.exited() {
			t.Fatalf("client exited while playing")
		}
	}
	if xdoFails > 0 {
		t.Errorf("%d xdotool calls failed while playing (see the log above)", xdoFails)
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
		t.Errorf("proxy: %v (see %s)", err, proxyLog)
	}
	stats, err := os.ReadFile(statsPath)
	t.Logf("played %v through the proxy; proxy counters: %s", lossyPlay, stats)
	var st proxyStats
	if err == nil {
		err = json.Unmarshal(stats, &st)
	}
	if err != nil {
		t.Fatalf("the proxy's counters: %v", err)
	}
	for _, err := range checkProxyStats(st, lossyP2) {
		t.Errorf("the proxy did not impair as asked: %v", err)
	}
}
