package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"twserver/bots"
	"twserver/config"
	"twserver/session"
	"twserver/sockio"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/vote"
	"twserver/world"
	"twserver/worldstate"
)

// TestAdoptGame hands a running game (three players in game) to a new
// server with two of its clients: the world goes on at the same tick with
// the same scores and positions, the two play on (in game, no map change,
// a full snapshot next), the third's player leaves; the tick schedule is
// the old one. Controls: a state of another map and a cut state are
// refused; the clients without the world join a new game (map change).
func TestAdoptGame(t *testing.T) {
	old := newIdleServerWith(t, 3, func(cfg *config.Config) {
		cfg.Game.InactiveKickTime, cfg.Server.MaxClients, cfg.Bots.Max, cfg.Bots.Fill = 0, 8, 2, 5 // fill: the fill bot added stays
	})
	bot, err := old.bots.Add(bots.Easy, "robo", false)
	if err != nil {
		t.Fatal(err)
	}
	hard, err := old.bots.Add(bots.Hard, "filla", true)
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		stepAcked(old)
	}
	old.vote.Start(vote.State{Active: true, Kind: vote.StartOp, Caller: 0, Target: -1, Desc: "say hi", Command: "say hi"}, old.now())
	old.vote.Cast(1, -1)
	slots, wh := old.ExportSlots(), old.ExportWorld()
	if len(slots) != 3 {
		t.Fatalf("%d slots exported", len(slots))
	}
	next := func() *Server {
		mc, err := sockio.NewMemNet().Listen(srvAddr)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Config: old.cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := next()
	if err := s.AdoptGame(wh, slots[:2]); err != nil {
		t.Fatal(err)
	}
	if got, want := s.world.CurrentTick(), old.world.CurrentTick(); got != want || got < 300 {
		t.Fatalf("tick %d, the old game's %d", got, want)
	}
	if !s.sched.Start().Equal(old.sched.Start()) {
		t.Errorf("tick schedule starts %v, the old one %v", s.sched.Start(), old.sched.Start())
	}
	for i := range 2 {
		c := s.clients[i]
		if c.state != session.Ingame || !c.entered || c.lastAckedTick != -1 || c.storage.Len() != 0 || c.snapRate != session.SnapRateFull {
			t.Errorf("client %d: state %v entered %v acked %d stored %d rate %d, want in game with a full snapshot at the next snapshot tick",
				i, c.state, c.entered, c.lastAckedTick, c.storage.Len(), c.snapRate)
		}
		p, ok := s.world.CharacterPos(i)
		q, _ := old.world.CharacterPos(i)
		if s.world.Score(i) != old.world.Score(i) || !ok || p != q {
			t.Errorf("player %d: score %d at %v, in the old game %d at %v", i, s.world.Score(i), p, old.world.Score(i), q)
		}
	}
	if s.world.HasPlayer(2) || !old.world.HasPlayer(2) {
		t.Error("the player whose client did not pass is still in the world")
	}
	if b := s.bots.At(bot.CID); b == nil || b.Name != "robo" || !s.world.HasPlayer(bot.CID) || s.world.Score(bot.CID) != old.world.Score(bot.CID) {
		t.Errorf("the bot in slot %d did not pass with its player", bot.CID)
	} else if b.Skill != bots.Easy || b.Fill {
		t.Errorf("the bot added by hand came back with skill %v, fill %v (was easy, not a fill bot)", b.Skill, b.Fill)
	}
	if b := s.bots.At(hard.CID); b == nil || b.Skill != bots.Hard || !b.Fill {
		t.Errorf("the hard fill bot in slot %d came back as %+v", hard.CID, b)
	}
	if y, n, _ := s.vote.Count((*voteSlots)(s)); !s.vote.Active || s.vote.Desc != "say hi" || y != 1 || n != 1 || s.vote.Ends-s.now() < vote.Duration-time.Second {
		t.Errorf("the running vote came back as %+v with %d yes, %d no, %v left", s.vote.State, y, n, s.vote.Ends-s.now())
	}
	stepAcked(s) // the game goes on
	stepAcked(s)
	if s.world.CurrentTick() != old.world.CurrentTick()+2 || s.clients[0].storage.Len() == 0 {
		t.Errorf("after a tick: tick %d, %d snapshots stored", s.world.CurrentTick(), s.clients[0].storage.Len())
	}

	bad := wh
	bad.CRC ^= 1
	if err := next().AdoptGame(bad, slots); err == nil {
		t.Error("a world of another map was adopted")
	}
	bad = wh
	bad.Vote = &vote.Carried{Kind: vote.EndPass}
	if err := next().AdoptGame(bad, slots); err == nil {
		t.Error("a malformed vote was adopted")
	}
	bad = wh
	bad.State = bad.State[:len(bad.State)/2]
	if err := next().AdoptGame(bad, slots); err == nil {
		t.Error("a cut world state was adopted")
	}
	s = next()
	if err := s.AdoptSlots(slots); err != nil {
		t.Fatal(err)
	}
	if s.clients[0].state != session.Connecting || s.world.CurrentTick() != 0 {
		t.Errorf("control: without the world, state %v at tick %d, want a map change to a new game", s.clients[0].state, s.world.CurrentTick())
	}
}

