package server

import (
	"context"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/loadclient"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// recordGame runs a UDP server with recording on while n synthetic clients
// play pattern for d, stops it, and returns the teehistorian file.
func recordGame(t *testing.T, n int, d time.Duration, pattern loadclient.Pattern, mut func(*config.Config)) (path string, s *Server) {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Server.MaxClients = n
	cfg.Server.MaxClientsPerIP = n
	cfg.Record.Teehistorian = true
	cfg.Record.Dir = dir
	if mut != nil {
		mut(&cfg)
	}
	s, err := New(Options{Config: cfg, Logger: zerolog.Nop(), Seed: 12345})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	rc := loadclient.RunConfig{
		Server:   netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), s.Addr().Port()),
		Clients:  n,
		RampUp:   time.Second,
		Duration: d,
		Pattern:  pattern,
		Seed:     7,
	}
	sum, err := loadclient.Run(context.Background(), rc)
	if err != nil {
		t.Fatalf("load run: %v", err)
	}
	t.Logf("load: %d connected, %d failed, %d snapshots", sum.Connected, sum.Failed, sum.Snapshots)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
	if len(files) != 1 {
		t.Fatalf("%d teehistorian files", len(files))
	}
	return files[0], s
}

// TestRecordReplayUnderLoad records 8 clients moving, jumping and firing for
// 10 s and replays the file in a fresh world: every recorded position must
// match the simulation, and the file must end with FINISH.
func TestRecordReplayUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s load run")
	}
	path, _ := recordGame(t, 8, 10*time.Second, loadclient.PatternRandom, nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(r, h, twmap.Default())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	t.Logf("%s: %d bytes, %d ticks, %d positions compared, finished %v, ignored %v", filepath.Base(path), st.Size(), res.Ticks, res.Compared, res.Finished, res.Ignored)
	if res.Divergence != nil {
		t.Fatalf("divergence: %v", res.Divergence)
	}
	if !res.Finished {
		t.Fatal("no FINISH")
	}
	if res.Ticks < 400 || res.Compared < 8*200 {
		t.Fatalf("too little compared: %d ticks, %d positions", res.Ticks, res.Compared)
	}
	// count what was recorded
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	r = teehist.NewReader(f)
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var m teehist.Message
	for r.Next(&m) == nil {
		k := m.Kind.String()
		if m.Kind == teehist.KindEx {
			k = m.Ex.String()
		}
		counts[k]++
	}
	t.Logf("messages: %v", counts)
	for _, k := range []string{"JOIN", "JOINVER7", "PLAYER_READY", "PLAYER_NAME", "INPUT_NEW", "INPUT_DIFF", "DIRECT_INPUT", "PLAYER_NEW", "PLAYER_DIFF", "DROP", "FINISH"} {
		if counts[k] == 0 {
			t.Errorf("no %s recorded", k)
		}
	}
}
