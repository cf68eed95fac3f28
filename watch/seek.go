package watch

import (
	"context"
	"errors"
	"io"
	"os"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
)

// A seek beyond the built part of a recording with checkpoints
// (record.checkpoint_interval) replays the moment's chunk from the nearest
// checkpoint before it, while the build goes on: the rough pass notes where
// the checkpoints are (their place in the file and the settings as of
// them), and a seek reads the one it needs from the file again.
const (
	// MaxCheckpoints bounds the checkpoints noted of one file; a longer
	// recording's later moments show rough frames until they are built.
	MaxCheckpoints = 1 << 14
	// MaxSeekTicks bounds the ticks a seek replays before its chunk (from
	// the checkpoint to the chunk's start); a moment farther from a
	// checkpoint shows rough frames until it is built.
	MaxSeekTicks = 2 * 60 * 50
	// MaxSeeks bounds the seeks replaying at the same time in one Cache;
	// more wait their turn (or their request's end).
	MaxSeeks = 2
	// MaxSeekChunks bounds the chunks of seeks kept of one file; beyond
	// it they are dropped (the build replaces them anyway).
	MaxSeekChunks = 64
)

// errNoCheckpoint: no checkpoint serves the seek (rough frames instead).
var errNoCheckpoint = errors.New("watch: no checkpoint before the moment")

// ckptRef is where a checkpoint is: the reader's point before its first
// part, its tick and the settings as of it.
type ckptRef struct {
	at       teehist.Point
	tick     int32
	settings replay.Settings
}

// addCheckpoint notes a checkpoint the rough pass found.
func (r *Recording) addCheckpoint(c ckptRef) {
	r.mu.Lock()
	if len(r.ckpts) < MaxCheckpoints {
		r.ckpts = append(r.ckpts, c)
	}
	r.mu.Unlock()
}

// checkpointFor returns the last checkpoint from which chunk k's frames
// follow within MaxSeekTicks.
func (r *Recording) checkpointFor(k int) (ckptRef, bool) {
	from := int32(k * ChunkTicks)
	r.mu.Lock()
	defer r.mu.Unlock()
	if from > max(r.end, r.last) {
		return ckptRef{}, false // past what the rough pass read: the file's end (or not read yet)
	}
	for i := len(r.ckpts) - 1; i >= 0; i-- {
		if c := r.ckpts[i]; c.tick < from {
			return c, from-c.tick <= MaxSeekTicks
		}
	}
	return ckptRef{}, false
}

// seekChunk returns chunk k as a seek made it.
func (r *Recording) seekChunk(k int) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	z, ok := r.seeks[k]
	return z, ok
}

func (r *Recording) addSeekChunk(k int, z []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return // the build's chunks are all there
	}
	if r.seeks == nil || len(r.seeks) >= MaxSeekChunks {
		r.seeks, r.seekN = map[int][]byte{}, 0
	}
	r.seeks[k] = z
	r.seekN += len(z)
}

// Seek returns chunk k of rec, replayed from the nearest checkpoint before
// it when the build has not made it yet; false when the file has no
// checkpoint for it (or the seek failed): its rough frames are what there
// is until the build comes.
func (c *Cache) Seek(ctx context.Context, rec *Recording, k int) ([]byte, bool) {
	if z, ok := rec.seekChunk(k); ok {
		return z, true
	}
	ck, ok := rec.checkpointFor(k)
	if !ok {
		return nil, false
	}
	select {
	case c.seeks <- struct{}{}:
	case <-ctx.Done():
		return nil, false
	}
	defer func() { <-c.seeks }()
	if z, ok := rec.Chunk(k); ok { // built meanwhile
		return z, true
	}
	if z, ok := rec.seekChunk(k); ok { // another viewer's seek made it meanwhile
		return z, true
	}
	z, err := c.seek(ctx, rec, ck, k)
	if err != nil {
		return nil, false
	}
	rec.addSeekChunk(k, z)
	return z, true
}

