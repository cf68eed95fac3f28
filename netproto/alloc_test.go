package netproto

import (
	"net/netip"
	"testing"
)

// TestHotPathAllocs asserts zero allocations in steady state for the
// per-packet paths: Huffman both ways, packet and chunk parsing, control
// encoding, packing and token checks.
func TestHotPathAllocs(t *testing.T) {
	payload := make([]byte, 0, 900)
	for _, p := range captureSeeds(t) {
		if h, pl, err := ParsePacket(p); err == nil && h.Flags&FlagControl == 0 {
			raw, _ := DecodePayload(nil, h, pl)
			payload = append(payload, raw[:min(len(raw), 900-len(payload))]...)
		}
	}
	comp, _ := HuffmanCompress(nil, payload)
	pkt := AppendPacketCompressed(nil, PacketHeader{Token: 5}, payload)
	cbuf := make([]byte, 0, HuffmanMaxCompressedLen(len(payload)))
	dbuf := make([]byte, 0, MaxPayload)
	obuf := make([]byte, 0, MaxPacketSize)
	var p Packer
	g := NewTokenGen(TokenSecret{3}, 0)
	ip := netip.MustParseAddr("127.0.0.1")
	tests := []struct {
		name string
		fn   func()
	}{
		{"huffman compress", func() { HuffmanCompress(cbuf[:0], payload) }},
		{"huffman decompress", func() { HuffmanDecompress(dbuf[:0], comp, MaxPayload) }},
		{"parse packet", func() {
			h, pl, _ := ParsePacket(pkt)
			raw, _ := DecodePayload(dbuf, h, pl)
			var r ChunkReader
			r.Reset(raw, int(h.NumChunks))
			for _, ok := r.Next(); ok; _, ok = r.Next() {
			}
		}},
		{"append packet compressed", func() { AppendPacketCompressed(obuf[:0], PacketHeader{NumChunks: 1}, payload) }},
		{"control", func() { AppendClose(AppendAccept(obuf[:0], 1), 0, 1, ReasonServerFull) }},
		{"packer", func() {
			p.Reset()
			p.AddMsgHeader(NetmsgSnapSingle, true)
			p.AddInt(-12345)
			p.AddString("name")
			p.AddRaw(payload[:100])
		}},
		{"token", func() { g.Check(ip, g.Token(ip)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(50, tc.fn); n != 0 {
				t.Fatalf("%v allocs", n)
			}
		})
	}
}
