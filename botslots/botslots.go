package botslots

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"twserver/bots"
	"twserver/config"
	"twserver/console"
	"twserver/gamemsg"
	"twserver/record"
	"twserver/world"
	"twserver/world/twmap"

	"github.com/rs/zerolog"
)

// MaxNavs bounds the navigation graphs the process keeps (one per map
// content, shared by every game on that map).
const MaxNavs = 8

// Host is the game loop's side of the bots: what they need of the slots
// and the clients.
type Host interface {
	// SlotFree reports whether client slot cid holds no human (in any state).
	SlotFree(cid int) bool
	// Humans counts the slots holding a human (in any state).
	Humans() int
	// SendAll sends a game message to every human in the game.
	SendAll(m gamemsg.Message)
	// Changed tells the loop the player list changed (server info).
	Changed()
	// Out prints a line of command output on the console.
	Out(line string)
}

// Options configure Slots.
type Options struct {
	Config *config.Config // the server's configuration (read at each use)
	Host   Host
	Rec    *record.Recorder
	Log    zerolog.Logger
	Events *console.Events // the econ's event lines
	Seed   uint64          // the game's seed: bots' random choices derive from it
	// Navs holds the navigation graphs, shared by the games of a process
	// (nil: a cache of this game's own).
	Navs *bots.NavCache
}

// Bot is one bot in the game: a client slot without a connection.
type Bot struct {
	// CID is its client slot.
	CID int
	// Name is its name (unique among players and bots).
	Name string
	// Skill is how well it plays.
	Skill bots.Skill
	// Fill: it joined to fill the game (leaves when humans come);
	// false for bot_add.
	Fill  bool
	seq   uint64 // join order (the newest leaves first)
	brain *bots.Bot
	in    world.Input
	has   bool // in holds the input for the coming tick
}

// Slots are the bots of one game, owned by the game loop.
type Slots struct {
	o     Options
	w     *world.World
	m     *twmap.Map
	nav   *bots.Nav
	navOK bool      // nav was looked up for m (nav may be nil: no graph)
	build *navBuild // the graph of m being built off the loop, nil before
	fill  int
	met   int // the humans when the fill was last met (surplusReason)
	by    [world.MaxClients]*Bot
	n     int
	seq   uint64
}

// New returns the bots of a game; none has joined yet. Call NewGame with
// the world.
func New(o Options) *Slots {
	if o.Navs == nil {
		o.Navs = bots.NewNavCache(1)
	}
	return &Slots{o: o, fill: o.Config.Bots.Fill}
}

// Len returns the number of bots.
func (s *Slots) Len() int { return s.n }

// Has reports whether client slot cid is a bot's.
func (s *Slots) Has(cid int) bool { return cid >= 0 && cid < len(s.by) && s.by[cid] != nil }

// At returns the bot of slot cid, nil when none.
func (s *Slots) At(cid int) *Bot {
	if !s.Has(cid) {
		return nil
	}
	return s.by[cid]
}

// KickHint is what the console adds to its refusal to kick client cid
// (kick takes only connected clients): when a bot has that slot, how to
// remove it; "" otherwise.
func (s *Slots) KickHint(cid int) string {
	b := s.At(cid)
	switch {
	case b == nil:
		return ""
	case b.Fill:
		return fmt.Sprintf(": client %d is the bot '%s', which fills the game (bots_fill N sets how many)", cid, b.Name)
	}
	return fmt.Sprintf(": client %d is the bot '%s' (bot_remove removes it by name)", cid, b.Name)
}

// Fill returns the participants the bots keep (bots.fill, bots_fill).
func (s *Slots) Fill() int { return s.fill }

// NewGame moves the bots into the world of a new game on map m (the map
// changed or was reloaded): each joins it again, as connected clients do.
func (s *Slots) NewGame(w *world.World, m *twmap.Map) {
	s.w = w
	if m != s.m {
		s.m, s.nav, s.navOK, s.build = m, nil, false, nil
	}
	if s.fill > 0 || s.n > 0 {
		s.startNav() // ready when the first human (and so the first fill bot) comes
	}
	for _, b := range s.by {
		if b != nil {
			s.enter(b)
		}
	}
}

