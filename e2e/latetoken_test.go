package e2e

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"twserver/internal/netns"
	"twserver/netproto"
)

// TestRealClient07LateToken: the real 0.7.5 client takes the token of every
// TOKEN reply it gets, also one that comes after it sent CONNECT. When it
// asked twice (a slow frame: a second request 0.5 s after the first) and
// the server's secret rotated between the two replies, it connects with
// the first token and then sends everything under the second. The server
// kept the CONNECT's token (as the reference does) and dropped all of it:
// the client timed out without entering the game, once in 96 joins of a
// benchmark run. A proxy between the two makes that order happen: it
// learns when the server's secret rotates, the client connects shortly
// before the next rotation, and the proxy holds the first reply, asks the
// server again until the secret has rotated, then hands the client both
// replies in turn. The client must enter the game and stay, and the
// server must count the token it took, in its stats line and on /metrics.
func TestRealClient07LateToken(t *testing.T) {
	realClientTest(t, nil, innerLateToken)
}

// lateTokenProxyPort is the proxy's port, on 127.0.0.1, the client's way
// to the server.
const lateTokenProxyPort = "8304"

// lateTokenMetrics is the server's metrics endpoint in the test.
const lateTokenMetrics = "127.0.0.1:9110"

func innerLateToken(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")
	t.Setenv("TWSERVER_METRICS_LISTEN", lateTokenMetrics) // the server inherits the environment
	srv, console := startConsoleServer(t, bin, out, serverLog)
	defer srv.stop(t)
	px := newTokenRacer(t, "127.0.0.1:"+lateTokenProxyPort, "127.0.0.1:"+e2ePort)
	rotated, current := px.probe(t, 2*netproto.SeedRotation+5*time.Second)
	t.Logf("the server's secret rotated at %s; token now %08x", rotated.Format("15:04:05.000"), current)
	px.start()

	client, clientLog, _ := startRealClient(t, out, "", "bind f8 \"connect 127.0.0.1:"+lateTokenProxyPort+"\"", "bind f9 quit")
	if !waitLog(clientLog, regexp.MustCompile(`\[client\]: starting`), 20*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the client did not start:\n%s", tail(b, 20))
	}
	time.Sleep(4 * time.Second) // its menu comes up
	// The secret rotates SeedRotation after the last rotation, at the first
	// datagram after that (the proxy asks every 100 ms meanwhile): connect
	// 2.5 s before, well inside the client's 5 s wait for a token reply.
	next := rotated.Add(netproto.SeedRotation)
	for time.Until(next) < 3*time.Second {
		next = next.Add(netproto.SeedRotation)
	}
	time.Sleep(time.Until(next.Add(-2500 * time.Millisecond)))
	if wid := firstLine(xdo(t, "search", "--name", client07.windowRe)); wid != "" {
		xdo(t, "windowfocus", wid)
	}
	xdo(t, "key", "F8")

	first, second, ok := px.wait(10 * time.Second)
	if !ok {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the proxy did not hand the client two tokens (%08x, %08x):\n%s", first, second, tail(b, 20))
	}
	t.Logf("the client's two token replies: %08x, then %08x", first, second)
	if first != current {
		t.Fatalf("the client asked after the secret rotated again (its first token %08x, the probe's %08x): the key came late", first, current)
	}
	took := regexp.MustCompile(fmt.Sprintf(`got token, token=%x\b`, second))
	if !waitLog(clientLog, took, 10*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the client's log does not show it taking the second token %x:\n%s", second, tail(b, 30))
	}
	if !waitLog(clientLog, regexp.MustCompile(`state change\. last=2 current=3`), 30*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("the client never entered the game:\n%s", tail(b, 30))
	}
	// Longer than the client's 10 s timeout: a connection whose datagrams
	// the server drops ends in it.
	time.Sleep(12 * time.Second)
	statsBefore, _ := os.ReadFile(serverLog)
	fmt.Fprintln(console, "stats")
	statsRe := regexp.MustCompile(`retokened=(\d+)`)
	if !waitLog(serverLog, statsRe, 3*time.Second) {
		t.Errorf("the server's stats line has no retokened counter")
	} else if b, _ := os.ReadFile(serverLog); len(b) >= len(statsBefore) {
		if m := statsRe.FindSubmatch(b[len(statsBefore):]); m == nil || string(m[1]) != "1" {
			t.Errorf("the server's stats: %q, want retokened=1", m)
		}
	}
	if m := regexp.MustCompile(`(?m)^twserver_retokened_total (\S+)$`).FindSubmatch(httpGet(t, "http://"+lateTokenMetrics+"/metrics")); m == nil || string(m[1]) != "1" {
		t.Errorf("/metrics: twserver_retokened_total %q, want 1", m)
	}
	cl := quitClient(t, client, clientLog)
	if m := regexp.MustCompile(`offline error=.*|reason='Timeout'`).Find(cl); m != nil {
		t.Errorf("the client lost its connection: %s", m)
	}
	sl, _ := os.ReadFile(serverLog)
	if !bytes.Contains(sl, []byte("entered the game")) {
		t.Errorf("the server's log does not show the client entering the game")
	}
}

// tokenRacer is a UDP proxy for one 0.7 client that delivers it two TOKEN
// replies made under two different secrets of the server: it forwards the
// client's first token request, holds the reply, sends the same request
// again every 100 ms until a reply carries another token, then hands the
// client the held reply and, 100 ms later, the new one. The client's own
// repeated requests meanwhile are dropped. Everything else passes as it
// is. Loopback only; it runs until the test ends.
type tokenRacer struct {
	down, up *net.UDPConn
	stop     chan struct{}
	done     chan struct{} // closed once the client has both replies

	mu            sync.Mutex
	client        *net.UDPAddr
	request       []byte // the client's first token request
	held          []byte // the reply to it, not yet handed over
	first, second netproto.Token
}

