package netproto

import (
	"testing"
	"time"
)

// benchPayload returns 900 bytes of realistic traffic: decompressed payloads
// of the session capture, concatenated.
func benchPayload(b *testing.B) []byte {
	var out []byte
	for _, p := range captureSeeds(b) {
		h, payload, err := ParsePacket(p)
		if err != nil || h.Flags&FlagControl != 0 {
			continue
		}
		raw, err := DecodePayload(nil, h, payload)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, raw...)
		if len(out) >= 900 {
			return out[:900]
		}
	}
	b.Fatal("capture too small")
	return nil
}

func BenchmarkHuffmanCompress(b *testing.B) {
	src := benchPayload(b)
	dst := make([]byte, 0, HuffmanMaxCompressedLen(len(src)))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = HuffmanCompress(dst[:0], src)
	}
}

func BenchmarkHuffmanDecompress(b *testing.B) {
	src := benchPayload(b)
	comp, _ := HuffmanCompress(nil, src)
	dst := make([]byte, 0, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		dst, err = HuffmanDecompress(dst[:0], comp, len(src))
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParsePacket parses a compressed data packet carrying a 900-byte
// payload of several chunks: header, decompression and chunk iteration.
func BenchmarkParsePacket(b *testing.B) {
	var payload []byte
	msgs := 0
	for len(payload) < 880 {
		payload = AppendChunkHeader(payload, ChunkHeader{Flags: ChunkVital, Size: 100, Seq: uint16(msgs + 1)})
		payload = append(payload, benchPayload(b)[msgs*100:msgs*100+100]...)
		msgs++
	}
	pkt := AppendPacketCompressed(nil, PacketHeader{NumChunks: uint8(msgs), Token: 42}, payload)
	dec := make([]byte, 0, MaxPayload)
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		h, p, err := ParsePacket(pkt)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := DecodePayload(dec, h, p)
		if err != nil {
			b.Fatal(err)
		}
		var r ChunkReader
		r.Reset(raw, int(h.NumChunks))
		n := 0
		for _, ok := r.Next(); ok; _, ok = r.Next() {
			n++
		}
		if n != msgs {
			b.Fatalf("%d chunks", n)
		}
	}
}

func BenchmarkVarint(b *testing.B) {
	buf := make([]byte, 0, 5*64)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := int32(-32); i < 32; i++ {
			buf = AppendInt(buf, i*12345)
		}
		for off := 0; off < len(buf); {
			_, n, err := ParseInt(buf[off:])
			if err != nil {
				b.Fatal(err)
			}
			off += n
		}
	}
}

// BenchmarkConnSend measures one tick of a server connection: a 900-byte
// snapshot message flushed, compressed and polled.
func BenchmarkConnSend(b *testing.B) {
	msg := benchPayload(b)
	c := new(Conn)
	c.Accept(0, 1, 2)
	c.Poll(nil)
	c.Feed(0, PacketHeader{Token: 1}, nil)
	buf := make([]byte, 0, MaxPacketSize)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += TickDuration
		c.Send(now, msg, SendFlush)
		c.Update(now)
		for _, ok := c.Poll(buf[:0]); ok; _, ok = c.Poll(buf[:0]) {
		}
		c.lastRecv = now
	}
}

func BenchmarkTokenCheck(b *testing.B) {
	g := NewTokenGen(TokenSecret{1}, 0)
	ip := testClientIP
	tok := g.Token(ip)
	b.ReportAllocs()
	for b.Loop() {
		if !g.Check(ip, tok) {
			b.Fatal("check failed")
		}
	}
}
