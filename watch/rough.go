package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strconv"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
)

// A rough chunk holds the frames of ChunkTicks of game as the file records
// them, without a replay: every FrameTicks, the tick and the characters'
// positions (the file's PLAYER_NEW and PLAYER_DIFF records, the positions
// a replay's frames show):
//
//	tick, n tees, then id, x, y each
//
// The rough pass reads a whole file in a small part of a replay's time, so
// a seek beyond the built part shows the moment's tees at once; the page
// draws rough frames as positions only until the chunk is built.
const (
	// RoughTeeInts is the size of one tee in a rough frame.
	RoughTeeInts = 3
	// MaxRoughBytes bounds the compressed rough chunks kept of one file; a
	// longer recording has rough chunks up to there.
	MaxRoughBytes = 16 << 20
)

// errRoughFull ends a rough pass at MaxRoughBytes.
var errRoughFull = errors.New("watch: rough frames over their bound")

// rough is the rough pass's state.
type rough struct {
	out    sink
	pos    teehist.RecordedPositions
	chunk  bytes.Buffer
	gz     *gzip.Writer
	chunkN int
	k      int
	tick   int32 // the tick whose positions are being read (-1: none yet)
}

// roughPass reads the positions r records (after the header) into rough
// chunks of rec until the file ends.
// It notes the file's checkpoints for seeks (seek.go) with the settings
// as of them (the header's, changed by console commands, h).
func roughPass(ctx context.Context, rec sink, r *teehist.Reader, h *teehist.Header) error {
	p := &rough{out: rec, tick: -1}
	settings, serr := replay.ParseSettings(h)
	var msg teehist.Message
	var at teehist.Point // where the checkpoint being read starts
	inCkpt := false      // reading a checkpoint's parts
	for n := 0; ; n++ {
		before := r.Point()
		if more, err := next(ctx, r, &msg, n); err != nil {
			return err
		} else if !more {
			break
		}
		if msg.Tick < 0 || msg.Tick > replay.MaxTicks || int64(msg.Tick) > replay.TicksPerByte*msg.Offset+replay.FreeTicks {
			break // where the build stops too (the replay's budget)
		}
		for p.tick < msg.Tick { // a tick ends: its frame, and those of the ticks the file skips
			if err := p.frame(); err != nil {
				return err
			}
			if p.tick < 0 {
				p.tick = msg.Tick
			} else {
				p.tick++
			}
		}
		if p.pos.Apply(&msg) {
			continue
		}
		switch msg.Kind {
		case teehist.KindConsoleCommand:
			if len(msg.Args) > 0 {
				settings.ApplySetting(msg.Cmd, msg.Args[0])
			}
		case teehist.KindEx:
			if msg.Ex != teehist.ExCheckpoint || serr != nil {
				break
			}
			if !inCkpt {
				at, inCkpt = before, true
			}
			if len(msg.Data) < teehist.WorldStatePart { // the last part
				rec.addCheckpoint(ckptRef{at: at, tick: msg.Tick, settings: settings})
				inCkpt = false
			}
		case teehist.KindFinish:
			return p.end()
		}
	}
	return p.end()
}

func (p *rough) end() error {
	if err := p.frame(); err != nil {
		return err
	}
	return p.flush()
}

// frame adds the frame of the tick read, when it is one.
func (p *rough) frame() error {
	t := p.tick
	if t <= 0 || t%FrameTicks != 0 { // the replay's first tick is 1
		return nil
	}
	if k := int(t / ChunkTicks); k != p.k || p.chunkN == 0 {
		if err := p.flush(); err != nil {
			return err
		}
		p.k = k
		p.chunk.Reset()
		p.chunk.WriteString(`{"from":`)
		p.chunk.WriteString(strconv.Itoa(k * ChunkTicks))
		p.chunk.WriteString(`,"rough":true,"frames":[`)
	}
	if p.chunkN > 0 {
		p.chunk.WriteByte(',')
	}
	var num [12]byte
	p.chunk.WriteByte('[')
	p.chunk.Write(strconv.AppendInt(num[:0], int64(t), 10))
	n := 0
	for cid := range world.MaxClients {
		if _, _, ok := p.pos.Get(cid); ok {
			n++
		}
	}
	p.chunk.WriteByte(',')
	p.chunk.Write(strconv.AppendInt(num[:0], int64(n), 10))
	for cid := range world.MaxClients {
		x, y, ok := p.pos.Get(cid)
		if !ok {
			continue
		}
		for _, v := range [RoughTeeInts]int32{int32(cid), x, y} {
			p.chunk.WriteByte(',')
			p.chunk.Write(strconv.AppendInt(num[:0], int64(v), 10))
		}
	}
	p.chunk.WriteByte(']')
	p.chunkN++
	p.out.setEnd(t)
	return nil
}

// flush compresses the chunk being filled and hands it to the recording.
func (p *rough) flush() error {
	if p.chunkN == 0 {
		return nil
	}
	p.chunk.WriteString(`]}`)
	p.chunkN = 0
	return p.out.addRough(p.k, compress(&p.gz, p.chunk.Bytes()))
}
