package world

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"twserver/demo"
	"twserver/internal/pcap"
	"twserver/netproto"
	"twserver/snap"
	"twserver/world/twmap"
)

// This file replays a session recorded between the real 0.7.5 client and
// the real 0.7.5 server on dm1 (testdata/session07.pcap: one player walking,
// jumping and firing) through a World: the client's inputs go in at the
// ticks the reference server saw them, and every snapshot the reference
// server sent is compared with the World's snapshot for the same tick.

const refServerPort = 8303

type refInput struct {
	at       time.Time
	intended int32
	in       Input
	arrival  int32 // server tick current when the input arrived
	stamp    int32 // tick the input is applied as predicted input
}

type refSession struct {
	enterAt   time.Time
	enterTick int32
	inputs    []refInput
	snaps     map[int32]*snap.Snapshot
	snapTimes map[int32]time.Time
	ticks     []int32
	timing    map[int32]int32 // intended tick -> time left (ms) from INPUTTIMING
	tick0     time.Time       // calibrated start of server tick 0
	gameMsgs  []refGameMsg
	info      PlayerInfo // from Cl_StartInfo
	closeAt   time.Time  // the client's disconnect
}

// clStartInfo is NETMSGTYPE_CL_STARTINFO.
const clStartInfo = 27

type refGameMsg struct {
	at time.Time
	id int32
	u  []byte
}

// loadRefSession extracts inputs, INPUTTIMING replies and snapshots.
func loadRefSession(t *testing.T, name string) *refSession {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(data)
	if err != nil {
		t.Fatal(err)
	}
	rs := &refSession{snaps: map[int32]*snap.Snapshot{}, snapTimes: map[int32]time.Time{}, timing: map[int32]int32{}}
	recv := snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)
	seen := map[[2]int]bool{} // vital (direction, seq) already handled
	var buf []byte
	var u netproto.Unpacker
	for _, p := range pkts {
		if len(p.Payload) == 0 || netproto.IsConnless(p.Payload) || p.Payload[0]&0xc0 != 0 {
			continue
		}
		toServer := p.Dst.Port() == refServerPort
		if !toServer && p.Src.Port() != refServerPort {
			continue
		}
		hdr, raw, err := netproto.ParsePacket(p.Payload)
		if err != nil {
			continue
		}
		if hdr.Flags&netproto.FlagControl != 0 {
			if toServer && len(raw) > 0 && raw[0] == netproto.CtrlClose && rs.closeAt.IsZero() {
				rs.closeAt = p.Time
			}
			continue
		}
		payload, err := netproto.DecodePayload(buf[:0], hdr, raw)
		if err != nil {
			t.Fatalf("packet %d: %v", p.Index, err)
		}
		buf = payload[:0]
		var cr netproto.ChunkReader
		cr.Reset(payload, int(hdr.NumChunks))
		for c, ok := cr.Next(); ok; c, ok = cr.Next() {
			if c.Flags&netproto.ChunkVital != 0 {
				dir := 0
				if toServer {
					dir = 1
				}
				k := [2]int{dir, int(c.Seq)}
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			id, sys, n, err := netproto.ParseMsgHeader(c.Data)
			if err != nil {
				continue
			}
			body := c.Data[n:]
			switch {
			case toServer && sys && id == netproto.NetmsgEnterGame:
				rs.enterAt = p.Time
			case toServer && sys && id == netproto.NetmsgInput:
				u.Reset(body)
				u.GetInt() // ack tick
				intended := u.GetInt()
				size := u.GetInt()
				var ints [SizePlayerInput]int32
				for i := 0; i < int(size/4) && i < SizePlayerInput; i++ {
					ints[i] = u.GetInt()
				}
				if u.Err() != nil {
					t.Fatalf("packet %d: bad INPUT", p.Index)
				}
				in, err := DecodeInput(ints[:])
				if err != nil {
					t.Fatalf("packet %d: invalid input %v", p.Index, ints)
				}
				rs.inputs = append(rs.inputs, refInput{at: p.Time, intended: intended, in: in})
			case toServer && !sys && id == clStartInfo:
				u.Reset(body)
				rs.info.Name = u.GetString()
				rs.info.Clan = u.GetString()
				rs.info.Country = u.GetInt()
				for i := range rs.info.SkinPartNames {
					rs.info.SkinPartNames[i] = u.GetString()
				}
				for i := range rs.info.UseCustomColors {
					rs.info.UseCustomColors[i] = u.GetInt() != 0
				}
				for i := range rs.info.SkinPartColors {
					rs.info.SkinPartColors[i] = u.GetInt()
				}
			case toServer && !sys:
				rs.gameMsgs = append(rs.gameMsgs, refGameMsg{at: p.Time, id: id, u: append([]byte(nil), body...)})
			case !toServer && sys && id == netproto.NetmsgInputTiming:
				u.Reset(body)
				intended, left := u.GetInt(), u.GetInt()
				if _, ok := rs.timing[intended]; !ok {
					rs.timing[intended] = left
				}
			case !toServer && sys && id >= netproto.NetmsgSnap && id <= netproto.NetmsgSnapSingle:
				tick, done, err := recv.Handle(id, append([]byte(nil), body...))
				if err != nil {
					t.Fatalf("packet %d: snapshot: %v", p.Index, err)
				}
				if done {
					s, _ := recv.Latest()
					cp := new(snap.Snapshot)
					cp.CopyFrom(s)
					rs.snaps[tick] = cp
					rs.snapTimes[tick] = p.Time
					rs.ticks = append(rs.ticks, tick)
				}
			}
		}
	}
	if len(rs.ticks) == 0 || len(rs.inputs) == 0 || rs.enterAt.IsZero() {
		t.Fatalf("session incomplete: %d snapshots, %d inputs", len(rs.ticks), len(rs.inputs))
	}
	sort.Slice(rs.ticks, func(i, j int) bool { return rs.ticks[i] < rs.ticks[j] })
	// Calibrate the server's tick schedule: an INPUTTIMING reply says that the
	// input arrived time_left ms before tick intended started, so tick 0
	// started no earlier than capture time + time_left - intended*20ms.
	for _, ri := range rs.inputs {
		if left, ok := rs.timing[ri.intended]; ok {
			b := ri.at.Add(time.Duration(left)*time.Millisecond - time.Duration(ri.intended)*20*time.Millisecond)
			if rs.tick0.IsZero() || b.After(rs.tick0) {
				rs.tick0 = b
			}
		}
	}
	if rs.tick0.IsZero() {
		t.Fatal("no INPUTTIMING replies to calibrate the tick schedule")
	}
	rs.enterTick = rs.tickAt(rs.enterAt)
	for i := range rs.inputs {
		ri := &rs.inputs[i]
		if left, ok := rs.timing[ri.intended]; ok {
			// the server answered at Now = TickStart(intended) - left ms and
			// was then after the last tick that had started before Now
			ri.arrival = ri.intended - floorDiv(left, 20) - 1
		} else {
			ri.arrival = rs.tickAt(ri.at)
		}
		ri.stamp = max(ri.intended, ri.arrival+1)
	}
	return rs
}

