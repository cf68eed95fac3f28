package capturetest

import (
	"testing"

	"twserver/netproto"
	"twserver/snap"
)

// snapConn is the receiving snapshot state of one server->client flow, kept
// the way a client keeps it: a Reassembler for the parts of the tick being
// collected and the reconstructed snapshots by tick, each a delta base for
// later ticks.
type snapConn struct {
	reasm snap.Reassembler
	store map[int32]*snap.Snapshot
	recv  *snap.Receiver // the package's own complete receiving path, cross-checked
}

// snapStats are the per-capture figures of the snapshot pass.
type snapStats struct {
	packets           int // datagrams with chunks
	flows             int
	msgs              [3]int // SNAP parts, SNAPEMPTY, SNAPSINGLE
	snapshots         int    // reconstructed (including SNAPEMPTY copies of their base)
	multiPart, parts  int
	crcChecks, crcBad int
	deltaBase         int // snapshots built on a stored base (not on the empty snapshot)
	maxBaseAge        int32
	maxItems          int
}

// TestSnapCaptures feeds the server->client side of every capture through
// the receiving snapshot path (snap.ParseSnapMsg, Reassembler, ParseInts,
// ApplyDelta against the stored snapshot of tick − delta tick) and checks
// every reconstructed snapshot against the CRC the server sent and against
// the reference decoder's reconstruction.
func TestSnapCaptures(t *testing.T) {
	want := map[string]struct{ snapshots, multiPart int }{
		"session07.pcap":           {294, 0},
		"session07_mapdl.pcap":     {291, 0},
		"session07_on_ddnet.pcap":  {287, 0},
		"session07_crowd.pcap":     {285, 3},
		"session07_crowd_lag.pcap": {259, 4},
		"crapnet07.pcap":           {1848, 0},
		"twinfo_06_07.pcap":        {0, 0},
	}
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			ref := refRun(t, cf.name)
			st := snapRun(t, cf.name, ref)
			t.Logf("%d data packets, %d server->client flows with snapshots; messages SNAP %d SNAPEMPTY %d SNAPSINGLE %d; %d snapshots reconstructed (%d multi-part, %d parts), %d CRC checks, %d bad; %d on a delta base, oldest base %d ticks, most items %d",
				st.packets, st.flows, st.msgs[0], st.msgs[1], st.msgs[2], st.snapshots, st.multiPart, st.parts, st.crcChecks, st.crcBad, st.deltaBase, st.maxBaseAge, st.maxItems)
			w := want[cf.name]
			if cf.name != "twinfo_06_07.pcap" && st.snapshots == 0 { // twinfo is connless traffic only
				t.Error("no snapshot reconstructed")
			}
			if st.snapshots != w.snapshots || st.multiPart != w.multiPart || st.crcBad != 0 {
				t.Errorf("%d snapshots (%d multi-part, %d CRC mismatches), want %d (%d multi-part, 0 mismatches)", st.snapshots, st.multiPart, st.crcBad, w.snapshots, w.multiPart)
			}
			if st.msgs != ref.msgKinds {
				t.Errorf("SNAP/SNAPEMPTY/SNAPSINGLE messages %v, reference parse %v", st.msgs, ref.msgKinds)
			}
			if st.snapshots != ref.snaps || st.crcChecks != ref.crcOK {
				t.Errorf("%d snapshots and %d CRC checks, reference %d and %d", st.snapshots, st.crcChecks, ref.snaps, ref.crcOK)
			}
		})
	}
}

// snapRun replays one capture through the snap package.
func snapRun(t *testing.T, name string, ref refStats) snapStats {
	t.Helper()
	var st snapStats
	conns := make(map[flow]*snapConn)
	var ints []int32
	packets := make(map[int]bool)
	forEachChunk(t, name, func(cp capPacket, _ int, c netproto.Chunk) {
		packets[cp.Index] = true
		id, sys, n, err := netproto.ParseMsgHeader(c.Data)
		if err != nil || !sys || cp.toServer || id < netproto.NetmsgSnap || id > netproto.NetmsgSnapSingle {
			return
		}
		st.msgs[id-netproto.NetmsgSnap]++
		sc := conns[cp.flow]
		if sc == nil {
			sc = &snapConn{store: make(map[int32]*snap.Snapshot), recv: snap.NewReceiver(snap.MsgIDs7, snap.Sizes7)}
			conns[cp.flow] = sc
		}
		ints = sc.feed(t, &st, cp, id, c.Data[n:], ref.conns[cp.flow], ints)
	})
	st.packets = len(packets)
	st.flows = len(conns)
	return st
}