// TestEndRecordings: the old process of an upgrade, its loop held, ends its
// teehistorian with the closing record; the file replays to its end with no
// divergence. Control: before, the file is not finished.
func TestEndRecordings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts, dir := startRecording(t)
		a := join(t, ts, cl1Addr, "alice")
		a.direction = 1
		a.run(2 * time.Second)
		release, err := ts.Hold(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d files", len(files))
		}
		if _, res := replayFile(t, files[0]); res.Finished {
			t.Fatal("control: the file is finished before EndRecordings")
		}
		ts.EndRecordings()
		_, res := replayFile(t, files[0])
		if os.Getenv("UPW_KEEP") != "" {
			data, _ := os.ReadFile(files[0])
			os.WriteFile("/tmp/upw/adopt.teehistorian", data, 0o644)
		}
		if res.Divergence != nil || !res.Finished || res.Compared < 50 {
			t.Errorf("divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
		}
		release()
		ts.stop(t)
	})
}

// TestAdoptGameRecords: the new process's teehistorian of a game handed
// over starts from the world handed over (WORLD_STATE) and replays without
// divergence. Control: the same game recorded without its world state (the
// world read in directly) does not replay.
func TestAdoptGameRecords(t *testing.T) {
	rec := func(dir string) func(*config.Config) {
		return func(cfg *config.Config) {
			cfg.Game.InactiveKickTime, cfg.Record.Teehistorian, cfg.Record.Dir = 0, true, dir
		}
	}
	old := newIdleServerWith(t, 3, rec(t.TempDir()))
	for range 300 {
		stepAcked(old)
	}
	wh, slots := old.ExportWorld(), old.ExportSlots()[:2]
	run := func(adopt func(s *Server) error) (*teehist.Header, *replay.Result) {
		dir := t.TempDir()
		cfg := old.cfg
		rec(dir)(&cfg)
		mc, err := sockio.NewMemNet().Listen(srvAddr)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Config: cfg, Conn: mc, Logger: zerolog.Nop(), Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if err := adopt(s); err != nil {
			t.Fatal(err)
		}
		for k := range 200 { // the two players run and jump to and fro
			for i := range 2 {
				in := world.Input{Direction: int32(1 - 2*((k/40+i)%2)), Jump: int32(k / 10 % 2), TargetX: 100}
				s.clients[i].inputs.Store(s.world.CurrentTick()+1, in)
			}
			stepAcked(s)
		}
		s.EndRecordings()
		files, _ := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
		if len(files) != 1 {
			t.Fatalf("%d files", len(files))
		}
		return replayFile(t, files[0])
	}
	h, res := run(func(s *Server) error { return s.AdoptGame(wh, slots) })
	t.Logf("%d ticks, %d positions compared", res.Ticks, res.Compared)
	if res.Divergence != nil || !res.Finished || res.Compared < 200 {
		t.Errorf("divergence %v, finished %v, %d compared", res.Divergence, res.Finished, res.Compared)
	}
	if prev := old.rec.GameID(); prev == (teehist.UUID{}) || h.PrevGameUUID != prev {
		t.Errorf("the new file's prev_game_uuid %v, the old game %v", h.PrevGameUUID, prev)
	}
	h, res = run(func(s *Server) error {
		if err := worldstate.Read(s.world, wh.State); err != nil {
			return err
		}
		return s.AdoptSlots(slots)
	})
	if res.Divergence == nil && res.Compared >= 200 {
		t.Errorf("control: a recording without the world state replays (%d compared)", res.Compared)
	}
	if h.PrevGameUUID != (teehist.UUID{}) {
		t.Errorf("control: a game started without the world names a previous game %v", h.PrevGameUUID)
	}
}

// TestNoBaseBeforeFullSnapshot: after a full snapshot (as the first after a
// live upgrade, or in RECOVER), an ack of an older tick that arrives late
// is not used as the next delta's base: a client may drop its older
// snapshots on the full one (the npm teeworlds library does). Control: the
// tick is in the server's storage, so without the rule it would be the base.
func TestNoBaseBeforeFullSnapshot(t *testing.T) {
	s := newIdleServerWith(t, 1, nil)
	for range 20 {
		stepAcked(s)
	}
	c := s.clients[0]
	old := c.lastAckedTick
	c.lastAckedTick = -1 // the acks of the old process's snapshots are unknown here
	for c.fullTick <= old {
		s.doTick()
		s.updateConns()
		s.flushAll()
	}
	if _, _, ok := c.storage.Get(old); !ok {
		t.Fatalf("control: tick %d is not stored: the test proves nothing", old)
	}
	in := &session.Input{AckTick: old, Intended: s.world.CurrentTick() + 1}
	s.onInput(c, in, time.Now())
	if c.lastAckedTick == old {
		t.Errorf("a late ack of tick %d, older than the full snapshot %d, became the base", old, c.fullTick)
	}
	in.AckTick = c.fullTick
	s.onInput(c, in, time.Now())
	if c.lastAckedTick != c.fullTick {
		t.Errorf("the ack of the full snapshot %d: acked %d", c.fullTick, c.lastAckedTick)
	}
}
