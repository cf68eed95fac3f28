package replay

import (
	"bytes"
	"fmt"

	"twserver/teehist"
	"twserver/world"
	"twserver/world/twmap"
	"twserver/worldstate"
)

// A checkpoint (CHECKPOINT records, record.checkpoint_interval) is the
// whole world state as the recorder saw it right before a tick: after the
// tick's inputs were given to the world, before World.Tick. The recorder
// writes it in the last records of the tick before, so the replay checks it
// when it simulates the next tick (Engine.step), and every recorded base
// starts again after it (teehist.Encoder.RecordCheckpoint): the replay forgets
// its inputs then, and Resume starts a replay right after one.

// checkpoint is the engine's CHECKPOINT being read (parts) or checked.
type checkpoint struct {
	data    []byte       // the parts read so far
	state   []byte       // the state they code (teehist.ReadZeroRuns)
	ready   bool         // data is whole: check it before the coming tick
	scratch *world.World // the states compared, read (made once)
	a, b    []byte       // the two states compared
	rd      worldstate.Writer
}

// checkpointPart gathers the parts of a checkpoint; the last one makes it
// ready for the coming tick.
func (e *Engine) checkpointPart(part []byte) {
	c := &e.ckpt
	if c.ready || len(c.data)+len(part) > 2*worldstate.MaxState { // a payload codes at most twice its state's size
		e.err = fmt.Errorf("%w: a checkpoint larger than %d bytes", ErrNotReplayable, worldstate.MaxState)
		return
	}
	c.data = append(c.data, part...)
	c.ready = len(part) < teehist.WorldStatePart
}

// checkpoint compares the world with the checkpoint read (a difference is
// a Divergence) and starts the bases again as the recorder did: no input
// or direct input of a client is known until the next one recorded.
func (e *Engine) checkpoint() {
	c := &e.ckpt
	c.ready = false
	defer func() { c.data = c.data[:0] }()
	for cid := range e.c {
		e.c[cid].hasInput, e.c[cid].hasDirect = false, false
	}
	if e.res.Divergence != nil {
		return
	}
	if c.scratch == nil {
		w, err := world.New(e.m, e.settings.World, e.seed)
		if err != nil {
			e.err = err
			return
		}
		c.scratch = w
	}
	// both states without their latency samples (the file has the
	// latencies as shown, not as measured: World.ClearLatencySamples)
	c.b = c.rd.Append(c.b[:0], e.w)
	var err error
	if c.state, err = teehist.ReadZeroRuns(c.state[:0], c.data); err != nil {
		e.res.Divergence = &Divergence{Tick: e.w.CurrentTick(), State: "unreadable: " + err.Error()}
		return
	}
	for i, s := range [][]byte{c.b, c.state} {
		if err := worldstate.Read(c.scratch, s); err != nil {
			if i == 0 {
				e.err = err
			} else {
				e.res.Divergence = &Divergence{Tick: e.w.CurrentTick(), State: "unreadable: " + err.Error()}
			}
			return
		}
		c.scratch.ClearLatencySamples()
		if i == 0 {
			c.b = c.rd.Append(c.b[:0], c.scratch)
		} else {
			c.a = c.rd.Append(c.a[:0], c.scratch)
		}
	}
	if !bytes.Equal(c.a, c.b) {
		i := 0
		for i < min(len(c.a), len(c.b)) && c.a[i] == c.b[i] {
			i++
		}
		e.res.Divergence = &Divergence{Tick: e.w.CurrentTick(),
			State: fmt.Sprintf("recorded %d bytes, simulated %d, first different byte %d", len(c.a), len(c.b), i)}
		return
	}
	e.res.Checkpoints++
}

// Resume returns an engine that replays a file of header h on map m from
// one of its checkpoints on: state is the world state it codes
// (teehist.ReadZeroRuns of its parts joined), s the
// settings as of it (the header's with the console's changes before it,
// Settings.ApplySetting). Feed it the messages after the checkpoint's last
// part (teehist.Resume at the Reader's Point there).
func Resume(h *teehist.Header, m *twmap.Map, s Settings, state []byte) (*Engine, error) {
	e, err := New(h, m)
	if err != nil {
		return nil, err
	}
	if s != e.settings {
		e.settings = s
		e.w.SetRules(s.World)
	}
	if err := worldstate.Read(e.w, state); err != nil {
		return nil, fmt.Errorf("%w: checkpoint: %v", ErrNotReplayable, err)
	}
	e.adoptPlayers()
	return e, nil
}
