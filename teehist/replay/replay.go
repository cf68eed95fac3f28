package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
	"twserver/worldstate"
)

// Divergence is the first difference between a recorded and a simulated
// character: a character that exists in one but not the other, or a
// different position.
type Divergence struct {
	Tick                   int32
	CID                    int
	RecAlive, SimAlive     bool
	RecX, RecY, SimX, SimY int32
	// Team is set for a team difference (PLAYER_TEAM) instead of a position.
	Team             bool
	RecTeam, SimTeam int32
	// State is set for a checkpoint (CHECKPOINT) that differs from the
	// simulated world's state: where the two first differ.
	State string
}

// String describes d: tick, client id, recorded and simulated position
// ("none" for no character) or team.
func (d *Divergence) String() string {
	if d.State != "" {
		return fmt.Sprintf("tick %d: the checkpoint differs from the simulated world: %s", d.Tick, d.State)
	}
	if d.Team {
		return fmt.Sprintf("tick %d cid %d: recorded team %d, simulated team %d", d.Tick, d.CID, d.RecTeam, d.SimTeam)
	}
	f := func(alive bool, x, y int32) string {
		if !alive {
			return "none"
		}
		return fmt.Sprintf("(%d,%d)", x, y)
	}
	return fmt.Sprintf("tick %d cid %d: recorded %s, simulated %s", d.Tick, d.CID,
		f(d.RecAlive, d.RecX, d.RecY), f(d.SimAlive, d.SimX, d.SimY))
}

// Result summarises a replay.
type Result struct {
	Ticks    int32 // last simulated tick
	Compared int   // character positions compared
	Finished bool  // the file ended with FINISH
	// Checkpoints counts the checkpoints (CHECKPOINT) found equal to the
	// simulated world.
	Checkpoints int
	Truncated   bool        // the file ends inside a message (what came before was replayed)
	Divergence  *Divergence // first divergence, nil if none
	// Ignored lists console commands without an effect on the simulation
	// that the replay skipped (name and count): at most MaxIgnored names,
	// later ones are counted under IgnoredOther.
	Ignored map[string]int
}

// MaxIgnored bounds the distinct command names in Result.Ignored, so a file
// full of made-up commands cannot grow it without end.
const MaxIgnored = 64

// IgnoredOther is the Result.Ignored key counting commands beyond MaxIgnored names.
const IgnoredOther = "(other)"

// ErrMapMismatch is returned when the map does not match the recorded SHA-256.
var ErrMapMismatch = errors.New("replay: map does not match the recording")

// ErrNotReplayable is returned for a file the replay cannot reproduce
// (foreign server, unknown seed or non-default tuning).
var ErrNotReplayable = errors.New("replay: recording is not replayable")

// conn is the replay's state of one client id.
type conn struct {
	ingame    bool
	name      string
	info      world.PlayerInfo // clan, country and skin of the start info (name: name)
	lastSkin  int32            // tick of the last accepted info change (0: none)
	lastEmote int32            // tick of the last emoticon (0: none)
	hasInput  bool
	input     teehist.Input
	missing   bool
	hasDirect bool
	direct    teehist.Input
}

// MaxTicks bounds the ticks a replay simulates (about 93 hours of game);
// a file asking for more is rejected with ErrTooLong.
const MaxTicks = 1 << 24

// ErrTooLong is returned for a file whose ticks exceed the replay's bound.
var ErrTooLong = errors.New("replay: recording longer than the replay bound")

