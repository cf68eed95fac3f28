package server

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/demo"
	"twserver/internal/heavytest"
	"twserver/loadclient"
	"twserver/snap"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
)

// recordGame runs a UDP server with recording on while n synthetic clients
// play pattern for d, stops it, and returns the teehistorian file.
func recordGame(t *testing.T, n int, d time.Duration, pattern loadclient.Pattern, mut func(*config.Config)) (path string, s *Server) {
	t.Helper()
	return recordGameProto(t, n, d, pattern, loadclient.Proto07, mut)
}

// recordGameProto is recordGame with clients of the given dialect(s)
// (loadclient.RunConfig.Proto).
func recordGameProto(t *testing.T, n int, d time.Duration, pattern loadclient.Pattern, proto string, mut func(*config.Config)) (path string, s *Server) {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Server.Bind = "127.0.0.1"
	cfg.Server.Port = 0
	cfg.Server.MaxClients = n
	cfg.Server.MaxClientsPerIP = n
	cfg.Record.Teehistorian = true
	cfg.Record.Demo = true
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
		Proto:    proto,
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
// match the simulation, and every checkpoint (one a second here) the
// replay's world; the file must end with FINISH.
func TestRecordReplayUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s load run")
	}
	heavytest.Lock(t)
	path, _ := recordGame(t, 8, 10*time.Second, loadclient.PatternRandom, func(c *config.Config) { c.Record.CheckpointInterval = 1 })
	t.Run("demo", func(t *testing.T) { checkDemo(t, strings.TrimSuffix(path, ".teehistorian")+".demo", 8) })
	_, res := replayFile(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	t.Logf("%s: %d bytes, %d ticks, %d positions and %d checkpoints compared, finished %v, ignored %v", filepath.Base(path), st.Size(), res.Ticks, res.Compared, res.Checkpoints, res.Finished, res.Ignored)
	if res.Divergence != nil {
		t.Fatalf("divergence: %v", res.Divergence)
	}
	if !res.Finished {
		t.Fatal("no FINISH")
	}
	if res.Ticks < 400 || res.Compared < 8*200 || res.Checkpoints < 5 {
		t.Fatalf("too little compared: %d ticks, %d positions, %d checkpoints", res.Ticks, res.Compared, res.Checkpoints)
	}
	// count what was recorded
	r := teehist.NewReader(f)
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

// checkDemo reads a server demo written by the recorder: header (patched
// length), keyframes, every player's De_ClientInfo and character, messages.
func checkDemo(t *testing.T, path string, players int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, ticks, err := demo.ReadAll(data, snap.Sizes7)
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header
	m := twmap.Default()
	if h.Version != demo.Version || h.NetVersion != demo.NetVersion07 || h.Type != "server" || h.MapName != m.Name ||
		h.MapCRC != m.CRC || int(h.MapSize) != m.Size || string(r.Map) != string(m.Data) {
		t.Fatalf("header %+v", h)
	}
	if len(ticks) < 200 || !ticks[0].Keyframe {
		t.Fatalf("%d ticks", len(ticks))
	}
	if want := (ticks[len(ticks)-1].Tick - ticks[0].Tick) / demo.TickSpeed; h.Length != want || want < 8 {
		t.Errorf("length %d, want %d", h.Length, want)
	}
	maxInfo, maxChars, msgs := 0, 0, 0
	for _, tk := range ticks {
		if tk.Tick%2 != 0 {
			t.Fatalf("snapshot at odd tick %d", tk.Tick)
		}
		info, chars := 0, 0
		for i := 0; i < tk.Snap.NumItems(); i++ {
			switch tk.Snap.Key(i) >> 16 {
			case world.ObjDeClientInfo:
				info++
			case world.ObjCharacter:
				chars++
			}
		}
		maxInfo, maxChars = max(maxInfo, info), max(maxChars, chars)
		msgs += len(tk.Messages)
	}
	if maxInfo != players || maxChars != players || msgs == 0 {
		t.Errorf("at most %d De_ClientInfo, %d characters; %d messages", maxInfo, maxChars, msgs)
	}
	t.Logf("demo %d bytes, %d ticks, %d s, %d messages", len(data), len(ticks), h.Length, msgs)
}

// TestRecordMixedDialects records a game of 0.7 and 0.6 (DDNet) clients:
// the teehistorian file names each join's dialect as DDNet does (JOINVER7,
// JOINVER6), and the shared world replays without divergence.
func TestRecordMixedDialects(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s load run")
	}
	heavytest.Lock(t)
	path, _ := recordGameProto(t, 4, 5*time.Second, loadclient.PatternRandom, loadclient.ProtoMix, nil)
	_, res := replayFile(t, path)
	if res.Divergence != nil || !res.Finished {
		t.Fatalf("replay: divergence %v finished %v", res.Divergence, res.Finished)
	}
	joins := map[teehist.ExKind]int{}
	eachTeehistMessage(t, path, func(m *teehist.Message) {
		if m.Kind == teehist.KindEx {
			if k := teehist.ExByUUID(m.UUID); k == teehist.ExJoinVer6 || k == teehist.ExJoinVer7 {
				joins[k]++
			}
		}
	})
	if joins[teehist.ExJoinVer6] != 2 || joins[teehist.ExJoinVer7] != 2 {
		t.Fatalf("joins by dialect %v, want 2 of each", joins)
	}
}
