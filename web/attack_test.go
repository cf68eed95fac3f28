package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/internal/heavytest"
	"twserver/internal/servertest"
	"twserver/loadclient"
	"twserver/metrics"
	"twserver/watch"
)

// The web endpoint under attack: hostile connections from one loopback
// address while another address uses the page.

// Bounds of the attack test.
const (
	// AttackHogs is the default number of hostile connections of each
	// kind (four kinds); $TWSERVER_WEB_HOGS changes it (at most
	// MaxAttackHogs).
	AttackHogs = 150
	// MaxAttackHogs bounds the hostile connections of each kind.
	MaxAttackHogs = 2000
	// AttackTime is how long the hogs attack.
	AttackTime = 10 * time.Second
	// attackProbeEvery is the interval of the other address's requests.
	attackProbeEvery = 200 * time.Millisecond
	// attackAnswerWithin is the time an answer to the other address may take.
	attackAnswerWithin = time.Second
	// attackSettle is the time the server has to return to its baseline
	// after the hogs leave.
	attackSettle = 10 * time.Second
)

// Environment of the hog process (the test binary run again).
const (
	hogEnvTarget = "TWSERVER_WEB_HOG_TARGET" // the web address
	hogEnvCount  = "TWSERVER_WEB_HOG_COUNT"  // hogs of each kind
	hogEnvPort   = "TWSERVER_WEB_HOG_PORT"   // the game's port (in the paths)
)

// TestMain runs the hog process when the attack test starts the test
// binary as one, else the tests.
func TestMain(m *testing.M) {
	if watch.IsChild() { // TestWatchChild's builds
		os.Exit(watch.RunChild())
	}
	if os.Getenv(hogEnvTarget) != "" {
		os.Exit(hogProcess())
	}
	os.Exit(m.Run())
}

// hogProcess attacks $TWSERVER_WEB_HOG_TARGET (loopback only) with
// $TWSERVER_WEB_HOG_COUNT hogs of each kind for AttackTime, then prints
// what they did, a line per kind: dials, failed, closed.
func hogProcess() int {
	addr, port := os.Getenv(hogEnvTarget), os.Getenv(hogEnvPort)
	n, err := strconv.Atoi(os.Getenv(hogEnvCount))
	if err != nil || n < 1 || n > MaxAttackHogs {
		fmt.Fprintln(os.Stderr, "hog process: bad count")
		return 2
	}
	if err := raiseFilesTo(uint64(2*int(hogKinds)*n + 64)); err != nil {
		fmt.Fprintln(os.Stderr, "hog process:", err)
		return 2
	}
	ctx, stop := context.WithTimeout(context.Background(), AttackTime)
	defer stop()
	var st [hogKinds]hogStats
	var hogs sync.WaitGroup
	paths := [hogKinds][]string{
		hogUnread: {"/api/games/" + port + "/recordings/old_game.demo", "/app.js", "/", "/api/games/" + port + "/map"},
		hogStream: {"/api/games/" + port + "/events"},
	}
	for k := range hogKinds {
		for i := range n {
			hogs.Add(1)
			go func() {
				defer hogs.Done()
				sleepCtx(ctx, time.Duration(i)*time.Second/time.Duration(n)) // spread over the first second
				hog(ctx, k, addr, paths[k], &st[k])
			}()
		}
	}
	hogs.Wait()
	for k := range hogKinds {
		fmt.Printf("%d %d %d\n", st[k].dials.Load(), st[k].failed.Load(), st[k].closed.Load())
	}
	return 0
}

// hogKind is what a hostile connection does.
type hogKind int

const (
	hogIdle   hogKind = iota // connects and sends nothing
	hogSlow                  // sends a request's head one byte a second
	hogUnread                // asks for large answers and never reads them
	hogStream                // opens a live stream and never reads it
	hogKinds
)

var hogNames = [hogKinds]string{"idle", "slow headers", "answers never read", "streams never read"}

// hogStats counts what the hogs did.
type hogStats struct {
	dials, failed, closed atomic.Int64
}

