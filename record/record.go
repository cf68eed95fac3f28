package record

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
	"twserver/world/twmap"
	"twserver/worldstate"
)

// Recording bounds.
const (
	// MaxPending bounds the encoded ticks kept in memory while the
	// writer's queue is full; beyond it the game's recording stops. It is
	// the writer's largest chunk, so the backlog always fits one Submit.
	MaxPending = teehist.MaxChunkSize
	// CloseWait bounds how long Stop waits for recordings to be written.
	CloseWait = 5 * time.Second
)

// CreateFunc creates a recording file and starts its writer goroutine
// (teehist.CreateFile; tests pass a sink that fails like a full disk).
type CreateFunc func(path string, o teehist.FileOptions) (*teehist.FileWriter, error)

// Options configure a Recorder.
type Options struct {
	// Config is the loop's live configuration, read at each call (the
	// loop may replace its value between calls; [record] is read when a
	// game starts, server.snapshot_rate at every tick).
	Config *config.Config
	// Log receives one line per file started, stopped or pruned.
	Log zerolog.Logger
	// Create creates the recording files; nil is teehist.CreateFile.
	Create CreateFunc
	// ServerVersion is the server_version written in teehistorian headers.
	ServerVersion string
}

// Game is the game a recording covers: one World from map load to the
// next map load or shutdown.
type Game struct {
	World *world.World
	Map   *twmap.Map
	// Seed is the world's seed (the teehistorian's prng_description).
	Seed uint64
}

// Stats are the recording counters; read with atomic loads.
type Stats struct {
	// Files counts recording files started.
	Files atomic.Uint64
	// Stopped counts games whose recording stopped early (disk full, size cap, backlog).
	Stopped atomic.Uint64
	// Pruned counts old recordings deleted for record.max_dir_mb.
	Pruned atomic.Uint64
	// Bytes counts teehistorian bytes handed to the writer.
	Bytes atomic.Uint64
}

// Recorder records the games of one server. All methods but Counters are
// called from the loop goroutine.
type Recorder struct {
	cfg    *config.Config
	log    zerolog.Logger
	create CreateFunc
	vers   string
	stats  Stats
	game   Game

	clipping atomic.Bool   // a demo_clip goroutine runs
	clipDone chan struct{} // closed when the last clip goroutine ended

	enc      *teehist.Encoder
	file     *teehist.FileWriter
	path     string
	id       teehist.UUID
	prevID   teehist.UUID
	hdr      *teehist.Header // the current teehistorian's header
	hdrLen   int             // its encoded length (nothing else encoded yet while the encoder holds just that)
	stopped  bool
	produced int64
	pending  []byte
	conns    [world.MaxClients]uint32
	nextConn uint32
	teams    [world.MaxClients]int8 // last recorded team + 2 (0 = none recorded)
	pos      replay.Positions
	closing  []*teehist.FileWriter
	busy     busyFiles       // files written or being closed (Busy)
	pk       netproto.Packer // GameMessage's encoding
	ckpt     worldstate.Writer
	state    []byte // the last checkpoint's state (reused)

	demo demoRecorder
}

// New returns a recorder that records nothing until GameStart.
func New(o Options) *Recorder {
	r := &Recorder{cfg: o.Config, log: o.Log, create: o.Create, vers: o.ServerVersion}
	if r.create == nil {
		r.create = teehist.CreateFile
	}
	return r
}

// Counters returns the recording counters by name. Safe from any goroutine.
func (r *Recorder) Counters() map[string]uint64 {
	st := &r.stats
	return map[string]uint64{
		"record_files":   st.Files.Load(),
		"record_stopped": st.Stopped.Load(),
		"record_pruned":  st.Pruned.Load(),
		"record_bytes":   st.Bytes.Load(),
	}
}