// navBuild is a navigation graph built by its own goroutine: building one
// takes up to seconds on a big map, which the game loop must not wait for.
type navBuild struct {
	done chan struct{} // closed when nav and err are set
	nav  *bots.Nav
	err  error
}

// startNav starts building the graph of the current map (once per map).
func (s *Slots) startNav() {
	if s.build != nil || s.m == nil {
		return
	}
	b := &navBuild{done: make(chan struct{})}
	s.build = b
	go func(m *twmap.Map) {
		b.nav, b.err = s.o.Navs.Get(m)
		close(b.done)
	}(s.m)
}

// WaitGraph waits until the current map's graph is built (starting the
// build if needed): for tests and tools that run the game faster than the
// wall clock. The game loop never calls it.
func (s *Slots) WaitGraph() {
	s.startNav()
	if s.build != nil {
		<-s.build.done
	}
}

// Thinking counts the bots that have their brain (the map's graph is
// built).
func (s *Slots) Thinking() (n int) {
	for _, b := range s.by {
		if b != nil && b.brain != nil {
			n++
		}
	}
	return n
}

// graph returns the navigation graph of the current map, nil while it is
// being built (or when the map has none). A bot without a graph stands
// still: it gets its brain at the first tick after the graph is ready.
func (s *Slots) graph() *bots.Nav {
	if s.navOK {
		return s.nav
	}
	s.startNav()
	select {
	case <-s.build.done:
	default:
		return nil
	}
	s.navOK, s.nav = true, s.build.nav
	if s.build.err != nil {
		s.o.Log.Warn().Err(s.build.err).Str("map", s.m.Name).Msg("bots: no navigation graph; the bots play without one")
	}
	return s.nav
}

// room returns the most bots the game may hold now: bots.max, and never
// a player place or a slot a human holds or may want.
func (s *Slots) room() int {
	c := s.o.Config
	places := min(c.Server.MaxClients, max(c.Server.PlayerSlots, 1))
	return max(0, min(c.Bots.Max, places-s.o.Host.Humans()))
}

// BeforeTick keeps the number of bots (fill, the humans' room) and gives
// the world each bot's input for the coming tick (the one it chose after
// the last tick, as a client's arrives a tick later). Call it before the
// loop applies the clients' inputs.
func (s *Slots) BeforeTick() {
	if s.n == 0 && s.fill == 0 { // no bot and none wanted (the default): nothing per tick
		return
	}
	s.balance()
	for _, b := range s.by {
		if b != nil && b.has {
			s.w.SetInput(b.CID, b.in)
			s.o.Rec.Input(b.CID, &b.in)
		}
	}
}

// AfterTick lets every bot look at the world and choose its input, which
// the world gets at once as a client's arriving input (DirectInput) and for
// the next tick (BeforeTick).
func (s *Slots) AfterTick() {
	if s.n == 0 {
		return
	}
	for _, b := range s.by {
		if b != nil && b.brain == nil {
			s.wake(b)
		}
		if b == nil || b.brain == nil {
			continue
		}
		b.in, b.has = b.brain.Think(s.w), true
		s.o.Rec.DirectInput(b.CID, &b.in)
		s.w.DirectInput(b.CID, b.in)
	}
}

// balance adds fill bots while humans are fewer than fill (and one is
// there), and removes bots beyond the room humans leave.
func (s *Slots) balance() {
	fills := 0
	for _, b := range s.by {
		if b != nil && b.Fill {
			fills++
		}
	}
	humans := s.o.Host.Humans()
	want := 0 // fill bots: participants missing besides the humans and the added bots
	if humans > 0 {
		want = max(0, s.fill-humans-(s.n-fills))
	}
	room := s.room()
	switch {
	case s.n > room && fills > 0:
		s.remove(s.newest(true), "a human takes the place")
	case s.n > room:
		s.remove(s.newest(false), "a human takes the place")
	case fills > want:
		s.remove(s.newest(true), s.surplusReason(humans, fills))
	case fills < want && s.n < room:
		if _, err := s.Add(s.defaultSkill(), "", true); err != nil {
			s.o.Log.Debug().Err(err).Msg("bots: no fill bot")
		}
	}
	if fills <= want {
		s.met = humans
	}
}