// The replay's work is bounded by the size of the file: the ticks it
// simulates up to a message at offset B of the file are at most
// TicksPerByte×B + FreeTicks, so a small crafted file cannot ask for
// hours of simulation (a TICK_SKIP of millions of ticks costs a few
// bytes). Ticks an idle world skips (SetSkipIdle) are free. The recordings
// in the repository's testdata and captured vectors hold at most 0.21
// ticks per byte (a DDNet server's dm1 file; twserver's own: 0.04), 19
// times less than TicksPerByte. A simulated tick costs about 2-3 µs with
// few players (more with many), so a 1 MB file may cost about 10 s.
const (
	// TicksPerByte is the simulated ticks a recording's byte pays for.
	TicksPerByte = 4
	// FreeTicks is the ticks every recording may simulate whatever its
	// size: an hour of game (a player idle as spectator for that long
	// writes next to nothing).
	FreeTicks = 60 * 60 * 50
	// CheckEvery is how many simulated ticks pass between two looks at
	// the context of Run.
	CheckEvery = 1024
)

// ErrBudget is returned for a file that asks for more simulated ticks than
// its size pays for (TicksPerByte, FreeTicks).
var ErrBudget = errors.New("replay: recording asks for more ticks than its size allows")

// Engine replays one file. Create it with New, then feed messages in order.
type Engine struct {
	maxTicks  int32
	w         *world.World
	settings  Settings
	pos       Positions
	rec       teehist.RecordedPositions // the file's positions, compared with pos
	c         [teehist.MaxClients]conn
	res       Result
	up        netproto.Unpacker
	obs       Observer
	acceptCut bool              // a message cut short ends the file (WriteDemo) instead of failing it (Run)
	fields    []teehist.ExField // AppendEx scratch
	// snapSkipped: the coming tick is a snapshot tick the server skipped (SNAP_SKIPPED)
	snapSkipped bool
	m           *twmap.Map
	seed        uint64
	start       time.Time // the recording's start time
	// serverMsgs: the file records the messages the server sent to
	// everybody (SERVER_MESSAGE); the replay takes chat, emoticons, skin
	// changes, votes and broadcasts from them instead of deriving them
	serverMsgs bool
	state      []byte          // the parts of a WORLD_STATE read so far
	ckpt       checkpoint      // the CHECKPOINT being read or checked
	ctx        context.Context // the context of the running Run (nil: none)
	// stepped counts the simulated ticks (against the budget of
	// TicksPerByte and FreeTicks); skipIdle lets idle stretches be skipped
	err      error // why the replay stopped early (budget, context)
	stepped  int64
	skipIdle bool
}

// Observer sees the game as the server's recorders saw it live: the
// snapshot point of every tick, the world events, the messages sent to
// everybody that the file lets the replay know (its SERVER_MESSAGE records:
// chat, emoticons, votes, broadcasts; in older files, server chat and
// broadcasts of the console and emoticons), and players entering and leaving. Demo
// writers (demo.Game) implement it. Its methods are called from Feed.
type Observer interface {
	// AfterTick is called after every simulated tick, where the server
	// takes its demo snapshot (before the tick's events are drained);
	// snapshot reports a snapshot tick (every tick at 50 snapshots per
	// second, else the even ones).
	AfterTick(w *world.World, snapshot bool)
	// Event is called with every world event, drained as the server drains them.
	Event(e world.Event)
	// Message is called with a message the server sent to everybody.
	Message(m gamemsg.Message)
	// Enter is called when client cid entered the game.
	Enter(cid int)
	// Leave is called when client cid, in the game, leaves it.
	Leave(cid int, name, reason string)
}

// SetObserver installs o (nil: none); call it before the first Feed.
func (e *Engine) SetObserver(o Observer) { e.obs = o }

// Server rate limits the replay applies in ticks to files without
// SERVER_MESSAGE records (the server's are in wall time; the tick clock is
// the replay's only clock, so a loop running late can make the two
// disagree). Files with them carry the emoticons and skin changes the
// server accepted, and the replay applies those as they are.
const (
	// InfoChangeTicks is the server's 5 s between two skin or info changes.
	InfoChangeTicks = 5 * 50
	// EmoteTicks is the server's 3 s between two emoticons of a player.
	EmoteTicks = 3 * 50
	// MaxChatLen is the longest server chat line kept, in bytes.
	MaxChatLen = 127
)

