package botslots

import (
	"fmt"
	"slices"
	"testing"

	"twserver/bots"
	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/record"
	"twserver/world"
	"twserver/world/twmap"

	"github.com/rs/zerolog"
)

// host is a game loop without clients: humans is the count it reports.
type host struct {
	humans int
	sent   []gamemsg.Message
	out    []string
}

func (h *host) SlotFree(cid int) bool { return cid >= h.humans }
func (h *host) Humans() int           { return h.humans }
func (h *host) Changed()              {}
func (h *host) Out(line string)       { h.out = append(h.out, line) }
func (h *host) SendAll(m gamemsg.Message) {
	if len(h.sent) < 100 {
		h.sent = append(h.sent, m)
	}
}

// testNavs shares the default map's graph between the tests.
var testNavs = bots.NewNavCache(1)

// newGame returns bots on the default map with cfg changed by mut.
func newGame(t testing.TB, mut func(*config.Config)) (*Slots, *host, *world.World) {
	cfg := config.Default()
	if mut != nil {
		mut(&cfg)
	}
	h := &host{}
	m := twmap.Default()
	w, err := world.New(m, world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Config: &cfg, Host: h, Rec: record.New(record.Options{Config: &cfg, Log: zerolog.Nop()}),
		Log: zerolog.Nop(), Events: &console.Events{}, Seed: 7, Navs: testNavs})
	s.NewGame(w, m)
	s.WaitGraph()
	return s, h, w
}

func tick(s *Slots, w *world.World) {
	s.BeforeTick()
	w.Tick()
	w.DrainEvents(func(world.Event) {})
	s.AfterTick()
}

