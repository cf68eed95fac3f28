package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"twserver/agones"
	"twserver/internal/agonestest"
	"twserver/internal/mastertest"
	"twserver/netproto"
)

// probeGamePort sends a 0.7 token request to the game port and reports
// whether the server answered it within a second: the socket is bound and
// served.
func probeGamePort(addr netip.AddrPort) error {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write(netproto.AppendTokenRequest(nil, 0x01020304)); err != nil {
		return err
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	var b [2048]byte
	n, err := c.Read(b[:])
	if err != nil {
		return err
	}
	h, payload, err := netproto.ParsePacket(b[:n])
	if err != nil {
		return err
	}
	ctl, err := netproto.ParseControl(payload)
	if err != nil || h.Flags&netproto.FlagControl == 0 || ctl.Type != netproto.CtrlToken {
		return fmt.Errorf("no token answer: %v", err)
	}
	return nil
}

// TestAgonesLifecycle (issue 9 proof 10): twserver with [agones] against a
// sidecar that follows the SDK's REST documentation. The sidecar comes up
// after the server (the agent retries), Ready arrives once the game port
// answers, Health pings come more often than the period, players are
// tracked, the registration announces the allocated host port, and SIGTERM
// ends with Shutdown as the last call.
func TestAgonesLifecycle(t *testing.T) {
	sidecarPort := freePort(t)
	t.Setenv(agones.PortEnv, strconv.Itoa(sidecarPort))
	m, err := mastertest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var logs lockedBuf
	addr, done := startServer(t, fmt.Sprintf("[agones]\nenabled = true\n[register]\nenabled = true\nurl = %q\nfamilies = [\"ipv4\"]\n", m.URL()), &logs)

	time.Sleep(600 * time.Millisecond) // the sidecar starts after the game server
	var probe atomic.Value
	s, err := agonestest.Start("127.0.0.1:"+strconv.Itoa(sidecarPort), agonestest.Options{
		Name: "twserver-x7k2p", HostPort: 7431, PeriodSeconds: 1,
		OnReady: func() { probe.Store(fmt.Sprint(probeGamePort(addr))) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitUntil(t, "Ready", 5*time.Second, func() bool { return s.State() == "Ready" })
	if p := probe.Load(); p != "<nil>" {
		t.Errorf("when Ready came, the game port did not answer: %v", p)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cctx, ccancel := context.WithCancel(ctx)
	startClient(cctx, t, addr, "tracked", nil)
	waitUntil(t, "player tracked", 5*time.Second, func() bool {
		p := s.Players()
		return len(p) == 1 && p[0] == "0:tracked"
	})
	ccancel()
	waitUntil(t, "player untracked", 5*time.Second, func() bool { return len(s.Players()) == 0 })

	waitUntil(t, "registration with the host port", 5*time.Second, func() bool {
		for _, q := range m.Requests() {
			if q.Header.Get("Address") == "tw-0.7+udp://connecting-address.invalid:7431" {
				return true
			}
		}
		return false
	})
	time.Sleep(1500 * time.Millisecond) // health pings

	t0 := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(6 * time.Second):
		t.Fatalf("no exit within 6 s after SIGTERM:\n%s", logs.String())
	}
	t.Logf("SIGTERM to exit: %v", time.Since(t0))

	calls := s.Calls()
	var order []string
	var health []time.Time
	for _, c := range calls {
		if c.Code != 200 {
			t.Errorf("%s %s answered %d (body %q)", c.Method, c.Path, c.Code, c.Body)
		}
		if c.Path == "/health" {
			health = append(health, c.At)
			continue
		}
		order = append(order, c.Method+" "+c.Path)
	}
	want := "GET /gameserver, POST /ready, PUT /alpha/player/capacity, POST /alpha/player/connect, POST /alpha/player/disconnect, POST /shutdown"
	if got := strings.Join(order, ", "); got != want {
		t.Errorf("calls (without health) %s\nwant %s", got, want)
	}
	if last := calls[len(calls)-1]; last.Path != "/shutdown" || s.State() != "Shutdown" {
		t.Errorf("last call %s %s, state %s", last.Method, last.Path, s.State())
	}
	if len(health) < 5 {
		t.Fatalf("%d health pings", len(health))
	}
	for i := 1; i < len(health); i++ {
		if d := health[i].Sub(health[i-1]); d >= time.Second {
			t.Errorf("health ping %d after %v: not more often than the 1 s period", i, d)
		}
	}
	for _, want := range []string{"Agones SDK sidecar not reachable yet; retrying", "connected to the Agones SDK sidecar", "Agones GameServer marked Ready", "Agones GameServer shut down"} {
		if c := strings.Count(logs.String(), want); c != 1 {
			t.Errorf("%d lines %q, want 1", c, want)
		}
	}
}

// freePort returns a 127.0.0.1 TCP port that is free right now.
func freePort(t *testing.T) int {
	t.Helper()
	ap := netip.MustParseAddrPort(freeTCPAddr(t))
	return int(ap.Port())
}