// New creates a world from the header's map, settings and seed. m must be
// the recorded map (checked by SHA-256).
func New(h *teehist.Header, m *twmap.Map) (*Engine, error) {
	if m.SHA256 != h.MapSHA256 || m.Name != h.MapName {
		return nil, fmt.Errorf("%w: have %s %x, recorded %s %x", ErrMapMismatch, m.Name, m.SHA256[:4], h.MapName, h.MapSHA256[:4])
	}
	seed, err := ParseSeed(h.PrngDescription)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotReplayable, err)
	}
	s, err := ParseSettings(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotReplayable, err)
	}
	w, err := world.New(m, s.World, seed)
	if err != nil {
		return nil, err
	}
	e := &Engine{w: w, settings: s, res: Result{Ignored: map[string]int{}}, maxTicks: MaxTicks, m: m, seed: seed, start: h.StartTime}
	e.serverMsgs = slices.Contains(h.UUIDs, teehist.ExTable[teehist.ExServerMsg].Name)
	return e, nil
}

// SetSkipIdle makes the replay skip the ticks of an idle world
// (world.IdleTicks: no player, nothing pending) at once, as the server's
// sleeping loop does, without calling the observer's AfterTick for them.
// The world ends up exactly as if those ticks were simulated; use it when
// the observer needs the events only (an index), not every tick (a demo).
func (e *Engine) SetSkipIdle(on bool) { e.skipIdle = on }

// World returns the simulated world.
func (e *Engine) World() *world.World { return e.w }

// Run reads every message of r (after its header) and replays it, skipping
// idle stretches (SetSkipIdle). It stops at the first divergence; the error
// is non-nil only for unreadable input or a file over its budget (ErrBudget).
func Run(r *teehist.Reader, h *teehist.Header, m *twmap.Map) (*Result, error) {
	e, err := New(h, m)
	if err != nil {
		return nil, err
	}
	e.SetSkipIdle(true)
	return e.Run(context.Background(), r)
}

// Run feeds every remaining message of r to e (see the package function
// Run); it stops with ctx's error when ctx ends, also inside a long stretch
// of ticks (every CheckEvery simulated ticks).
func (e *Engine) Run(ctx context.Context, r *teehist.Reader) (*Result, error) {
	e.ctx = ctx
	defer func() { e.ctx = nil }()
	var msg teehist.Message
	for {
		ok, err := e.read(r, &msg)
		if err != nil {
			return e.Result(), err
		}
		if !ok {
			break
		}
		if e.Feed(&msg) {
			return e.Result(), e.err
		}
	}
	e.compare()
	return e.Result(), nil
}

// Err returns why Feed stopped the replay other than a divergence: the file
// went over its budget (ErrBudget) or the context of Run ended.
func (e *Engine) Err() error { return e.err }

// spend charges one simulated tick to the budget of a file read up to
// offset, and looks at the context every CheckEvery ticks; false (and
// e.err set) stops the replay.
func (e *Engine) spend(offset int64) bool {
	if e.stepped >= TicksPerByte*max(offset, 0)+FreeTicks {
		e.err = fmt.Errorf("%w: %d ticks simulated by tick %d at offset %d (%d per byte and %d free)",
			ErrBudget, e.stepped, e.w.CurrentTick(), offset, TicksPerByte, FreeTicks)
		return false
	}
	e.stepped++
	if e.ctx != nil && e.stepped%CheckEvery == 0 {
		if err := e.ctx.Err(); err != nil {
			e.err = err
			return false
		}
	}
	return true
}

// skip skips the idle ticks before tick at once (SetSkipIdle), right after
// a simulated tick, so nothing is pending: no event to drain, no position
// changed since Positions.Update, no skipped snapshot.
func (e *Engine) skip(tick int32) {
	if !e.skipIdle || e.snapSkipped {
		return
	}
	if n := min(e.w.IdleTicks(), tick-1-e.w.CurrentTick()); n > 0 {
		e.w.SkipIdle(n)
	}
}

