package e2e

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"twserver/demo"
	"twserver/dialect6"
	"twserver/internal/netns"
	"twserver/loadclient"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
)

// TestRealClient07Sees06 is the reverse of TestRealClientDDNet: the real
// Teeworlds 0.7.5 client plays while a synthetic DDNet-style 0.6 client
// (loadclient, -proto 06) walks in the same game. The real client records a
// demo; the 0.6 player's character must be in it, moving, where the 0.6
// client's own snapshots had it. Meanwhile the 0.6 player renames: the real
// client must show the chat line and, in its demo's De_ClientInfo (written
// from what it holds), the new name after the old, without an error line.
func TestRealClient07Sees06(t *testing.T) {
	realClientTest(t, nil, innerSees06)
}

// renamed06 is the name the 0.6 player of TestRealClient07Sees06 takes.
const renamed06 = "e2e06b"

// changeInfo6 is a 0.6 Cl_ChangeInfo with name and the default skin.
func changeInfo6(name string) []byte {
	var p netproto.Packer
	p.AddMsgHeader(dialect6.MsgClChangeInfo, false)
	p.AddString(name)
	p.AddString("")
	p.AddInt(-1)
	p.AddString("default")
	p.AddInt(0)
	p.AddInt(0)
	p.AddInt(0)
	return p.Bytes()
}

