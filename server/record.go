package server

// Recording (config [record]): one teehistorian file and/or one 0.7 demo per
// game, a game being one World from map load to the next map load or
// shutdown. The loop goroutine encodes; files are written by the writer
// goroutines of teehist.FileWriter and the demo writer, so the loop never
// waits for the disk. The hooks below are called from the loop's files
// (see notes/recording-hooks.md); each is a no-op when recording is off.

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"twserver/gamemsg"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
)

// Recording bounds.
const (
	// MaxRecordPending bounds the encoded ticks kept in memory while the
	// writer's queue is full; beyond it the game's recording stops. It is
	// the writer's largest chunk, so the backlog always fits one Submit.
	MaxRecordPending = teehist.MaxChunkSize
	// RecordCloseWait bounds how long shutdown waits for recordings to be written.
	RecordCloseWait = 5 * time.Second
	// ServerVersion is the server_version written in teehistorian headers.
	ServerVersion = GameVersion + ", twserver"
)

// RecordStats are the recording counters; read with atomic loads.
type RecordStats struct {
	// Files counts recording files started.
	Files atomic.Uint64
	// Stopped counts games whose recording stopped early (disk full, size cap, backlog).
	Stopped atomic.Uint64
	// Pruned counts old recordings deleted for record.max_dir_mb.
	Pruned atomic.Uint64
	// Bytes counts teehistorian bytes handed to the writer.
	Bytes atomic.Uint64
}

// createRecordFile creates a recording file (a variable so tests can
// simulate a full disk).
var createRecordFile = teehist.CreateFile

// recorder is the loop's recording state (owned by the loop goroutine).
type recorder struct {
	stats RecordStats

	enc      *teehist.Encoder
	file     *teehist.FileWriter
	path     string
	game     teehist.UUID
	prevGame teehist.UUID
	stopped  bool
	produced int64
	pending  []byte
	conns    [world.MaxClients]uint32
	nextConn uint32
	teams    [world.MaxClients]int8 // last recorded team + 2 (0 = none recorded)
	pos      replay.Positions
	closing  []*teehist.FileWriter

	demo demoRecorder
}

// RecordCounters returns the recording counters by name.
func (s *Server) RecordCounters() map[string]uint64 {
	st := &s.rec.stats
	return map[string]uint64{
		"record_files":   st.Files.Load(),
		"record_stopped": st.Stopped.Load(),
		"record_pruned":  st.Pruned.Load(),
		"record_bytes":   st.Bytes.Load(),
	}
}

// RecordPath returns the path of the teehistorian file being written ("" if none).
func (s *Server) RecordPath() string { return s.rec.path }

// recGameStart ends the previous game's recordings and starts new ones
// for the world just created by setMap.
func (s *Server) recGameStart() {
	s.recGameEnd()
	rc := &s.cfg.Record
	if !rc.Teehistorian && !rc.Demo {
		return
	}
	if err := os.MkdirAll(rc.Dir, 0o755); err != nil {
		s.log.Error().Err(err).Str("dir", rc.Dir).Msg("recording disabled: cannot create directory")
		return
	}
	s.recPrune()
	if rc.Teehistorian {
		s.thStart()
	}
	if rc.Demo {
		s.demoStart("")
	}
}

