package netproto

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// checkPacket7 parses one captured 0.7 datagram completely and checks that
// re-encoding each layer reproduces the captured bytes. It returns whether
// the payload was compressed.
func checkPacket7(t testing.TB, p []byte) (compressed bool, err error) {
	if IsConnless(p) {
		h, payload, err := ParseConnless(p)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(AppendConnless(nil, h, payload), p) {
			t.Fatalf("connless re-encode differs: % x", p)
		}
		return false, nil
	}
	h, payload, err := ParsePacket(p)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(AppendPacket(nil, h, payload), p) {
		t.Fatalf("header re-encode differs: % x", p[:PacketHeaderSize])
	}
	raw, err := DecodePayload(make([]byte, 0, MaxPayload), h, payload)
	if err != nil {
		return false, err
	}
	if h.Flags&FlagCompression != 0 {
		re, _ := HuffmanCompress(nil, raw)
		if !bytes.Equal(re, payload) {
			t.Fatalf("recompressed payload differs:\n got % x\nwant % x", re, payload)
		}
	}
	if h.Flags&FlagControl != 0 {
		_, err := ParseControl(raw)
		return h.Flags&FlagCompression != 0, err
	}
	var r ChunkReader
	r.Reset(raw, int(h.NumChunks))
	var re []byte
	n := 0
	for c, ok := r.Next(); ok; c, ok = r.Next() {
		re = AppendChunkHeader(re, c.ChunkHeader)
		re = append(re, c.Data...)
		if _, _, _, err := ParseMsgHeader(c.Data); err != nil {
			return false, err
		}
		n++
	}
	if r.Err() != nil {
		return false, r.Err()
	}
	if n != int(h.NumChunks) || !bytes.Equal(re, raw[:len(re)]) {
		t.Fatalf("chunk re-encode differs (%d of %d chunks)", n, h.NumChunks)
	}
	return h.Flags&FlagCompression != 0, nil
}

// TestCaptures07 parses every datagram of the 0.7 captures.
func TestCaptures07(t *testing.T) {
	for _, name := range captures07 {
		t.Run(name, func(t *testing.T) {
			compressed, total := 0, 0
			for i, p := range loadCapture(t, name) {
				c, err := checkPacket7(t, p.data)
				if err != nil {
					t.Fatalf("packet %d (%v -> %v, %d bytes): %v\n% x", i, p.src, p.dst, len(p.data), err, p.data)
				}
				total++
				if c {
					compressed++
				}
			}
			if compressed == 0 {
				t.Fatal("no compressed packet in capture")
			}
			t.Logf("%d packets, %d compressed", total, compressed)
		})
	}
}

// TestCaptureConnless07 checks the 0.7 connless info exchange.
func TestCaptureConnless07(t *testing.T) {
	n := 0
	for _, p := range loadCapture(t, "twinfo_06_07.pcap") {
		if !IsConnless(p.data) || p.data[0]&3 != 1 {
			continue // 0.6 connless or 0.7 token handshake
		}
		h, payload, err := ParseConnless(p.data)
		if err != nil {
			t.Fatalf("% x: %v", p.data, err)
		}
		if h.Token == TokenNone || len(payload) < 8 || !bytes.Equal(payload[:4], []byte{0xff, 0xff, 0xff, 0xff}) {
			t.Fatalf("unexpected connless packet % x", p.data)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no 0.7 connless packets")
	}
}

// TestCaptures06 parses the 0.6 (DDNet) capture with the 0.6 parsers.
func TestCaptures06(t *testing.T) {
	n := 0
	var token uint32
	haveToken := false
	for i, p := range loadCapture(t, "sessionddnet.pcap") {
		if IsConnless(p.data) {
			continue
		}
		h, payload, err := ParsePacket6(p.data)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if h.Flags&Flag6Compression != 0 {
			raw, err := HuffmanDecompress(nil, payload, MaxPayload6)
			if err != nil {
				t.Fatalf("packet %d: %v", i, err)
			}
			if re, _ := HuffmanCompress(nil, raw); !bytes.Equal(re, payload) {
				t.Fatalf("packet %d: recompressed payload differs", i)
			}
			payload = raw
		}
		if h.Flags&Flag6Control != 0 {
			// CONNECTACCEPT + "TKEN" + token announces the security token.
			if len(payload) >= 9 && payload[0] == Ctrl6ConnectAccept && string(payload[1:5]) == TokenMagic6 {
				token = binary.LittleEndian.Uint32(payload[5:])
				haveToken = true
			}
		} else {
			if !haveToken {
				t.Fatalf("packet %d: data before CONNECTACCEPT", i)
			}
			// DDNet appends its 4-byte security token after the chunks.
			chunks, err := StripToken6(payload, token)
			if err != nil {
				t.Fatalf("packet %d: %v", i, err)
			}
			var r ChunkReader
			r.Reset6(chunks, int(h.NumChunks))
			for _, ok := r.Next(); ok; _, ok = r.Next() {
			}
			if r.Err() != nil || len(r.Rest()) != 0 {
				t.Fatalf("packet %d: %v, %d bytes left", i, r.Err(), len(r.Rest()))
			}
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d packets", n)
	}
}

// TestCaptureCorruption flips bytes of captured packets: parsing must fail
// cleanly or succeed, never panic, and a truncated compressed payload must
// not decode.
func TestCaptureCorruption(t *testing.T) {
	halves := 0
	for _, p := range loadCapture(t, "session07.pcap") {
		for i := range len(p.data) {
			b := bytes.Clone(p.data)
			b[i] ^= 0x5a
			checkPacketNoPanic(b)
			checkPacketNoPanic(p.data[:i])
		}
		h, payload, err := ParsePacket(p.data)
		if err == nil && h.Flags&FlagCompression != 0 && len(payload) > 2 {
			if _, err := HuffmanDecompress(nil, payload[:len(payload)/2], MaxPayload); !errors.Is(err, ErrBadHuffman) {
				t.Fatalf("half a compressed payload decoded: %v", err)
			}
			halves++
		}
	}
	if halves == 0 {
		t.Fatal("no compressed packet to truncate")
	}
}

// checkPacketNoPanic runs every 0.7 parser over b, ignoring errors.
func checkPacketNoPanic(b []byte) {
	if IsConnless(b) {
		ParseConnless(b)
		return
	}
	h, payload, err := ParsePacket(b)
	if err != nil {
		return
	}
	raw, err := DecodePayload(make([]byte, 0, MaxPayload), h, payload)
	if err != nil {
		return
	}
	if h.Flags&FlagControl != 0 {
		ParseControl(raw)
		return
	}
	var r ChunkReader
	r.Reset(raw, int(h.NumChunks))
	for _, ok := r.Next(); ok; _, ok = r.Next() {
	}
}