// surplusReason is the reason a fill bot beyond the fill leaves with: no
// human is left, a human takes its place (with the humans of when the fill
// was last met it would still be wanted), or it is not needed (bots_fill
// lowered the fill, or bot_add added a bot that fills the game).
func (s *Slots) surplusReason(humans, fills int) string {
	switch {
	case humans == 0:
		return "no human is left"
	case fills <= s.fill-s.met-(s.n-fills):
		return "a human takes the place"
	}
	return "not needed to fill the game"
}

func (s *Slots) defaultSkill() bots.Skill {
	sk, _ := bots.ParseSkill(s.o.Config.Bots.Skill)
	return sk
}

// newest returns the bot that joined last (a fill bot when fill).
func (s *Slots) newest(fill bool) *Bot {
	var n *Bot
	for _, b := range s.by {
		if b != nil && (!fill || b.Fill) && (n == nil || b.seq > n.seq) {
			n = b
		}
	}
	return n
}

// Evict makes room for a human who finds every slot taken: the newest bot
// leaves. It reports whether one did.
func (s *Slots) Evict() bool {
	b := s.newest(true)
	if b == nil {
		b = s.newest(false)
	}
	if b == nil {
		return false
	}
	s.remove(b, "a human takes the place")
	return true
}

// Errors of Add.
var (
	ErrNoSlot   = errors.New("no free slot for a bot")
	ErrMaxBots  = errors.New("bots.max bots already")
	ErrNoPlace  = errors.New("no player place left for a bot (humans come first)")
	ErrNameUsed = errors.New("that name is taken")
	ErrBadName  = errors.New("a bot name is 1..15 bytes without control characters")
	ErrAllName  = errors.New(`"` + config.AllBots + `" is bot_remove's word for every bot, not a bot name`)
)

// Add brings a bot into the game in the highest free slot: skill, name
// ("" = the next free name of bots.names), fill (it joined to fill).
func (s *Slots) Add(skill bots.Skill, name string, fill bool) (*Bot, error) {
	if name != "" && (len(name) > config.MaxBotNameLen || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 })) {
		return nil, ErrBadName
	} else if name == config.AllBots {
		return nil, ErrAllName
	} else if name != "" && s.nameUsed(name) {
		return nil, ErrNameUsed
	}
	if s.n >= min(s.o.Config.Bots.Max, s.o.Config.Server.MaxClients) {
		return nil, ErrMaxBots
	}
	if s.n >= s.room() {
		return nil, ErrNoPlace
	}
	cid := -1
	for i := min(s.o.Config.Server.MaxClients, world.MaxClients) - 1; i >= 0; i-- {
		if s.by[i] == nil && s.o.Host.SlotFree(i) && !s.w.HasPlayer(i) {
			cid = i
			break
		}
	}
	if cid < 0 {
		return nil, ErrNoSlot
	}
	if name == "" {
		name = s.freeName()
	}
	s.seq++
	b := &Bot{CID: cid, Name: name, Skill: skill, Fill: fill, seq: s.seq}
	s.by[cid] = b
	s.n++
	s.enter(b)
	return b, nil
}

// Carried is what a bot keeps across a live upgrade besides its player,
// which the world carries (team, score, character): its skill and whether
// it fills the game. A field the new binary does not know is left out.
type Carried struct {
	CID   int    `json:"cid"`
	Skill string `json:"skill"`
	Fill  bool   `json:"fill"`
}

// Export returns the bots' Carried in the order they joined (the newest
// fill bot leaves first in the new process as in the old).
func (s *Slots) Export() []Carried {
	var out []Carried
	for _, b := range s.by {
		if b != nil {
			out = append(out, Carried{CID: b.CID, Skill: b.Skill.String(), Fill: b.Fill})
		}
	}
	slices.SortFunc(out, func(a, b Carried) int { return cmp.Compare(s.by[a.CID].seq, s.by[b.CID].seq) })
	return out
}

