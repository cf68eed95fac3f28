package snap

import (
	"testing"

	"twserver/netproto"
)

// game64 builds the snapshot of a busy 64-player 0.7 game at tick: 64
// characters, 64 player infos, game data, team scores, flags, projectiles,
// pickups and a few events, with values that move like a real game.
func game64(t testing.TB, b *Builder, dst *Snapshot, tick int32) {
	b.Reset()
	must := func(d []int32, err error) []int32 {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for cid := range 64 {
		c := int32(cid)
		d := must(b.NewItem(10, uint16(cid), 22)) // Character
		d[0] = tick - tick%8                      // reckoning tick
		d[1] = 1000 + c*50 + tick%64*3            // x
		d[2] = 800 + c*10 - tick%32               // y
		d[3] = (tick%16 - 8) * 256                // vel
		d[4] = (tick%8 - 4) * 128
		d[5] = (tick*7 + c) % 1600 // angle
		d[6] = 1
		d[8] = -1
		d[16] = 10 // health
		d[17] = 5
		d[18] = 10
		d[19] = 1
		d[21] = tick / 50 % 2
		p := must(b.NewItem(11, uint16(cid), 3)) // PlayerInfo
		p[1] = c % 7
		p[2] = 30 + c%20
	}
	g := must(b.NewItem(6, 0, 3)) // GameData
	g[0] = 100
	ts := must(b.NewItem(7, 0, 2)) // GameDataTeam
	ts[0], ts[1] = 3, tick/500
	gf := must(b.NewItem(8, 0, 4)) // GameDataFlag
	gf[0], gf[1] = -2, 17
	for team := range 2 {
		f := must(b.NewItem(5, uint16(team), 3)) // Flag
		f[0], f[1], f[2] = 500+int32(team)*3000, 900, int32(team)
	}
	for i := range 40 { // projectiles: a sliding window of ids
		id := uint16((int(tick)/4 + i) % 16384)
		pr := must(b.NewItem(2, id, 6))
		pr[0], pr[1], pr[2], pr[3], pr[4], pr[5] = int32(id)*13, 700, 2000, -300, 1, tick-int32(i)
	}
	for i := range 20 { // pickups
		pk := must(b.NewItem(4, uint16(100+i), 3))
		pk[0], pk[1], pk[2] = int32(i)*320, 1200, int32(i%8)
	}
	for i := range 6 { // events of this tick
		ev := must(b.NewItem(21, uint16(i), 3))
		ev[0], ev[1], ev[2] = tick%1000, int32(i)*50, int32(i)
	}
	b.Finish(dst)
}

func BenchmarkDeltaCreateApply64(b *testing.B) {
	var bld Builder
	var prev, cur, out Snapshot
	game64(b, &bld, &prev, 1000)
	game64(b, &bld, &cur, 1002)
	var delta []int32
	delta = AppendDelta(delta[:0], &prev, &cur, Sizes7)
	b.ReportAllocs()
	for b.Loop() {
		delta = AppendDelta(delta[:0], &prev, &cur, Sizes7)
		if err := ApplyDelta(&out, &prev, delta, Sizes7); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(delta)), "ints/delta") // after the loop, which resets metrics
}

// clientEncode runs the full per-client pipeline: delta, varints, parts and
// Huffman compression of every message.
func clientEncode(tb testing.TB, e *Encoder, comp []byte, prev, cur *Snapshot, tick int32) ([]byte, int) {
	if err := e.Encode(MsgIDs7, tick, tick-2, prev, cur, Sizes7); err != nil {
		tb.Fatal(err)
	}
	total := 0
	for i := range e.NumMessages() {
		var err error
		comp, err = netproto.HuffmanCompress(comp[:0], e.Message(i))
		if err != nil {
			tb.Fatal(err)
		}
		total += len(comp)
	}
	return comp, total
}

func BenchmarkEncodeClient64(b *testing.B) {
	for _, full := range []bool{false, true} {
		name := "delta"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			var bld Builder
			var prev, cur, empty Snapshot
			game64(b, &bld, &prev, 1000)
			game64(b, &bld, &cur, 1002)
			base := &prev
			if full {
				base = &empty
			}
			var e Encoder
			comp := make([]byte, 0, 2048)
			var n int
			b.ReportAllocs()
			for b.Loop() {
				comp, n = clientEncode(b, &e, comp, base, &cur, 1002)
			}
			b.ReportMetric(float64(len(e.Data())), "varint-bytes")
			b.ReportMetric(float64(n), "huffman-bytes")
			b.ReportMetric(float64(e.NumMessages()), "parts")
		})
	}
}

func BenchmarkBuild64(b *testing.B) {
	var bld Builder
	var s Snapshot
	b.ReportAllocs()
	tick := int32(0)
	for b.Loop() {
		game64(b, &bld, &s, tick)
		tick += 2
	}
}

// The whole server and client path allocates nothing once warmed up.
func TestSteadyStateAllocs(t *testing.T) {
	var bld Builder
	var store Storage
	var e Encoder
	comp := make([]byte, 0, 2048)
	recv := NewReceiver(MsgIDs7, Sizes7)
	tick := int32(0)
	step := func() {
		cur := store.Alloc(tick, 0)
		game64(t, &bld, cur, tick)
		base, baseTick := &Snapshot{}, int32(-1)
		if s, _, ok := store.Get(tick - 2); ok {
			base, baseTick = s, tick-2
		}
		if err := e.Encode(MsgIDs7, tick, baseTick, base, cur, Sizes7); err != nil {
			t.Fatal(err)
		}
		for i := range e.NumMessages() {
			var err error
			if comp, err = netproto.HuffmanCompress(comp[:0], e.Message(i)); err != nil {
				t.Fatal(err)
			}
			id, body := splitMsg(t, e.Message(i))
			if _, _, err := recv.Handle(id, body); err != nil {
				t.Fatal(err)
			}
		}
		if got, gt := recv.Latest(); gt != tick || !got.Equal(cur) {
			t.Fatalf("tick %d not received", tick)
		}
		store.Ack(tick)
		tick += 2
	}
	for range 10 {
		step()
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Fatalf("allocs per tick = %v, want 0", n)
	}
}

// BenchmarkAppendDelta64 is the delta alone (no apply) between two ticks of
// the 64-player game, where the player infos and pickups did not change.
func BenchmarkAppendDelta64(b *testing.B) {
	delta := benchDelta(b, 1000, 1002)
	b.ReportMetric(float64(len(delta)), "ints/delta")
}

// BenchmarkAppendDeltaUnchanged64 is the delta between two equal snapshots
// of the 64-player game: every item is compared and none written, as for
// most items of a tick (player infos, pickups, characters out of view).
func BenchmarkAppendDeltaUnchanged64(b *testing.B) {
	if delta := benchDelta(b, 1000, 1000); !IsEmptyDelta(delta) {
		b.Fatalf("delta of equal snapshots not empty: %d ints", len(delta))
	}
}

// benchDelta runs AppendDelta between the 64-player game's snapshots of
// ticks from and to, and returns the delta.
func benchDelta(b *testing.B, from, to int32) []int32 {
	var bld Builder
	var prev, cur Snapshot
	game64(b, &bld, &prev, from)
	game64(b, &bld, &cur, to)
	delta := AppendDelta(nil, &prev, &cur, Sizes7)
	b.ReportAllocs()
	for b.Loop() {
		delta = AppendDelta(delta[:0], &prev, &cur, Sizes7)
	}
	return delta
}