// hog attacks addr (loopback only) as kind from 127.0.0.1 until ctx
// ends: it connects, does its kind's thing while the connection lasts,
// and connects again a second after the server closed it.
func hog(ctx context.Context, kind hogKind, addr string, paths []string, st *hogStats) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		panic("hog: not a loopback target: " + addr)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, Timeout: time.Second}
	if kind == hogUnread || kind == hogStream {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048) })
		}
	}
	for ctx.Err() == nil {
		st.dials.Add(1)
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			st.failed.Add(1)
			sleepCtx(ctx, time.Second)
			continue
		}
		var req []byte
		switch kind {
		case hogUnread:
			for i := range 16 {
				req = fmt.Appendf(req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[i%len(paths)])
			}
		case hogStream:
			req = fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[0])
		case hogSlow:
			req = []byte("GET / HTTP/1.1\r\nHost: x\r\n")
		}
		_, err = c.Write(req)
		for err == nil && ctx.Err() == nil {
			switch kind {
			case hogIdle, hogSlow: // they read: the server's close shows
				_ = c.SetReadDeadline(time.Now().Add(time.Second))
				var b [512]byte
				if _, err = c.Read(b[:]); isTimeout(err) {
					err = nil
				}
				if err == nil && kind == hogSlow {
					_, err = c.Write([]byte("X"))
				}
			default: // they never read: a write shows the close
				sleepCtx(ctx, time.Second)
				_, err = c.Write([]byte("\r\n"))
			}
		}
		if err != nil {
			st.closed.Add(1)
		}
		c.Close()
		sleepCtx(ctx, time.Second)
	}
}

// isTimeout reports whether err is a deadline's.
func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// sleepCtx sleeps d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// probe asks u from 127.0.0.2 every attackProbeEvery until ctx ends, each
// on a new connection; it returns the time of each answer (-1: none or not
// 200 within attackAnswerWithin).
func probe(ctx context.Context, u string) []time.Duration {
	tr := &http.Transport{DisableKeepAlives: true,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: attackAnswerWithin}
	var out []time.Duration
	t := time.NewTicker(attackProbeEvery)
	defer t.Stop()
	for {
		start := time.Now()
		took := time.Duration(-1)
		if resp, err := c.Get(u); err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				took = time.Since(start)
			}
		}
		out = append(out, took)
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
		}
	}
}

// rssKB is this process's resident memory.
func rssKB(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// settled returns the goroutines and the resident memory after a garbage
// collection that returns freed memory to the system.
func settled(t *testing.T) (int, int) {
	debug.FreeOSMemory()
	return runtime.NumGoroutine(), rssKB(t)
}

// attackHogs is the number of hogs of each kind ($TWSERVER_WEB_HOGS).
func attackHogs(t *testing.T) int {
	n := AttackHogs
	if s := os.Getenv("TWSERVER_WEB_HOGS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > MaxAttackHogs {
			t.Fatalf("TWSERVER_WEB_HOGS=%q: want 1..%d", s, MaxAttackHogs)
		}
		n = v
	}
	return n
}

// raiseFilesTo raises the open files' soft limit to need, or fails.
func raiseFilesTo(need uint64) error {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return err
	}
	if r.Cur < need {
		r.Cur = min(need, r.Max)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return err
		}
	}
	if r.Cur < need {
		return fmt.Errorf("open files limited to %d, the attack needs %d", r.Cur, need)
	}
	return nil
}

