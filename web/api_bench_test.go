package web

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"twserver/live"
	"twserver/world"
)

// busyFrame is a frame of a full game: 63 tees, 2 flags, 20 projectiles,
// 10 pickups and 4 lasers.
func busyFrame(tb testing.TB) *live.Frame {
	hub := live.NewHub()
	f := hub.NewFrame()
	add := func(typ, id uint16, d ...int32) {
		w, err := f.NewItem(typ, id, len(d))
		if err != nil {
			tb.Fatal(err)
		}
		copy(w, d)
	}
	for i := range 63 {
		add(world.ObjCharacter, uint16(i), 1000, int32(100+i*37), int32(2000-i*13), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	for i := range 2 {
		add(world.ObjFlag, uint16(i), int32(500+i), 600, int32(i))
	}
	for i := range 20 {
		add(world.ObjProjectile, uint16(i), int32(300+i*11), int32(400+i), 3, 4, int32(i%4), 1000)
	}
	for i := range 10 {
		add(world.ObjPickup, uint16(i), int32(64*i), 900, int32(i%3))
	}
	for i := range 4 {
		add(world.ObjLaser, uint16(i), 10, 20, 30, 40, 1000)
	}
	return f
}

// apiFrame is the "frame" message of the live stream as a struct: the
// tests decode frames into it, and its encoding by encoding/json
// (frameOf) is what appendFrame must write.
type apiFrame struct {
	Version     int        `json:"version"`
	Seq         uint64     `json:"seq"`
	Tick        int32      `json:"tick"`
	MapGen      uint32     `json:"map_gen"`
	Tees        [][3]int32 `json:"tees"`
	Flags       [][3]int32 `json:"flags"`
	Projectiles [][3]int32 `json:"projectiles"`
	Pickups     [][3]int32 `json:"pickups"`
	Lasers      [][4]int32 `json:"lasers"`
}

// frameOf lists the entities of frame f, as appendFrame writes them.
func frameOf(f *live.Frame) apiFrame {
	e := apiFrame{Version: APIVersion, Seq: f.Seq, Tick: f.Tick, Tees: [][3]int32{}, Flags: [][3]int32{},
		Projectiles: [][3]int32{}, Pickups: [][3]int32{}, Lasers: [][4]int32{}}
	if f.Map != nil {
		e.MapGen = f.Map.Gen
	}
	for _, it := range f.Items {
		d := f.Data(it)
		switch it.Type {
		case world.ObjCharacter:
			if len(d) >= 3 {
				e.Tees = append(e.Tees, [3]int32{int32(it.ID), d[1], d[2]})
			}
		case world.ObjFlag:
			if len(d) >= 3 {
				e.Flags = append(e.Flags, [3]int32{d[0], d[1], d[2]})
			}
		case world.ObjProjectile:
			if len(d) >= 5 {
				e.Projectiles = append(e.Projectiles, [3]int32{d[0], d[1], d[4]})
			}
		case world.ObjPickup:
			if len(d) >= 3 {
				e.Pickups = append(e.Pickups, [3]int32{d[0], d[1], d[2]})
			}
		case world.ObjLaser:
			if len(d) >= 4 {
				e.Lasers = append(e.Lasers, [4]int32{d[0], d[1], d[2], d[3]})
			}
		}
	}
	return e
}

// TestAppendFrame: the hand-written frame message is encoding/json's
// output of apiFrame for the same frame, on a busy frame, an empty one,
// items too short to show, and random ones.
func TestAppendFrame(t *testing.T) {
	frames := []*live.Frame{busyFrame(t), live.NewHub().NewFrame()}
	short := live.NewHub().NewFrame()
	short.Seq, short.Tick = 7, -3
	short.Map = &live.MapLayer{Gen: 4}
	for _, typ := range []uint16{world.ObjCharacter, world.ObjFlag, world.ObjProjectile, world.ObjPickup, world.ObjLaser} {
		for size := range 6 {
			w, err := short.NewItem(typ, uint16(100+size), size)
			if err != nil {
				t.Fatal(err)
			}
			for i := range w {
				w[i] = int32(-1 - i*1000003)
			}
		}
	}
	frames = append(frames, short)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f := live.NewHub().NewFrame()
		f.Seq, f.Tick = rng.Uint64(), rng.Int32()
		for range rng.IntN(40) {
			w, err := f.NewItem(uint16(rng.IntN(12)), uint16(rng.IntN(1<<16)), rng.IntN(8))
			if err != nil {
				t.Fatal(err)
			}
			for i := range w {
				w[i] = int32(rng.Uint32())
			}
		}
		frames = append(frames, f)
	}
	for i, f := range frames {
		want, err := json.Marshal(frameOf(f))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendFrame(nil, f); !bytes.Equal(got, want) {
			t.Fatalf("frame %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// BenchmarkEncodeFrame: the live stream's encoding of a busy frame, once
// per frame for all viewers.
func BenchmarkEncodeFrame(b *testing.B) {
	f := busyFrame(b)
	b.ReportAllocs()
	for b.Loop() {
		encodeFrame(f)
	}
}
