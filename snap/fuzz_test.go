package snap

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// checkSnapshot verifies the invariants every Snapshot must hold.
func checkSnapshot(t *testing.T, s *Snapshot) {
	t.Helper()
	for i := 1; i < s.NumItems(); i++ {
		if s.Key(i-1) >= s.Key(i) {
			t.Fatalf("keys not strictly sorted at %d", i)
		}
	}
	if s.CRC() != crcOf(s.data) {
		t.Fatalf("CRC %d, sum %d", s.CRC(), crcOf(s.data))
	}
	if err := fits(s.NumItems(), s.DataWords()); err != nil {
		t.Fatalf("limits: %v", err)
	}
	if len(s.offs) == 0 && s.NumItems() == 0 && len(s.data) == 0 {
		return // the zero value
	}
	if len(s.offs) != s.NumItems()+1 || int(s.offs[s.NumItems()]) != len(s.data) {
		t.Fatalf("offsets broken")
	}
}

// captureDeltaSeeds returns (base as a delta from empty, delta) varint pairs
// of real snapshots from a capture.
func captureDeltaSeeds(t testing.TB, file string, port uint16, proto int, max int) [][2][]byte {
	ids, sizes := MsgIDs7, Sizes7
	if proto == 6 {
		ids, sizes = MsgIDs6, Sizes6
	}
	recv := NewReceiver(ids, sizes)
	var re Reassembler
	var out [][2][]byte
	var empty Snapshot
	msgs := captureSnapMessages(t, "testdata/"+file, port, proto)
	for _, m := range msgs {
		pm, err := ParseSnapMsg(ids, m.id, m.body)
		if err != nil || pm.Empty {
			continue
		}
		base := &empty
		if bt := pm.BaseTick(); bt >= 0 {
			b, ok := recv.Get(bt)
			if !ok {
				continue
			}
			var cp Snapshot
			cp.CopyFrom(b)
			base = &cp
		}
		if _, done, err := recv.Handle(m.id, m.body); err != nil || !done {
			continue
		}
		baseBytes := AppendInts(nil, AppendDelta(nil, &empty, base, sizes))
		out = append(out, [2][]byte{baseBytes, bytes.Clone(recvData(t, &re, ids, m, msgs))})
		if len(out) == max {
			break
		}
	}
	return out
}

func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte{}, AppendInts(nil, []int32{0, 1, 0, 11, 0, 8, 0, 0}), false)
	f.Add(AppendInts(nil, []int32{0, 2, 0, 11, 0, 1, 2, 3, 30, 1, 2, 5, 6}),
		AppendInts(nil, []int32{1, 1, 0, int32(Key(11, 0)), 30, 1, 2, -1, -1}), false)
	for _, s := range captureDeltaSeeds(f, "session07_crowd.pcap", 8303, 7, 8) {
		f.Add(s[0], s[1], false)
	}
	for _, s := range captureDeltaSeeds(f, "sessionddnet.pcap", 8304, 6, 4) {
		f.Add(s[0], s[1], true)
	}
	var empty Snapshot
	f.Fuzz(func(t *testing.T, baseBytes, deltaBytes []byte, six bool) {
		sizes := Sizes7
		if six {
			sizes = Sizes6
		}
		var base, out, again Snapshot
		baseInts, err := ParseInts(nil, baseBytes, MaxDeltaInts)
		if err == nil {
			if ApplyDelta(&base, &empty, baseInts, sizes) != nil {
				base.Reset()
			}
		}
		checkSnapshot(t, &base)
		delta, err := ParseInts(nil, deltaBytes, MaxDeltaInts)
		if err != nil {
			return
		}
		err = ApplyDelta(&out, &base, delta, sizes)
		slowOut, slowErr := slowApply(toSlow(&base), delta, sizes)
		if (err == nil) != (slowErr == nil) {
			t.Fatalf("fast %v, slow %v", err, slowErr)
		}
		if err != nil {
			if out.NumItems() != 0 {
				t.Fatalf("dst not empty after error")
			}
			return
		}
		checkSnapshot(t, &out)
		if !slowEqual(toSlow(&out), slowOut) {
			t.Fatalf("fast and slow results differ")
		}
		// Round trip: the delta we create from base to out rebuilds out and
		// equals the model's delta.
		d2 := AppendDelta(nil, &base, &out, sizes)
		if !slices.Equal(d2, slowCreate(toSlow(&base), slowOut, sizes)) {
			t.Fatalf("AppendDelta differs from the model")
		}
		if err := ApplyDelta(&again, &base, d2, sizes); err != nil {
			t.Fatalf("re-apply: %v", err)
		}
		if !again.Equal(&out) || again.CRC() != out.CRC() {
			t.Fatalf("round trip differs")
		}
		// Varint round trip of the delta.
		back, err := ParseInts(nil, AppendInts(nil, d2), MaxDeltaInts)
		if err != nil || !slices.Equal(back, d2) {
			t.Fatalf("varint round trip: %v", err)
		}
	})
}

// reassemblyModel is an obviously correct model of Reassembler.Add.
type reassemblyModel struct {
	started, done   bool
	tick, deltaTick int32
	n               int
	crc             uint32
	parts           map[int][]byte
}

