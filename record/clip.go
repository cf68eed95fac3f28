package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// MaxClipSeconds bounds the length of a demo_clip (10 minutes).
const MaxClipSeconds = 600

// ErrClipBusy: a clip is still being written (one at a time per server).
var ErrClipBusy = errors.New("a clip is still being written")

// ErrNoTeehistorian: the game is not recorded as a teehistorian file.
var ErrNoTeehistorian = errors.New("the game is not being recorded (record.teehistorian)")

// Clip starts writing a 0.7 demo of the last seconds of the running game
// to record.dir/name.demo and returns its path. The loop only notes the
// file, the map and the tick; a goroutine re-simulates the game's
// teehistorian file as written so far (the writer is at most about a
// second behind the loop, so the clip ends up to a second before now) with
// teehist/replay into the demo, and logs the outcome. The loop never waits
// for it. Called on the loop goroutine.
func (r *Recorder) Clip(seconds int, name string) (string, error) {
	switch {
	case seconds <= 0 || seconds > MaxClipSeconds:
		return "", fmt.Errorf("seconds must be 1..%d", MaxClipSeconds)
	case !r.Active():
		return "", ErrNoTeehistorian
	case !plainName(name):
		return "", fmt.Errorf("%w: %q", ErrDemoName, name)
	}
	if !r.clipping.CompareAndSwap(false, true) {
		return "", ErrClipBusy
	}
	out := filepath.Join(r.cfg.Record.Dir, name+".demo")
	src, m := r.path, r.game.Map
	from := max(r.game.World.CurrentTick()-int32(seconds)*50, 0)
	log := r.log
	r.clipDone = make(chan struct{})
	r.busy.set(out, r.clipDone)
	go func(done chan struct{}) {
		defer close(done)
		defer r.clipping.Store(false)
		res, err := writeClip(src, out, m, from)
		if err != nil {
			os.Remove(out)
			log.Error().Err(err).Str("file", out).Msg("demo clip not written")
			return
		}
		log.Info().Str("file", out).Int32("from_tick", res.FirstTick).Int32("to_tick", res.LastTick).
			Msg("demo clip written")
	}(r.clipDone)
	return out, nil
}

// writeClip writes the demo of the teehistorian file src from tick from to out.
func writeClip(src, out string, m *twmap.Map, from int32) (*replay.DemoResult, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := teehist.NewReader(f)
	h, err := tr.ReadHeader()
	if err != nil {
		return nil, err
	}
	o, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	res, err := replay.WriteDemo(o, tr, h, m, replay.DemoOptions{View: replay.FreeView, From: from})
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	return res, err
}