// Adopt makes the world's player in slot cid a bot of these Slots when it
// is a bot's (world.PlayerInfo.Bot) and the slot is not one yet: at a live
// upgrade the world passes with its bots' players (team, score, character),
// which play on with a new brain and what carried says of slot cid (skill,
// fill); a bot carried does not name has the default skill and fills when
// bots.fill is set. Bots adopted in carried's order keep their join order.
// It reports whether it took the player.
func (s *Slots) Adopt(cid int, carried []Carried) bool {
	info, ok := s.w.Info(cid)
	if !ok || !info.Bot || s.Has(cid) {
		return false
	}
	skill, fill := s.defaultSkill(), s.fill > 0
	s.seq = max(s.seq, uint64(len(carried))) // carried bots take the first places in the join order
	s.seq++
	seq := s.seq
	if i := slices.IndexFunc(carried, func(c Carried) bool { return c.CID == cid }); i >= 0 {
		if sk, err := bots.ParseSkill(carried[i].Skill); err == nil {
			skill = sk
		}
		fill, seq = carried[i].Fill, uint64(i)+1
	}
	b := &Bot{CID: cid, Name: info.Name, Skill: skill, Fill: fill, seq: seq}
	s.by[cid] = b
	s.n++
	s.o.Rec.Join(cid, true)
	s.o.Rec.Bot(cid, int32(b.Skill))
	s.startNav()
	s.wake(b)
	return true
}

// nameUsed reports whether a player or bot is called name.
func (s *Slots) nameUsed(name string) bool {
	for cid := range world.MaxClients {
		if info, ok := s.w.Info(cid); ok && info.Name == name {
			return true
		}
		if b := s.by[cid]; b != nil && b.Name == name {
			return true
		}
	}
	return false
}

// freeName returns the first of bots.names nobody uses, else a numbered one.
func (s *Slots) freeName() string {
	for _, n := range s.o.Config.Bots.Names {
		if !s.nameUsed(n) {
			return n
		}
	}
	for i := 1; ; i++ {
		if n := fmt.Sprintf("bot %d", i); !s.nameUsed(n) {
			return n
		}
	}
}

// info is the bot's player in the world.
func (b *Bot) info() world.PlayerInfo {
	sk := botSkins[b.CID%len(botSkins)]
	return world.PlayerInfo{Bot: true, Name: b.Name, Country: -1,
		SkinPartNames: sk.PartNames, UseCustomColors: sk.UseCustomColors, SkinPartColors: sk.PartColors}
}

// ClientInfo returns the Sv_ClientInfo that tells clients of bot b.
func (s *Slots) ClientInfo(b *Bot) *gamemsg.SvClientInfo {
	return &gamemsg.SvClientInfo{ClientID: int32(b.CID), Team: int32(s.w.Team(b.CID)), Name: b.Name,
		Country: -1, Skin: botSkins[b.CID%len(botSkins)]}
}

// botSkins are the bots' looks (stock 0.7 skins), by slot.
var botSkins = [...]gamemsg.Skin{
	{PartNames: [6]string{"standard", "", "", "standard", "standard", "standard"}, UseCustomColors: [6]bool{true, false, false, true, true, false}, PartColors: [6]int32{1798004, 0, 0, 1799582, 1869630, 0}},
	{PartNames: [6]string{"kitty", "whisker", "", "standard", "standard", "negative"}, UseCustomColors: [6]bool{true, true, false, true, true, true}, PartColors: [6]int32{8681144, -8229413, 0, 7885547, 8868585, 9043712}},
	{PartNames: [6]string{"bear", "bear", "hair", "standard", "standard", "standard"}, UseCustomColors: [6]bool{true, true, false, true, true, false}, PartColors: [6]int32{1082745, -15634776, 0, 1082745, 1147174, 0}},
	{PartNames: [6]string{"koala", "twinbelly", "", "standard", "standard", "standard"}, UseCustomColors: [6]bool{true, true, false, true, true, false}, PartColors: [6]int32{184, -15397662, 0, 184, 9765959, 0}},
}