// seek replays rec's file from checkpoint ck up to the end of chunk k: in
// a child process when the cache builds in children (seekChild), so that a
// viewer's seek, like a build, costs the games' process no CPU.
func (c *Cache) seek(ctx context.Context, rec *Recording, ck ckptRef, k int) ([]byte, error) {
	if rec.m == nil {
		return nil, errNoCheckpoint // not opened by the cache (no map)
	}
	f, err := c.src.Open(rec.Name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if file, ok := f.(*os.File); ok && c.child != "" && len(rec.m.Data) <= MaxChildMap {
		return c.seekChild(ctx, rec, file, ck, k)
	}
	return seekFrom(ctx, f, rec.hdr, rec.m, ck, k)
}

// seekFrom replays the recording of f (header h, map m) from checkpoint ck
// up to the end of chunk k and returns the chunk.
func seekFrom(ctx context.Context, f io.Reader, h *teehist.Header, m *twmap.Map, ck ckptRef, k int) ([]byte, error) {
	if s, ok := f.(io.Seeker); ok {
		if _, err := s.Seek(ck.at.Offset, io.SeekStart); err != nil {
			return nil, err
		}
	} else if _, err := io.CopyN(io.Discard, f, ck.at.Offset); err != nil {
		return nil, err
	}
	rd := teehist.Resume(f, ck.at)
	var msg teehist.Message
	var payload []byte
	for n := 0; ; n++ { // the checkpoint's parts
		if more, err := next(ctx, rd, &msg, n); err != nil || !more {
			return nil, errors.Join(err, errNoCheckpoint)
		}
		if msg.Kind != teehist.KindEx || msg.Ex != teehist.ExCheckpoint || len(payload)+len(msg.Data) > 2*MaxSeekState {
			return nil, errNoCheckpoint
		}
		payload = append(payload, msg.Data...)
		if len(msg.Data) < teehist.WorldStatePart {
			break
		}
	}
	state, err := teehist.ReadZeroRuns(nil, payload)
	if err != nil || len(state) > MaxSeekState {
		return nil, errors.Join(err, errNoCheckpoint)
	}
	return seekReplay(ctx, rd, h, m, ck.settings, state, k)
}

// MaxSeekState bounds the world state a seek reads (the worldstate
// package's bound).
const MaxSeekState = 1 << 20

// seekReplay replays from a checkpoint's state on the messages of rd until
// chunk k is complete and returns it.
func seekReplay(ctx context.Context, rd *teehist.Reader, h *teehist.Header, m *twmap.Map, s replay.Settings, state []byte, k int) ([]byte, error) {
	e, err := replay.Resume(h, m, s, state)
	if err != nil {
		return nil, err
	}
	sink := newRecording("", h)
	b := &builder{out: sink, w: e.World()}
	e.SetObserver(b)
	end := int32((k + 1) * ChunkTicks) // its frames end before this tick's
	var msg teehist.Message
	for n := 0; ; n++ {
		more, err := next(ctx, rd, &msg, n)
		if err != nil {
			return nil, err
		}
		if more && msg.Tick > end { // a gap in the file: simulate up to end only (MaxSeekTicks)
			msg = teehist.Message{Kind: teehist.KindTickSkip, Tick: end, Offset: msg.Offset}
		}
		if !more || e.Feed(&msg) {
			break
		}
		if b.err != nil {
			return nil, b.err
		}
		if z, ok := sink.Chunk(k); ok { // a tick of the next chunk ended it
			return z, nil
		}
	}
	if dv := e.Result().Divergence; dv != nil {
		return nil, errors.New("watch: the seek diverged at " + dv.String())
	}
	if err := e.Err(); err != nil { // over the file's budget
		return nil, err
	}
	b.flush() // the file's end
	if z, ok := sink.Chunk(k); ok {
		return z, nil
	}
	return nil, errNoCheckpoint
}