// TestFillFollowsHumans: no bot while nobody is there; fill - humans bots
// while humans are fewer (one joins per tick); one leaves per arriving
// human; never more than the player places the humans leave.
func TestFillFollowsHumans(t *testing.T) {
	s, h, w := newGame(t, func(c *config.Config) { c.Bots.Fill = 4; c.Server.PlayerSlots = 5 })
	run := func(n int) {
		for range n {
			tick(s, w)
		}
	}
	run(10)
	if s.Len() != 0 {
		t.Fatalf("%d bots on an empty server", s.Len())
	}
	h.humans = 1
	run(3)
	if s.Len() != 3 {
		t.Fatalf("one human: %d bots, want 3", s.Len())
	}
	for cid := 1; cid < world.MaxClients; cid++ {
		if b := s.At(cid); b != nil && (!b.Fill || b.Skill.String() != "normal" || !w.HasPlayer(cid)) {
			t.Errorf("bot %+v", b)
		}
	}
	h.humans = 2
	run(3)
	if s.Len() != 2 {
		t.Fatalf("two humans: %d bots, want 2", s.Len())
	}
	// bot_add beyond fill stays, but not beyond the player places
	if _, err := s.Add(2, "Ada", false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(2, "Ada", false); err != ErrNameUsed {
		t.Errorf("a second Ada: %v", err)
	}
	if _, err := s.Add(2, "all", false); err != ErrAllName { // bot_remove all would take every bot
		t.Errorf("a bot named all: %v", err)
	}
	run(3)
	if s.Len() != 2 || s.Fill() != 4 {
		t.Fatalf("two humans and a bot added: %d bots, want 2 (Ada and one fill)", s.Len())
	}
	h.humans = 4
	run(3)
	if s.Len() != 1 || s.newest(false).Name != "Ada" {
		t.Fatalf("four humans: %d bots, want Ada alone", s.Len())
	}
	h.humans = 5 // no player place left: Ada makes room too
	run(3)
	if s.Len() != 0 {
		t.Fatalf("five humans in five places: %d bots", s.Len())
	}
	if _, err := s.Add(0, "", false); err != ErrNoPlace {
		t.Errorf("bot_add with every place taken by humans: %v, want ErrNoPlace", err)
	}
	h.humans = 0
	run(3)
	if s.Len() != 0 {
		t.Fatalf("%d bots after everybody left", s.Len())
	}
}

// TestBotsMoveAndRecordNothingWhenOff: bots fed through the client input
// path move about the map.
func TestBotsMove(t *testing.T) {
	s, h, w := newGame(t, func(c *config.Config) { c.Bots.Fill = 3 })
	h.humans = 1
	var start [world.MaxClients]float32
	for i := range 20 * 50 {
		tick(s, w)
		if i == 100 {
			for cid := range world.MaxClients {
				if p, ok := w.CharacterPos(cid); ok {
					start[cid] = p.X + p.Y
				}
			}
		}
	}
	moved := 0
	for cid := range world.MaxClients {
		if p, ok := w.CharacterPos(cid); ok && s.Has(cid) && p.X+p.Y != start[cid] {
			moved++
		}
	}
	if s.Len() != 2 || moved < 1 {
		t.Errorf("%d bots, %d moved in 20 s", s.Len(), moved)
	}
}

// TestBotTickAllocs: a tick of bots in steady state allocates nothing.
func TestBotTickAllocs(t *testing.T) {
	s, h, w := newGame(t, func(c *config.Config) { c.Bots.Fill = 9; c.Server.PlayerSlots = 16 })
	h.humans = 1
	for range 10 * 50 { // joins, first plans, first fights
		tick(s, w)
	}
	if s.Len() != 8 || s.Thinking() != 8 {
		t.Fatalf("%d bots, %d of them thinking; want 8 and 8", s.Len(), s.Thinking())
	}
	if n := testing.AllocsPerRun(200, func() { s.BeforeTick(); s.AfterTick() }); n != 0 {
		t.Errorf("%.2f allocations per tick of 8 bots, want 0", n)
	}
}

// BenchmarkBotTick is one tick of one bot's work (BeforeTick and AfterTick
// of 8 bots, divided by 8) on the default map; the world's own tick is
// outside the timing.
func BenchmarkBotTick(b *testing.B) {
	s, h, w := newGame(b, func(c *config.Config) { c.Bots.Fill = 9; c.Server.PlayerSlots = 16 })
	h.humans = 1
	for range 10 * 50 {
		tick(s, w)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 8 {
		b.StopTimer()
		w.Tick()
		w.DrainEvents(func(world.Event) {})
		b.StartTimer()
		s.BeforeTick()
		s.AfterTick()
	}
}

// TestLeaveReasons: a fill bot that leaves says why: a human arrived (one
// or two at once), bot_add or bots_fill made it needless, or the last human
// left.
func TestLeaveReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		step func(s *Slots, h *host)
		want []string
	}{
		{"a human arrives", func(_ *Slots, h *host) { h.humans = 2 }, []string{"a human takes the place"}},
		{"two humans arrive", func(_ *Slots, h *host) { h.humans = 3 },
			[]string{"a human takes the place", "a human takes the place"}},
		{"bot_add", func(s *Slots, _ *host) {
			if _, err := s.Add(bots.Hard, "Ada", false); err != nil {
				t.Fatal(err)
			}
		}, []string{"not needed to fill the game"}},
		{"bots_fill 2", func(s *Slots, _ *host) { s.fill = 2 },
			[]string{"not needed to fill the game", "not needed to fill the game"}},
		{"the last human leaves", func(_ *Slots, h *host) { h.humans = 0 },
			[]string{"no human is left", "no human is left", "no human is left"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h, w := newGame(t, func(c *config.Config) { c.Bots.Fill = 4 })
			h.humans = 1
			for range 5 {
				tick(s, w)
			}
			if s.Len() != 3 {
				t.Fatalf("one human: %d bots, want 3", s.Len())
			}
			h.sent = h.sent[:0]
			tc.step(s, h)
			for range 5 {
				tick(s, w)
			}
			var got []string
			for _, m := range h.sent {
				if d, ok := m.(*gamemsg.SvClientDrop); ok {
					got = append(got, d.Reason)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("reasons %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKickHint: the console's refusal to kick a bot's slot says how to
// remove the bot; a slot without a bot gets no hint.
func TestKickHint(t *testing.T) {
	s, h, w := newGame(t, func(c *config.Config) { c.Bots.Fill = 2; c.Bots.Names = []string{"Pebble"} })
	h.humans = 1
	tick(s, w)
	ada, err := s.Add(bots.Easy, "Ada", false)
	if err != nil {
		t.Fatal(err)
	}
	fill := s.newest(true)
	if fill == nil {
		t.Fatal("no fill bot")
	}
	for _, tc := range []struct {
		cid  int
		want string
	}{
		{0, ""}, // the human's
		{-1, ""},
		{world.MaxClients, ""},
		{ada.CID, fmt.Sprintf(": client %d is the bot 'Ada' (bot_remove removes it by name)", ada.CID)},
		{fill.CID, fmt.Sprintf(": client %d is the bot 'Pebble', which fills the game (bots_fill N sets how many)", fill.CID)},
	} {
		if got := s.KickHint(tc.cid); got != tc.want {
			t.Errorf("KickHint(%d) = %q, want %q", tc.cid, got, tc.want)
		}
	}
}

// TestBotRemoveOutput: bot_remove says how many bots it removed, one bot
// in the singular, and that a removed fill bot's place is filled again.
func TestBotRemoveOutput(t *testing.T) {
	s, h, _ := newGame(t, nil)
	h.humans = 1
	for _, name := range []string{"Ada", "Bert", "Cleo"} {
		if _, err := s.Add(bots.Easy, name, false); err != nil {
			t.Fatal(err)
		}
	}
	remove := s.Handlers()["bot_remove"]
	for _, tc := range []struct{ arg, want string }{
		{"Ada", "removed 1 bot"},
		{"Nobody", "removed 0 bots"},
		{"all", "removed 2 bots"},
	} {
		h.out = h.out[:0]
		if err := remove(console.Caller{}, console.Args{tc.arg}); err != nil {
			t.Fatal(err)
		}
		if len(h.out) != 1 || h.out[0] != tc.want {
			t.Errorf("bot_remove %s: %q, want %q", tc.arg, h.out, tc.want)
		}
	}
	// a fill bot's place is filled again: the line says so
	fill, err := s.Add(bots.Easy, "Dora", true)
	if err != nil {
		t.Fatal(err)
	}
	s.fill = 4
	h.out = h.out[:0]
	if err := remove(console.Caller{}, console.Args{fill.Name}); err != nil {
		t.Fatal(err)
	}
	if want := "removed 1 bot (a fill bot: bots fill the game to 4 participants again; bots_fill N sets how many)"; len(h.out) != 1 || h.out[0] != want {
		t.Errorf("bot_remove of a fill bot: %q, want %q", h.out, want)
	}
}