// read reads the next message into msg; it reports false at the end of the
// file, which for a file without FINISH (a killed server, a full disk) is
// the end of its last whole message (Result.Truncated; with acceptCut also
// when the file ends inside a message).
func (e *Engine) read(r *teehist.Reader, msg *teehist.Message) (bool, error) {
	err := r.Next(msg)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		var te *teehist.Error
		if errors.As(err, &te) && (errors.Is(err, io.ErrUnexpectedEOF) || e.acceptCut && errors.Is(err, teehist.ErrTruncated)) {
			e.res.Truncated = true
			return false, nil
		}
		return false, err
	}
	if msg.Tick > e.maxTicks || msg.Tick < 0 {
		return false, fmt.Errorf("%w: tick %d at offset %d", ErrTooLong, msg.Tick, msg.Offset)
	}
	return true, nil
}

// Result returns the result so far.
func (e *Engine) Result() *Result {
	e.res.Ticks = e.w.CurrentTick()
	return &e.res
}

// Feed applies one message (as Reader.Next returns them; client ids out of
// range are ignored). It reports true once a divergence was found or the
// replay had to stop (Err: over the file's budget, context ended).
func (e *Engine) Feed(m *teehist.Message) bool {
	if e.res.Divergence != nil || e.err != nil {
		return true
	}
	for e.w.CurrentTick() < m.Tick {
		if e.compare() {
			return true
		}
		if !e.spend(m.Offset) {
			return true
		}
		e.step()
		e.skip(m.Tick)
	}
	cid := int(m.CID)
	var c *conn
	if cid >= 0 && cid < teehist.MaxClients {
		c = &e.c[cid]
	}
	if e.rec.Apply(m) {
		return false
	}
	switch m.Kind {
	case teehist.KindInputNew:
		if c != nil {
			c.input, c.hasInput = m.Input, true
		}
	case teehist.KindInputDiff:
		if c != nil {
			for i := range c.input {
				c.input[i] += m.Input[i]
			}
		}
	case teehist.KindJoin:
		if c != nil {
			c.info = world.PlayerInfo{} // a new client: nothing of the slot's last one (a bot's mark)
			c.hasInput, c.hasDirect, c.missing = false, false, false
		}
	case teehist.KindDrop:
		if c != nil {
			if c.ingame {
				if e.obs != nil {
					e.obs.Leave(cid, c.name, m.Reason)
				}
				e.w.RemovePlayer(cid)
			}
			c.ingame, c.hasInput, c.hasDirect, c.missing = false, false, false, false
		}
	case teehist.KindMessage:
		if c != nil {
			e.message(cid, c, m.Data)
		}
	case teehist.KindConsoleCommand:
		e.command(m.Cmd, m.Args)
	case teehist.KindEx:
		e.ex(m)
	case teehist.KindFinish:
		e.res.Finished = true
		return e.compare()
	}
	return false
}

