package loadclient

import (
	"sync"
	"testing"

	"twserver/config"
	"twserver/internal/servertest"
	"twserver/netproto"
	"twserver/snap"
)

// TestSendRaw: a message packed in the client's own dialect reaches the
// server as it is: a 0.6 client's Cl_ChangeInfo (which has no 0.7 form)
// renames it in its own snapshots' ClientInfo. Before the game SendRaw
// refuses.
func TestSendRaw(t *testing.T) {
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Game.SpamProtection = false // no 5 s between the start info and a change
	addr := servertest.Start(t, cfg)
	var mu sync.Mutex
	own, name := -1, ""
	cl := New(Config{Server: addr, Name: "raw6", Pattern: PatternIdle, Proto6: true,
		OnSnapshot: func(_ int32, s *snap.Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			for i := range s.NumItems() {
				if it := s.Item(i); it.Type == 10 && len(it.Data) >= 2 && it.Data[0] == 1 { // 0.6 PlayerInfo, local
					own = int(it.Data[1])
				}
			}
			if i := s.Find(snap.Key(11, uint16(max(own, 0)))); own >= 0 && i >= 0 { // 0.6 ClientInfo
				name = snap.IntsToStr(s.ItemData(i)[0:4])
			}
		}})
	var p netproto.Packer
	p.AddMsgHeader(21, false) // 0.6 Cl_ChangeInfo
	p.AddString("raw6b")
	p.AddString("")
	p.AddInt(-1)
	p.AddString("default")
	for range 3 {
		p.AddInt(0)
	}
	if cl.SendRaw(p.Bytes()) {
		t.Fatal("SendRaw succeeded before the client was in game")
	}
	st := runInGame(t, cl, 0, func() bool { return cl.SendRaw(p.Bytes()) }, "SendRaw", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return name == "raw6b"
	})
	mu.Lock()
	defer mu.Unlock()
	if name != "raw6b" || st.Failure != "" {
		t.Fatalf("own name in the snapshots %q (id %d), failure %q", name, own, st.Failure)
	}
}