// isTokenCtrl reports whether b is a 0.7 control packet carrying TOKEN.
func isTokenCtrl(b []byte) bool {
	return len(b) >= netproto.PacketHeaderSize+5 && b[0]&0x04 != 0 && b[netproto.PacketHeaderSize] == netproto.CtrlToken
}

// replyToken is the token a TOKEN reply b carries.
func replyToken(b []byte) netproto.Token {
	return netproto.Token(binary.BigEndian.Uint32(b[netproto.PacketHeaderSize+1:]))
}

// newTokenRacer opens the proxy's sockets: listen for the client, and one
// to server.
func newTokenRacer(t *testing.T, listen, server string) *tokenRacer {
	t.Helper()
	la, sa := net.UDPAddrFromAddrPort(netip.MustParseAddrPort(listen)), net.UDPAddrFromAddrPort(netip.MustParseAddrPort(server))
	if !la.IP.IsLoopback() || !sa.IP.IsLoopback() {
		t.Fatalf("the proxy runs on loopback only: %v, %v", la, sa)
	}
	p := &tokenRacer{stop: make(chan struct{}), done: make(chan struct{})}
	var err error
	if p.down, err = net.ListenUDP("udp", la); err != nil {
		t.Fatal(err)
	}
	if p.up, err = net.DialUDP("udp", nil, sa); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(p.stop); p.down.Close(); p.up.Close() })
	return p
}

// probe asks the server for its token every 100 ms, from the address the
// client's traffic will come from (a token is the address's), until the
// token changes: it returns when that was seen and the new token.
func (p *tokenRacer) probe(t *testing.T, limit time.Duration) (time.Time, netproto.Token) {
	t.Helper()
	req := netproto.AppendTokenRequest(nil, 0x0badcafe)
	buf := make([]byte, 2048)
	var last netproto.Token
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		if _, err := p.up.Write(req); err != nil {
			t.Fatal(err)
		}
		_ = p.up.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, err := p.up.Read(buf)
		if err == nil && isTokenCtrl(buf[:n]) {
			tok := replyToken(buf[:n])
			if last != 0 && tok != last {
				_ = p.up.SetReadDeadline(time.Time{})
				return time.Now(), tok
			}
			last = tok
		}
		time.Sleep(time.Until(time.Now().Truncate(100 * time.Millisecond).Add(100 * time.Millisecond)))
	}
	t.Fatalf("the server's token did not change within %v", limit)
	return time.Time{}, 0
}

// start forwards between the client and the server.
func (p *tokenRacer) start() {
	go func() { // client → server
		buf := make([]byte, 2048)
		for {
			n, from, err := p.down.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if p.fromClient(buf[:n], from) {
				_, _ = p.up.Write(buf[:n])
			}
		}
	}()
	go func() { // server → client
		buf := make([]byte, 2048)
		for {
			n, err := p.up.Read(buf)
			if err != nil {
				return
			}
			p.fromServer(buf[:n])
		}
	}()
}

// fromClient notes the client's address and first token request; it says
// whether b goes on to the server (not a repeated request while the
// replies are held back).
func (p *tokenRacer) fromClient(b []byte, from *net.UDPAddr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.client = from
	if !isTokenCtrl(b) || p.second != 0 {
		return true
	}
	if p.request != nil {
		return false
	}
	p.request = bytes.Clone(b)
	return true
}

// fromServer passes b to the client, except the TOKEN replies while the
// race is on: the first is held and the request asked again until a reply
// carries another token, then both go to the client.
func (p *tokenRacer) fromServer(b []byte) {
	p.mu.Lock()
	to, racing := p.client, p.request != nil && p.second == 0
	if !isTokenCtrl(b) || !racing {
		p.mu.Unlock()
		if to != nil && !isTokenCtrl(b) {
			_, _ = p.down.WriteToUDP(b, to)
		}
		return
	}
	tok := replyToken(b)
	switch {
	case p.held == nil:
		p.held, p.first = bytes.Clone(b), tok
		p.mu.Unlock()
		go p.askAgain()
	case tok != p.first:
		p.second = tok
		held := p.held
		p.mu.Unlock()
		_, _ = p.down.WriteToUDP(held, to)
		time.Sleep(100 * time.Millisecond)
		_, _ = p.down.WriteToUDP(b, to)
		close(p.done)
	default:
		p.mu.Unlock() // the same secret still: ask again
	}
}

// askAgain sends the client's request every 100 ms until the client has
// both replies.
func (p *tokenRacer) askAgain() {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-p.done:
			return
		case <-tick.C:
			p.mu.Lock()
			r := p.request
			p.mu.Unlock()
			_, _ = p.up.Write(r)
		}
	}
}

// wait waits up to d for the client to have been handed both replies and
// returns their tokens.
func (p *tokenRacer) wait(d time.Duration) (first, second netproto.Token, ok bool) {
	select {
	case <-p.done:
		ok = true
	case <-time.After(d):
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first, p.second, ok
}

// httpGet returns the body of a GET of url (a loopback address), or nil
// after logging why not.
func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Logf("GET %s: %v", url, err)
		return nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Logf("GET %s: %s, %v", url, resp.Status, err)
		return nil
	}
	return b
}