func (e *Engine) ex(m *teehist.Message) {
	if m.Ex == teehist.ExServerMsg {
		e.serverMsg(m.Data)
		return
	}
	if m.Ex == teehist.ExWorldState {
		e.worldState(m.Data)
		return
	}
	if m.Ex == teehist.ExCheckpoint {
		e.checkpointPart(m.Data)
		return
	}
	f, err := teehist.AppendEx(e.fields[:0], m.Ex, m.Data)
	e.fields = f[:0]
	if err != nil || len(f) == 0 || f[0].Type != 'i' {
		return
	}
	if m.Ex == teehist.ExSnapSkipped {
		e.snapSkipped = f[0].Int == e.w.CurrentTick()+1
		return
	}
	cid := int(f[0].Int)
	if cid < 0 || cid >= teehist.MaxClients {
		return
	}
	c := &e.c[cid]
	switch m.Ex {
	case teehist.ExPlayerName:
		c.name = f[1].Str
		if c.ingame { // a 0.6 player's rename
			c.info.Name = c.name
			e.w.SetPlayerInfo(cid, c.info)
		}
	case teehist.ExPlayerBot:
		c.info = world.PlayerInfo{Bot: true, Country: -1}
	case teehist.ExPlayerReady:
		c.info.Name = c.name
		c.ingame = e.w.AddPlayer(cid, c.info) == nil
		if c.ingame && e.obs != nil {
			e.obs.Enter(cid)
		}
		e.drain() // the server sends the events of AddPlayer at once
	case teehist.ExInputMissing:
		c.missing = true
	case teehist.ExLatency:
		if len(f) == 2 {
			e.w.SetPendingLatency(cid, f[1].Int)
		}
	case teehist.ExAuthLogin, teehist.ExAuthInit:
		e.w.SetAuthed(cid, true) // authed players are exempt from inactivity handling
	case teehist.ExAuthLogout:
		e.w.SetAuthed(cid, false)
	case teehist.ExPlayerTeam:
		// recorded right after the tick's positions: check the simulated team
		if len(f) == 2 && e.res.Divergence == nil && (!e.w.HasPlayer(cid) || e.w.Team(cid) != int(f[1].Int)) {
			e.res.Divergence = &Divergence{Tick: e.w.CurrentTick(), CID: cid, Team: true,
				RecTeam: f[1].Int, SimTeam: int32(e.w.Team(cid))}
		}
	case teehist.ExDirectInput:
		var v teehist.Input
		for i := range v {
			v[i] = f[1+i].Int
			if c.hasDirect {
				v[i] += c.direct[i]
			}
		}
		c.direct, c.hasDirect = v, true
		if in, err := world.DecodeInput(v[:]); err == nil {
			e.w.DirectInput(cid, in)
		}
	}
}

// worldState gathers the parts of a world state the game went on from (a
// live upgrade's) and, at the last, reads it into the world, whose players
// are then in the game.
func (e *Engine) worldState(part []byte) {
	if len(e.state)+len(part) > worldstate.MaxState {
		e.err = fmt.Errorf("%w: a world state larger than %d bytes", ErrNotReplayable, worldstate.MaxState)
		return
	}
	e.state = append(e.state, part...)
	if len(part) == teehist.WorldStatePart {
		return
	}
	if err := worldstate.Read(e.w, e.state); err != nil {
		e.err = fmt.Errorf("%w: %v", ErrNotReplayable, err)
		return
	}
	e.state = nil
	e.adoptPlayers()
}

// adoptPlayers makes the players of a world state read into the world
// those of the replay, in the game.
func (e *Engine) adoptPlayers() {
	for cid := range e.c {
		if info, ok := e.w.Info(cid); ok {
			e.c[cid].ingame, e.c[cid].name, e.c[cid].info = true, info.Name, info
		}
	}
}

// decode decodes a recorded game message (0.7 form, header included).
func (e *Engine) decode(data []byte) (gamemsg.Message, bool) {
	id, sys, n, err := netproto.ParseMsgHeader(data)
	if err != nil || sys {
		return nil, false
	}
	e.up.Reset(data[n:])
	msg, err := gamemsg.Decode(id, decoder{&e.up})
	return msg, err == nil
}

// serverMsg applies a message the server sent to everybody
// (SERVER_MESSAGE): a skin change goes to the world (the demo snapshots'
// De_ClientInfo), every other message to the observer.
func (e *Engine) serverMsg(data []byte) {
	if !e.serverMsgs {
		return // a file that does not register it: its messages are derived
	}
	msg, ok := e.decode(data)
	if !ok {
		return
	}
	if sc, ok := msg.(*gamemsg.SvSkinChange); ok {
		cid := int(sc.ClientID)
		if cid < 0 || cid >= teehist.MaxClients || !e.c[cid].ingame {
			return
		}
		c := &e.c[cid]
		c.info.SkinPartNames, c.info.UseCustomColors, c.info.SkinPartColors = sc.Skin.PartNames, sc.Skin.UseCustomColors, sc.Skin.PartColors
		e.w.SetPlayerInfo(cid, c.info)
		return
	}
	if e.obs != nil {
		e.obs.Message(msg)
	}
}