func innerSees06(t *testing.T) {
	netns.RequireLoopbackOnly(t)
	out, bin := os.Getenv(outEnv), os.Getenv(binEnv)
	serverLog := filepath.Join(out, "server.log")
	clientLog := filepath.Join(out, "client.log") // startRealClient's
	// One player slot: the 0.6 client, first in, plays; the real client
	// spectates it (its camera follows it, so the server sends it).
	srv := start(t, "twserver", serverLog, nil, nil, out, bin,
		"-bind", "127.0.0.1", "-port", e2ePort, "-log-level", "debug", "-no-console", "-player-slots", "1")
	if !waitLog(serverLog, regexp.MustCompile(`listening`), 10*time.Second) {
		t.Fatalf("twserver did not start (see %s)", serverLog)
	}

	// The 0.6 client walks; its own view of itself is kept.
	port, _ := strconv.Atoi(e2ePort)
	var mu sync.Mutex
	var ownXs []int32
	own := -1
	cl := loadclient.New(loadclient.Config{
		Server:  netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port)),
		Name:    "e2e06",
		Pattern: loadclient.PatternWalk,
		Proto6:  true,
		OnSnapshot: func(_ int32, s *snap.Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			for i := range s.NumItems() {
				it := s.Item(i)
				if it.Type == 10 && len(it.Data) >= 5 && it.Data[0] == 1 { // 0.6 PlayerInfo, local
					own = int(it.Data[1])
				}
			}
			if own >= 0 {
				if i := s.Find(snap.Key(9, uint16(own))); i >= 0 { // 0.6 Character
					ownXs = append(ownXs, s.ItemData(i)[world.CharX])
				}
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	loadDone := make(chan *loadclient.Stats, 1)
	go func() { st := cl.Run(ctx); loadDone <- &st }()
	for deadline := time.Now().Add(10 * time.Second); !cl.Entered(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the 0.6 client did not get in game")
		}
	}
	entered := time.Now()

	client, _, home := startRealClient(t, out, "127.0.0.1:"+e2ePort,
		`bind f4 "spectate 1 0"`, `bind f5 "record sees06"`, "bind f6 stoprecord", "bind f9 quit")
	if !waitLog(clientLog, regexp.MustCompile(`state change\. last=2 current=3`), 40*time.Second) {
		b, _ := os.ReadFile(clientLog)
		t.Fatalf("real client never reached the online state:\n%s", tail(b, 30))
	}
	time.Sleep(time.Second)
	if wid := firstLine(xdo(t, "search", "--name", client07.windowRe)); wid != "" {
		xdo(t, "windowfocus", wid)
	}
	xdo(t, "key", "F4") // follow client 0 (SPEC_PLAYER), the 0.6 player
	time.Sleep(500 * time.Millisecond)
	xdo(t, "key", "F5") // start the client's demo
	time.Sleep(2 * time.Second)
	// The 0.6 player renames (Cl_ChangeInfo, past the 5 s after its start
	// info): the real client gets DDNet's silent drop and client info.
	time.Sleep(time.Until(entered.Add(6 * time.Second)))
	if !cl.SendRaw(changeInfo6(renamed06)) {
		t.Errorf("the 0.6 client could not send Cl_ChangeInfo")
	}
	time.Sleep(3 * time.Second)
	screenshot(t, os.Getenv("DISPLAY"), out, "shot_sees06.png")
	xdo(t, "key", "F6") // stop the demo
	time.Sleep(time.Second)
	cancel()
	st := <-loadDone
	xdo(t, "key", "F9")
	client.waitExit(5 * time.Second)
	client.stop(t)
	srv.stop(t)

	mu.Lock()
	defer mu.Unlock()
	t.Logf("0.6 client: entered=%v snapshots=%d crc_errors=%d id=%d", st.Entered, st.Snapshots, st.CRCErrors, own)
	if !st.Entered || st.CRCErrors != 0 || st.DeltaErrors != 0 || st.BadItems != 0 || own < 0 || len(ownXs) == 0 {
		t.Fatalf("0.6 client: entered %v crc %d delta %d items %d id %d failure %q", st.Entered, st.CRCErrors, st.DeltaErrors, st.BadItems, own, st.Failure)
	}
	demos, _ := filepath.Glob(filepath.Join(home, client07.userDir, "demos", "sees06*.demo"))
	if len(demos) != 1 {
		t.Fatalf("real client demos: %v", demos)
	}
	data, err := os.ReadFile(demos[0])
	if err != nil {
		t.Fatal(err)
	}
	_, ticks, err := demo.ReadAll(data, snap.Sizes7)
	if err != nil {
		t.Fatalf("real client's demo: %v", err)
	}
	var xs []int32
	var names []string // the 0.6 player's name in the client's De_ClientInfo, as it changes
	for _, tk := range ticks {
		if i := tk.Snap.Find(snap.Key(world.ObjCharacter, uint16(own))); i >= 0 {
			xs = append(xs, tk.Snap.ItemData(i)[world.CharX])
		}
		if i := tk.Snap.Find(snap.Key(world.ObjDeClientInfo, uint16(own))); i >= 0 {
			if n := snap.IntsToStr(tk.Snap.ItemData(i)[2:6]); len(names) == 0 || names[len(names)-1] != n {
				names = append(names, n)
			}
		}
	}
	t.Logf("the 0.6 player's name in the real client's demo: %q", names)
	if len(names) != 2 || names[0] != "e2e06" || names[1] != renamed06 {
		t.Errorf("the real client's demo names the 0.6 player %q, want e2e06 then %s", names, renamed06)
	}
	cl7, _ := os.ReadFile(clientLog)
	if !regexp.MustCompile(`\*\*\* 'e2e06' changed name to '` + renamed06 + `'`).Match(cl7) {
		t.Errorf("the real client did not show the rename's chat line")
	}
	if m := regexp.MustCompile(`invalid client(drop|info)|invalid skin info`).Find(cl7); m != nil {
		t.Errorf("the real client logged %q", m)
	}
	minX, maxX := int32(1<<30), int32(-1<<30)
	for _, x := range xs {
		minX, maxX = min(minX, x), max(maxX, x)
	}
	ownMin, ownMax := int32(1<<30), int32(-1<<30)
	for _, x := range ownXs {
		ownMin, ownMax = min(ownMin, x), max(ownMax, x)
	}
	t.Logf("the real 0.7.5 client's demo has the 0.6 player (id %d) in %d of %d ticks, x %d..%d; its own snapshots x %d..%d",
		own, len(xs), len(ticks), minX, maxX, ownMin, ownMax)
	switch {
	case len(xs) < 25: // a second of snapshots (it may die on the spikes and respawn)
		t.Errorf("the real client saw the 0.6 player in only %d ticks", len(xs))
	case maxX-minX < 64:
		t.Errorf("the 0.6 player did not move in the real client's view: x %d..%d", minX, maxX)
	case minX > ownMax || maxX < ownMin:
		t.Errorf("the real client saw the 0.6 player at x %d..%d, its own snapshots at %d..%d", minX, maxX, ownMin, ownMax)
	}
}
