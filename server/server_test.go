package server

import (
	"bytes"
	"context"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/edge"
	"twserver/mapdl"
	"twserver/mapstore"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
	"twserver/world/twmap"
)

var (
	srvAddr = netip.MustParseAddrPort("127.0.0.1:8303")
	cl1Addr = netip.MustParseAddrPort("127.0.0.2:50001")
	cl2Addr = netip.MustParseAddrPort("127.0.0.3:50002")
)

// syncBuf is a log sink safe for concurrent writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	*Server
	mn     *sockio.MemNet
	logs   *syncBuf
	cancel context.CancelFunc
	done   chan error
	cons   *io.PipeWriter
}

// startServer runs a server on a MemNet with cfg (nil = defaults).
func startServer(t *testing.T, mut func(*config.Config)) *testServer {
	t.Helper()
	return startServerWith(t, mut, nil)
}

// startServerWith is startServer with before (if not nil) called on the
// server before it runs (to install hooks).
func startServerWith(t *testing.T, mut func(*config.Config), before func(*Server)) *testServer {
	t.Helper()
	cfg := config.Default()
	if mut != nil {
		mut(&cfg)
	}
	mn := sockio.NewMemNet()
	mc, err := mn.Listen(srvAddr)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuf{}
	pr, pw := io.Pipe()
	s, err := New(Options{Config: cfg, Conn: mc, Logger: zerolog.New(logs), Seed: 1, Console: pr})
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{Server: s, mn: mn, logs: logs, cancel: cancel, done: make(chan error, 1), cons: pw}
	go func() { ts.done <- s.Run(ctx) }()
	t.Cleanup(func() { ts.stop(t) })
	return ts
}

func (ts *testServer) stop(t *testing.T) {
	ts.cancel()
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		ts.done <- nil
	case <-time.After(5 * time.Second):
		t.Errorf("server did not stop within 5 s")
	}
	ts.cons.Close()
}

// join brings a test client into the game.
func join(t *testing.T, ts *testServer, addr netip.AddrPort, name string) *testClient {
	t.Helper()
	tc := newTestClient(t, ts.mn, addr, srvAddr, name)
	tc.connect()
	tc.run(2 * time.Second)
	if tc.snaps < 2 {
		t.Fatalf("%s: not in game after 2 s: conn=%v reason=%q map=%v conready=%v entered=%v snaps=%d\nlogs:\n%s",
			name, tc.conn.State(), tc.conn.Reason(), tc.mapOK, tc.conReady, tc.entered, tc.snaps, ts.logs.String())
	}
	return tc
}

func TestJoinPlayChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		if !a.mapOK || a.mapName != ts.curMap.Name || a.mapSize != ts.curMap.Size {
			t.Errorf("map download: ok=%v name=%q size=%d", a.mapOK, a.mapName, a.mapSize)
		}
		if want := (ts.curMap.Size + mapdl.ChunkSize*8 - 1) / (mapdl.ChunkSize * 8); a.mapRequests != want {
			t.Errorf("map requests = %d, want %d", a.mapRequests, want)
		}
		if a.localID != 0 || a.gameInfos == 0 {
			t.Errorf("local id %d, game infos %d", a.localID, a.gameInfos)
		}
		b := join(t, ts, cl2Addr, "bob")
		if b.localID != 1 {
			t.Errorf("bob local id = %d", b.localID)
		}
		// Snapshots keep flowing, deltas apply with matching CRCs.
		before := a.snaps
		a.run(time.Second)
		if got := a.snaps - before; got < 20 {
			t.Errorf("alice got %d snapshots in 1 s at full rate, want >= 20", got)
		}
		if a.inputTiming == 0 {
			t.Errorf("no INPUTTIMING received")
		}
		// Movement: hold right.
		x0, ok := a.charX(ts.world)
		if !ok {
			a.run(4 * time.Second) // respawn delay
			x0, ok = a.charX(ts.world)
		}
		if !ok {
			t.Fatalf("alice has no character in her snapshot")
		}
		a.direction = 1
		a.run(time.Second)
		x1, _ := a.charX(ts.world)
		t.Logf("alice moved right: x %d -> %d", x0, x1)
		if x1 <= x0 {
			t.Errorf("holding right did not move the character: x %d -> %d", x0, x1)
		}
		// Chat reaches the other player and the log.
		a.say("hello bob")
		a.run(100 * time.Millisecond)
		b.run(200 * time.Millisecond)
		found := false
		for _, c := range b.chats {
			if c.Message == "hello bob" && c.ClientID == 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("bob did not receive alice's chat: %+v", b.chats)
		}
		if !strings.Contains(ts.logs.String(), "hello bob") {
			t.Errorf("chat not logged")
		}
		// Bob leaves: alice gets Sv_ClientDrop.
		b.conn.Disconnect(b.now(), "bye")
		b.flush()
		a.run(200 * time.Millisecond)
		if len(a.drops) != 1 || a.drops[0].ClientID != 1 {
			t.Errorf("alice drops = %+v", a.drops)
		}
		// Shutdown: alice gets CLOSE "Server shutdown".
		ts.cancel()
		a.run(200 * time.Millisecond)
		if a.conn.State() != netproto.StateError || a.conn.Reason() != ReasonShutdown {
			t.Errorf("after shutdown: state %v reason %q", a.conn.State(), a.conn.Reason())
		}
	})
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		mut    func(*config.Config)
		setup  func(t *testing.T, ts *testServer)
		client func(tc *testClient)
		addr   netip.AddrPort
		reason string
	}{
		{name: "server full", mut: func(c *config.Config) { c.Server.MaxClients = 1 },
			setup:  func(t *testing.T, ts *testServer) { join(t, ts, cl1Addr, "first") },
			addr:   cl2Addr,
			reason: "This server is full"},
		{name: "per ip", mut: func(c *config.Config) { c.Server.MaxClientsPerIP = 1 },
			setup:  func(t *testing.T, ts *testServer) { join(t, ts, cl1Addr, "first") },
			addr:   netip.AddrPortFrom(cl1Addr.Addr(), 50099),
			reason: "Only 1 players with the same IP are allowed"},
		{name: "wrong password", mut: func(c *config.Config) { c.Server.Password = "secret" },
			client: func(tc *testClient) { tc.password = "nope" },
			addr:   cl1Addr, reason: "Wrong password"},
		{name: "wrong version", client: func(tc *testClient) { tc.version = "0.6 626fce9a778df4d4" },
			addr: cl1Addr, reason: "Wrong version. Server is running '0.7 802f1be60a05665f' and client '0.6 626fce9a778df4d4'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ts := startServer(t, tt.mut)
				if tt.setup != nil {
					tt.setup(t, ts)
				}
				tc := newTestClient(t, ts.mn, tt.addr, srvAddr, "x")
				if tt.client != nil {
					tt.client(tc)
				}
				tc.connect()
				tc.run(time.Second)
				if tc.conn.State() != netproto.StateError || tc.conn.Reason() != tt.reason {
					t.Errorf("state %v reason %q, want %q", tc.conn.State(), tc.conn.Reason(), tt.reason)
				}
			})
		})
	}
}

func TestStatelessChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		mc, err := ts.mn.Listen(cl1Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer mc.Close()
		got := make(chan []byte, 16)
		go func() {
			var b [RecvBufSize]byte
			for {
				n, _, err := mc.ReadFrom(b[:])
				if err != nil {
					close(got)
					return
				}
				got <- append([]byte(nil), b[:n]...)
			}
		}()
		send := func(b []byte) { _, _ = mc.WriteTo(b, srvAddr) }
		expectNothing := func(what string) {
			t.Helper()
			select {
			case p := <-got:
				t.Errorf("%s: got a reply % x", what, p)
			case <-time.After(100 * time.Millisecond):
			}
		}
		// Short token request: ignored.
		short := netproto.AppendTokenRequest(nil, 0x01020304)[:100]
		send(short)
		expectNothing("short token request")
		// Data packet from an unknown address: dropped, no slot.
		send(netproto.AppendPacket(nil, netproto.PacketHeader{NumChunks: 1, Token: 0x12345678}, []byte{0x40, 0x01, 0x01, 0x03}))
		expectNothing("unknown data packet")
		// CONNECT with a wrong token: dropped.
		send(netproto.AppendConnect(nil, 0x12345678, 0x01020304))
		expectNothing("connect with bad token")
		// Oversized datagram: dropped.
		send(make([]byte, 1500))
		expectNothing("oversized")
		synctest.Wait()
		if ts.stats.BadToken.Load() < 2 || ts.stats.Malformed.Load() < 2 {
			t.Errorf("counters: %v", ts.Counters())
		}
		// Valid token request: 12-byte reply with a token.
		send(netproto.AppendTokenRequest(nil, 0x01020304))
		var tok netproto.Token
		select {
		case p := <-got:
			h, payload, err := netproto.ParsePacket(p)
			if err != nil || h.Token != 0x01020304 || len(p) != 12 {
				t.Fatalf("token reply % x (%v)", p, err)
			}
			ctl, _ := netproto.ParseControl(payload)
			tok = ctl.Token
		case <-time.After(time.Second):
			t.Fatal("no token reply")
		}
		// Server info with that token.
		req := netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: tok, ResponseToken: 0x01020304},
			append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 0x2a))
		send(req)
		select {
		case p := <-got:
			h, payload, err := netproto.ParseConnless(p)
			if err != nil || h.Token != 0x01020304 || h.ResponseToken != tok {
				t.Fatalf("info reply header %+v %v", h, err)
			}
			if !bytes.HasPrefix(payload, []byte(edge.MagicInfo)) || payload[8] != 0x2a {
				t.Fatalf("info reply % x", payload)
			}
			var u netproto.Unpacker
			u.Reset(payload[9:])
			if v, name := u.GetString(), u.GetString(); v != GameVersion || name != "twserver" {
				t.Errorf("info version %q name %q", v, name)
			}
		case <-time.After(time.Second):
			t.Fatal("no info reply")
		}
		if ts.numClients() != 0 {
			t.Errorf("stateless traffic allocated a slot")
		}
	})
}

func TestConsoleKickAndBan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		go func() { _, _ = io.WriteString(ts.cons, "status\nkick 0 being rude\n") }()
		a.run(300 * time.Millisecond)
		if a.conn.State() != netproto.StateError || a.conn.Reason() != "Kicked (being rude)" {
			t.Errorf("kick: state %v reason %q", a.conn.State(), a.conn.Reason())
		}
		if !strings.Contains(ts.logs.String(), `"id=0 addr=127.0.0.2:50001 client=705 name='alice' score=0 "`) {
			t.Errorf("status output missing:\n%s", ts.logs.String())
		}
		go func() { _, _ = io.WriteString(ts.cons, "ban 127.0.0.2 10 cheating\n") }()
		time.Sleep(100 * time.Millisecond)
		b := newTestClient(t, ts.mn, netip.AddrPortFrom(cl1Addr.Addr(), 40000), srvAddr, "again")
		b.connect()
		b.run(time.Second)
		if b.conn.State() != netproto.StateError || !strings.Contains(b.conn.Reason(), "You have been banned for 10 minutes (cheating)") {
			t.Errorf("ban: state %v reason %q", b.conn.State(), b.conn.Reason())
		}
	})
}

func TestMapChangeRejoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		go func() { _, _ = io.WriteString(ts.cons, "restart 3\nreload\n") }()
		a.run(2 * time.Second)
		if a.mapRequests < 2 || a.snaps < 2 {
			t.Errorf("after restart: map requests %d snaps %d", a.mapRequests, a.snaps)
		}
		if !strings.Contains(ts.logs.String(), "map changed") {
			t.Errorf("map change not logged")
		}
	})
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		join(t, ts, cl1Addr, "alice")
		ts.stop(t)
	})
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		b := join(t, ts, cl2Addr, "bob")
		// bob goes silent: after 10 s he is dropped with "Timeout"; alice sees Sv_ClientDrop.
		a.run(11 * time.Second)
		if len(a.drops) != 1 || a.drops[0].ClientID != 1 || a.drops[0].Reason != "Timeout" {
			t.Errorf("alice drops %+v", a.drops)
		}
		_ = b
		if !strings.Contains(ts.logs.String(), `"reason":"Timeout"`) {
			t.Errorf("timeout not logged")
		}
	})
}

func TestMapRotationDir(t *testing.T) {
	dir := t.TempDir()
	data := twmap.DefaultData()
	for _, n := range []string{"alpha", "beta"} {
		if err := os.WriteFile(filepath.Join(dir, n+".map"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Map.Dir = dir; c.Map.Rotation = []string{"alpha", "beta"} })
		a := join(t, ts, cl1Addr, "alice")
		if a.mapName != "alpha" {
			t.Errorf("first map %q, want alpha", a.mapName)
		}
		go func() { _, _ = io.WriteString(ts.cons, "change_map beta\nchange_map ../etc/passwd\n") }()
		a.run(2 * time.Second)
		if a.mapName != "beta" || a.snaps < 2 {
			t.Errorf("after change_map: map %q snaps %d", a.mapName, a.snaps)
		}
		if mapstore.Next(ts.cfg.Map, ts.curMap.Name) != "alpha" {
			t.Errorf("next rotation map %q", mapstore.Next(ts.cfg.Map, ts.curMap.Name))
		}
		if !strings.Contains(ts.logs.String(), "map change failed") {
			t.Errorf("bad map name not refused:\n%s", ts.logs.String())
		}
	})
}

// TestJoinUnderLoss drops every 7th datagram in both directions: the client
// must still download the map, enter and reconstruct snapshots.
func TestJoinUnderLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		var mu sync.Mutex
		n := 0
		ts.mn.Drop = func(from, to netip.AddrPort, b []byte) bool {
			mu.Lock()
			defer mu.Unlock()
			n++
			return n%7 == 0
		}
		tc := newTestClient(t, ts.mn, cl1Addr, srvAddr, "lossy")
		tc.connect()
		tc.run(8 * time.Second)
		if !tc.mapOK || tc.snaps < 50 || tc.snapErrs != 0 {
			t.Errorf("under loss: map %v snaps %d errors %d state %v %q", tc.mapOK, tc.snaps, tc.snapErrs, tc.conn.State(), tc.conn.Reason())
		}
	})
}

// queryInfo performs the token exchange and a gie3 request from addr and
// returns the unpacked inf3 body after the browser token.
func queryInfo(t *testing.T, mn *sockio.MemNet, addr netip.AddrPort) *netproto.Unpacker {
	t.Helper()
	mc, err := mn.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	var b [RecvBufSize]byte
	read := func() []byte {
		got := make(chan []byte, 1)
		go func() {
			n, _, err := mc.ReadFrom(b[:])
			if err != nil {
				got <- nil
				return
			}
			got <- b[:n]
		}()
		select {
		case p := <-got:
			return p
		case <-time.After(time.Second):
			mc.Close()
			<-got
			return nil
		}
	}
	_, _ = mc.WriteTo(netproto.AppendTokenRequest(nil, 0x0a0b0c0d), srvAddr)
	p := read()
	_, payload, err := netproto.ParsePacket(p)
	if err != nil {
		t.Fatalf("token reply: %v", err)
	}
	ctl, _ := netproto.ParseControl(payload)
	_, _ = mc.WriteTo(netproto.AppendConnless(nil, netproto.ConnlessHeader{Token: ctl.Token, ResponseToken: 0x0a0b0c0d},
		append(append([]byte(nil), []byte(edge.MagicGetInfo)...), 7)), srvAddr)
	p = read()
	_, payload, err = netproto.ParseConnless(p)
	if err != nil || !bytes.HasPrefix(payload, []byte(edge.MagicInfo)) {
		t.Fatalf("info reply % x: %v", p, err)
	}
	u := &netproto.Unpacker{}
	u.Reset(append([]byte(nil), payload[len([]byte(edge.MagicInfo))+1:]...))
	return u
}