// message applies a recorded game message the way the server does.
func (e *Engine) message(cid int, c *conn, data []byte) {
	msg, ok := e.decode(data)
	if !ok {
		return
	}
	tick := e.w.CurrentTick()
	if st, ok := msg.(*gamemsg.ClStartInfo); ok {
		if !c.ingame { // the server takes the first start info (before the player enters)
			c.info = world.PlayerInfo{Bot: c.info.Bot, Clan: gamemsg.TruncUTF8(st.Clan, 11), Country: st.Country,
				SkinPartNames: st.Skin.PartNames, UseCustomColors: st.Skin.UseCustomColors, SkinPartColors: st.Skin.PartColors}
			c.lastSkin = tick
		}
		return
	}
	if !c.ingame {
		return
	}
	switch m := msg.(type) {
	case *gamemsg.ClSkinChange:
		if e.serverMsgs {
			return // the skin changes the server accepted are SERVER_MESSAGEs
		}
		if c.lastSkin != 0 && tick-c.lastSkin < InfoChangeTicks {
			return
		}
		c.lastSkin = tick
		c.info.SkinPartNames, c.info.UseCustomColors, c.info.SkinPartColors = m.Skin.PartNames, m.Skin.UseCustomColors, m.Skin.PartColors
		e.w.SetPlayerInfo(cid, c.info)
	case *gamemsg.ClEmoticon:
		if e.serverMsgs {
			return // the emoticons the server sent are SERVER_MESSAGEs
		}
		if c.lastEmote != 0 && tick-c.lastEmote < EmoteTicks {
			return
		}
		c.lastEmote = tick
		if e.obs != nil {
			e.obs.Message(&gamemsg.SvEmoticon{ClientID: int32(cid), Emoticon: m.Emoticon})
		}
	case *gamemsg.ClSetTeam:
		e.w.SetTeam(cid, int(m.Team))
	case *gamemsg.ClSetSpectatorMode:
		e.w.SetSpectatorMode(cid, int(m.SpecMode), int(m.SpectatorID))
	case *gamemsg.ClKill:
		e.w.Kill(cid)
	case *gamemsg.ClReadyChange:
		e.w.ReadyChange(cid)
	}
}

// CmdSetTeam is the console command that moves a player: args client id,
// team and an optional delay in minutes before the player may change team
// again (a passed spectator vote runs it with sv_vote_spectate_rejoindelay).
const CmdSetTeam = "set_team"

// command applies a recorded console command that changes the world (and
// the settings of Settings.ApplySetting), with the server's argument rules (arguments as recorded, integers read with
// IntArg, the reference's clamps in the world). Commands that only affect
// the network side, or whose effect is recorded otherwise (kick and ban:
// DROP; reload and map changes: a new file; tune and tune_reset: the
// reference's game types are pure, the tuning never changes), are counted
// in Result.Ignored.
func (e *Engine) command(cmd string, args []string) {
	arg := func(i int) int {
		if i < len(args) {
			return IntArg(args[i])
		}
		return 0
	}
	switch cmd {
	case "restart":
		e.w.Restart(arg(0))
	case "pause":
		if len(args) == 0 {
			e.w.TogglePause()
		} else {
			e.w.Pause(arg(0))
		}
	case CmdSetTeam:
		if len(args) < 2 {
			return
		}
		e.w.ForceTeamDelay(min(max(arg(0), 0), world.MaxClients-1), arg(1), arg(2))
	case "set_team_all":
		if len(args) < 1 {
			return
		}
		e.w.SetTeamAll(arg(0))
	case "say", "broadcast": // no effect on the world (counted in Ignored), a message for the demo
		if e.obs != nil && len(args) > 0 && !e.serverMsgs { // else: SERVER_MESSAGE
			if cmd == "say" {
				e.obs.Message(&gamemsg.SvChat{Mode: 1, ClientID: -1, TargetID: -1, Message: gamemsg.TruncUTF8(args[0], MaxChatLen)})
			} else {
				e.obs.Message(&gamemsg.SvBroadcast{Message: args[0]})
			}
		}
		e.ignore(cmd)
	case "swap_teams":
		e.w.SwapTeams()
	case "shuffle_teams":
		e.w.ShuffleTeams()
	case "lock_teams":
		e.w.LockTeams(!e.w.TeamsLocked())
	case "force_teambalance":
		e.w.ForceTeamBalance()
	default:
		if len(args) > 0 && e.settings.ApplySetting(cmd, args[0]) {
			e.w.SetRules(e.settings.World) // a game rule or the snapshot rate changed on the console
			return
		}
		e.ignore(cmd)
	}
}