// percentile is the p-th percentile of sorted ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// TestWebUnderAttack: a real game with four players and the web page on a
// loopback port (the bounds of the production listener), metrics on
// their own listener. From 127.0.0.1, a process of its own (the test
// binary run again) opens AttackHogs connections of each kind
// (idle; a request's head one byte a second; large answers, a
// recording's download and the page pipelined, never read with a 2 KiB
// receive buffer; live streams never read) attack for AttackTime, coming
// back a second after each close. Meanwhile 127.0.0.2 asks for /,
// /api/games and /healthz every 200 ms, each on a new connection: every
// answer is 200 within a second. The players keep their 25 snapshots a
// second. Within 10 s after the hogs leave, the server's connections,
// streams and requests are back to none, and the goroutines and resident
// memory to their baseline. $TWSERVER_WEB_HOGS=250 is the measurement of
// docs/reliability.md (1,000 connections).
func TestWebUnderAttack(t *testing.T) {
	heavytest.Lock(t)
	n := attackHogs(t)
	if err := raiseFilesTo(uint64(2*MaxConnections + 256)); err != nil {
		t.Fatal(err)
	}
	// the game records its teehistorian into the directory the page
	// lists: the recording must go on through the attack
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Server.Bind, cfg.Server.Port, cfg.Server.Name, cfg.Game.Type = "127.0.0.1", 0, "attack", "ctf"
	cfg.Game.SpamProtection = false
	cfg.Record.Dir, cfg.Record.Teehistorian = dir, true
	game := servertest.StartServer(t, cfg)
	if err := os.WriteFile(filepath.Join(dir, "old_game.demo"), bytes.Repeat([]byte{0x5a}, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(int(game.Addr().Port()))
	h, err := New([]Game{{Port: int(game.Addr().Port()), Server: game, RecordDir: dir}}, Options{PublicChat: true, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := metrics.NewGames([]metrics.Game{{Name: port, Source: game}}, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var served sync.WaitGroup
	t.Cleanup(func() { cancel(); served.Wait() })
	webLn, metricsLn := listenLoopback(t), listenLoopback(t)
	served.Add(2)
	go func() { defer served.Done(); _ = h.ServeListener(ctx, webLn) }()
	go func() { defer served.Done(); _ = ep.ServeListener(ctx, metricsLn, zerolog.Nop()) }()
	web, healthz := "http://"+webLn.Addr().String(), "http://"+metricsLn.Addr().String()+"/healthz"

	var bs bots
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		bs.join(t, game, name, loadclient.PatternWalk)
	}
	// the baseline: the players in, the page served once
	for _, u := range []string{web + "/", web + "/api/games", healthz} {
		if st, _ := getFrom(t, "127.0.0.2", u); st != http.StatusOK {
			t.Fatalf("%s before the attack: %d", u, st)
		}
	}
	time.Sleep(500 * time.Millisecond)
	g0, rss0 := settled(t)
	rec0 := game.RecordCounters()
	snaps := func() (n int64) {
		for _, c := range bs.clients {
			n += c.Live().Snapshots.Load()
		}
		return n
	}

	// the hogs: the test binary run again, as a process of their own
	actx, stop := context.WithTimeout(context.Background(), AttackTime)
	defer stop()
	hp := exec.Command(os.Args[0], "-test.run=^$")
	hp.Env = append(os.Environ(), hogEnvTarget+"="+webLn.Addr().String(), hogEnvCount+"="+strconv.Itoa(n), hogEnvPort+"="+port)
	var hogOut bytes.Buffer
	hp.Stdout, hp.Stderr = &hogOut, &hogOut
	start, s0 := time.Now(), snaps()
	if err := hp.Start(); err != nil {
		t.Fatal(err)
	}
	hogDone := make(chan error, 1)
	go func() { hogDone <- hp.Wait() }()
	t.Cleanup(func() {
		if hp.ProcessState == nil {
			_ = hp.Process.Kill()
		}
	})
	var probes [3][]time.Duration
	var pw sync.WaitGroup
	for i, u := range []string{web + "/", web + "/api/games", healthz} {
		pw.Add(1)
		go func() { defer pw.Done(); probes[i] = probe(actx, u) }()
	}
	// the peak while the hogs are at it
	time.Sleep(AttackTime * 8 / 10)
	peakG, peakRSS, peakConns := runtime.NumGoroutine(), rssKB(t), 0
	if bl := h.conns.Load(); bl != nil {
		peakConns = bl.Open()
	}
	pw.Wait()
	s1, took := snaps(), time.Since(start)
	select {
	case err := <-hogDone:
		if err != nil {
			t.Fatalf("hog process: %v: %s", err, hogOut.Bytes())
		}
	case <-time.After(AttackTime):
		_ = hp.Process.Kill()
		t.Fatalf("the hog process outlived its time: %s", hogOut.Bytes())
	}
	left := time.Now()
	var st [hogKinds][3]int64
	for k, l := range strings.Split(strings.TrimSpace(hogOut.String()), "\n") {
		if k < int(hogKinds) {
			_, _ = fmt.Sscan(l, &st[k][0], &st[k][1], &st[k][2])
		}
	}

	// every answer within the second
	var all []time.Duration
	for i, name := range []string{"/", "/api/games", "/healthz"} {
		bad := 0
		for _, d := range probes[i] {
			if d < 0 {
				bad++
			} else {
				all = append(all, d)
			}
		}
		if bad > 0 || len(probes[i]) < int(AttackTime/attackProbeEvery)/2 {
			t.Errorf("%s from 127.0.0.2: %d of %d not answered within %v", name, bad, len(probes[i]), attackAnswerWithin)
		}
	}
	slices.Sort(all)
	for k := range hogKinds {
		t.Logf("hogs %-18s %d: %d connections, %d failed to connect, %d closed by the server", hogNames[k], n,
			st[k][0], st[k][1], st[k][2])
	}
	bl := h.conns.Load()
	t.Logf("server: %d connections refused, %d idle ones closed for new ones; at the peak %d connections, %d goroutines, RSS %d kB",
		bl.Refused(), bl.Evicted(), peakConns, peakG, peakRSS)
	if len(all) > 0 {
		t.Logf("127.0.0.2: %d answers, p50 %v, p99 %v, max %v", len(all), percentile(all, 0.5), percentile(all, 0.99), all[len(all)-1])
	}
	rate := float64(s1-s0) / took.Seconds() / float64(len(bs.clients))
	t.Logf("players: %.2f snapshots a second each during the attack", rate)
	if rate < 24 {
		t.Errorf("players got %.2f snapshots a second during the attack, want 25", rate)
	}
	if bl.Refused() == 0 || peakConns < MaxConnsPerAddr/2 {
		t.Errorf("%d hostile connections refused, %d open at the peak: the attack did not reach the bound", bl.Refused(), peakConns)
	}

	// back to the baseline within attackSettle
	var g1, rss1, conns, streams, reqs int
	for {
		g1, rss1 = settled(t)
		conns = bl.Open()
		streams = h.streamCount()
		_, reqs = h.requests.Count(netip.Prefix{})
		ok := conns == 0 && streams == 0 && reqs == 0 && g1 <= g0+5 && rss1 <= rss0+8<<10
		if ok || time.Since(left) > attackSettle {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("after: %v after the hogs left: %d connections, %d streams, %d requests, goroutines %d (baseline %d), RSS %d kB (baseline %d kB)",
		time.Since(left).Round(10*time.Millisecond), conns, streams, reqs, g1, g0, rss1, rss0)
	if conns != 0 || streams != 0 || reqs != 0 {
		t.Errorf("%v after the hogs left: %d connections, %d streams, %d requests still counted", attackSettle, conns, streams, reqs)
	}
	if g1 > g0+5 {
		t.Errorf("%v after the hogs left: %d goroutines, baseline %d", attackSettle, g1, g0)
	}
	if rss1 > rss0+8<<10 {
		t.Errorf("%v after the hogs left: RSS %d kB, baseline %d kB", attackSettle, rss1, rss0)
	}
	// no recording lost: the game's teehistorian was never stopped and
	// grew all through the attack
	rec1 := game.RecordCounters()
	t.Logf("recording: before the attack %v, after %v", rec0, rec1)
	if rec0["record_files"] == 0 || rec1["record_stopped"] != rec0["record_stopped"] || rec1["record_bytes"] <= rec0["record_bytes"] {
		t.Errorf("the game's recording during the attack: before %v, after %v", rec0, rec1)
	}
}