// Status is what a recorder is writing, for tests and the console.
type Status struct {
	// TeehistPath and DemoPath are the files being written ("" if none).
	TeehistPath, DemoPath string
	// TeehistBytes and DemoBytes count the bytes encoded into them.
	TeehistBytes, DemoBytes int64
	// TeehistActive and DemoActive report whether they are still recording.
	TeehistActive, DemoActive bool
}

// Status returns what the recorder is writing.
func (r *Recorder) Status() Status {
	return Status{TeehistPath: r.path, DemoPath: r.demo.path, TeehistBytes: r.produced, DemoBytes: r.demo.produced,
		TeehistActive: r.Active(), DemoActive: r.demo.active()}
}

// GameStart ends the previous game's recordings and starts new ones for g,
// the world just created. The loop then calls Join for every client
// already connected.
func (r *Recorder) GameStart(g Game) {
	r.gameEnd()
	r.game = g
	rc := &r.cfg.Record
	if !rc.Teehistorian && !rc.Demo {
		return
	}
	if err := os.MkdirAll(rc.Dir, 0o755); err != nil {
		r.log.Error().Err(err).Str("dir", rc.Dir).Msg("recording disabled: cannot create directory")
		return
	}
	r.prune()
	if rc.Teehistorian {
		r.thStart()
	}
	if rc.Demo {
		_ = r.demoStart("")
	}
}

func (r *Recorder) thStart() {
	id, err := teehist.RandomUUID(rand.Reader)
	if err != nil {
		r.log.Error().Err(err).Msg("teehistorian: no game uuid")
		return
	}
	path := filepath.Join(r.cfg.Record.Dir, id.String()+".teehistorian")
	f, err := r.create(path, teehist.FileOptions{OnError: func(err error) {
		r.log.Error().Err(err).Str("file", path).Msg("teehistorian write failed; recording of this game stopped")
	}})
	if err != nil {
		r.log.Error().Err(err).Str("file", path).Msg("teehistorian not recorded")
		return
	}
	if r.enc == nil {
		r.enc = teehist.NewEncoder()
	}
	r.enc.Reset()
	r.busy.set(path, f.Done())
	r.file, r.path, r.id, r.stopped, r.produced = f, path, id, false, 0
	r.pending = r.pending[:0]
	r.pos = replay.Positions{}
	r.teams = [world.MaxClients]int8{}
	w, m := r.game.World, r.game.Map
	h := &teehist.Header{
		VersionMinor:    teehist.VersionMinor,
		GameUUID:        id,
		PrevGameUUID:    r.prevID,
		ServerVersion:   r.vers,
		StartTime:       time.Now(),
		ServerName:      r.cfg.Server.Name,
		ServerPort:      r.cfg.Server.Port,
		GameType:        w.GameTypeName(),
		MapName:         m.Name,
		MapSize:         m.Size,
		MapSHA256:       m.SHA256,
		MapCRC:          m.CRC,
		PrngDescription: replay.PrngDescription(r.game.Seed),
		Config: replay.ConfigKVs(replay.Settings{World: w.Config(), SnapshotRate: r.cfg.Server.SnapshotRate},
			teehist.KV{Key: "sv_name", Value: r.cfg.Server.Name}),
		Tuning: replay.TuningKVs(w.Tuning()),
		UUIDs:  teehist.DefaultUUIDs(),
	}
	r.enc.WriteHeader(h)
	r.hdr, r.hdrLen = h, len(r.enc.Bytes())
	r.stats.Files.Add(1)
	r.log.Info().Str("file", path).Msg("teehistorian recording started")
}