func (s *Server) thStart() {
	r := &s.rec
	id, err := teehist.RandomUUID(rand.Reader)
	if err != nil {
		s.log.Error().Err(err).Msg("teehistorian: no game uuid")
		return
	}
	path := filepath.Join(s.cfg.Record.Dir, id.String()+".teehistorian")
	f, err := createRecordFile(path, teehist.FileOptions{OnError: func(err error) {
		s.log.Error().Err(err).Str("file", path).Msg("teehistorian write failed; recording of this game stopped")
	}})
	if err != nil {
		s.log.Error().Err(err).Str("file", path).Msg("teehistorian not recorded")
		return
	}
	if r.enc == nil {
		r.enc = teehist.NewEncoder()
	}
	r.enc.Reset()
	r.file, r.path, r.game, r.stopped, r.produced = f, path, id, false, 0
	r.pending = r.pending[:0]
	r.pos = replay.Positions{}
	r.teams = [world.MaxClients]int8{}
	h := &teehist.Header{
		VersionMinor:    teehist.VersionMinor,
		GameUUID:        id,
		PrevGameUUID:    r.prevGame,
		ServerVersion:   ServerVersion,
		StartTime:       time.Now(),
		ServerName:      s.cfg.Server.Name,
		ServerPort:      s.cfg.Server.Port,
		GameType:        s.world.GameTypeName(),
		MapName:         s.curMap.Name,
		MapSize:         s.curMap.Size,
		MapSHA256:       s.curMap.SHA256,
		MapCRC:          s.curMap.CRC,
		PrngDescription: replay.PrngDescription(s.seed),
		Config: replay.ConfigKVs(replay.Settings{World: s.world.Config(), SnapshotRate: s.cfg.Server.SnapshotRate},
			teehist.KV{Key: "sv_name", Value: s.cfg.Server.Name}),
		Tuning: replay.TuningKVs(s.world.Tuning()),
		UUIDs:  teehist.DefaultUUIDs(),
	}
	r.enc.WriteHeader(h)
	// every connected client joins the new game on the engine level
	for _, c := range s.clients {
		if c.state != stateEmpty {
			s.recJoin(c)
		}
	}
	s.rec.stats.Files.Add(1)
	s.log.Info().Str("file", path).Msg("teehistorian recording started")
}

// thActive reports whether the teehistorian of the current game is recording.
func (r *recorder) thActive() bool { return r.file != nil && !r.stopped }