func TestServerInfoWithPlayers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, func(c *config.Config) { c.Server.Name = "info test"; c.Server.Password = "pw" })
		a := newTestClient(t, ts.mn, cl1Addr, srvAddr, "alice")
		a.password = "pw"
		a.connect()
		a.run(2 * time.Second)
		u := queryInfo(t, ts.mn, cl2Addr)
		version, name, host, mapName, gt := u.GetString(), u.GetString(), u.GetString(), u.GetString(), u.GetString()
		flags, skill, numPlayers, maxPlayers, numClients, maxClients := u.GetInt(), u.GetInt(), u.GetInt(), u.GetInt(), u.GetInt(), u.GetInt()
		pname, clan, country, score, ptype := u.GetString(), u.GetString(), u.GetInt(), u.GetInt(), u.GetInt()
		if u.Err() != nil {
			t.Fatalf("unpack: %v", u.Err())
		}
		if version != GameVersion || name != "info test" || host != "" || mapName != ts.curMap.Name || gt != "DM" ||
			flags != 1 || skill != 1 || numPlayers != 1 || maxPlayers != 8 || numClients != 1 || maxClients != 16 {
			t.Errorf("header: %q %q %q %q %q flags=%d skill=%d players=%d/%d clients=%d/%d",
				version, name, host, mapName, gt, flags, skill, numPlayers, maxPlayers, numClients, maxClients)
		}
		if pname != "alice" || clan != "" || country != -1 || score != 0 || ptype != 0 {
			t.Errorf("player row: %q %q %d %d %d", pname, clan, country, score, ptype)
		}
	})
}

// TestSnapRates checks the INIT (every 10th tick), FULL (every 2nd) and
// RECOVER (every 50th) snapshot rates and their transitions.
func TestSnapRates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := startServer(t, nil)
		a := join(t, ts, cl1Addr, "alice")
		for _, tick := range a.snapTicks[:2] {
			if tick%10 != 0 {
				t.Errorf("INIT snapshot at tick %d, want multiples of 10 (%v)", tick, a.snapTicks)
			}
		}
		a.snapTicks = nil
		a.run(time.Second)
		n := len(a.snapTicks)
		if n < 20 {
			t.Fatalf("FULL rate: %d snapshots in 1 s", n)
		}
		for i := 1; i < n; i++ {
			if d := a.snapTicks[i] - a.snapTicks[i-1]; d != 2 {
				t.Errorf("FULL rate: ticks %d -> %d", a.snapTicks[i-1], a.snapTicks[i])
				break
			}
		}
		// Acking a tick the server no longer stores, then -1 (no base), forces
		// RECOVER: full snapshots once per second.
		a.ackOverride = 3
		a.run(60 * time.Millisecond)
		a.ackOverride = -1
		a.run(200 * time.Millisecond)
		a.snapTicks = nil
		a.run(2 * time.Second)
		if len(a.snapTicks) < 1 || len(a.snapTicks) > 3 {
			t.Errorf("RECOVER rate: %d snapshots in 2 s: %v", len(a.snapTicks), a.snapTicks)
		}
		for _, tick := range a.snapTicks {
			if tick%50 != 0 {
				t.Errorf("RECOVER snapshot at tick %d", tick)
			}
		}
		if ts.clients[0].snapRate != session.SnapRateRecover {
			t.Errorf("rate %d, want RECOVER", ts.clients[0].snapRate)
		}
	})
}