func (m *reassemblyModel) add(msg *SnapMsg) (bool, []byte, bool) {
	if msg.NumParts < 1 || msg.NumParts > 64 || msg.Part < 0 || msg.Part >= msg.NumParts || len(msg.Data) > 900 {
		return false, nil, false
	}
	if m.started && (msg.Tick < m.tick || (msg.Tick == m.tick && m.done)) {
		return false, nil, false
	}
	if msg.Part != msg.NumParts-1 && len(msg.Data) != 900 {
		return false, nil, false
	}
	if !m.started || msg.Tick > m.tick {
		*m = reassemblyModel{started: true, tick: msg.Tick, deltaTick: msg.DeltaTick, n: msg.NumParts, crc: msg.CRC, parts: map[int][]byte{}}
	} else if msg.NumParts != m.n || msg.CRC != m.crc || msg.DeltaTick != m.deltaTick {
		return false, nil, false
	} else if held, dup := m.parts[msg.Part]; dup {
		return false, nil, bytes.Equal(held, msg.Data) // the same part again: a duplicated datagram
	}
	m.parts[msg.Part] = msg.Data
	if len(m.parts) < m.n {
		return false, nil, true
	}
	m.done = true
	var all []byte
	for p := range m.n {
		all = append(all, m.parts[p]...)
	}
	return true, all, true
}

func FuzzReassembly(f *testing.F) {
	// Each message takes 7 bytes: tick step, part count, part index, CRC,
	// size (2 bytes), fill byte.
	f.Add([]byte{10, 2, 0, 1, 0x03, 0x84, 7, 0, 2, 1, 1, 0, 20, 8})
	f.Add([]byte{10, 3, 2, 1, 0, 5, 1, 0, 3, 0, 1, 0x03, 0x84, 2, 0, 3, 1, 1, 0x03, 0x84, 3})
	f.Add([]byte{5, 1, 0, 0, 0, 9, 1, 0, 1, 0, 0, 0, 9, 1, 1, 1, 0, 0, 0, 4, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var r Reassembler
		var model reassemblyModel
		tick := int32(100)
		for len(ops) >= 7 {
			op := ops[:7]
			ops = ops[7:]
			tick += int32(int8(op[0])) / 8
			size := (int(op[4])<<8 | int(op[5])) % 1000
			if size > 880 && op[5]&1 == 0 {
				size = MaxPartSize // make full parts likely
			}
			data := bytes.Repeat([]byte{op[6]}, size)
			numParts := int(op[1]%70) - 1
			part := int(op[2]%70) - 1
			// Round trip through the wire form when it is valid.
			body := snapMsgBody(tick, tick+1, int32(numParts), int32(part), int32(op[3]%3), int32(size))
			body = append(body, data...)
			msg, perr := ParseSnapMsg(MsgIDs7, MsgIDs7.Snap, body)
			if perr != nil {
				if !errors.Is(perr, ErrBadPart) && !errors.Is(perr, ErrBadMessage) {
					t.Fatalf("parse: %v", perr)
				}
				msg = SnapMsg{Tick: tick, DeltaTick: tick + 1, NumParts: numParts, Part: part, CRC: uint32(op[3] % 3), Data: data}
			} else if msg.NumParts != numParts || msg.Part != part || !bytes.Equal(msg.Data, data) {
				t.Fatalf("parse round trip differs")
			}
			done, err := r.Add(&msg)
			wantDone, wantData, wantOK := model.add(&msg)
			if (err == nil) != wantOK || done != wantDone {
				t.Fatalf("Add(%d/%d tick %d size %d) = %v %v, model %v %v", msg.Part, msg.NumParts, msg.Tick, size, done, err, wantDone, wantOK)
			}
			if done && (!bytes.Equal(r.Data(), wantData) || r.Tick() != msg.Tick || r.CRC() != msg.CRC) {
				t.Fatalf("reassembled data differs")
			}
		}
	})
}

// FuzzReceiver feeds arbitrary snapshot messages (after a real session's
// first snapshots) to a Receiver: it must never panic, and whatever it
// accepts must be a valid snapshot with the announced CRC.
func FuzzReceiver(f *testing.F) {
	msgs := captureSnapMessages(f, "testdata/session07_crowd.pcap", 8303, 7)
	for i, m := range msgs {
		if i > 12 {
			break
		}
		f.Add(m.id, m.body)
	}
	f.Add(int32(7), snapMsgBody(2000, 10))
	f.Fuzz(func(t *testing.T, id int32, body []byte) {
		recv := NewReceiver(MsgIDs7, Sizes7)
		for _, m := range msgs[:6] {
			recv.Handle(m.id, m.body)
		}
		tick, done, err := recv.Handle(id, body)
		if err != nil || !done {
			return
		}
		s, latest := recv.Latest()
		if latest != tick {
			t.Fatalf("latest %d, tick %d", latest, tick)
		}
		checkSnapshot(t, s)
		m, perr := ParseSnapMsg(MsgIDs7, id, body)
		if perr != nil {
			t.Fatalf("accepted an unparsable message: %v", perr)
		}
		if !m.Empty && s.CRC() != m.CRC {
			t.Fatalf("CRC %d accepted for announced %d", s.CRC(), m.CRC)
		}
	})
}
