package netproto

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// huffmanGolden are the spec A2.1 vectors.
var huffmanGolden = []struct{ name, in, out string }{
	{"empty", "", "8a 1b"},
	{"zero", "00", "15 37 00"},
	{"mixed", "00 01 00 02 00 80 00", "b1 08 2a 6e 00"},
	{"hello world", "68 65 6c 6c 6f 20 77 6f 72 6c 64", "ae 95 13 5c 09 57 c2 16 b1 56 dc da 22 38 b9 12 9c a8 b8 01"},
	{"counting then zeros", "00 01 02 03 04 05 06 07" + strings.Repeat(" 00", 56), "51 58 78 76 1b b7 ff ff ff ff ff ff 7f c5 0d"},
	// 88 code bits fill 11 bytes exactly; the encoder still writes the
	// final (here empty) byte (spec A2.1, compression step 2), so the
	// output is 12 bytes. The spec's vector table omits this final 00.
	{"0x15 then zeros", "15" + strings.Repeat(" 00", 63), "be fd ff ff ff ff ff ff ff 15 37 00"},
}

func TestHuffmanGolden(t *testing.T) {
	for _, tc := range huffmanGolden {
		t.Run(tc.name, func(t *testing.T) {
			in, want := unhex(t, tc.in), unhex(t, tc.out)
			got, err := HuffmanCompress(nil, in)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("compress = % x, %v; want % x", got, err, want)
			}
			if len(got) > HuffmanMaxCompressedLen(len(in)) {
				t.Fatalf("compressed %d bytes beyond bound %d", len(got), HuffmanMaxCompressedLen(len(in)))
			}
			dec, err := HuffmanDecompress(nil, want, MaxPayload)
			if err != nil || !bytes.Equal(dec, in) {
				t.Fatalf("decompress = % x, %v; want % x", dec, err, in)
			}
		})
	}
}

func TestHuffmanDecompressErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		err  error
	}{
		{"fuzz 1a", "1a", MaxPayload, ErrBadHuffman},
		{"fuzz 4 bytes", "62 91 62 a9", MaxPayload, ErrBadHuffman},
		{"fuzz 5 bytes", "4c 04 fe 00 68", MaxPayload, ErrBadHuffman},
		{"empty input", "", MaxPayload, ErrBadHuffman},
		{"no eof, all zero-bytes symbols", "ff ff", MaxPayload, ErrBadHuffman},
		{"output bound", "15 37 00", 0, ErrHuffmanOverflow},
		{"output bound hello", "ae 95 13 5c 09 57 c2 16 b1 56 dc da 22 38 b9 12 9c a8 b8 01", 10, ErrHuffmanOverflow},
		{"negative bound", "15 37 00", -1, ErrHuffmanOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := HuffmanDecompress(nil, unhex(t, tc.in), tc.max)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v (out % x)", err, tc.err, out)
			}
			if tc.max >= 0 && len(out) > tc.max {
				t.Fatalf("output %d beyond bound %d", len(out), tc.max)
			}
		})
	}
}

// TestHuffmanDecompressExactBound checks that an output of exactly max bytes is allowed.
func TestHuffmanDecompressExactBound(t *testing.T) {
	in := []byte("hello world")
	c, _ := HuffmanCompress(nil, in)
	out, err := HuffmanDecompress(make([]byte, 3, 64), c, len(in))
	if err != nil || !bytes.Equal(out[3:], in) {
		t.Fatalf("got % x, %v", out, err)
	}
	// A bound so large that it overflows when added to len(dst) means no bound.
	out, err = HuffmanDecompress(make([]byte, 3, 64), c, math.MaxInt)
	if err != nil || !bytes.Equal(out[3:], in) {
		t.Fatalf("math.MaxInt bound: got % x, %v", out, err)
	}
}

// TestHuffmanCodeTable compares every code with the table in testdata.
func TestHuffmanCodeTable(t *testing.T) {
	f, err := os.Open("testdata/huffman_codes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	seen := 0
	for s.Scan() {
		sym, code, ok := strings.Cut(s.Text(), ":")
		if !ok {
			t.Fatalf("bad line %q", s.Text())
		}
		n := huffmanEOF
		if sym != "EOF" {
			v, err := strconv.ParseUint(sym, 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			n = int(v)
		}
		c := huffman.codes[n]
		var got strings.Builder
		for i := range c.n {
			got.WriteByte('0' + byte(c.bits>>i&1))
		}
		if got.String() != code {
			t.Errorf("symbol %s: code %s, want %s", sym, got.String(), code)
		}
		seen++
	}
	if seen != huffmanSymbols {
		t.Fatalf("table has %d codes, want %d", seen, huffmanSymbols)
	}
}

// TestHuffmanAllBytes round-trips every byte value and long runs.
func TestHuffmanAllBytes(t *testing.T) {
	var in []byte
	for i := range 256 {
		in = append(in, byte(i))
	}
	in = append(in, bytes.Repeat([]byte{0xff, 0x00, 0x77}, 200)...)
	c, _ := HuffmanCompress(nil, in)
	out, err := HuffmanDecompress(nil, c, len(in))
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip failed: %v", err)
	}
	// Trailing garbage after the EOF symbol is ignored.
	out, err = HuffmanDecompress(nil, append(c, 0xde, 0xad), len(in))
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("trailing bytes: %v", err)
	}
	// Cutting the last byte loses the EOF symbol.
	if _, err := HuffmanDecompress(nil, c[:len(c)-2], len(in)); !errors.Is(err, ErrBadHuffman) {
		t.Fatalf("truncated: err = %v", err)
	}
}

