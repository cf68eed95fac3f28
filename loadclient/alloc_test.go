package loadclient

import (
	"testing"
	"time"

	"twserver/netproto"
	"twserver/snap"
)

// TestSteadyStateAllocs checks that receiving a delta snapshot and the
// driver's per-tick work for a client (timers, one INPUT, flush) do not
// allocate.
func TestSteadyStateAllocs(t *testing.T) {
	c, step := steadyClient(t)
	if allocs := testing.AllocsPerRun(200, step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	// 10 warm-up ticks, AllocsPerRun's own warm-up run and 200 runs
	if c.stats.Inputs != 211 {
		t.Fatalf("%d inputs for 211 ticks", c.stats.Inputs)
	}
}

// BenchmarkClientTick measures one client's work per snapshot tick: one
// delta snapshot received and checked, the driver's tick with one INPUT.
func BenchmarkClientTick(b *testing.B) {
	_, step := steadyClient(b)
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}

// steadyClient returns an in-game client and a function doing one tick of
// its steady-state work (after 10 warm-up ticks).
func steadyClient(t testing.TB) (*Client, func()) {
	t.Helper()
	c := New(Config{Pattern: PatternRandom, Seed: 1})
	c.conn = newConn(testCT, func([]byte) {})
	c.conn.state, c.conn.peerToken = stateOnline, testST
	c.recv = snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)
	c.gen = NewInputGen(PatternRandom, 1)
	c.stage, c.inGame = StageInGame, true
	c.start = time.Now()
	sent := 0
	c.conn.send = func([]byte) { sent++ }

	// server side: snapshots of a changing character, delta against the previous tick
	var b snap.Builder
	var enc snap.Encoder
	var snaps [2]snap.Snapshot
	var ack uint16
	pkt := make([]byte, 0, netproto.MaxPacketSize)
	var chunks []byte
	build := func(tick int32) []byte {
		cur := &snaps[tick/2%2]
		prev := &snaps[(tick/2+1)%2]
		b.Reset()
		ch, _ := b.NewItem(10, 0, 22)
		ch[0], ch[1] = tick, tick*3
		pi, _ := b.NewItem(11, 0, 3)
		pi[2] = tick % 7
		b.Finish(cur)
		base := tick - 2
		if tick == 2 {
			prev, base = &snap.Snapshot{}, -1
		}
		if err := enc.Encode(snap.MsgIDs7, tick, base, prev, cur, snap.Sizes7); err != nil {
			t.Fatal(err)
		}
		chunks = netproto.AppendChunkHeader(chunks[:0], netproto.ChunkHeader{Size: len(enc.Message(0))})
		chunks = append(chunks, enc.Message(0)...)
		return netproto.AppendPacketCompressed(pkt[:0], netproto.PacketHeader{Ack: ack, NumChunks: 1, Token: testCT}, chunks)
	}
	tick := int32(2)
	step := func() {
		now := c.clock()
		c.onDatagram(now, build(tick))
		c.mu.Lock()
		c.tickLocked(max(c.nextInput, now))
		c.mu.Unlock()
		tick += 2
	}
	for range 10 {
		step()
	}
	if c.stats.Snapshots == 0 || c.stats.BadSnapshots() != 0 || c.failure != nil || c.stats.Inputs != 10 || sent < 10 {
		t.Fatalf("setup: %d snapshots, %d bad, failure %v, %d inputs, %d datagrams", c.stats.Snapshots, c.stats.BadSnapshots(), c.failure, c.stats.Inputs, sent)
	}
	return c, step
}
