package record

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"twserver/demo"
	"twserver/demo/gamedemo"
	"twserver/gamemsg"
	"twserver/teehist"
)

// demoRecorder is the per-game 0.7 server demo (config record.demo, or
// the console's record): the snapshot every snapshot tick as seen by no one
// (world.Snap(-1): all characters, De_ClientInfo and De_GameInfo for the
// player), and the game messages sent to everybody, recorded by
// gamedemo.Game, which the demos made from teehistorian files go through
// too (teehist/replay). Owned by the loop goroutine; the file is written by a teehist.FileWriter (whole chunks,
// never blocking) and its header is patched with length and markers by a
// goroutine per closed demo when the game ends.
type demoRecorder struct {
	enc      *demo.Encoder
	g        *gamedemo.Game
	file     *teehist.FileWriter
	path     string
	stopped  bool
	produced int64
	done     []chan struct{}
}

// Errors of StartDemo.
var (
	// ErrDemoRecording: a demo of the game is already being written.
	ErrDemoRecording = errors.New("already recording a demo")
	// ErrNoDir: record.dir is not set.
	ErrNoDir = errors.New("record.dir is not set")
	// ErrDemoName: the name is not a plain file name.
	ErrDemoName = errors.New("demo name is not a file name")
)

// DemoName is the name of a demo started by hand: name, or demo_ and the
// local time at now if name is empty.
func DemoName(name string, now time.Time) string {
	if name == "" {
		return "demo_" + now.Format("2006-01-02_15-04-05")
	}
	return name
}

// StartDemo starts a demo of the current game at record.dir/name.demo
// (the console's record) and returns its path. The name must be a plain
// file name; the file must not exist.
func (r *Recorder) StartDemo(name string) (string, error) {
	switch {
	case r.demo.file != nil:
		return "", ErrDemoRecording
	case r.cfg.Record.Dir == "":
		return "", ErrNoDir
	case !plainName(name):
		return "", fmt.Errorf("%w: %q", ErrDemoName, name)
	}
	if err := os.MkdirAll(r.cfg.Record.Dir, 0o755); err != nil {
		return "", err
	}
	if err := r.demoStart(name); err != nil {
		return "", err
	}
	return r.demo.path, nil
}

// plainName reports whether name is a plain file name (no directories).
func plainName(name string) bool {
	return name != "" && !strings.ContainsAny(name, `/\`) && name != "." && name != ".."
}

// StopDemo closes the demo being written, if any, and reports whether there was one.
func (r *Recorder) StopDemo() bool {
	if r.demo.file == nil {
		return false
	}
	r.demoEnd()
	return true
}

// DemoRecording reports whether a demo file of the current game is open
// (it may have stopped recording early).
func (r *Recorder) DemoRecording() bool { return r.demo.file != nil }

// demoStart starts a demo of the current game at record.dir/name.demo; an
// empty name is the game's id (the teehistorian file's, or a new one).
func (r *Recorder) demoStart(name string) error {
	d := &r.demo
	if name == "" {
		id := r.id
		if r.file == nil {
			var err error
			if id, err = teehist.RandomUUID(rand.Reader); err != nil {
				return err
			}
		}
		name = id.String()
	}
	path := filepath.Join(r.cfg.Record.Dir, name+".demo")
	f, err := r.create(path, teehist.FileOptions{OnError: func(err error) {
		r.log.Error().Err(err).Str("file", path).Msg("demo write failed; demo of this game stopped")
	}})
	if err != nil {
		r.log.Error().Err(err).Str("file", path).Msg("demo not recorded")
		return err
	}
	r.busy.set(path, f.Done())
	m := r.game.Map
	d.enc = demo.NewEncoder("server", m.Name, m.Data, m.CRC, time.Now())
	d.g = gamedemo.NewGame(d.enc, -1)
	d.file, d.path, d.stopped, d.produced = f, path, false, 0
	r.demoCommit()
	r.stats.Files.Add(1)
	r.log.Info().Str("file", path).Msg("demo recording started")
	return nil
}

func (d *demoRecorder) active() bool { return d.file != nil && !d.stopped }

// demoCommit hands the encoded chunks to the writer.
func (r *Recorder) demoCommit() {
	d := &r.demo
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
	r.stats.Stopped.Add(1)
	if !errors.Is(err, teehist.ErrQueueFull) && !errors.Is(err, teehist.ErrChunkTooLarge) {
		return // write error: logged by the writer
	}
	r.log.Error().Str("file", d.path).Err(err).Msg("demo recording of this game stopped; the game goes on")
}

// demoAfterTick records the snapshot of a snapshot tick.
func (r *Recorder) demoAfterTick() {
	d := &r.demo
	if !d.active() {
		return
	}
	w := r.game.World
	if r.cfg.Server.SnapshotRate != 50 && w.CurrentTick()%2 != 0 {
		return
	}
	if d.file.Failed() {
		d.stopped = true
		r.stats.Stopped.Add(1)
		return
	}
	if err := d.g.Snapshot(w); err != nil { // with De_ClientEnter of the players that entered
		r.log.Error().Err(err).Str("file", d.path).Msg("demo snapshot not recorded")
	}
	r.demoCommit()
	if d.active() && d.produced >= int64(r.cfg.Record.MaxFileMB)<<20 {
		d.stopped = true
		r.stats.Stopped.Add(1)
		r.log.Error().Str("file", d.path).Str("reason", "record.max_file_mb reached").Msg("demo recording of this game stopped; the game goes on")
	}
}

// GameMessage records a game message sent to everybody in the demo and,
// unless a world event made it (gamedemo.FromWorld: the replay makes those
// again), in the teehistorian file as SERVER_MESSAGE: chat lines as the
// server's formatting and spam rules let them out, emoticons, skin changes
// (Sv_SkinChange, which the demo leaves out), votes, broadcasts and the
// like, so that demos made from the file hold them at the same tick.
func (r *Recorder) GameMessage(m gamemsg.Message) {
	if r.Active() && !gamedemo.FromWorld(m.ID()) {
		r.pk.Reset()
		if gamemsg.Encode(&r.pk, m) == nil && r.pk.Err() == nil {
			r.enc.RecordServerMsg(r.pk.Bytes())
		}
	}
	r.demoMsg(m)
}

func (r *Recorder) demoMsg(m gamemsg.Message) {
	if d := &r.demo; d.active() {
		d.g.Message(m)
	}
}

// demoEnd closes the game's demo; a goroutine writes the rest and patches
// the header (length, markers).
func (r *Recorder) demoEnd() {
	d := &r.demo
	if d.file == nil {
		return
	}
	if !d.stopped {
		r.demoCommit()
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
	r.busy.set(path, done) // until the header is patched
	log := r.log
	go func() {
		defer close(done)
		_ = f.Close()
		if err := demo.PatchFile(path, length, markers); err != nil {
			log.Error().Err(err).Str("file", path).Msg("demo header not patched")
		}
	}()
	d.file, d.path, d.enc, d.g = nil, "", nil, nil
}

// demoWait waits for closed demos until deadline.
func (r *Recorder) demoWait(deadline <-chan time.Time) {
	d := &r.demo
	for _, c := range d.done {
		select {
		case <-c:
		case <-deadline:
			r.log.Warn().Msg("demos not completely written at shutdown")
			return
		}
	}
	d.done = nil
}