// recGameEnd writes FINISH and hands the files to their writers to close.
func (s *Server) recGameEnd() {
	r := &s.rec
	if r.file != nil {
		if !r.stopped {
			r.enc.Finish()
			s.thCommit()
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
		r.prevGame = r.game
		r.file, r.path = nil, ""
	}
	s.demoEnd()
}

// recStop ends the recordings at shutdown and waits (bounded) until they
// are written and synced.
func (s *Server) recStop() {
	s.recGameEnd()
	deadline := time.After(RecordCloseWait)
	for _, f := range s.rec.closing {
		select {
		case <-f.Done():
		case <-deadline:
			s.log.Warn().Msg("recordings not completely written at shutdown")
			return
		}
	}
	s.rec.closing = nil
	s.demoWait(deadline)
}

// thStop stops the current game's teehistorian with one log line.
func (s *Server) thStop(why string, finish bool) {
	r := &s.rec
	if finish {
		r.enc.Finish()
		s.thCommit()
	}
	r.stopped = true
	r.enc.Reset()
	r.pending = r.pending[:0]
	r.stats.Stopped.Add(1)
	s.log.Error().Str("file", r.path).Str("reason", why).Msg("teehistorian recording of this game stopped; the game goes on")
}

// thCommit hands the encoded whole ticks to the writer without blocking.
func (s *Server) thCommit() {
	r := &s.rec
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
		if len(r.pending) > MaxRecordPending {
			r.enc.Clear()
			s.thStop("writer too far behind", false)
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

// recAfterTick records the character positions of the tick just simulated
// (and the demo snapshot on snapshot ticks). Called right after World.Tick.
func (s *Server) recAfterTick() {
	r := &s.rec
	if r.thActive() {
		if r.file.Failed() {
			r.stopped = true
			r.stats.Stopped.Add(1)
		} else {
			s.thCommit() // the previous tick is complete
			if r.thActive() && r.produced >= int64(s.cfg.Record.MaxFileMB)<<20 {
				s.thStop("record.max_file_mb reached", true)
			}
		}
	}
	if r.thActive() {
		r.enc.BeginTick(s.world.CurrentTick())
		r.enc.BeginPlayers()
		r.pos.Update(s.world)
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
			if s.world.HasPlayer(cid) {
				t = int8(s.world.Team(cid)) + 2
			}
			if t != r.teams[cid] {
				r.teams[cid] = t
				if t != 0 {
					r.enc.RecordExInts(teehist.ExPlayerTeam, int32(cid), int32(t)-2)
				}
			}
		}
	}
	s.demoAfterTick()
}

func toInput(in *world.Input) teehist.Input {
	return teehist.Input{in.Direction, in.TargetX, in.TargetY, in.Jump, in.Fire, in.Hook,
		in.PlayerFlags, in.WantedWeapon, in.NextWeapon, in.PrevWeapon}
}

// recInput records the predicted input given to the world for the coming tick.
func (s *Server) recInput(c *client, in *world.Input) {
	if s.rec.thActive() {
		v := toInput(in)
		s.rec.enc.RecordInput(c.id, s.rec.conns[c.id], &v)
	}
}

// recNoInput records that an in-game client had no input for the coming tick.
func (s *Server) recNoInput(c *client) {
	if r := &s.rec; r.thActive() && r.enc.HasInput(c.id, r.conns[c.id]) {
		r.enc.RecordInputMissing(c.id)
	}
}

// recDirectInput records an input handed to World.DirectInput.
func (s *Server) recDirectInput(c *client, in *world.Input) {
	if s.rec.thActive() {
		v := toInput(in)
		s.rec.enc.RecordDirectInput(c.id, &v)
	}
}

// recJoin records an engine-level connect (a new connection number).
func (s *Server) recJoin(c *client) {
	r := &s.rec
	r.nextConn++
	r.conns[c.id] = r.nextConn
	if r.thActive() {
		r.enc.RecordJoin(c.id, !c.conn.Dialect().Is6()) // JOINVER6 for 0.6 clients, as DDNet records them
	}
}

// recDrop records a client leaving (before the world removes it).
func (s *Server) recDrop(c *client, reason string) {
	if s.rec.thActive() {
		s.rec.enc.RecordDrop(c.id, reason)
	}
	s.demoDrop(c, reason)
}

// recReady records a client entering the game (name, then PLAYER_READY).
func (s *Server) recReady(c *client) {
	if s.rec.thActive() {
		s.rec.enc.RecordPlayerName(c.id, c.name)
		s.rec.enc.RecordPlayerReady(c.id)
	}
	s.demoEnter(c)
}

// recMessage records a vital game message from a client in READY or later
// (not chat and votes, like the reference).
func (s *Server) recMessage(c *client, id int32, data []byte) {
	if !s.rec.thActive() || c.state < stateReady {
		return
	}
	switch id {
	case gamemsg.MsgClSay, gamemsg.MsgClVote, gamemsg.MsgClCallVote:
		return
	}
	s.rec.enc.RecordMessage(c.id, data)
}

// recConsole records a console command about to run, by its name in
// the console's commands and its parsed arguments, by caller by
// (console.Caller.CID: an rcon client id, console.CIDConsole or
// console.CIDVote).
func (s *Server) recConsole(by int, name string, args []string) {
	if s.rec.thActive() {
		s.rec.enc.RecordConsoleCommand(by, 0, name, args)
	}
}

// recAuth records a remote console login (level 2, admin) or logout.
func (s *Server) recAuth(c *client, login bool) {
	if !s.rec.thActive() {
		return
	}
	if login {
		s.rec.enc.RecordAuthLogin(c.id, 2, "default_admin")
	} else {
		s.rec.enc.RecordAuthLogout(c.id)
	}
}

// recPrune deletes the oldest recordings in record.dir beyond record.max_dir_mb.
func (s *Server) recPrune() {
	limit := int64(s.cfg.Record.MaxDirMB) << 20
	if limit <= 0 {
		return
	}
	ents, err := os.ReadDir(s.cfg.Record.Dir)
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
		files = append(files, file{filepath.Join(s.cfg.Record.Dir, n), info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
			s.rec.stats.Pruned.Add(1)
			s.log.Info().Str("file", f.path).Msg("old recording deleted (record.max_dir_mb)")
		}
	}
}
