package snap

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"slices"
	"testing"

	"twserver/internal/pcap"
	"twserver/netproto"
)

// Captures of real sessions (testdata/*.pcap, classic pcap, Ethernet link
// type, loopback): the server's snapshot messages are replayed through the
// Receiver, and every reconstructed snapshot is re-encoded with AppendDelta
// and compared with the bytes the real server sent.

// loopbackUDP returns the UDP datagrams sent to 127.0.0.1 in a capture file.
func loopbackUDP(t testing.TB, path string) []pcap.Packet {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pkts, err := pcap.ReadUDP(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	out := pkts[:0]
	for _, p := range pkts {
		if p.Dst.Addr() == loopback {
			out = append(out, p)
		}
	}
	return out
}

// snapMessage is one snapshot message sent by the server in a capture.
type snapMessage struct {
	id   int32
	body []byte
}

// captureSnapMessages extracts, in order, the snapshot messages the server
// on serverPort sent. proto is 7 or 6.
func captureSnapMessages(t testing.TB, path string, serverPort uint16, proto int) []snapMessage {
	t.Helper()
	ids := MsgIDs7
	if proto == 6 {
		ids = MsgIDs6
	}
	var out []snapMessage
	var buf []byte
	for _, d := range loopbackUDP(t, path) {
		if d.Src.Port() != serverPort || netproto.IsConnless(d.Payload) {
			continue
		}
		var payload []byte
		var numChunks int
		if proto == 7 {
			h, p, err := netproto.ParsePacket(d.Payload)
			if err != nil {
				t.Fatalf("packet: %v", err)
			}
			if h.Flags&netproto.FlagControl != 0 {
				continue
			}
			buf = make([]byte, 0, netproto.MaxPayload)
			if payload, err = netproto.DecodePayload(buf, h, p); err != nil {
				t.Fatalf("payload: %v", err)
			}
			numChunks = int(h.NumChunks)
		} else {
			h, p, err := netproto.ParsePacket6(d.Payload)
			if err != nil {
				t.Fatalf("packet: %v", err)
			}
			if h.Flags&netproto.Flag6Control != 0 {
				continue
			}
			if h.Flags&netproto.Flag6Token != 0 && len(p) >= 4 { // DDNet security token at the end
				p = p[:len(p)-4]
			}
			if h.Flags&netproto.Flag6Compression != 0 {
				buf = make([]byte, 0, netproto.MaxPayload)
				if p, err = netproto.HuffmanDecompress(buf, p, netproto.MaxPayload); err != nil {
					t.Fatalf("payload: %v", err)
				}
			}
			payload, numChunks = p, int(h.NumChunks)
		}
		var cr netproto.ChunkReader
		if proto == 7 {
			cr.Reset(payload, numChunks)
		} else {
			cr.Reset6(payload, numChunks)
		}
		for {
			c, ok := cr.Next()
			if !ok {
				break
			}
			var u netproto.Unpacker
			u.Reset(c.Data)
			id, sys := u.GetMsgHeader()
			if u.Err() != nil || !sys || (id != ids.Snap && id != ids.SnapSingle && id != ids.SnapEmpty) {
				continue
			}
			out = append(out, snapMessage{id, u.Rest()})
		}
		if err := cr.Err(); err != nil {
			t.Fatalf("chunks: %v", err)
		}
	}
	return out
}

type captureCase struct {
	file       string
	port       uint16
	proto      int
	snapshots  int // snapshots reconstructed (from the capture's notes where given)
	multiPart  int // snapshots sent in several parts
	sortedKeys bool
}

var captureCases = []captureCase{
	{"session07.pcap", 8303, 7, -1, -1, true},
	{"session07_crowd.pcap", 8303, 7, 285, 3, true},
	{"session07_crowd_lag.pcap", 8303, 7, 259, 4, true},
	{"crapnet07.pcap", 8303, 7, -1, -1, true}, // server→proxy leg of a latency-cycling proxy
	{"session07_on_ddnet.pcap", 8305, 7, -1, -1, false},
	{"sessionddnet.pcap", 8304, 6, -1, -1, false},
}

func TestCaptures(t *testing.T) {
	for _, tc := range captureCases {
		t.Run(tc.file, func(t *testing.T) {
			ids, sizes := MsgIDs7, Sizes7
			if tc.proto == 6 {
				ids, sizes = MsgIDs6, Sizes6
			}
			msgs := captureSnapMessages(t, "testdata/"+tc.file, tc.port, tc.proto)
			recv := NewReceiver(ids, sizes)
			var re Reassembler
			var delta []int32
			var reencoded []byte
			var snapshots, multi, empties, identical int
			var base Snapshot
			for _, m := range msgs {
				// Keep a copy of the delta base: the Receiver may purge it.
				pm, err := ParseSnapMsg(ids, m.id, m.body)
				if err != nil {
					t.Fatal(err)
				}
				base.Reset()
				if bt := pm.BaseTick(); bt >= 0 {
					if b, ok := recv.Get(bt); ok {
						base.CopyFrom(b)
					}
				}
				tick, done, err := recv.Handle(m.id, m.body)
				if err != nil {
					t.Fatalf("tick %d: %v", tick, err)
				}
				if m.id == ids.Snap && pm.Part == 0 {
					multi++
				}
				if !done {
					continue
				}
				snapshots++
				got, _ := recv.Latest()
				if got.CRC() != crcOf(got.data) {
					t.Fatalf("tick %d: CRC field wrong", tick)
				}
				if pm.Empty {
					empties++
					if !IsEmptyDelta(AppendDelta(delta[:0], &base, got, sizes)) {
						t.Fatalf("tick %d: SNAPEMPTY but snapshots differ", tick)
					}
					continue
				}
				// Re-encode against the same base and compare with the
				// server's bytes.
				sent := recvData(t, &re, ids, m, msgs)
				delta = AppendDelta(delta[:0], &base, got, sizes)
				reencoded = AppendInts(reencoded[:0], delta)
				if bytes.Equal(reencoded, sent) {
					identical++
				} else if tc.sortedKeys {
					t.Fatalf("tick %d: re-encoded delta differs from the server's", tick)
				}
			}
			if tc.sortedKeys && identical+empties != snapshots {
				t.Fatalf("%d identical + %d empty of %d snapshots", identical, empties, snapshots)
			}
			t.Logf("%d messages, %d snapshots (%d multi-part, %d empty), %d byte-identical re-encodings", len(msgs), snapshots, multi, empties, identical)
			if snapshots == 0 {
				t.Fatal("no snapshots")
			}
			if tc.snapshots >= 0 && (snapshots != tc.snapshots || multi != tc.multiPart) {
				t.Fatalf("got %d snapshots / %d multi-part, want %d / %d", snapshots, multi, tc.snapshots, tc.multiPart)
			}
		})
	}
}

// recvData returns the complete delta bytes of the snapshot completed by
// message last: for SNAPSINGLE its data, for SNAP the parts collected from
// msgs.
func recvData(t testing.TB, re *Reassembler, ids MsgIDs, last snapMessage, msgs []snapMessage) []byte {
	lm, _ := ParseSnapMsg(ids, last.id, last.body)
	if last.id == ids.SnapSingle {
		return lm.Data
	}
	re.Reset()
	for _, m := range msgs {
		pm, err := ParseSnapMsg(ids, m.id, m.body)
		if err != nil || pm.Empty || pm.Tick != lm.Tick {
			continue
		}
		if done, err := re.Add(&pm); err != nil && !errors.Is(err, ErrStaleTick) {
			t.Fatalf("reassemble: %v", err)
		} else if done {
			return re.Data()
		}
	}
	t.Fatalf("tick %d: parts not found", lm.Tick)
	return nil
}

// The 0.6 ClientInfo items of a real DDNet server carry name, clan and skin
// packed with StrToInts: unpacking gives the strings, packing them again
// gives the server's exact ints.
func TestCaptureClientInfoStrings(t *testing.T) {
	msgs := captureSnapMessages(t, "testdata/sessionddnet.pcap", 8304, 6)
	recv := NewReceiver(MsgIDs6, Sizes6)
	for _, m := range msgs {
		if _, done, err := recv.Handle(m.id, m.body); err != nil || !done {
			continue
		}
		s, _ := recv.Latest()
		for i := range s.NumItems() {
			item := s.Item(i)
			if item.Type != 11 { // 0.6 ClientInfo
				continue
			}
			for _, f := range []struct {
				ints []int32
				want string
			}{
				{item.Data[0:4], "rpddnetbot"},
				{item.Data[4:7], ""},
				{item.Data[8:14], "default"},
			} {
				if got := IntsToStr(f.ints); got != f.want {
					t.Errorf("IntsToStr = %q, want %q", got, f.want)
				}
				if got := StrToInts(make([]int32, len(f.ints)), f.want); !slices.Equal(got, f.ints) {
					t.Errorf("StrToInts(%q) = %#x, server sent %#x", f.want, got, f.ints)
				}
			}
			return
		}
	}
	t.Fatal("no ClientInfo item found")
}

// Damage events (type 22) are static with 7 ints in 0.7 (2 inherited + 5
// own), not 5: a real server's snapshots with Damage items only decode, with
// matching CRCs, under that size.
func TestCaptureDamageEventSize(t *testing.T) {
	msgs := captureSnapMessages(t, "testdata/session07_crowd_lag.pcap", 8303, 7)
	recv := NewReceiver(MsgIDs7, Sizes7)
	damage := 0
	for _, m := range msgs {
		if _, done, err := recv.Handle(m.id, m.body); err != nil {
			t.Fatal(err)
		} else if done {
			s, _ := recv.Latest()
			for i := range s.NumItems() {
				if item := s.Item(i); item.Type == 22 {
					if len(item.Data) != 7 {
						t.Fatalf("Damage with %d ints", len(item.Data))
					}
					damage++
				}
			}
		}
	}
	if damage == 0 {
		t.Fatal("no Damage event in the capture")
	}
	// With 5 ints the same messages fail.
	five := NewSizeTable("0.7-damage5", append(append([]int32(nil), Sizes7.sizes[:22]...), 5))
	recv = NewReceiver(MsgIDs7, five)
	failed := false
	for _, m := range msgs {
		if _, _, err := recv.Handle(m.id, m.body); err != nil && !errors.Is(err, ErrNoBase) {
			failed = true
			break
		}
	}
	if !failed {
		t.Fatal("a 5-int Damage size decodes the capture too")
	}
}
