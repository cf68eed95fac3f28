package server

import (
	"crypto/rand"
	"errors"
	"path/filepath"
	"time"

	"twserver/demo"
	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
	"twserver/teehist"
	"twserver/world"
)

// demoRecorder is the per-game 0.7 server demo (config record.demo): the
// snapshot every snapshot tick as seen by no one (world.Snap(-1): all
// characters, De_ClientInfo and De_GameInfo for the player), and the game
// messages sent to everybody. Owned by the loop goroutine; the file is
// written by a teehist.FileWriter (whole chunks, never blocking) and its
// header is patched with length and markers when the game ends.
type demoRecorder struct {
	enc      *demo.Encoder
	file     *teehist.FileWriter
	path     string
	stopped  bool
	produced int64
	builder  snap.Builder
	cur      snap.Snapshot
	pk       netproto.Packer
	entered  []int // clients that entered since the last snapshot (De_ClientEnter)
	done     []chan struct{}
}

// demoStart starts a demo of the current game at record.dir/name.demo; an
// empty name is the game's id (the teehistorian file's, or a new one).
func (s *Server) demoStart(name string) {
	d := &s.rec.demo
	if name == "" {
		id := s.rec.game
		if s.rec.file == nil {
			var err error
			if id, err = teehist.RandomUUID(rand.Reader); err != nil {
				return
			}
		}
		name = id.String()
	}
	path := filepath.Join(s.cfg.Record.Dir, name+".demo")
	f, err := createRecordFile(path, teehist.FileOptions{OnError: func(err error) {
		s.log.Error().Err(err).Str("file", path).Msg("demo write failed; demo of this game stopped")
	}})
	if err != nil {
		s.log.Error().Err(err).Str("file", path).Msg("demo not recorded")
		return
	}
	d.enc = demo.NewEncoder("server", s.curMap.Name, s.curMap.Data, s.curMap.CRC, time.Now())
	d.file, d.path, d.stopped, d.produced = f, path, false, 0
	d.builder.Sizes = snap.Sizes7
	d.entered = d.entered[:0]
	s.demoCommit()
	s.rec.stats.Files.Add(1)
	s.log.Info().Str("file", path).Msg("demo recording started")
}

func (d *demoRecorder) active() bool { return d.file != nil && !d.stopped }

// demoCommit hands the encoded chunks to the writer.
func (s *Server) demoCommit() {
	d := &s.rec.demo
	b := d.enc.Bytes()
	if len(b) == 0 {
		return
	}
	d.produced += int64(len(b))
	err := d.file.Submit(b)
	d.enc.Clear()
	if err == nil {
		return
	}
	// A demo cannot skip chunks (deltas chain): stop it; the file stays
	// playable up to its last written chunk.
	d.stopped = true
	s.rec.stats.Stopped.Add(1)
	if !errors.Is(err, teehist.ErrQueueFull) && !errors.Is(err, teehist.ErrChunkTooLarge) {
		return // write error: logged by the writer
	}
	s.log.Error().Str("file", d.path).Err(err).Msg("demo recording of this game stopped; the game goes on")
}

// demoAfterTick records the snapshot of a snapshot tick.
func (s *Server) demoAfterTick() {
	d := &s.rec.demo
	if !d.active() {
		return
	}
	tick := s.world.CurrentTick()
	if s.cfg.Server.SnapshotRate != 50 && tick%2 != 0 {
		return
	}
	if d.file.Failed() {
		d.stopped = true
		s.rec.stats.Stopped.Add(1)
		return
	}
	d.builder.Reset()
	_ = s.world.Snap(-1, &d.builder) // items the builder refuses are left out, as for clients
	d.builder.Finish(&d.cur)
	if err := d.enc.Snapshot(tick, &d.cur); err != nil {
		s.log.Error().Err(err).Str("file", d.path).Msg("demo snapshot not recorded")
	}
	for _, cid := range d.entered {
		if c := s.clients[cid]; c.state == stateIngame {
			s.demoMsg(&gamemsg.DeClientEnter{Name: c.name, ClientID: int32(cid), Team: int32(s.world.Team(cid))})
		}
	}
	d.entered = d.entered[:0]
	s.demoCommit()
	if d.active() && d.produced >= int64(s.cfg.Record.MaxFileMB)<<20 {
		d.stopped = true
		s.rec.stats.Stopped.Add(1)
		s.log.Error().Str("file", d.path).Str("reason", "record.max_file_mb reached").Msg("demo recording of this game stopped; the game goes on")
	}
}

// demoNoRecord lists the messages the reference never records (MSGFLAG_NORECORD):
// the demo snapshots carry that information instead.
func demoNoRecord(id int32) bool {
	switch id {
	case gamemsg.MsgSvClientInfo, gamemsg.MsgSvGameInfo, gamemsg.MsgSvSkinChange, gamemsg.MsgSvClientDrop:
		return true
	}
	return false
}

// demoMsg records a game message sent to everybody.
func (s *Server) demoMsg(m gamemsg.Message) {
	d := &s.rec.demo
	if !d.active() || demoNoRecord(m.ID()) {
		return
	}
	d.pk.Reset()
	if gamemsg.Encode(&d.pk, m) != nil || d.pk.Err() != nil {
		return
	}
	_ = d.enc.Message(d.pk.Bytes())
}

// demoEnter notes a client entering the game (De_ClientEnter after the next snapshot).
func (s *Server) demoEnter(c *client) {
	if d := &s.rec.demo; d.active() && len(d.entered) < world.MaxClients {
		d.entered = append(d.entered, c.id)
	}
}

// demoDrop records De_ClientLeave for an in-game client leaving.
func (s *Server) demoDrop(c *client, reason string) {
	if c.state == stateIngame {
		s.demoMsg(&gamemsg.DeClientLeave{Name: c.name, ClientID: int32(c.id), Reason: reason})
	}
}

// demoEnd closes the game's demo; a goroutine writes the rest and patches
// the header (length, markers).
func (s *Server) demoEnd() {
	d := &s.rec.demo
	if d.file == nil {
		return
	}
	if !d.stopped {
		s.demoCommit()
	}
	f, path, length, markers := d.file, d.path, d.enc.Length(), append([]int32(nil), d.enc.Markers()...)
	done := make(chan struct{})
	open := d.done[:0]
	for _, c := range d.done {
		select {
		case <-c:
		default:
			open = append(open, c)
		}
	}
	d.done = append(open, done)
	log := s.log
	go func() {
		defer close(done)
		_ = f.Close()
		if err := demo.PatchFile(path, length, markers); err != nil {
			log.Error().Err(err).Str("file", path).Msg("demo header not patched")
		}
	}()
	d.file, d.path, d.enc = nil, "", nil
}

// demoWait waits for closed demos until deadline.
func (s *Server) demoWait(deadline <-chan time.Time) {
	d := &s.rec.demo
	for _, c := range d.done {
		select {
		case <-c:
		case <-deadline:
			s.log.Warn().Msg("demos not completely written at shutdown")
			return
		}
	}
	d.done = nil
}

// DemoPath returns the path of the demo being written ("" if none).
func (s *Server) DemoPath() string { return s.rec.demo.path }
