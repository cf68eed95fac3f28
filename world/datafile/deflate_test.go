package datafile

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

func inflateStd(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

// tileRows returns row-major tile data like a map layer: solid borders,
// air, a few entities.
func tileRows(w, h int) []byte {
	var b []byte
	for y := range h {
		for x := range w {
			idx := byte(0)
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				idx = 1
			}
			if y == h/2 && x%7 == 3 {
				idx = 192
			}
			b = append(b, idx, 0, 0, 0)
		}
	}
	return b
}

func TestCompressZlibRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	lowEntropy := make([]byte, 100000)
	for i := range lowEntropy {
		lowEntropy[i] = byte(rng.IntN(3))
	}
	ints := make([]byte, 0, 4000)
	for i := range 1000 {
		ints = binary.LittleEndian.AppendUint32(ints, uint32(i*37))
	}
	dm1, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"one byte", []byte{7}},
		{"two bytes", []byte{7, 7}},
		{"text", []byte("grass_main\x00")},
		{"zeros 1MiB", make([]byte, 1<<20)},
		{"run of 300", bytes.Repeat([]byte{0xab}, 300)},
		{"random", random},
		{"low entropy", lowEntropy},
		{"counting ints", ints},
		{"tile layer 60x40", tileRows(60, 40)},
		{"tile layer 1000x300", tileRows(1000, 300)},
		{"real map bytes", dm1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := compressZlib(c.in)
			if got := inflateStd(t, z); !bytes.Equal(got, c.in) {
				t.Fatalf("round trip differs: %d bytes in, %d out", len(c.in), len(got))
			}
			if !bytes.Equal(compressZlib(c.in), z) {
				t.Fatal("compression is not deterministic")
			}
			// inflate (the reader's bounded decoder) must agree.
			got, err := inflate(z, len(c.in))
			if err != nil || !bytes.Equal(got, c.in) {
				t.Fatalf("inflate: %v", err)
			}
		})
	}
}

func TestCompressZlibRatio(t *testing.T) {
	in := tileRows(60, 40)
	if z := compressZlib(in); len(z) > len(in)/20 {
		t.Errorf("60x40 tile layer compresses to %d bytes (%d raw); expected under 5%%", len(z), len(in))
	}
	if z := compressZlib(make([]byte, 1<<20)); len(z) > 8192 { // 13 bits per 258-byte match
		t.Errorf("1 MiB of zeros compresses to %d bytes", len(z))
	}
}

func FuzzCompressZlib(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabaaaa"))
	f.Add(tileRows(20, 10))
	f.Fuzz(func(t *testing.T, in []byte) {
		if got := inflateStd(t, compressZlib(in)); !bytes.Equal(got, in) {
			t.Fatalf("round trip differs")
		}
	})
}

func BenchmarkCompressZlibTiles(b *testing.B) {
	in := tileRows(300, 200)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		compressZlib(in)
	}
}