func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// tickAt returns the server tick current at time at: the last tick that
// started before it on the calibrated schedule.
func (rs *refSession) tickAt(at time.Time) int32 {
	d := at.Sub(rs.tick0)
	return int32((d - 1) / (20 * time.Millisecond))
}

func TestReferenceSessionReplay(t *testing.T) {
	for _, tc := range []struct{ capture, demo string }{
		// one player on dm1: walk, jump, fire; the server also recorded a demo
		{"session07.pcap", "session07_srv_07.demo"},
		// the same kind of session through a latency-cycling proxy (server leg)
		{"crapnet07.pcap", ""},
	} {
		t.Run(tc.capture, func(t *testing.T) { replayRef(t, tc.capture, tc.demo) })
	}
}

func replayRef(t *testing.T, name, demoName string) {
	rs := loadRefSession(t, name)
	demoSnaps := map[int32]*snap.Snapshot{}
	if demoName != "" {
		data, err := os.ReadFile("testdata/" + demoName)
		if err != nil {
			t.Fatal(err)
		}
		_, ticks, err := demo.ReadAll(data, snap.Sizes7)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if tk.Snap != nil {
				demoSnaps[tk.Tick] = tk.Snap
			}
		}
	}
	mapData, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	m, err := twmap.Load("dm1", mapData)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(m, DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// the client's id is the one of the PlayerInfo items
	first := rs.snaps[rs.ticks[0]]
	cid := -1
	for i := 0; i < first.NumItems(); i++ {
		if it := first.Item(i); it.Type == ObjPlayerInfo {
			cid = int(it.ID)
		}
	}
	if cid < 0 {
		t.Fatal("no PlayerInfo in the first snapshot")
	}
	t.Logf("client %d entered at tick %d; %d inputs, %d snapshots (ticks %d..%d), %d game messages",
		cid, rs.enterTick, len(rs.inputs), len(rs.ticks), rs.ticks[0], rs.ticks[len(rs.ticks)-1], len(rs.gameMsgs))

	var b snap.Builder
	b.Sizes = snap.Sizes7
	var mine snap.Snapshot
	next := 0 // next input to deliver as direct input
	// the reference server's per-client input ring: 200 slots written in
	// turn, searched from slot 0 for the input stamped for the coming tick
	var ring [200]struct {
		tick int32
		in   Input
	}
	for i := range ring {
		ring[i].tick = -1
	}
	head := 0
	compared, demoCompared, mismatched := 0, 0, 0
	last := rs.ticks[len(rs.ticks)-1]
	for tk := range demoSnaps {
		last = max(last, tk)
	}
	leave := int32(-1)
	if !rs.closeAt.IsZero() {
		leave = rs.tickAt(rs.closeAt)
	}
	for w.CurrentTick() < last {
		cur := w.CurrentTick()
		if cur == leave {
			w.RemovePlayer(cid)
		}
		if cur == rs.enterTick {
			if err := w.AddPlayer(cid, rs.info); err != nil {
				t.Fatal(err)
			}
		}
		for next < len(rs.inputs) && rs.inputs[next].arrival <= cur {
			ri := &rs.inputs[next]
			ring[head].tick, ring[head].in = ri.stamp, ri.in
			head = (head + 1) % len(ring)
			if w.HasPlayer(cid) {
				w.DirectInput(cid, ri.in)
			}
			next++
		}
		for i := range ring {
			if ring[i].tick == cur+1 {
				w.SetInput(cid, ring[i].in)
				break
			}
		}
		w.Tick()
		w.DrainEvents(func(Event) {})
		tick := w.CurrentTick()
		if ref, ok := rs.snaps[tick]; ok && w.HasPlayer(cid) {
			b.Reset()
			if err := w.Snap(cid, &b); err != nil {
				t.Fatal(err)
			}
			b.Finish(&mine)
			if diff := diffSnaps(ref, &mine); diff != "" {
				mismatched++
				if mismatched <= 5 {
					t.Errorf("tick %d:\n%s", tick, diff)
				}
			}
			compared++
		}
		if ref, ok := demoSnaps[tick]; ok {
			b.Reset()
			if err := w.Snap(-1, &b); err != nil {
				t.Fatal(err)
			}
			b.Finish(&mine)
			if diff := diffSnaps(ref, &mine); diff != "" {
				mismatched++
				if mismatched <= 5 {
					t.Errorf("demo tick %d:\n%s", tick, diff)
				}
			}
			demoCompared++
		}
		if tick%2 == 0 {
			w.PostSnap()
		}
	}
	t.Logf("compared %d client snapshots and %d demo snapshots, %d differ", compared, demoCompared, mismatched)
	if demoName != "" && demoCompared < 300 {
		t.Fatalf("only %d demo snapshots compared", demoCompared)
	}
	if compared < 100 {
		t.Fatalf("only %d snapshots compared", compared)
	}
}

// diffSnaps describes the item differences between the reference snapshot
// and ours, ignoring PlayerInfo latency (it comes from the real network).
func diffSnaps(ref, mine *snap.Snapshot) string {
	out := ""
	keys := map[uint32]bool{}
	for i := 0; i < ref.NumItems(); i++ {
		keys[ref.Key(i)] = true
	}
	for i := 0; i < mine.NumItems(); i++ {
		keys[mine.Key(i)] = true
	}
	sorted := make([]uint32, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	for _, k := range sorted {
		var a, b []int32
		if i := ref.Find(k); i >= 0 {
			a = ref.ItemData(i)
		}
		if i := mine.Find(k); i >= 0 {
			b = mine.ItemData(i)
		}
		typ := k >> 16
		if typ == ObjPlayerInfo && a != nil && b != nil {
			a = append([]int32(nil), a...)
			a[2] = b[2]
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			out += fmt.Sprintf("  type %d id %d: ref %v ours %v\n", typ, k&0xffff, a, b)
		}
	}
	return out
}