// ignore counts a command without effect on the world in Result.Ignored.
func (e *Engine) ignore(cmd string) {
	if _, ok := e.res.Ignored[cmd]; !ok && len(e.res.Ignored) >= MaxIgnored {
		cmd = IgnoredOther
	}
	e.res.Ignored[cmd]++
}

// step runs one tick like the server's loop: the predicted inputs, Tick,
// positions, and PostSnap on snapshot ticks.
func (e *Engine) step() {
	for cid := range e.c {
		c := &e.c[cid]
		if c.ingame && c.hasInput && !c.missing {
			if in, err := world.DecodeInput(c.input[:]); err == nil {
				e.w.SetInput(cid, in)
			}
		}
		c.missing = false
	}
	if e.ckpt.ready {
		e.checkpoint() // as the recorder saw the world: after the inputs, before the tick
	}
	e.w.Tick()
	e.pos.Update(e.w)
	snapTick := e.settings.SnapshotRate == 50 || e.w.CurrentTick()%2 == 0
	if e.obs != nil {
		e.obs.AfterTick(e.w, snapTick)
	}
	e.drain()
	if snapTick && !e.snapSkipped {
		e.w.PostSnap()
	}
	e.snapSkipped = false
}

// drain hands the world's pending events to the observer.
func (e *Engine) drain() {
	if e.obs == nil {
		e.w.DrainEvents(func(world.Event) {})
		return
	}
	e.w.DrainEvents(e.obs.Event)
}

// compare checks the recorded positions of the current tick against the
// simulation and records the first divergence.
func (e *Engine) compare() bool {
	if e.w.CurrentTick() == 0 {
		return false
	}
	for cid := range e.c {
		x, y, alive := e.pos.Get(cid)
		rx, ry, recAlive := e.rec.Get(cid)
		if alive != recAlive || alive && (x != rx || y != ry) {
			e.res.Divergence = &Divergence{Tick: e.w.CurrentTick(), CID: cid,
				RecAlive: recAlive, RecX: rx, RecY: ry, SimAlive: alive, SimX: x, SimY: y}
			return true
		}
		if alive {
			e.res.Compared++
		}
	}
	return false
}

// decoder adapts netproto.Unpacker to gamemsg.Reader.
type decoder struct{ u *netproto.Unpacker }

func (d decoder) GetInt() int32     { return d.u.GetInt() }
func (d decoder) GetString() string { return d.u.GetString() }
func (d decoder) Err() error        { return d.u.Err() }

// IntArg reads a console integer argument as the reference does (C atoi:
// leading blanks, an optional sign, then the leading digits; 0 when there
// are none), saturated to the int32 range. The server reads its console
// arguments with it and records them as given, so the replay reads them the
// same way.
func IntArg(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	v := int64(0)
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = min(v*10+int64(s[i]-'0'), math.MaxInt32+1)
	}
	if neg {
		v = -v
	}
	return int(min(max(v, math.MinInt32), math.MaxInt32))
}
