package register

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/internal/mastertest"
	"twserver/observe"
)

// gamePort stands in for the server's socket: it passes the master's
// challenge packets to the registerer the way the server's reader does
// (0.6 connless header, or 0.7 connless header with the global token).
type gamePort struct {
	conn  *net.UDPConn
	token uint32
	mu    sync.Mutex
	got   [][]byte // raw challenge datagrams received
}

func newGamePort(t *testing.T) *gamePort {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &gamePort{conn: c, token: 0x1234abcd}
}

func (g *gamePort) port() int { return g.conn.LocalAddr().(*net.UDPAddr).Port }

func (g *gamePort) serve(r *Registerer) {
	var buf [2048]byte
	for {
		n, _, err := g.conn.ReadFromUDP(buf[:])
		if err != nil {
			return
		}
		b := buf[:n]
		g.mu.Lock()
		g.got = append(g.got, append([]byte(nil), b...))
		g.mu.Unlock()
		switch {
		case bytes.HasPrefix(b, []byte("\xff\xff\xff\xff\xff\xff")):
			r.HandleChallenge(b[6:])
		case len(b) >= 9 && b[0] == 0x21 && binary.BigEndian.Uint32(b[1:5]) == g.token:
			r.HandleChallenge(b[9:])
		}
	}
}

func (g *gamePort) datagrams() [][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]byte(nil), g.got...)
}

// logBuf collects log lines safely.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func testInfo(players int) *observe.Info {
	in := &observe.Info{Name: "twserver test", GameType: "DM", Version: "0.7.5", MapName: "dm1", MapSize: 5805,
		MaxClients: 16, MaxPlayers: 16}
	in.MapSHA256[0] = 0xab
	for i := range players {
		in.Clients = append(in.Clients, observe.InfoClient{Name: "p" + string(rune('a'+i)), Country: -1, Score: i, IsPlayer: true})
	}
	return in
}

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

