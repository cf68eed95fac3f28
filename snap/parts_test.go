package snap

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"twserver/netproto"
)

// bigSnap returns a snapshot whose encoded delta against the empty one is
// roughly words*5 bytes.
func bigSnap(t testing.TB, r *rand.Rand, words int) *Snapshot {
	var b Builder
	for id := 0; words > 0; id++ {
		n := min(words, 1000)
		d, err := b.NewItem(40, uint16(id), n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d {
			d[i] = int32(r.Uint32()) | 1<<30
		}
		words -= n
	}
	s := new(Snapshot)
	b.Finish(s)
	return s
}

// splitMsg separates the header varint of an encoded message.
func splitMsg(t testing.TB, msg []byte) (int32, []byte) {
	t.Helper()
	h, n, err := netproto.ParseInt(msg)
	if err != nil || h&1 != 1 {
		t.Fatalf("bad header % x", msg[:min(len(msg), 5)])
	}
	return h >> 1, msg[n:]
}

func TestEncodeMultiPart(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var empty Snapshot
	s := bigSnap(t, r, 2000) // ~10000 bytes → 12 parts
	var e Encoder
	if err := e.Encode(MsgIDs7, 500, -1, &empty, s, Sizes7); err != nil {
		t.Fatal(err)
	}
	data := e.Data()
	n, _ := NumParts(len(data))
	if n < 2 || e.NumMessages() != n {
		t.Fatalf("parts = %d, messages = %d", n, e.NumMessages())
	}
	var re Reassembler
	for i := range n {
		id, body := splitMsg(t, e.Message(i))
		if id != MsgIDs7.Snap {
			t.Fatalf("part %d id %d", i, id)
		}
		m, err := ParseSnapMsg(MsgIDs7, id, body)
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		if m.Tick != 500 || m.DeltaTick != 501 || m.NumParts != n || m.Part != i || m.CRC != s.CRC() {
			t.Fatalf("part %d fields %+v", i, m)
		}
		if len(e.Message(i)) > MaxSnapMsgSize || len(m.Data) > MaxPartSize || (i < n-1 && len(m.Data) != MaxPartSize) {
			t.Fatalf("part %d size %d", i, len(m.Data))
		}
		done, err := re.Add(&m)
		if err != nil || done != (i == n-1) {
			t.Fatalf("Add part %d: %v %v", i, done, err)
		}
	}
	if !bytes.Equal(re.Data(), data) || re.Tick() != 500 || re.BaseTick() != -1 || re.CRC() != s.CRC() {
		t.Fatalf("reassembled data differs")
	}
}

func TestEncodeTooLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var empty Snapshot
	s := bigSnap(t, r, MaxWords-200) // ~80 KB of varints
	var e Encoder
	if err := e.Encode(MsgIDs7, 1, -1, &empty, s, Sizes7); !errors.Is(err, ErrTooManyParts) {
		t.Fatalf("err = %v", err)
	}
	if e.NumMessages() != 0 {
		t.Fatalf("messages left: %d", e.NumMessages())
	}
	if _, err := NumParts(MaxDeltaBytes); err != nil {
		t.Fatalf("NumParts(max) = %v", err)
	}
	if n, _ := NumParts(MaxPartSize + 1); n != 2 {
		t.Fatalf("NumParts(901) = %d", n)
	}
}

// snapMsg encodes a snapshot message body by hand.
func snapMsgBody(ints ...int32) []byte {
	var b []byte
	for _, v := range ints {
		b = netproto.AppendInt(b, v)
	}
	return b
}

