package web

import (
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

// BenchmarkEncodeFrame: the live stream's encoding of a busy frame, once
// per frame for all viewers.
func BenchmarkEncodeFrame(b *testing.B) {
	f := busyFrame(b)
	b.ReportAllocs()
	for b.Loop() {
		encodeFrame(f)
	}
}