func startMaster(t *testing.T) *mastertest.Master {
	t.Helper()
	m, err := mastertest.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// TestRegisterBothProtocols: tw-0.6 and tw-0.7 get listed under one Secret
// after the UDP challenge, the info follows changes, and shutdown deletes
// both within DeleteTimeout.
func TestRegisterBothProtocols(t *testing.T) {
	m := startMaster(t)
	g := newGamePort(t)
	var logs logBuf
	r := New(Options{URL: m.URL(), Port: g.port(), ConnlessToken: g.token,
		Protocols: Select(true, true, false), Logger: zerolog.New(&logs)})
	go g.serve(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	r.SetInfo(testInfo(1))

	waitFor(t, "both protocols listed", 5*time.Second, func() bool {
		return r.Registered(TW06IPv4) && r.Registered(TW07IPv4)
	})
	servers := m.Servers()
	if len(servers) != 1 {
		t.Fatalf("master lists %d servers, want 1 (one Secret): %v", len(servers), servers)
	}
	for secret, e := range servers {
		if secret != r.secret {
			t.Errorf("listed under secret %q, want %q", secret, r.secret)
		}
		want := []string{"tw-0.6+udp://127.0.0.1:" + strconv.Itoa(g.port()), "tw-0.7+udp://127.0.0.1:" + strconv.Itoa(g.port())}
		if strings.Join(e.Addresses, " ") != strings.Join(want, " ") {
			t.Errorf("addresses %v, want %v", e.Addresses, want)
		}
		var info map[string]any
		if err := json.Unmarshal(e.Info, &info); err != nil {
			t.Fatal(err)
		}
		if info["name"] != "twserver test" || info["game_type"] != "DM" || info["client_score_kind"] != "points" {
			t.Errorf("info %s", e.Info)
		}
		if mp := info["map"].(map[string]any); mp["name"] != "dm1" || mp["size"] != 5805.0 || !strings.HasPrefix(mp["sha256"].(string), "ab00") {
			t.Errorf("map %v", mp)
		}
	}
	// Both challenge forms reached the game port.
	var saw6, saw7 bool
	for _, d := range g.datagrams() {
		saw6 = saw6 || bytes.HasPrefix(d, []byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffchal"))
		saw7 = saw7 || bytes.HasPrefix(d, []byte("\x21\x12\x34\xab\xcd\xff\xff\xff\xff\xff\xff\xff\xffchal"))
	}
	if !saw6 || !saw7 {
		t.Errorf("challenge packets: 0.6 form %v, 0.7 form %v", saw6, saw7)
	}
	checkRequests(t, m.Requests(), r)

	// A changed info reaches the master within about a second.
	r.SetInfo(testInfo(3))
	waitFor(t, "new info at the master", 3*time.Second, func() bool {
		for _, e := range m.Servers() {
			return e.InfoSerial == 1 && bytes.Contains(e.Info, []byte(`"pc"`))
		}
		return false
	})
	// The same info again is no change.
	before := len(m.Requests())
	r.SetInfo(testInfo(3))
	time.Sleep(1200 * time.Millisecond)
	if n := len(m.Requests()); n != before {
		t.Errorf("an unchanged info caused %d requests", n-before)
	}

	start := time.Now()
	cancel()
	<-done
	if d := time.Since(start); d > DeleteTimeout+200*time.Millisecond {
		t.Errorf("Run returned %v after cancel, want within %v", d, DeleteTimeout)
	}
	if len(m.Servers()) != 0 {
		t.Errorf("still listed after shutdown: %v", m.Servers())
	}
	var deletes []string
	for _, q := range m.Requests() {
		if q.Delete() {
			deletes = append(deletes, q.Header.Get("Address")+" "+q.Status)
			if q.Header.Get("Secret") != r.secret {
				t.Errorf("delete with secret %q", q.Header.Get("Secret"))
			}
		}
	}
	if len(deletes) != 2 {
		t.Errorf("deletes %v, want one per protocol", deletes)
	}
	if r.Status(TW07IPv4) != StatusNone {
		t.Errorf("status after shutdown %v", r.Status(TW07IPv4))
	}
	if n := logs.count("registered with the master server"); n != 2 {
		t.Errorf("%d 'registered' lines, want one per protocol:\n%s", n, logs.b.String())
	}
}

// checkRequests checks the headers of the register requests against the protocol.
func checkRequests(t *testing.T, reqs []mastertest.Request, r *Registerer) {
	t.Helper()
	first := map[string]bool{}
	for _, q := range reqs {
		if q.Delete() {
			continue
		}
		p := q.Protocol()
		h := q.Header
		if h.Get("Secret") != r.secret {
			t.Errorf("%s: Secret %q", p, h.Get("Secret"))
		}
		if h.Get("Challenge-Secret") != r.challengeUUID+":"+p {
			t.Errorf("%s: Challenge-Secret %q", p, h.Get("Challenge-Secret"))
		}
		seven := strings.HasPrefix(p, "tw0.7")
		if got := h.Get("Connless-Token"); (got == "1234abcd") != seven {
			t.Errorf("%s: Connless-Token %q", p, got)
		}
		if h.Get("Info-Serial") == "" {
			t.Errorf("%s: no Info-Serial", p)
		}
		if !first[p] {
			first[p] = true
			if h.Get("Challenge-Token") != "" || q.Status != "need_challenge" {
				t.Errorf("%s: first request token %q answered %q", p, h.Get("Challenge-Token"), q.Status)
			}
			if len(q.Body) == 0 || h.Get("Content-Type") != "application/json" {
				t.Errorf("%s: first request without the info body", p)
			}
		}
	}
	if len(first) != 2 {
		t.Errorf("requests for %v, want tw0.6/ipv4 and tw0.7/ipv4", first)
	}
}

// TestRegisterMisbehavingMaster: errors are logged once per change, not per
// attempt; a hanging master does not hold up the shutdown beyond the delete
// bound; SetInfo and HandleChallenge never block.
func TestRegisterMisbehavingMaster(t *testing.T) {
	m := startMaster(t)
	g := newGamePort(t)
	var logs logBuf
	r := New(Options{URL: m.URL(), Port: g.port(), ConnlessToken: g.token,
		Protocols: []Protocol{TW07IPv4}, Logger: zerolog.New(&logs)})
	r.interval = 100 * time.Millisecond
	go g.serve(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	r.SetInfo(testInfo(0))
	waitFor(t, "registered", 5*time.Second, func() bool { return r.Registered(TW07IPv4) })

	m.SetMode(mastertest.Errors)
	waitFor(t, "error status", 3*time.Second, func() bool { return r.Status(TW07IPv4) == StatusError })
	n := len(m.Requests())
	waitFor(t, "more attempts", 3*time.Second, func() bool { return len(m.Requests()) >= n+5 })
	if c := logs.count("master server registration failed"); c != 1 {
		t.Errorf("%d failure lines for repeated errors, want 1:\n%s", c, logs.b.String())
	}
	m.SetMode(mastertest.Normal)
	waitFor(t, "registered again", 3*time.Second, func() bool { return r.Registered(TW07IPv4) })

	// While the master hangs, the loop-side calls return at once: a call
	// that waited for the master would wait until its request timed out
	// (seconds), far above callBound, which leaves room for a test
	// machine that does not run this goroutine for a while.
	const callBound = 250 * time.Millisecond
	m.SetMode(mastertest.Hang)
	time.Sleep(300 * time.Millisecond)
	var slowest time.Duration
	for i := range 1000 {
		t0 := time.Now()
		r.SetInfo(testInfo(i % 4))
		r.HandleChallenge(AppendChallenge(nil, r.challengeUUID+":tw0.7/ipv4", "tok"))
		slowest = max(slowest, time.Since(t0))
	}
	if slowest > callBound {
		t.Fatalf("SetInfo/HandleChallenge took up to %v against a hanging master", slowest)
	}
	start := time.Now()
	cancel()
	<-done
	if d := time.Since(start); d > DeleteTimeout+300*time.Millisecond {
		t.Errorf("shutdown against a hanging master took %v", d)
	}
}

// TestRegisterMasterDown: a master that is not there yields StatusError
// and a shutdown without delete (nothing is listed).
func TestRegisterMasterDown(t *testing.T) {
	m := startMaster(t)
	url := m.URL()
	m.Close()
	r := New(Options{URL: url, Port: 8303, Protocols: []Protocol{TW07IPv4}, Logger: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	r.SetInfo(testInfo(0))
	waitFor(t, "error status", 5*time.Second, func() bool { return r.Status(TW07IPv4) == StatusError })
	start := time.Now()
	cancel()
	<-done
	if d := time.Since(start); d > DeleteTimeout/2 { // a delete attempt would wait up to DeleteTimeout
		t.Errorf("shutdown took %v with nothing to delete", d)
	}
}

// TestRegisterIPv6Forced: a protocol over IPv6 never reaches an IPv4-only
// master (the request is forced onto its family).
func TestRegisterIPv6Forced(t *testing.T) {
	m := startMaster(t)
	r := New(Options{URL: m.URL(), Port: 8303, Protocols: []Protocol{TW07IPv6}, Logger: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	r.SetInfo(testInfo(0))
	waitFor(t, "error status", 5*time.Second, func() bool { return r.Status(TW07IPv6) == StatusError })
	if n := len(m.Requests()); n != 0 {
		t.Errorf("IPv6 protocol reached the IPv4 master %d times", n)
	}
}

func TestSelect(t *testing.T) {
	for _, c := range []struct {
		tw06, v4, v6 bool
		want         string
	}{
		{false, true, true, "[tw0.7/ipv6 tw0.7/ipv4]"},
		{true, true, false, "[tw0.6/ipv4 tw0.7/ipv4]"},
		{true, false, true, "[tw0.6/ipv6 tw0.7/ipv6]"},
		{false, false, false, "[]"},
	} {
		var s []string
		for _, p := range Select(c.tw06, c.v4, c.v6) {
			s = append(s, p.String())
		}
		if got := "[" + strings.Join(s, " ") + "]"; got != c.want {
			t.Errorf("Select(%v,%v,%v) = %s, want %s", c.tw06, c.v4, c.v6, got, c.want)
		}
	}
}

func TestParseChallenge(t *testing.T) {
	const uuid = "01234567-89ab-4def-8123-456789abcdef"
	ok := AppendChallenge(nil, uuid+":tw0.7/ipv4", "c2VjcmV0")
	p, tok, err := ParseChallenge(ok, uuid)
	if err != nil || p != TW07IPv4 || string(tok) != "c2VjcmV0" {
		t.Fatalf("ParseChallenge = %v %q %v", p, tok, err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"other uuid", AppendChallenge(nil, "11234567-89ab-4def-8123-456789abcdef:tw0.7/ipv4", "x"), ErrNotChallenge},
		{"no colon", AppendChallenge(nil, uuid+"tw0.7/ipv4", "x"), ErrNotChallenge},
		{"no magic", []byte(uuid + ":tw0.7/ipv4\x00x\x00"), ErrNotChallenge},
		{"unknown protocol", AppendChallenge(nil, uuid+":tw0.8/ipv4", "x"), ErrUnknownProto},
		{"truncated", ok[:len(ok)-1], ErrBadChallenge},
		{"no token string", ok[:len(ChallengeMagic)+len(uuid)+5], ErrBadChallenge},
		{"long token", AppendChallenge(nil, uuid+":tw0.6/ipv6", strings.Repeat("a", MaxChallengeToken+1)), ErrTokenTooLong},
		{"header injection", AppendChallenge(nil, uuid+":tw0.6/ipv6", "a\r\nX: y"), ErrBadChallenge},
	} {
		if _, _, err := ParseChallenge(c.in, uuid); err != c.want {
			t.Errorf("%s: err %v, want %v", c.name, err, c.want)
		}
	}
}

func FuzzParseChallenge(f *testing.F) {
	const uuid = "01234567-89ab-4def-8123-456789abcdef"
	f.Add(AppendChallenge(nil, uuid+":tw0.7/ipv4", "c2VjcmV0"))
	f.Add(AppendChallenge(nil, uuid+":tw0.6/ipv6", ""))
	f.Add([]byte("\xff\xff\xff\xffchal"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, tok, err := ParseChallenge(b, uuid)
		if err != nil {
			return
		}
		if p >= NumProtocols || len(tok) == 0 || len(tok) > MaxChallengeToken {
			t.Fatalf("accepted %v %q", p, tok)
		}
		// Round trip: the same packet comes out of AppendChallenge.
		again := AppendChallenge(nil, uuid+":"+p.String(), string(tok))
		if !bytes.HasPrefix(b, again[:len(again)-1]) {
			t.Fatalf("round trip %q -> %q", b, again)
		}
	})
}

func TestInfoJSONBound(t *testing.T) {
	in := testInfo(0)
	for range 64 {
		in.Clients = append(in.Clients, observe.InfoClient{Name: strings.Repeat("n", 15), Clan: strings.Repeat("c", 11)})
	}
	if b := InfoJSON(in); len(b) > MaxInfoJSON || !json.Valid(b) {
		t.Fatalf("%d bytes", len(b))
	}
	in.Name = strings.Repeat("\x01", MaxInfoJSON) // escaped six times larger
	if b := InfoJSON(in); !json.Valid(b) {
		t.Fatal("invalid JSON")
	}
}

func TestNewUUID(t *testing.T) {
	u := newUUID()
	if len(u) != 36 || u[14] != '4' || strings.Count(u, "-") != 4 || u == newUUID() {
		t.Fatalf("uuid %q", u)
	}
}