// GoOn records that the current game goes on from the world state state
// (package worldstate: a live upgrade's world, read into the game's World
// after GameStart, before its first tick), which the replay reads too.
// prev, when not zero, is the game it goes on from (the old process's
// teehistorian): the header names it in prev_game_uuid, so the two files
// chain.
func (r *Recorder) GoOn(prev teehist.UUID, state []byte) {
	if r.Active() && prev != (teehist.UUID{}) && len(r.enc.Bytes()) == r.hdrLen { // the header is all there is yet: write it again naming prev
		r.hdr.PrevGameUUID = prev
		r.enc.Reset()
		r.enc.WriteHeader(r.hdr)
	}
	for r.Active() {
		n := min(len(state), teehist.WorldStatePart)
		r.enc.RecordEx(teehist.ExTable[teehist.ExWorldState].UUID, state[:n])
		if state = state[n:]; n < teehist.WorldStatePart {
			return
		}
	}
}

// GameID returns the game UUID of the teehistorian being recorded (zero
// when none is).
func (r *Recorder) GameID() teehist.UUID {
	if !r.Active() {
		return teehist.UUID{}
	}
	return r.id
}

// Active reports whether the teehistorian of the current game is recording.
func (r *Recorder) Active() bool { return r.file != nil && !r.stopped }

// gameEnd writes FINISH and hands the files to their writers to close.
func (r *Recorder) gameEnd() {
	if r.file != nil {
		if !r.stopped {
			r.enc.Finish()
			r.thCommit()
		}
		// keep only writers still closing (a long-running server changes maps often)
		open := r.closing[:0]
		for _, f := range r.closing {
			select {
			case <-f.Done():
			default:
				open = append(open, f)
			}
		}
		r.closing = append(open, r.file)
		go func(f *teehist.FileWriter) { _ = f.Close() }(r.file)
		r.prevID = r.id
		r.file, r.path = nil, ""
	}
	r.demoEnd()
}

// Stop ends the recordings at shutdown and waits (at most CloseWait)
// until they are written and synced.
func (r *Recorder) Stop() {
	r.gameEnd()
	deadline := time.After(CloseWait)
	for _, f := range r.closing {
		select {
		case <-f.Done():
		case <-deadline:
			r.log.Warn().Msg("recordings not completely written at shutdown")
			return
		}
	}
	r.closing = nil
	r.demoWait(deadline)
	if r.clipDone != nil {
		select {
		case <-r.clipDone:
		case <-deadline:
			r.log.Warn().Msg("demo clip not completely written at shutdown")
		}
	}
}

// thStop stops the current game's teehistorian with one log line.
func (r *Recorder) thStop(why string, finish bool) {
	if finish {
		r.enc.Finish()
		r.thCommit()
	}
	r.stopped = true
	r.enc.Reset()
	r.pending = r.pending[:0]
	r.stats.Stopped.Add(1)
	r.log.Error().Str("file", r.path).Str("reason", why).Msg("teehistorian recording of this game stopped; the game goes on")
}

// thCommit hands the encoded whole ticks to the writer without blocking.
func (r *Recorder) thCommit() {
	b := r.enc.Bytes()
	if len(b) == 0 && len(r.pending) == 0 {
		return
	}
	r.produced += int64(len(b))
	r.stats.Bytes.Add(uint64(len(b)))
	if len(r.pending) > 0 {
		r.pending = append(r.pending, b...)
		b = r.pending
	}
	err := r.file.Submit(b)
	switch {
	case err == nil:
		r.pending = r.pending[:0]
	case errors.Is(err, teehist.ErrQueueFull) || errors.Is(err, teehist.ErrChunkTooLarge):
		if len(r.pending) == 0 {
			r.pending = append(r.pending, b...)
		}
		if len(r.pending) > MaxPending {
			r.enc.Clear()
			r.thStop("writer too far behind", false)
			return
		}
	default: // write error: logged by the writer
		r.enc.Clear()
		r.stopped = true
		r.pending = r.pending[:0]
		r.stats.Stopped.Add(1)
		return
	}
	r.enc.Clear()
}

