package capturetest

import (
	"bytes"
	"cmp"
	"errors"
	"maps"
	"slices"
	"testing"

	"twserver/netproto"
	"twserver/snap"
)

// FuzzHuffmanDifferential compares netproto's Huffman codec with the
// reference codec built from testdata/huffman_codes.txt (ref_test.go): compression must be
// identical, and decompression must succeed on the same inputs with the same
// output. Seeded with compressed payloads from the captures.
func FuzzHuffmanDifferential(f *testing.F) {
	h, err := loadRefHuff()
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	for _, cp := range load07(f, "session07_crowd.pcap") {
		if len(cp.Payload) > 7 && cp.Payload[0]&0x10 != 0 && n%16 == 0 {
			f.Add(cp.Payload[7:])
		}
		n++
	}
	f.Add([]byte{0x1a})
	f.Add([]byte{0x62, 0x91, 0x62, 0xa9})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := netproto.HuffmanCompress(nil, data)
		if want := h.encode(data); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("compress: %s (%v), reference %s", fmtHex(got), err, fmtHex(want))
		}
		const max = netproto.MaxPayload
		want, refErr := h.decode(data, max)
		out, err := netproto.HuffmanDecompress(nil, data, max)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("decompress: err %v, reference err %v", err, refErr)
		}
		if err == nil && !bytes.Equal(out, want) {
			t.Fatalf("decompress: %s, reference %s", fmtHex(out), fmtHex(want))
		}
	})
}

// FuzzApplyDeltaDifferential applies arbitrary delta bytes to snapshots
// reconstructed from a capture with both snap and the reference decoder.
// Whenever snap accepts a delta the reference must accept it too and build
// the same snapshot; snap may refuse more (it rejects duplicate, unknown and
// resized keys and trailing data, which the reference tolerates), but only
// with one of its sentinel errors.
func FuzzApplyDeltaDifferential(f *testing.F) {
	ref := refRun(f, "session07_crowd.pcap")
	// Flows in a fixed order, so the seed bases are the same on every run.
	flows := slices.SortedFunc(maps.Keys(ref.conns), func(a, b flow) int {
		return cmp.Or(a.src.Compare(b.src), a.dst.Compare(b.dst))
	})
	var bases []refSnap
	for _, fl := range flows {
		for _, tick := range ref.ticks[fl] {
			if len(bases) < 8 && tick%40 == 0 {
				bases = append(bases, ref.conns[fl].store[tick])
			}
		}
	}
	if len(bases) == 0 {
		f.Fatal("no base snapshots")
	}
	baseSnaps := make([]*snap.Snapshot, len(bases))
	for i, b := range bases {
		baseSnaps[i] = toSnap(f, b)
	}
	forEachChunk(f, "session07_crowd.pcap", func(cp capPacket, ci int, c netproto.Chunk) {
		if cp.Index%25 == 0 && len(c.Data) > 8 && c.Data[0] == 0x11 { // SNAPSINGLE
			m, err := snap.ParseSnapMsg(snap.MsgIDs7, netproto.NetmsgSnapSingle, c.Data[1:])
			if err == nil {
				f.Add(uint8(0), bytes.Clone(m.Data))
			}
		}
	})
	f.Add(uint8(1), []byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(bases)
		ints, err := snap.ParseInts(nil, data, snap.MaxDeltaInts)
		if err != nil {
			return
		}
		var got snap.Snapshot
		err = snap.ApplyDelta(&got, baseSnaps[i], ints, snap.Sizes7)
		want, refErr := refApplyDelta(bases[i], data)
		if err != nil {
			for _, e := range []error{snap.ErrTruncated, snap.ErrNegativeCount, snap.ErrNegativeSize, snap.ErrBadKey,
				snap.ErrUnknownKey, snap.ErrDuplicateKey, snap.ErrSizeMismatch, snap.ErrTooManyItems, snap.ErrSnapTooLarge, snap.ErrTrailingData} {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("ApplyDelta: unexpected error %v", err)
		}
		if refErr != nil {
			t.Fatalf("snap accepts a delta the reference refuses (%v): %v", refErr, ints)
		}
		if !sameSnapshot(&got, want) {
			t.Fatalf("snap and reference build different snapshots from %v", ints)
		}
		if got.CRC() != uint32(want.crc()) {
			t.Fatalf("CRC %d, reference %d", got.CRC(), want.crc())
		}
	})
}
