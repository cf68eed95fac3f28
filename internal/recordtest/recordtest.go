package recordtest

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/loadclient"
	"twserver/server"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// Player is one synthetic client of a Game.
type Player struct {
	Proto6  bool // a DDNet (0.6) client, else 0.7
	Pattern loadclient.Pattern
	Stay    time.Duration // how long it plays from the start
	// Configure, when set, changes the client's configuration (callbacks).
	Configure func(*loadclient.Config)
	// Started, when set, is called with the client before it runs.
	Started func(*loadclient.Client)
}

// Game runs a server with cfg (bound to a free loopback port, validated,
// world seed 11) and the players (named p0, p1, ... from 127.0.0.10+i);
// during, when set, runs meanwhile with the server. Game returns once every
// player has left and the server has stopped, so the recordings are
// complete. A player that never entered fails the test.
func Game(t *testing.T, cfg config.Config, players []Player, during func(*server.Server)) {
	t.Helper()
	cfg.Server.Bind, cfg.Server.Port = "127.0.0.1", 0
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Config: cfg, Logger: zerolog.Nop(), Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var wg sync.WaitGroup
	for i, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc := loadclient.Config{Server: srv.Addr(), Name: fmt.Sprintf("p%d", i), Pattern: p.Pattern,
				Seed: uint64(100 + i), Proto6: p.Proto6, Source: netip.AddrFrom4([4]byte{127, 0, 0, byte(10 + i)})}
			if p.Configure != nil {
				p.Configure(&lc)
			}
			c := loadclient.New(lc)
			if p.Started != nil {
				p.Started(c)
			}
			cctx, ccancel := context.WithTimeout(ctx, p.Stay)
			defer ccancel()
			if st := c.Run(cctx); !st.Entered {
				t.Errorf("client %d did not enter: %s %s", i, st.Stage, st.Failure)
			}
		}()
	}
	if during != nil {
		during(srv)
	}
	wg.Wait()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
}

// Open opens a teehistorian file and reads its header; the file closes
// with the test.
func Open(t testing.TB, path string) (*teehist.Reader, *teehist.Header) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	return r, h
}

// Demo makes the demo of the teehistorian file th (map m) with opt at out
// and returns the result and the demo's bytes.
func Demo(t testing.TB, th string, m *twmap.Map, out string, opt replay.DemoOptions) (*replay.DemoResult, []byte) {
	t.Helper()
	r, h := Open(t, th)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.WriteDemo(f, r, h, m, opt)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(th), err)
	}
	t.Logf("%s (%s, view %d, ddnet %v): %d snapshots, ticks %d..%d, %d bytes, %d positions compared", filepath.Base(th),
		h.MapName, opt.View, opt.DDNet, res.Snapshots, res.FirstTick, res.LastTick, res.Bytes, res.Replay.Compared)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}
