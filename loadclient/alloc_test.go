package loadclient

import (
	"testing"
	"time"

	"twserver/netproto"
	"twserver/snap"
)

// TestSteadyStateAllocs checks that receiving a delta snapshot and the
// driver's per-tick work for a client (timers, one INPUT, flush) do not
// allocate (the race detector's instrumentation may: not counted there).
func TestSteadyStateAllocs(t *testing.T) {
	c, step := steadyClient(t)
	if allocs := testing.AllocsPerRun(200, step); allocs != 0 && !raceEnabled {
		t.Fatalf("%v allocations per tick", allocs)
	}
	// 10 warm-up ticks, AllocsPerRun's own warm-up run and 200 runs
	if c.stats.Inputs != 211 {
		t.Fatalf("%d inputs for 211 ticks", c.stats.Inputs)
	}
}

// TestSteadyStateAllocsImpaired is TestSteadyStateAllocs with the P2
// impairment (10 % loss, 100±50 ms, 10 % reordered, 1 % duplicated) in both
// directions: every datagram goes through the client's links, and 40 ms of
// the client's clock pass per step, so held datagrams fall due and go out.
func TestSteadyStateAllocsImpaired(t *testing.T) {
	c, step := steadyClientImpaired(t)
	if allocs := testing.AllocsPerRun(200, step); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	up, down := c.upLink.stats, c.downLink.stats
	t.Logf("up %+v down %+v snapshots %d", up, down, c.stats.Snapshots)
	if down.Dropped == 0 || down.Delayed == 0 || up.Delayed == 0 || down.Overflow+up.Overflow != 0 || c.stats.Snapshots < 100 {
		t.Fatalf("impairment not exercised: up %+v down %+v, %d snapshots", up, down, c.stats.Snapshots)
	}
}

// BenchmarkClientTickImpaired is BenchmarkClientTick through the P2
// impairment (see TestSteadyStateAllocsImpaired).
func BenchmarkClientTickImpaired(b *testing.B) {
	_, step := steadyClientImpaired(b)
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}

// steadyClientImpaired is steadyClient with both links impaired; each step
// moves the client's clock 40 ms (two ticks) on.
func steadyClientImpaired(t testing.TB) (*Client, func()) {
	t.Helper()
	c, _ := steadyClient(t)
	imp := Impair{Loss: 0.1, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond, Reorder: 0.1, Dup: 0.01}
	n := &Netem{Up: imp, Down: imp}
	c.cfg.Netem = n
	c.upLink, c.downLink = newLink(imp, n, 1, 1), newLink(imp, n, 1, 2)
	c.rawFn = func([]byte) {}
	c.conn.send = c.write
	pkt, next := steadyServer(t, c)
	c.ackTick = -1 // the server side starts afresh: ask for a full snapshot
	step := func() {
		c.start = c.start.Add(-2 * netproto.TickDuration)
		now := c.clock()
		c.downLink.admit(now, next(pkt), c.recvFn)
		c.mu.Lock()
		c.pumpLocked()
		c.tickLocked(max(c.nextInput, now))
		c.mu.Unlock()
	}
	for range 20 {
		step()
	}
	return c, step
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
	c := New(Config{Pattern: PatternRandom, Seed: 1, Pace: PaceTick})
	c.conn = newConn(testCT, func([]byte) {})
	c.conn.state, c.conn.peerToken = stateOnline, testST
	c.recv = snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)
	c.gen = NewInputGen(PatternRandom, 1)
	c.stage, c.inGame = StageInGame, true
	c.start = time.Now()
	sent := 0
	c.conn.send = func([]byte) { sent++ }

	pkt, next := steadyServer(t, c)
	step := func() {
		now := c.clock()
		c.onDatagram(now, next(pkt))
		c.mu.Lock()
		c.tickLocked(max(c.nextInput, now))
		c.mu.Unlock()
	}
	for range 10 {
		step()
	}
	if c.stats.Snapshots == 0 || c.stats.BadSnapshots() != 0 || c.failure != nil || c.stats.Inputs != 10 || sent < 10 {
		t.Fatalf("setup: %d snapshots, %d bad, failure %v, %d inputs, %d datagrams", c.stats.Snapshots, c.stats.BadSnapshots(), c.failure, c.stats.Inputs, sent)
	}
	return c, step
}

// steadyServer returns a datagram buffer and next, which builds the next
// snapshot datagram (every second tick) into it: a changing character,
// delta-encoded against the tick the client acknowledged when the server
// still has it, else a full snapshot.
func steadyServer(t testing.TB, c *Client) ([]byte, func([]byte) []byte) {
	const keep = 64 // ticks/2 of snapshots kept for delta bases
	var b snap.Builder
	var enc snap.Encoder
	var snaps [keep]snap.Snapshot
	var ticks [keep]int32
	var chunks []byte
	empty := &snap.Snapshot{}
	tick := int32(0)
	next := func(pkt []byte) []byte {
		tick += 2
		cur := &snaps[tick/2%keep]
		b.Reset()
		ch, _ := b.NewItem(10, 0, 22)
		ch[0], ch[1] = tick, tick*3
		pi, _ := b.NewItem(11, 0, 3)
		pi[2] = tick % 7
		b.Finish(cur)
		ticks[tick/2%keep] = tick
		base, prev := c.ackTick, empty
		if i := base / 2 % keep; base >= 0 && base < tick && ticks[i] == base {
			prev = &snaps[i]
		} else {
			base = -1
		}
		if err := enc.Encode(snap.MsgIDs7, tick, base, prev, cur, snap.Sizes7); err != nil {
			t.Fatal(err)
		}
		chunks = netproto.AppendChunkHeader(chunks[:0], netproto.ChunkHeader{Size: len(enc.Message(0))})
		chunks = append(chunks, enc.Message(0)...)
		return netproto.AppendPacketCompressed(pkt[:0], netproto.PacketHeader{NumChunks: 1, Token: testCT}, chunks)
	}
	return make([]byte, 0, netproto.MaxPacketSize), next
}