// enter puts bot b into the current world: recorded as a client's join
// (JOIN, PLAYER_BOT, its Cl_StartInfo, PLAYER_NAME, PLAYER_READY),
// announced to the humans.
func (s *Slots) enter(b *Bot) {
	s.o.Rec.Join(b.CID, true)
	s.o.Rec.Bot(b.CID, int32(b.Skill))
	s.o.Rec.BotInfo(b.CID, &gamemsg.ClStartInfo{Name: b.Name, Country: -1, Skin: botSkins[b.CID%len(botSkins)]})
	s.o.Rec.Ready(b.CID, b.Name)
	if err := s.w.AddPlayer(b.CID, b.info()); err != nil {
		s.o.Log.Warn().Err(err).Int("cid", b.CID).Msg("bots: bot could not join")
		s.by[b.CID] = nil
		s.n--
		return
	}
	b.has = false
	b.brain = nil
	s.wake(b)
	s.o.Host.SendAll(s.ClientInfo(b))
	s.o.Log.Info().Int("cid", b.CID).Str("name", b.Name).Str("skill", b.Skill.String()).
		Int("team", s.w.Team(b.CID)).Bool("bot", true).Msg("bot has entered the game")
	s.o.Events.Bot(b.CID, b.Name, b.Skill.String(), s.w.Team(b.CID))
	s.o.Host.Changed()
}

// wake gives bot b its brain once the map's graph is built (or its build
// failed: a brain without a graph plays on the collision map alone).
func (s *Slots) wake(b *Bot) {
	if nav := s.graph(); nav != nil || s.navOK {
		b.brain = bots.New(nav, b.CID, b.Skill, s.o.Seed^b.seq*0x9e3779b97f4a7c15)
	}
}

// remove takes bot b out of the game (nil: nothing).
func (s *Slots) remove(b *Bot, reason string) {
	if b == nil {
		return
	}
	s.o.Rec.Drop(b.CID, b.Name, true, reason)
	s.w.RemovePlayer(b.CID)
	s.by[b.CID] = nil
	s.n--
	s.o.Host.SendAll(&gamemsg.SvClientDrop{ClientID: int32(b.CID), Reason: reason})
	s.o.Log.Info().Int("cid", b.CID).Str("name", b.Name).Str("reason", reason).Bool("bot", true).Msg("bot left the game")
	s.o.Events.BotLeave(b.CID, b.Name, reason)
	s.o.Host.Changed()
}

// Status prints one line per bot for the console's status and players:
// "id=N addr=(bot) name='NAME' score=S skill=SKILL team=T".
func (s *Slots) Status(out func(string)) {
	for _, b := range s.by {
		if b != nil {
			out(fmt.Sprintf("id=%d addr=(bot) name='%s' score=%d skill=%s team=%d", b.CID, b.Name, s.w.Score(b.CID), b.Skill, s.w.Team(b.CID)))
		}
	}
}

// Handlers returns the console commands of the bots: bot_add, bot_remove,
// bots_fill.
func (s *Slots) Handlers() map[string]console.Handler {
	return map[string]console.Handler{
		"bot_add": func(_ console.Caller, a console.Args) error {
			sk := s.defaultSkill()
			name := strings.TrimSpace(a.Str(1))
			if a.N() > 0 {
				var err error
				if sk, err = bots.ParseSkill(a.Str(0)); err != nil {
					// one word that is no skill: the name
					sk, name = s.defaultSkill(), strings.TrimSpace(a.Str(0)+" "+a.Str(1))
				}
			}
			b, err := s.Add(sk, name, false)
			if err != nil {
				s.o.Host.Out("bot_add: " + err.Error())
				return nil
			}
			s.o.Host.Out(fmt.Sprintf("added bot '%s' (%s) as client %d", b.Name, b.Skill, b.CID))
			return nil
		},
		"bot_remove": func(_ console.Caller, a console.Args) error {
			name := a.Str(0)
			n, fill := 0, false
			for _, b := range s.by {
				if b != nil && (name == config.AllBots || b.Name == name) {
					fill = fill || b.Fill
					s.remove(b, "removed by console")
					n++
				}
			}
			if name == config.AllBots {
				s.fill = 0 // otherwise they come straight back
			}
			plural := "s"
			if n == 1 {
				plural = ""
			}
			line := fmt.Sprintf("removed %d bot%s", n, plural)
			if fill && s.fill > 0 {
				// the page's remove button runs this line: say why a bot comes back
				line += fmt.Sprintf(" (a fill bot: bots fill the game to %d participants again; bots_fill N sets how many)", s.fill)
			}
			s.o.Host.Out(line)
			return nil
		},
		"bots_fill": func(_ console.Caller, a console.Args) error {
			s.fill = min(max(a.Int(0), 0), config.MaxClientsLimit)
			s.o.Host.Out(fmt.Sprintf("bots fill the game to %d participants", s.fill))
			return nil
		},
	}
}
