package server

import (
	"runtime"
	"testing"

	"twserver/config"
	"twserver/world"
)

// newRecordingServer is newIdleServer with teehistorian and demo recording
// on and every player's join and ready recorded.
func newRecordingServer(tb testing.TB, players int) *Server {
	tb.Helper()
	s := newIdleServerWith(tb, players, func(cfg *config.Config) {
		cfg.Record.Teehistorian = true
		cfg.Record.Demo = true
		cfg.Record.Dir = tb.TempDir()
	})
	for _, c := range s.clients[:players] {
		s.rec.Join(c.id, true)
		s.rec.Ready(c.id, c.name)
	}
	return s
}

// recordStep runs one tick with moving, jumping and aiming inputs going
// through the recording hooks (direct input, predicted input).
func recordStep(s *Server, players int) {
	next := s.world.CurrentTick() + 1
	for i := range players {
		c := s.clients[i]
		// no firing: kills would queue vital messages that these
		// never-acking clients keep in their resend buffers
		in := world.Input{Direction: int32(next/40%3 - 1), TargetX: 100 + next%7, TargetY: int32(i*10 - 40),
			Jump: next / 20 % 2, WantedWeapon: 1}
		c.inputs.Store(next, in)
		s.rec.DirectInput(c.id, &in)
		s.world.DirectInput(c.id, in)
	}
	s.doTick()
	s.updateConns()
	s.flushAll()
}

// TestRecordTickAllocs: recording adds no allocations to a steady-state tick.
func TestRecordTickAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 8
	s := newRecordingServer(t, n)
	for range 600 {
		recordStep(s, n)
	}
	// The loop blocks between ticks; yield likewise so the writer goroutines
	// run and hand their buffers back (AllocsPerRun runs on one P).
	step := func() {
		recordStep(s, n)
		runtime.Gosched()
	}
	if a := testing.AllocsPerRun(200, step); a > 0 {
		t.Errorf("steady-state tick with recording allocates %.2f times", a)
	}
	if st := s.rec.Status(); st.TeehistBytes == 0 || st.DemoBytes == 0 || !st.TeehistActive || !st.DemoActive {
		t.Fatalf("nothing recorded: %+v", st)
	}
	s.rec.Stop()
}

func BenchmarkRecordTick8Players(b *testing.B) {
	const n = 8
	s := newRecordingServer(b, n)
	for range 600 {
		recordStep(s, n)
	}
	b.ReportAllocs()
	for b.Loop() {
		recordStep(s, n)
	}
	s.rec.Stop()
}
