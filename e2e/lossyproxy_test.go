package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"twserver/internal/testenv"
	"twserver/internal/testport"
)

// proxyEchoDatagrams is how many datagrams TestLossyProxyCounters sends
// through the proxy to a UDP echo.
const proxyEchoDatagrams = 3000

// runProxyEcho runs testdata/lossyproxy.js with args in front of a UDP echo
// on loopback, sends proxyEchoDatagrams through it (one every 500 µs),
// stops it and returns its counters.
func runProxyEcho(t *testing.T, args ...string) proxyStats {
	t.Helper()
	testenv.LookPath(t, "node", "nodejs")
	echo, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := echo.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			_, _ = echo.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	dir := t.TempDir()
	port := strconv.Itoa(testport.Pick(t))
	stats := filepath.Join(dir, "proxy.json")
	px, _ := startLossyProxy(t, dir, port, echo.LocalAddr().String(), append(args, "--seed", "7", "--seconds", "60", "--stats", stats)...)
	c, err := net.Dial("udp4", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { // drain the echoes
		buf := make([]byte, 2048)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}()
	msg := make([]byte, 100)
	for i := range proxyEchoDatagrams {
		msg[0], msg[1] = byte(i), byte(i>>8)
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Microsecond)
	}
	time.Sleep(500 * time.Millisecond) // the held datagrams leave
	if err := px.stop(t); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st proxyStats
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("proxy counters %s: %v", b, err)
	}
	t.Logf("counters: %s", b)
	return st
}

// TestLossyProxyCounters: the lossy proxy the real client plays through
// impairs as asked, and checkProxyStats tells: the counters of a run at
// TestRealClientLossyP2's profile pass, those of a run that drops, delays
// and duplicates nothing fail even when they claim the profile.
func TestLossyProxyCounters(t *testing.T) {
	st := runProxyEcho(t, lossyP2.args()...)
	for _, err := range checkProxyStats(st, lossyP2) {
		t.Errorf("at %+v: %v", lossyP2, err)
	}
	clean := runProxyEcho(t)
	clean.LossUp, clean.LossDown, clean.Delay, clean.Jitter, clean.Dup = lossyP2.Loss, lossyP2.Loss, lossyP2.DelayMs, lossyP2.JitterMs, lossyP2.Dup
	errs := checkProxyStats(clean, lossyP2)
	t.Logf("a lossless run checked against %+v: %v", lossyP2, errs)
	want := map[string]bool{"up loss": false, "down loss": false, "delay": false}
	for _, err := range errs {
		for k := range want {
			if regexp.MustCompile(`^` + k + `\b`).MatchString(err.Error()) {
				want[k] = true
			}
		}
	}
	for k, found := range want {
		if !found {
			t.Errorf("a lossless, undelayed proxy passed the %s check", k)
		}
	}
}