func TestParseSnapMsgErrors(t *testing.T) {
	part := func(size int) []byte { return make([]byte, size) }
	for _, tc := range []struct {
		name string
		id   int32
		body []byte
		want error
	}{
		{"unknown id", 9, snapMsgBody(1, 1), ErrBadMessage},
		{"empty truncated", 7, snapMsgBody(1), ErrBadMessage},
		{"empty trailing", 7, snapMsgBody(1, 1, 0), ErrBadMessage},
		{"negative tick", 7, snapMsgBody(-1, 1), ErrBadMessage},
		{"base after tick", 7, snapMsgBody(5, -1), ErrBadMessage},
		{"zero delta tick", 7, snapMsgBody(5, 0), ErrBadMessage},
		{"single truncated", 8, snapMsgBody(5, 6, 0), ErrBadMessage},
		{"single data short", 8, append(snapMsgBody(5, 6, 0, 3), 1, 2), ErrBadMessage},
		{"single trailing", 8, append(snapMsgBody(5, 6, 0, 1), 1, 2), ErrBadMessage},
		{"single size too big", 8, append(snapMsgBody(5, 6, 0, 901), part(901)...), ErrBadPart},
		{"single negative size", 8, snapMsgBody(5, 6, 0, -1), ErrBadPart},
		{"zero parts", 6, append(snapMsgBody(5, 6, 0, 0, 0, 1), 1), ErrBadPart},
		{"65 parts", 6, append(snapMsgBody(5, 6, 65, 0, 0, 1), 1), ErrBadPart},
		{"part past count", 6, append(snapMsgBody(5, 6, 2, 2, 0, 1), 1), ErrBadPart},
		{"negative part", 6, append(snapMsgBody(5, 6, 2, -1, 0, 1), 1), ErrBadPart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseSnapMsg(MsgIDs7, tc.id, tc.body); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestReassemblerErrors(t *testing.T) {
	full := bytes.Repeat([]byte{7}, MaxPartSize)
	msg := func(tick int32, n, p int, crc uint32, data []byte) *SnapMsg {
		return &SnapMsg{Tick: tick, DeltaTick: tick + 1, NumParts: n, Part: p, CRC: crc, Data: data}
	}
	for _, tc := range []struct {
		name  string
		first *SnapMsg
		bad   *SnapMsg
		want  error
	}{
		{"empty message", nil, &SnapMsg{Empty: true, Tick: 1, DeltaTick: 2}, ErrBadMessage},
		{"too many parts", nil, msg(1, 65, 0, 0, full), ErrBadPart},
		{"part out of range", nil, msg(1, 2, 2, 0, full), ErrBadPart},
		{"part too big", nil, msg(1, 2, 0, 0, append(full, 1)), ErrBadPart},
		{"short middle part", nil, msg(1, 3, 1, 0, full[:10]), ErrInconsistent},
		{"count differs", msg(10, 3, 0, 5, full), msg(10, 4, 1, 5, full), ErrInconsistent},
		{"crc differs", msg(10, 3, 0, 5, full), msg(10, 3, 1, 6, full), ErrInconsistent},
		{"delta tick differs", msg(10, 3, 0, 5, full), &SnapMsg{Tick: 10, DeltaTick: 3, NumParts: 3, Part: 1, CRC: 5, Data: full}, ErrInconsistent},
		{"part again with other bytes", msg(10, 3, 0, 5, full), msg(10, 3, 0, 5, bytes.Repeat([]byte{8}, MaxPartSize)), ErrInconsistent},
		{"last part again, shorter", msg(10, 3, 2, 5, full[:9]), msg(10, 3, 2, 5, full[:8]), ErrInconsistent},
		{"older tick", msg(10, 3, 0, 5, full), msg(9, 3, 1, 5, full), ErrStaleTick},
		{"completed tick", msg(10, 1, 0, 5, full[:3]), msg(10, 1, 0, 5, full[:3]), ErrStaleTick},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Reassembler
			if tc.first != nil {
				if _, err := r.Add(tc.first); err != nil {
					t.Fatalf("first: %v", err)
				}
			}
			if done, err := r.Add(tc.bad); !errors.Is(err, tc.want) || done {
				t.Fatalf("Add = %v %v, want %v", done, err, tc.want)
			}
		})
	}
	t.Run("newer tick restarts", func(t *testing.T) {
		var r Reassembler
		r.Add(msg(10, 2, 0, 5, full))
		if done, err := r.Add(msg(12, 1, 0, 9, full[:4])); err != nil || !done {
			t.Fatalf("Add = %v %v", done, err)
		}
		if r.Tick() != 12 || len(r.Data()) != 4 || r.CRC() != 9 {
			t.Fatalf("state tick %d len %d", r.Tick(), len(r.Data()))
		}
		if _, err := r.Add(msg(10, 2, 1, 5, full[:3])); !errors.Is(err, ErrStaleTick) {
			t.Fatalf("late part of old tick: %v", err)
		}
	})
	t.Run("a part delivered twice", func(t *testing.T) {
		var r Reassembler
		parts := [][]byte{full, {9, 9}}
		for _, p := range []int{0, 0, 1} { // the network duplicated part 0
			done, err := r.Add(msg(3, 2, p, 1, parts[p]))
			if err != nil || done != (p == 1) {
				t.Fatalf("part %d: %v %v", p, done, err)
			}
		}
		if !bytes.Equal(r.Data(), bytes.Join(parts, nil)) {
			t.Fatalf("data differs")
		}
	})
	t.Run("parts out of order", func(t *testing.T) {
		var r Reassembler
		parts := [][]byte{full, bytes.Repeat([]byte{8}, MaxPartSize), {9, 9}}
		for _, p := range []int{2, 0, 1} {
			done, err := r.Add(msg(3, 3, p, 1, parts[p]))
			if err != nil || done != (p == 1) {
				t.Fatalf("part %d: %v %v", p, done, err)
			}
		}
		if !bytes.Equal(r.Data(), bytes.Join(parts, nil)) {
			t.Fatalf("data differs")
		}
	})
}

// A server side (Builder, Storage, Encoder) and a client side (Receiver)
// exchange snapshots over many ticks with acks, losses and recoveries.
func TestServerClientExchange(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, proto := range []struct {
		ids   MsgIDs
		sizes *SizeTable
	}{{MsgIDs7, Sizes7}, {MsgIDs6, Sizes6}} {
		var store Storage
		var enc Encoder
		var empty Snapshot
		recv := NewReceiver(proto.ids, proto.sizes)
		model := randSnap(r, proto.sizes, 30)
		ack := int32(-1)
		received := 0
		for tick := int32(0); tick < 400; tick += 2 {
			model = mutate(r, model, proto.sizes)
			if tick%100 == 0 {
				// Occasionally a big snapshot that needs several parts.
				for k, d := range randSnap(r, proto.sizes, 200) {
					if _, ok := model[k]; !ok { // an item keeps its size
						model[k] = d
					}
				}
			}
			cur := store.Alloc(tick, 0)
			var b Builder
			b.Sizes = proto.sizes
			for _, k := range model.sortedKeys() {
				d, err := b.NewItem(uint16(k>>16), uint16(k), len(model[k]))
				if err != nil {
					t.Fatal(err)
				}
				copy(d, model[k])
			}
			b.Finish(cur)
			base, baseTick := &empty, int32(-1)
			if s, _, ok := store.Get(ack); ok {
				base, baseTick = s, ack
			}
			if err := enc.Encode(proto.ids, tick, baseTick, base, cur, proto.sizes); err != nil {
				t.Fatal(err)
			}
			lost := r.IntN(8) == 0
			var done bool
			for i := range enc.NumMessages() {
				if lost && i == enc.NumMessages()-1 {
					break
				}
				id, body := splitMsg(t, enc.Message(i))
				_, d, err := recv.Handle(id, body)
				if err != nil {
					t.Fatalf("%s tick %d part %d: %v", proto.sizes.Name, tick, i, err)
				}
				done = done || d
			}
			if lost {
				continue
			}
			if !done {
				t.Fatalf("tick %d not completed", tick)
			}
			got, gotTick := recv.Latest()
			if gotTick != tick || !got.Equal(cur) || !slowEqual(toSlow(got), model) {
				t.Fatalf("tick %d: received snapshot differs", tick)
			}
			received++
			if r.IntN(5) != 0 { // ack sometimes lost
				ack = gotTick
				store.Ack(ack)
			}
		}
		if received < 150 {
			t.Fatalf("only %d snapshots received", received)
		}
	}
}

func TestReceiverErrors(t *testing.T) {
	recv := NewReceiver(MsgIDs7, Sizes7)
	s := build(t, it(11, 0, 8, 0, 0))
	var e Encoder
	var empty Snapshot
	if err := e.Encode(MsgIDs7, 100, 90, &empty, s, Sizes7); err != nil {
		t.Fatal(err)
	}
	id, body := splitMsg(t, e.Message(0))
	if _, _, err := recv.Handle(id, body); !errors.Is(err, ErrNoBase) {
		t.Fatalf("missing base: %v", err)
	}
	// Wrong CRC.
	bad := snapMsgBody(100, 101, 9, 8)
	bad = append(bad, AppendInts(nil, []int32{0, 1, 0, 11, 0, 8, 0, 0})...)
	if _, _, err := recv.Handle(8, bad); !errors.Is(err, ErrBadCRC) {
		t.Fatalf("bad CRC: %v", err)
	}
	// Bad varint data.
	trunc := append(snapMsgBody(101, 102, 0, 2), 0x80, 0x80)
	if _, _, err := recv.Handle(8, trunc); err == nil {
		t.Fatalf("truncated varint accepted")
	}
	// Good, then stale, then SNAPEMPTY on top of it.
	good := append(snapMsgBody(102, 103, 8, 8), AppendInts(nil, []int32{0, 1, 0, 11, 0, 8, 0, 0})...)
	if _, done, err := recv.Handle(8, good); err != nil || !done {
		t.Fatalf("good: %v", err)
	}
	if _, _, err := recv.Handle(8, good); !errors.Is(err, ErrStaleTick) {
		t.Fatalf("stale: %v", err)
	}
	if tick, done, err := recv.Handle(7, snapMsgBody(104, 2)); err != nil || !done || tick != 104 {
		t.Fatalf("empty: %v", err)
	}
	if got, tick := recv.Latest(); tick != 104 || !got.Equal(s) {
		t.Fatalf("after empty: tick %d", tick)
	}
}
