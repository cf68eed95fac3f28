package capturetest

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// refStats are the figures of one capture as seen by the reference decoder.
type refStats struct {
	packets, control, connless, compressed int
	chunks                                 int
	sysMsgs                                map[int]int // server->client system messages by id
	gameMsgs                               map[int]int // server->client game messages by id
	snaps, multiPart, parts                int         // snapshots rebuilt, of them multi-part, parts used
	crcOK, crcBad, missingBase, abandoned  int
	ticks                                  map[flow][]int32 // rebuilt ticks per flow
	conns                                  map[flow]*refConn
	msgKinds                               [3]int // SNAP parts, SNAPEMPTY, SNAPSINGLE messages
}

// refConn is the client-side snapshot state of one server->client flow.
type refConn struct {
	store    map[int32]refSnap
	curTick  int32
	curParts map[int32][]byte
	curNum   int32
}

// refRun decodes every 0.7 datagram of a capture with the reference decoder
// and runs the snapshot chain of every server->client flow.
func refRun(t testing.TB, name string) refStats {
	h, err := loadRefHuff()
	if err != nil {
		t.Fatal(err)
	}
	st := refStats{sysMsgs: map[int]int{}, gameMsgs: map[int]int{}, ticks: map[flow][]int32{}}
	conns := make(map[flow]*refConn)
	st.conns = conns
	for _, cp := range load07(t, name) {
		st.packets++
		p, err := refParsePacket(h, cp.Payload)
		if err != nil {
			t.Errorf("%s packet %d: %v: %s", name, cp.Index, err, fmtHex(cp.Payload))
			continue
		}
		if p.flags&refFlagCompress != 0 {
			st.compressed++
			if re := h.encode(p.payload); !bytes.Equal(re, p.raw) {
				t.Errorf("%s packet %d: reference Huffman does not reproduce the payload", name, cp.Index)
			}
		}
		switch {
		case p.connless:
			st.connless++
			continue
		case p.flags&refFlagControl != 0:
			st.control++
			continue
		}
		chunks, err := refChunks(p)
		if err != nil {
			t.Errorf("%s packet %d: %v", name, cp.Index, err)
			continue
		}
		st.chunks += len(chunks)
		for ci, c := range chunks {
			msg, n, err := refInt(c.data)
			if err != nil {
				t.Errorf("%s packet %d chunk %d: %v", name, cp.Index, ci, err)
				continue
			}
			id, sys := int(msg>>1), msg&1 == 1
			if cp.toServer {
				if sys && id >= refMsgSnap && id <= refMsgSnapSingle {
					t.Errorf("%s packet %d: snapshot message from the client", name, cp.Index)
				}
				continue
			}
			if !sys {
				st.gameMsgs[id]++
				continue
			}
			st.sysMsgs[id]++
			if id < refMsgSnap || id > refMsgSnapSingle {
				continue
			}
			sm, err := refParseSnapMsg(id, c.data[n:])
			if err != nil {
				t.Errorf("%s packet %d chunk %d: %v", name, cp.Index, ci, err)
				continue
			}
			st.msgKinds[id-refMsgSnap]++
			rc := conns[cp.flow]
			if rc == nil {
				rc = &refConn{store: map[int32]refSnap{}, curTick: -1}
				conns[cp.flow] = rc
			}
			rc.feed(t, &st, name, cp, sm)
		}
	}
	return st
}