func (sc *snapConn) feed(t *testing.T, st *snapStats, cp capPacket, id int32, body []byte, ref *refConn, ints []int32) []int32 {
	t.Helper()
	// The package's own receiver sees every message too; it must agree.
	rtick, rdone, rerr := sc.recv.Handle(id, append([]byte(nil), body...))

	m, err := snap.ParseSnapMsg(snap.MsgIDs7, id, body)
	if err != nil {
		t.Errorf("packet %d: ParseSnapMsg(%d): %v: %s", cp.Index, id, err, fmtHex(body))
		return ints
	}
	var data []byte
	var crc uint32
	baseTick := m.BaseTick()
	if !m.Empty {
		done, err := sc.reasm.Add(&m)
		if err != nil {
			t.Errorf("packet %d: tick %d part %d/%d: Reassembler.Add: %v", cp.Index, m.Tick, m.Part, m.NumParts, err)
			return ints
		}
		if !done {
			if rdone || rerr != nil {
				t.Errorf("packet %d: tick %d: Receiver.Handle done=%v err=%v before the last part", cp.Index, m.Tick, rdone, rerr)
			}
			return ints
		}
		if sc.reasm.Tick() != m.Tick || sc.reasm.BaseTick() != baseTick {
			t.Errorf("packet %d: reassembled tick %d base %d, message tick %d base %d", cp.Index, sc.reasm.Tick(), sc.reasm.BaseTick(), m.Tick, baseTick)
		}
		data, crc = sc.reasm.Data(), sc.reasm.CRC()
		st.parts += m.NumParts
		if m.NumParts > 1 {
			st.multiPart++
		}
	}
	base := new(snap.Snapshot)
	if baseTick >= 0 {
		b, ok := sc.store[baseTick]
		if !ok {
			t.Errorf("packet %d: tick %d: delta base %d not stored", cp.Index, m.Tick, baseTick)
			return ints
		}
		base = b
		st.deltaBase++
		st.maxBaseAge = max(st.maxBaseAge, m.Tick-baseTick)
	}
	got := new(snap.Snapshot)
	if m.Empty {
		got.CopyFrom(base)
	} else {
		ints, err = snap.ParseInts(ints[:0], data, snap.MaxDeltaInts)
		if err != nil {
			t.Errorf("packet %d: tick %d: ParseInts: %v: %s", cp.Index, m.Tick, err, fmtHex(data))
			return ints
		}
		if err := snap.ApplyDelta(got, base, ints, snap.Sizes7); err != nil {
			t.Errorf("packet %d: tick %d (base %d): ApplyDelta: %v; delta %v", cp.Index, m.Tick, baseTick, err, ints)
			return ints
		}
		st.crcChecks++
		if got.CRC() != crc {
			st.crcBad++
			t.Errorf("packet %d: tick %d (base %d): CRC %d, server sent %d", cp.Index, m.Tick, baseTick, int32(got.CRC()), int32(crc))
		}
	}
	sc.store[m.Tick] = got
	st.snapshots++
	st.maxItems = max(st.maxItems, got.NumItems())

	if want, ok := ref.store[m.Tick]; !ok || !sameSnapshot(got, want) {
		t.Errorf("packet %d: tick %d differs from the reference reconstruction", cp.Index, m.Tick)
	}
	switch {
	case rerr != nil:
		t.Errorf("packet %d: tick %d: Receiver.Handle: %v", cp.Index, m.Tick, rerr)
	case !rdone || rtick != m.Tick:
		t.Errorf("packet %d: tick %d: Receiver.Handle returned tick %d done %v", cp.Index, m.Tick, rtick, rdone)
	default:
		if rs, ok := sc.recv.Get(m.Tick); !ok || !rs.Equal(got) {
			t.Errorf("packet %d: tick %d: Receiver holds a different snapshot", cp.Index, m.Tick)
		}
	}
	return ints
}

// sameSnapshot compares a snap.Snapshot with a reference snapshot item by item.
func sameSnapshot(s *snap.Snapshot, r refSnap) bool {
	keys := r.keys()
	if s.NumItems() != len(keys) {
		return false
	}
	for i, k := range keys {
		if s.Key(i) != k {
			return false
		}
		d, w := s.ItemData(i), r[k]
		if len(d) != len(w) {
			return false
		}
		for j := range d {
			if d[j] != w[j] {
				return false
			}
		}
	}
	return true
}