// AfterTick records the character positions of the tick just simulated
// (and the demo snapshot on snapshot ticks). Called right after World.Tick.
func (r *Recorder) AfterTick() {
	if r.Active() {
		if r.file.Failed() {
			r.stopped = true
			r.stats.Stopped.Add(1)
		} else {
			r.thCommit() // the previous tick is complete
			if r.Active() && r.produced >= int64(r.cfg.Record.MaxFileMB)<<20 {
				r.thStop("record.max_file_mb reached", true)
			}
		}
	}
	if r.Active() {
		w := r.game.World
		r.enc.BeginTick(w.CurrentTick())
		r.enc.BeginPlayers()
		r.pos.Update(w)
		for cid := range world.MaxClients {
			if x, y, ok := r.pos.Get(cid); ok {
				r.enc.RecordPlayer(cid, x, y)
			} else {
				r.enc.RecordDeadPlayer(cid)
			}
		}
		// team changes of players in the game (PLAYER_TEAM with the game
		// team: -1 spectators, 0 red or no teams, 1 blue)
		for cid := range world.MaxClients {
			t := int8(0)
			if w.HasPlayer(cid) {
				t = int8(w.Team(cid)) + 2
			}
			if t != r.teams[cid] {
				r.teams[cid] = t
				if t != 0 {
					r.enc.RecordExInts(teehist.ExPlayerTeam, int32(cid), int32(t)-2)
				}
			}
		}
	}
	r.demoAfterTick()
}

// BeforeTick records, after the inputs of the coming tick and right before
// World.Tick, what else the replay needs to rebuild the server's snapshots
// exactly: the latency the coming tick's per-second update shows for each
// player (LATENCY, on due ticks, when it changed), and SNAP_SKIPPED when
// the coming tick is a snapshot tick whose snapshots the loop skips while
// catching up (no World.PostSnap: its events stay for the next snapshot).
func (r *Recorder) BeforeTick(snapSkipped bool) {
	if !r.Active() {
		return
	}
	w := r.game.World
	if w.LatencyDue() {
		for cid := range world.MaxClients {
			if w.InGame(cid) {
				r.enc.RecordLatency(cid, w.PendingLatency(cid))
			}
		}
	}
	if snapSkipped {
		r.enc.RecordSnapSkipped(w.CurrentTick() + 1)
	}
	// a checkpoint every record.checkpoint_interval seconds, at the tick
	// of the latency update (the LATENCY records above set what the
	// replay's world holds of the players' latencies)
	if iv := int32(r.cfg.Record.CheckpointInterval); iv > 0 && w.LatencyDue() && (w.CurrentTick()+1)%(iv*ticksPerSecond) == 0 {
		r.state = r.ckpt.AppendRecorded(r.state[:0], w)
		r.enc.RecordCheckpoint(r.state)
	}
}

func toInput(in *world.Input) teehist.Input {
	return teehist.Input{in.Direction, in.TargetX, in.TargetY, in.Jump, in.Fire, in.Hook,
		in.PlayerFlags, in.WantedWeapon, in.NextWeapon, in.PrevWeapon}
}

// Input records the predicted input of client cid given to the world for
// the coming tick.
func (r *Recorder) Input(cid int, in *world.Input) {
	if r.Active() {
		v := toInput(in)
		r.enc.RecordInput(cid, r.conns[cid], &v)
	}
}

// NoInput records that in-game client cid had no input for the coming tick.
func (r *Recorder) NoInput(cid int) {
	if r.Active() && r.enc.HasInput(cid, r.conns[cid]) {
		r.enc.RecordInputMissing(cid)
	}
}

// DirectInput records an input of client cid handed to World.DirectInput.
func (r *Recorder) DirectInput(cid int, in *world.Input) {
	if r.Active() {
		v := toInput(in)
		r.enc.RecordDirectInput(cid, &v)
	}
}

// Join records an engine-level connect of client cid (a new connection
// number); ver7 is false for a 0.6 client (JOINVER6, as DDNet records it).
func (r *Recorder) Join(cid int, ver7 bool) {
	r.nextConn++
	r.conns[cid] = r.nextConn
	if r.Active() {
		r.enc.RecordJoin(cid, ver7)
	}
}