func (rc *refConn) feed(t testing.TB, st *refStats, name string, cp capPacket, sm refSnapMsg) {
	var data []byte
	switch sm.id {
	case refMsgSnap:
		if sm.tick != rc.curTick || rc.curParts == nil || sm.numParts != rc.curNum {
			if len(rc.curParts) > 0 {
				st.abandoned++
			}
			rc.curTick, rc.curNum, rc.curParts = sm.tick, sm.numParts, map[int32][]byte{}
		}
		rc.curParts[sm.part] = sm.data
		if int32(len(rc.curParts)) < sm.numParts {
			return
		}
		for i := range sm.numParts {
			data = append(data, rc.curParts[i]...)
		}
		st.parts += int(sm.numParts)
		if sm.numParts > 1 {
			st.multiPart++
		}
		rc.curParts = nil
	case refMsgSnapSingle:
		data = sm.data
		st.parts++
	}
	base := refSnap{}
	if baseTick := sm.tick - sm.deltaDiff; baseTick >= 0 {
		b, ok := rc.store[baseTick]
		if !ok {
			st.missingBase++
			t.Errorf("%s packet %d: tick %d: no base %d", name, cp.Index, sm.tick, baseTick)
			return
		}
		base = b
	}
	snap := base
	if sm.id != refMsgSnapEmpty {
		var err error
		if snap, err = refApplyDelta(base, data); err != nil {
			t.Errorf("%s packet %d: tick %d: %v", name, cp.Index, sm.tick, err)
			return
		}
		if snap.crc() != sm.crc {
			st.crcBad++
			t.Errorf("%s packet %d: tick %d: crc %d, server sent %d", name, cp.Index, sm.tick, snap.crc(), sm.crc)
			return
		}
		st.crcOK++
	}
	rc.store[sm.tick] = snap
	st.snaps++
	st.ticks[cp.flow] = append(st.ticks[cp.flow], sm.tick)
}

func (st refStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "packets %d (control %d, connless %d, compressed %d), chunks %d; snapshots %d (multi-part %d, parts %d), crc ok %d bad %d",
		st.packets, st.control, st.connless, st.compressed, st.chunks, st.snaps, st.multiPart, st.parts, st.crcOK, st.crcBad)
	ids := make([]int, 0, len(st.sysMsgs))
	for id := range st.sysMsgs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fmt.Fprintf(&b, "; s2c sys msgs")
	for _, id := range ids {
		fmt.Fprintf(&b, " %d:%d", id, st.sysMsgs[id])
	}
	for f, ticks := range st.ticks {
		fmt.Fprintf(&b, "; %v ticks %d..%d", f, ticks[0], ticks[len(ticks)-1])
	}
	return b.String()
}

// TestReferenceDecoder runs the reference decoder over every capture and,
// for the two crowded sessions, compares its figures with the published
// capture summaries (testdata/*.pcap.txt in the vector set).
func TestReferenceDecoder(t *testing.T) {
	type summary struct {
		sys                     map[int]int // server->client system messages by id
		gameMsgs                int         // server->client game messages
		snaps, multiPart, crcOK int
		firstTick, lastTick     int32
	}
	published := map[string]summary{
		"session07_crowd.pcap": {
			sys:      map[int]int{2: 1, 4: 2, 5: 1, 6: 6, 8: 282, 10: 170},
			gameMsgs: 65, snaps: 285, multiPart: 3, crcOK: 285, firstTick: 930, lastTick: 1614,
		},
		"session07_crowd_lag.pcap": {
			sys:      map[int]int{2: 1, 4: 2, 5: 1, 6: 8, 8: 255, 10: 130},
			gameMsgs: 66, snaps: 259, multiPart: 4, crcOK: 259, firstTick: 840, lastTick: 1446,
		},
	}
	for _, cf := range captures07 {
		t.Run(cf.name, func(t *testing.T) {
			st := refRun(t, cf.name)
			t.Log(st)
			if st.crcBad != 0 || st.missingBase != 0 || st.abandoned != 0 {
				t.Errorf("crc mismatches %d, missing bases %d, abandoned parts %d", st.crcBad, st.missingBase, st.abandoned)
			}
			want, ok := published[cf.name]
			if !ok {
				return
			}
			games := 0
			for _, n := range st.gameMsgs {
				games += n
			}
			var ticks []int32
			for _, tk := range st.ticks {
				ticks = tk
			}
			if len(st.sysMsgs) != len(want.sys) || games != want.gameMsgs || st.snaps != want.snaps ||
				st.multiPart != want.multiPart || st.crcOK != want.crcOK || len(st.ticks) != 1 ||
				ticks[0] != want.firstTick || ticks[len(ticks)-1] != want.lastTick {
				t.Errorf("reference figures differ from the published summary %+v", want)
			}
			for id, n := range want.sys {
				if st.sysMsgs[id] != n {
					t.Errorf("system message %d: %d, published %d", id, st.sysMsgs[id], n)
				}
			}
		})
	}
}