func FuzzHuffman(f *testing.F) {
	for _, tc := range huffmanGolden {
		f.Add(unhex(f, tc.in))
		f.Add(unhex(f, tc.out))
	}
	for _, p := range captureSeeds(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Decompression of arbitrary input stays within its bound and
		// agrees with the bit-by-bit decoder slowHuffmanDecompress.
		const max = 300
		out, err := HuffmanDecompress(make([]byte, 0, 8), b, max)
		if len(out) > max {
			t.Fatalf("decompressed %d bytes beyond bound %d", len(out), max)
		}
		slow, slowErr := slowHuffmanDecompress(b, max)
		if !errors.Is(err, slowErr) || !bytes.Equal(out, slow) {
			t.Fatalf("fast (%v, % x) and slow (%v, % x) decoders differ", err, out, slowErr, slow)
		}
		if err == nil {
			// A valid stream re-encodes to a stream that decodes the same.
			c, _ := HuffmanCompress(nil, out)
			out2, err := HuffmanDecompress(nil, c, max)
			if err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("re-encode mismatch: %v", err)
			}
		}
		// Compression round-trips.
		c, _ := HuffmanCompress(nil, b)
		if len(c) > HuffmanMaxCompressedLen(len(b)) {
			t.Fatalf("compressed %d bytes beyond bound", len(c))
		}
		d, err := HuffmanDecompress(nil, c, len(b))
		if err != nil || !bytes.Equal(d, b) {
			t.Fatalf("round trip of % x failed: %v", b, err)
		}
	})
}

// TestHuffmanGoldenFile checks both directions against testdata's golden
// vectors (random and skewed inputs, every single byte, maximal payloads;
// their origin is in testdata/README.md).
func TestHuffmanGoldenFile(t *testing.T) {
	data, err := os.ReadFile("testdata/huffman_golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		in, out, ok := strings.Cut(line, "#")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		raw, comp := unhex(t, in), unhex(t, out)
		got, _ := HuffmanCompress(nil, raw)
		if !bytes.Equal(got, comp) {
			t.Fatalf("line %d: compress(% x) = % x, want % x", n, raw, got, comp)
		}
		dec, err := HuffmanDecompress(nil, comp, len(raw))
		if err != nil || !bytes.Equal(dec, raw) {
			t.Fatalf("line %d: decompress: %v", n, err)
		}
		n++
	}
	if n < 290 {
		t.Fatalf("only %d vectors", n)
	}
}

// slowHuffmanDecompress is an obviously correct decoder: it walks the tree
// one bit at a time, least significant bit of each byte first.
func slowHuffmanDecompress(src []byte, max int) ([]byte, error) {
	var out []byte
	node := uint16(huffmanRoot)
	for i := 0; i < len(src)*8; i++ {
		node = huffman.child(node)[src[i/8]>>(i%8)&1]
		if node >= huffmanSymbols {
			continue
		}
		if node == huffmanEOF {
			return out, nil
		}
		if len(out) >= max {
			return out, ErrHuffmanOverflow
		}
		out = append(out, byte(node))
		node = huffmanRoot
	}
	return out, ErrBadHuffman
}

// TestHuffmanDifferential compares the table-driven decoder with the slow one
// on captured payloads, their prefixes and bit-flipped variants.
func TestHuffmanDifferential(t *testing.T) {
	for _, p := range captureSeeds(t) {
		if len(p) <= PacketHeaderSize {
			continue
		}
		pl := p[PacketHeaderSize:]
		for i := range len(pl) {
			for _, in := range [][]byte{pl[:i], append(bytes.Clone(pl[:i]), pl[i]^0x10)} {
				fast, ferr := HuffmanDecompress(nil, in, MaxPayload)
				slow, serr := slowHuffmanDecompress(in, MaxPayload)
				if !errors.Is(ferr, serr) || !bytes.Equal(fast, slow) {
					t.Fatalf("% x: fast %v, slow %v", in, ferr, serr)
				}
			}
		}
	}
}