// Drop records client cid leaving (before the world removes it); name and
// inGame are its name and whether it was in the game (the demo's
// De_ClientLeave).
func (r *Recorder) Drop(cid int, name string, inGame bool, reason string) {
	if r.Active() {
		r.enc.RecordDrop(cid, reason)
	}
	if inGame {
		r.demoMsg(&gamemsg.DeClientLeave{Name: name, ClientID: int32(cid), Reason: reason})
	}
}

// Bot records that client cid, just joined (Join), is a bot of skill (0
// easy, 1 normal, 2 hard): PLAYER_BOT, so a replay gives the world the
// same player (world.PlayerInfo.Bot).
func (r *Recorder) Bot(cid int, skill int32) {
	if r.Active() {
		r.enc.RecordPlayerBot(cid, skill)
	}
}

// BotInfo records the look of bot cid (after Bot, before Ready) the way a
// client's look is recorded: as its Cl_StartInfo message, so that a replay
// (and the demos made from the file) shows the bot with its skin.
func (r *Recorder) BotInfo(cid int, m *gamemsg.ClStartInfo) {
	if r.Active() {
		r.pk.Reset()
		if gamemsg.Encode(&r.pk, m) == nil && r.pk.Err() == nil {
			r.enc.RecordMessage(cid, r.pk.Bytes())
		}
	}
}

// Ready records client cid entering the game (name, then PLAYER_READY).
func (r *Recorder) Ready(cid int, name string) {
	if r.Active() {
		r.enc.RecordPlayerName(cid, name)
		r.enc.RecordPlayerReady(cid)
	}
	if d := &r.demo; d.active() {
		d.g.Enter(cid)
	}
}

// Rename records a new name of client cid (PLAYER_NAME, as DDNet does).
func (r *Recorder) Rename(cid int, name string) {
	if r.Active() {
		r.enc.RecordPlayerName(cid, name)
	}
}

// Message records a vital game message (its 0.7 encoding) from client cid
// if the client is ready (READY or later); chat and votes are left out,
// like the reference (the chat lines and vote messages the server sent to
// everybody are recorded by GameMessage instead).
func (r *Recorder) Message(cid int, ready bool, id int32, data []byte) {
	if !r.Active() || !ready {
		return
	}
	switch id {
	case gamemsg.MsgClSay, gamemsg.MsgClVote, gamemsg.MsgClCallVote:
		return
	}
	r.enc.RecordMessage(cid, data)
}

// Console records a console command about to run, by its name in the
// command table and its parsed arguments; cid is its caller (an rcon
// client, -1 for the server console, or the vote's pseudo client).
func (r *Recorder) Console(cid int, name string, args []string) {
	if r.Active() {
		r.enc.RecordConsoleCommand(cid, 0, name, args)
	}
}

// Auth records a remote console login of client cid (level 2, admin) or logout.
func (r *Recorder) Auth(cid int, login bool) {
	if !r.Active() {
		return
	}
	if login {
		r.enc.RecordAuthLogin(cid, 2, "default_admin")
	} else {
		r.enc.RecordAuthLogout(cid)
	}
}

// prune deletes the oldest recordings in record.dir beyond record.max_dir_mb.
func (r *Recorder) prune() {
	limit := int64(r.cfg.Record.MaxDirMB) << 20
	if limit <= 0 {
		return
	}
	ents, err := os.ReadDir(r.cfg.Record.Dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".teehistorian") || strings.HasSuffix(n, ".demo")) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(r.cfg.Record.Dir, n), info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
			r.stats.Pruned.Add(1)
			r.log.Info().Str("file", f.path).Msg("old recording deleted (record.max_dir_mb)")
		}
	}
}

// ticksPerSecond is the game's tick rate (record.checkpoint_interval is in
// seconds of game).
const ticksPerSecond = 50
