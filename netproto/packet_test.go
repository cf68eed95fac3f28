package netproto

import (
	"bytes"
	"errors"
	"testing"
)

func TestChunkHeaderGolden(t *testing.T) {
	tests := []struct {
		name string
		h    ChunkHeader
		hex  string
	}{
		{"vital seq 5", ChunkHeader{ChunkVital, 0, 5}, "40 00 05"},
		{"vital seq 255", ChunkHeader{ChunkVital, 0, 255}, "40 00 ff"},
		{"vital seq 256", ChunkHeader{ChunkVital, 0, 256}, "40 40 00"},
		{"vital seq 1023", ChunkHeader{ChunkVital, 0, 1023}, "40 c0 ff"},
		{"vital size 25 seq 1", ChunkHeader{ChunkVital, 25, 1}, "40 19 01"},
		{"non-vital size 4095", ChunkHeader{0, 4095, 0}, "3f 3f"},
		{"resend vital", ChunkHeader{ChunkVital | ChunkResend, 64, 513}, "c1 80 01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			if got := AppendChunkHeader(nil, tc.h); !bytes.Equal(got, want) {
				t.Fatalf("append = % x, want % x", got, want)
			}
			h, n, err := ParseChunkHeader(want)
			if err != nil || h != tc.h || n != len(want) || n != h.Len() {
				t.Fatalf("parse = %+v, %d, %v", h, n, err)
			}
		})
	}
}

func TestChunkHeader6Golden(t *testing.T) {
	tests := []struct {
		name string
		h    ChunkHeader
		hex  string
	}{
		{"vital seq 5", ChunkHeader{ChunkVital, 0, 5}, "40 00 05"},
		{"vital seq 63", ChunkHeader{ChunkVital, 0, 63}, "40 00 3f"},
		{"vital seq 64", ChunkHeader{ChunkVital, 0, 64}, "40 10 40"},
		{"vital seq 126", ChunkHeader{ChunkVital, 0, 126}, "40 10 7e"},
		{"vital seq 255", ChunkHeader{ChunkVital, 0, 255}, "40 30 ff"},
		{"vital size 25 seq 1", ChunkHeader{ChunkVital, 25, 1}, "41 09 01"},
		{"non-vital size 1023", ChunkHeader{0, 1023, 0}, "3f 0f"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			if got := AppendChunkHeader6(nil, tc.h); !bytes.Equal(got, want) {
				t.Fatalf("append = % x, want % x", got, want)
			}
			h, n, err := ParseChunkHeader6(want)
			if err != nil || h != tc.h || n != len(want) {
				t.Fatalf("parse = %+v, %d, %v", h, n, err)
			}
		})
	}
}

func TestParseChunkHeaderErrors(t *testing.T) {
	for _, tc := range []struct{ name, hex string }{
		{"empty", ""}, {"one byte", "00"}, {"vital two bytes", "40 00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParseChunkHeader(unhex(t, tc.hex)); !errors.Is(err, ErrTruncated) {
				t.Fatalf("0.7: err = %v", err)
			}
			if _, _, err := ParseChunkHeader6(unhex(t, tc.hex)); !errors.Is(err, ErrTruncated) {
				t.Fatalf("0.6: err = %v", err)
			}
		})
	}
}

func TestPacketHeaderGolden(t *testing.T) {
	tests := []struct {
		name string
		h    PacketHeader
		hex  string
	}{
		{"token request", PacketHeader{FlagControl, 0, 0, TokenNone}, "04 00 00 ff ff ff ff"},
		{"keepalive ack 1", PacketHeader{FlagControl, 1, 0, 0x11223344}, "04 01 00 11 22 33 44"},
		{"data", PacketHeader{0, 0, 1, 0xaabbccdd}, "00 00 01 aa bb cc dd"},
		{"all flags ack 1023", PacketHeader{FlagControl | FlagResend | FlagCompression, 1023, 255, 1}, "1f ff ff 00 00 00 01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := unhex(t, tc.hex)
			if got := AppendPacketHeader(nil, tc.h); !bytes.Equal(got, want) {
				t.Fatalf("append = % x, want % x", got, want)
			}
			h, payload, err := ParsePacket(append(want, 0x42))
			if err != nil || h != tc.h || len(payload) != 1 || payload[0] != 0x42 {
				t.Fatalf("parse = %+v, % x, %v", h, payload, err)
			}
		})
	}
}

func TestParsePacketErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		err  error
	}{
		{"empty", nil, ErrTruncated},
		{"six bytes", make([]byte, 6), ErrTruncated},
		{"oversized", make([]byte, MaxConnPacketSize+1), ErrTooLarge},
		{"connless", append([]byte{0x21}, make([]byte, 10)...), ErrConnless},
		{"reserved bit", append([]byte{0x80}, make([]byte, 6)...), ErrBadHeader},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParsePacket(tc.in); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
	if _, p, err := ParsePacket(make([]byte, MaxConnPacketSize)); err != nil || len(p) != MaxPayload {
		t.Fatalf("largest packet: %v", err)
	}
}

func TestConnless(t *testing.T) {
	h := ConnlessHeader{Token: 0xaabbccdd, ResponseToken: 0x11223344}
	payload := unhex(t, "ff ff ff ff 67 69 65 33 05")
	b := AppendConnless(nil, h, payload)
	want := unhex(t, "21 aa bb cc dd 11 22 33 44 ff ff ff ff 67 69 65 33 05")
	if !bytes.Equal(b, want) {
		t.Fatalf("append = % x", b)
	}
	if !IsConnless(b) {
		t.Fatal("IsConnless = false")
	}
	h2, p2, err := ParseConnless(b)
	if err != nil || h2 != h || !bytes.Equal(p2, payload) {
		t.Fatalf("parse = %+v % x %v", h2, p2, err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
	}{
		{"short", want[:8], ErrTruncated},
		{"oversized", append([]byte{0x21}, make([]byte, MaxPacketSize)...), ErrTooLarge},
		{"not connless", make([]byte, 12), ErrNotConnless},
		{"bad version", append([]byte{0x22}, make([]byte, 10)...), ErrBadHeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParseConnless(tc.in); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestChunkReader(t *testing.T) {
	var payload []byte
	payload = AppendChunkHeader(payload, ChunkHeader{Flags: ChunkVital, Size: 2, Seq: 7})
	payload = append(payload, 0x01, 0x02)
	payload = AppendChunkHeader(payload, ChunkHeader{Size: 1})
	payload = append(payload, 0x03, 0xee) // trailing byte ignored
	var r ChunkReader
	r.Reset(payload, 2)
	c1, ok1 := r.Next()
	c2, ok2 := r.Next()
	_, ok3 := r.Next()
	if !ok1 || !ok2 || ok3 || r.Err() != nil {
		t.Fatalf("ok %v %v %v err %v", ok1, ok2, ok3, r.Err())
	}
	if c1.Seq != 7 || !bytes.Equal(c1.Data, []byte{1, 2}) || c2.Flags != 0 || !bytes.Equal(c2.Data, []byte{3}) {
		t.Fatalf("chunks %+v %+v", c1, c2)
	}
	if !bytes.Equal(r.Rest(), []byte{0xee}) {
		t.Fatalf("rest % x", r.Rest())
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		n       int
		err     error
	}{
		{"more chunks announced than present", payload[:5], 2, ErrTruncated},
		{"size runs past end", payload[:4], 1, ErrBadChunk},
		{"header cut", payload[:2], 1, ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.Reset(tc.payload, tc.n)
			for {
				if _, ok := r.Next(); !ok {
					break
				}
			}
			if !errors.Is(r.Err(), tc.err) {
				t.Fatalf("err = %v, want %v", r.Err(), tc.err)
			}
		})
	}
}

func TestAppendPacketCompressed(t *testing.T) {
	h := PacketHeader{NumChunks: 1, Token: 5}
	// A compressible payload is compressed and flagged.
	zeros := make([]byte, 100)
	b := AppendPacketCompressed(nil, h, zeros)
	ph, p, err := ParsePacket(b)
	if err != nil || ph.Flags&FlagCompression == 0 || len(p) >= len(zeros) {
		t.Fatalf("not compressed: %+v %d %v", ph, len(p), err)
	}
	raw, err := DecodePayload(make([]byte, 0, MaxPayload), ph, p)
	if err != nil || !bytes.Equal(raw, zeros) {
		t.Fatalf("decode: %v", err)
	}
	// The INFO packet of spec A1.10 stays raw (compressed would be larger).
	info := unhex(t, "40 19 01 03 30 2e 37 20 38 30 32 66 31 62 65 36 30 61 30 35 36 36 35 66 00 00 85 1c")
	b = AppendPacketCompressed(nil, PacketHeader{NumChunks: 1, Token: 0xaabbccdd}, info)
	if want := append(unhex(t, "00 00 01 aa bb cc dd"), info...); !bytes.Equal(b, want) {
		t.Fatalf("info packet % x", b)
	}
	// Control packets are never compressed.
	b = AppendPacketCompressed(nil, PacketHeader{Flags: FlagControl}, zeros)
	if b[0] != 0x04 || len(b) != PacketHeaderSize+len(zeros) {
		t.Fatalf("control packet compressed: % x", b[:8])
	}
}

func TestDecodePayloadErrors(t *testing.T) {
	big, _ := HuffmanCompress(nil, make([]byte, MaxPayload+1))
	tests := []struct {
		name    string
		payload []byte
		err     error
	}{
		{"decompresses beyond MaxPayload", big, ErrHuffmanOverflow},
		{"no EOF symbol", unhex(t, "1a"), ErrBadHuffman},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := DecodePayload(make([]byte, 0, MaxPayload), PacketHeader{Flags: FlagCompression}, tc.payload)
			if !errors.Is(err, tc.err) || len(out) > MaxPayload {
				t.Fatalf("err = %v (%d bytes), want %v", err, len(out), tc.err)
			}
		})
	}
	// The largest payload decodes.
	max, _ := HuffmanCompress(nil, make([]byte, MaxPayload))
	if out, err := DecodePayload(nil, PacketHeader{Flags: FlagCompression}, max); err != nil || len(out) != MaxPayload {
		t.Fatalf("largest payload: %d bytes, %v", len(out), err)
	}
}

func TestParsePacket6(t *testing.T) {
	b := unhex(t, "90 05 00 01")
	h, p, err := ParsePacket6(b)
	if err != nil || h.Flags != Flag6Compression|Flag6Control || h.Ack != 5 || len(p) != 1 {
		t.Fatalf("%+v % x %v", h, p, err)
	}
	if got := AppendPacketHeader6(nil, h); !bytes.Equal(got, b[:3]) {
		t.Fatalf("append % x", got)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
	}{
		{"short", b[:2], ErrTruncated},
		{"connless", unhex(t, "ff ff ff ff ff ff"), ErrConnless},
		{"oversized", make([]byte, MaxConnPacketSize6+1), ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParsePacket6(tc.in); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestConnless6AndToken6(t *testing.T) {
	b := AppendConnless6(nil, []byte("gie3"))
	hdr, p, err := ParseConnless6(b)
	if err != nil || len(hdr) != 6 || string(p) != "gie3" {
		t.Fatalf("%x %q %v", hdr, p, err)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		err  error
	}{
		{"short", b[:5], ErrTruncated},
		{"not connless", make([]byte, 8), ErrNotConnless},
		{"oversized", bytes.Repeat([]byte{0xff}, MaxPacketSize+1), ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := ParseConnless6(tc.in); !errors.Is(err, tc.err) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	// Spec B2.2: token 0x12345678 travels as 78 56 34 12.
	pl := AppendToken6([]byte{1, 2}, 0x12345678)
	if !bytes.Equal(pl, unhex(t, "01 02 78 56 34 12")) {
		t.Fatalf("% x", pl)
	}
	if got, err := StripToken6(pl, 0x12345678); err != nil || !bytes.Equal(got, []byte{1, 2}) {
		t.Fatalf("strip: % x %v", got, err)
	}
	if _, err := StripToken6(pl, 1); !errors.Is(err, ErrBadToken) {
		t.Fatalf("mismatch: %v", err)
	}
	if _, err := StripToken6(pl[:3], 1); !errors.Is(err, ErrTruncated) {
		t.Fatalf("short: %v", err)
	}
}
