package datafile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"twserver/internal/testenv"
)

// sample builds a small valid file: items of types 5 and 2 added out of
// order, and two data blobs.
func sample(t testing.TB) []byte {
	t.Helper()
	var w Writer
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.AddItemInts(5, 0, []int32{1, 2, 3}))
	must(w.AddItemInts(2, 7, []int32{-1}))
	must(w.AddItemInts(5, 1, nil))
	if _, err := w.AddData([]byte("hello, datafile\x00")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddData(bytes.Repeat([]byte{1, 0, 0, 0}, 500)); err != nil {
		t.Fatal(err)
	}
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Offsets inside sample(): 2 types, 3 items, 2 data blobs.
const (
	sampleTypes    = HeaderSize
	sampleItemOffs = sampleTypes + 2*12
	sampleDataOffs = sampleItemOffs + 3*4
	sampleSizes    = sampleDataOffs + 2*4
	sampleItems    = sampleSizes + 2*4
)

func setInt(b []byte, off int, v int32) []byte {
	c := slices.Clone(b)
	binary.LittleEndian.PutUint32(c[off:], uint32(v))
	return c
}

func TestLoadSample(t *testing.T) {
	f, err := Load(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version() != 4 || f.NumItems() != 3 || f.NumData() != 2 {
		t.Fatalf("version %d items %d data %d", f.Version(), f.NumItems(), f.NumData())
	}
	want := []TypeRange{{Type: 2, Start: 0, Num: 1}, {Type: 5, Start: 1, Num: 2}}
	if !slices.Equal(f.Types(), want) {
		t.Fatalf("types %v, want %v", f.Types(), want)
	}
	it, ok := f.Find(5, 0)
	if !ok || !slices.Equal(it.Ints(), []int32{1, 2, 3}) {
		t.Fatalf("item 5/0 = %v %v", it, ok)
	}
	if v, ok := it.Int(2); !ok || v != 3 {
		t.Fatalf("Int(2) = %d %v", v, ok)
	}
	if _, ok := it.Int(3); ok {
		t.Fatal("Int past the end succeeded")
	}
	if it, ok := f.Find(2, 7); !ok || !slices.Equal(it.Ints(), []int32{-1}) {
		t.Fatalf("item 2/7 = %v %v", it, ok)
	}
	if _, ok := f.Find(5, 9); ok {
		t.Fatal("found a missing item")
	}
	if got := f.ItemsOfType(3); len(got) != 0 {
		t.Fatalf("absent type has %d items", len(got))
	}
	d, err := f.Data(0)
	if err != nil || string(d) != "hello, datafile\x00" {
		t.Fatalf("Data(0) = %q, %v", d, err)
	}
	if f.DataSize(1) != 2000 || f.DataSize(2) != -1 {
		t.Fatalf("DataSize = %d, %d", f.DataSize(1), f.DataSize(2))
	}
	if _, err := f.Data(2); !errors.Is(err, ErrIndex) {
		t.Fatalf("Data(2) error %v", err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	good := sample(t)
	lim := DefaultLimits()
	cases := []struct {
		name string
		data []byte
		lim  *Limits
		want error
	}{
		{"empty", nil, nil, ErrTruncated},
		{"short header", good[:20], nil, ErrTruncated},
		{"bad magic", append([]byte("DATB"), good[4:]...), nil, ErrBadMagic},
		{"version 5", setInt(good, 4, 5), nil, ErrVersion},
		{"negative item count", setInt(good, 20, -1), nil, ErrCorrupt},
		{"negative data count", setInt(good, 24, -3), nil, ErrCorrupt},
		{"negative item size", setInt(good, 28, -8), nil, ErrCorrupt},
		{"negative type count", setInt(good, 16, -1), nil, ErrCorrupt},
		{"negative data area size", setInt(good, 32, -1), nil, ErrCorrupt},
		{"huge item count", setInt(good, 20, 1<<30), nil, ErrLimit},
		{"huge data count", setInt(good, 24, 1<<30), nil, ErrLimit},
		{"item area past end", setInt(good, 28, 1<<30), nil, ErrTruncated},
		{"data area past end", setInt(good, 32, 1<<30), nil, ErrTruncated},
		{"truncated by one byte", good[:len(good)-1], nil, ErrTruncated},
		{"more types than items", setInt(good, 16, 4), nil, ErrCorrupt},
		{"duplicate type", setInt(good, sampleTypes+12, 2), nil, ErrCorrupt},
		{"type out of range", setInt(good, sampleTypes, 0x10000), nil, ErrCorrupt},
		{"type range past items", setInt(good, sampleTypes+12+8, 3), nil, ErrCorrupt},
		{"type ranges overlap", setInt(good, sampleTypes+12+4, 0), nil, ErrCorrupt},
		{"empty type range", setInt(good, sampleTypes+8, 0), nil, ErrCorrupt},
		{"first item offset", setInt(good, sampleItemOffs, 4), nil, ErrCorrupt},
		{"item offsets overlap", setInt(good, sampleItemOffs+4, 4), nil, ErrCorrupt},
		{"item offset past area", setInt(good, sampleItemOffs+8, 1000), nil, ErrCorrupt},
		{"item size field", setInt(good, sampleItems+4, 8), nil, ErrCorrupt},
		{"item type mismatch", setInt(good, sampleItems, 3<<16|7), nil, ErrCorrupt},
		{"item payload not whole words", setInt(setInt(good, sampleItemOffs+4, 13), sampleItems+4, 5), nil, ErrCorrupt},
		{"data offset past area", setInt(good, sampleDataOffs+4, 1<<20), nil, ErrCorrupt},
		{"data offsets decrease", setInt(good, sampleDataOffs+4, -1), nil, ErrCorrupt},
		{"first data offset", setInt(good, sampleDataOffs, 1), nil, ErrCorrupt},
		{"negative data size", setInt(good, sampleSizes, -1), nil, ErrCorrupt},
		{"data size over limit", setInt(good, sampleSizes+4, DefaultMaxDataSize+1), nil, ErrLimit},
		{"file over limit", good, &Limits{MaxFileSize: 10, MaxItems: 10, MaxData: 10}, ErrLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := lim
			if c.lim != nil {
				l = *c.lim
			}
			f, err := LoadWithLimits(c.data, l)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v (file %v), want %v", err, f != nil, c.want)
			}
		})
	}
}

// One case per argument the Writer refuses.
func TestWriterErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		add  func(w *Writer) error
		want error
	}{
		{"negative type", func(w *Writer) error { return w.AddItem(-1, 0, nil) }, ErrInvalid},
		{"type too big", func(w *Writer) error { return w.AddItem(MaxType+1, 0, nil) }, ErrInvalid},
		{"negative id", func(w *Writer) error { return w.AddItem(0, -1, nil) }, ErrInvalid},
		{"id too big", func(w *Writer) error { return w.AddItem(0, MaxID+1, nil) }, ErrInvalid},
		{"payload not whole words", func(w *Writer) error { return w.AddItem(0, 0, make([]byte, 6)) }, ErrInvalid},
		{"too many items", func(w *Writer) error {
			for i := range DefaultMaxItems {
				if err := w.AddItem(1, i%(MaxID+1), nil); err != nil {
					return err
				}
			}
			return w.AddItem(1, 0, nil)
		}, ErrLimit},
		{"negative blob size", func(w *Writer) error { _, err := w.AddRawData(nil, -1); return err }, ErrLimit},
		{"blob size over limit", func(w *Writer) error { _, err := w.AddRawData(nil, DefaultMaxDataSize+1); return err }, ErrLimit},
		{"too many blobs", func(w *Writer) error {
			for range DefaultMaxData {
				if _, err := w.AddRawData(nil, 0); err != nil {
					return err
				}
			}
			_, err := w.AddRawData(nil, 0)
			return err
		}, ErrLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w Writer
			if err := c.add(&w); !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
}

func TestDataErrors(t *testing.T) {
	good := sample(t)
	dataStart := len(good) - len(compressZlib(bytes.Repeat([]byte{1, 0, 0, 0}, 500))) - len(compressZlib([]byte("hello, datafile\x00")))
	cases := []struct {
		name  string
		data  []byte
		lim   Limits
		index int
		want  error
	}{
		{"declared too large", setInt(good, sampleSizes, 17), DefaultLimits(), 0, ErrDataSize},
		{"declared too small", setInt(good, sampleSizes+4, 1999), DefaultLimits(), 1, ErrDataSize},
		{"bad zlib header", setInt(good, dataStart, 0), DefaultLimits(), 0, ErrBadZlib},
		{"truncated stream", func() []byte {
			// Shrink blob 0 by moving blob 1's offset back: blob 0 loses its tail.
			c := setInt(good, sampleDataOffs+4, int32(len(compressZlib([]byte("hello, datafile\x00")))-5))
			return c
		}(), DefaultLimits(), 0, ErrBadZlib},
		{"total budget", good, Limits{MaxFileSize: 1 << 20, MaxItems: 10, MaxData: 10, MaxDataSize: 1 << 20, MaxTotalDataSize: 100}, 1, ErrLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := LoadWithLimits(c.data, c.lim)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if _, err := f.Data(c.index); !errors.Is(err, c.want) {
				t.Fatalf("Data(%d) error %v, want %v", c.index, err, c.want)
			}
		})
	}
}

// TestDecompressionBomb: a blob that declares 8 MiB but inflates to
// more stops at the declared size; one past the per-blob limit is refused
// before any work.
func TestDecompressionBomb(t *testing.T) {
	var w Writer
	if _, err := w.AddRawData(compressZlib(make([]byte, 10<<20)), 8<<20); err != nil {
		t.Fatal(err)
	}
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Data(0); !errors.Is(err, ErrDataSize) {
		t.Fatalf("bomb error %v, want ErrDataSize", err)
	}
	lim := DefaultLimits()
	lim.MaxDataSize = 1 << 20
	if _, err := LoadWithLimits(b, lim); !errors.Is(err, ErrLimit) {
		t.Fatalf("declared size over limit: %v", err)
	}
}

func TestVersion3(t *testing.T) {
	// A version 3 file: no uncompressed-size table, raw blobs.
	var b []byte
	put := func(v int32) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	b = append(b, "ATAD"...)
	put(3)
	put(0) // size, unchecked
	put(0) // swaplen, unchecked
	put(1) // types
	put(1) // items
	put(1) // data
	put(12)
	put(5)
	put(0) // type 0
	put(0) // start
	put(1) // num
	put(0) // item offset
	put(0) // data offset
	put(0) // key: type 0 << 16 | id 0
	put(4)
	put(1)
	b = append(b, "raw!\x00"...)
	f, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := f.Data(0); err != nil || string(d) != "raw!\x00" || f.DataSize(0) != 5 {
		t.Fatalf("v3 data %q %v", d, err)
	}
	checkRoundTrip(t, f)
}

// checkRoundTrip writes f back (raw blobs, and separately recompressed
// blobs) and checks that the result re-reads to the same content.
func checkRoundTrip(t testing.TB, f *File) {
	t.Helper()
	var raw, recompressed Writer
	for i := range f.NumItems() {
		it := f.Item(i)
		if err := raw.AddItem(it.Type, it.ID, it.Data); err != nil {
			t.Fatalf("AddItem: %v", err)
		}
		if err := recompressed.AddItem(it.Type, it.ID, it.Data); err != nil {
			t.Fatalf("AddItem: %v", err)
		}
	}
	plain := make([][]byte, f.NumData())
	for i := range f.NumData() {
		d, err := f.Data(i)
		if f.Version() == 3 {
			if err != nil {
				t.Fatalf("v3 Data: %v", err)
			}
			_, err = raw.AddData(d)
		} else {
			_, err = raw.AddRawData(f.RawData(i), f.DataSize(i))
		}
		if err != nil {
			t.Fatalf("add raw data: %v", err)
		}
		if d, err := f.Data(i); err == nil {
			plain[i] = d
			_, err = recompressed.AddData(d)
			if err != nil {
				t.Fatalf("AddData: %v", err)
			}
		} else if _, err := recompressed.AddRawData(f.RawData(i), f.DataSize(i)); err != nil {
			t.Fatalf("AddRawData: %v", err)
		}
	}
	for _, w := range []*Writer{&raw, &recompressed} {
		b, err := w.Bytes()
		if err != nil {
			t.Fatalf("Bytes: %v", err)
		}
		g, err := Load(b)
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		sameContent(t, f, g, plain)
	}
}

func sameContent(t testing.TB, f, g *File, plain [][]byte) {
	t.Helper()
	if g.Version() != 4 || g.NumItems() != f.NumItems() || g.NumData() != f.NumData() || len(g.Types()) != len(f.Types()) {
		t.Fatalf("shape differs: items %d/%d data %d/%d types %d/%d",
			f.NumItems(), g.NumItems(), f.NumData(), g.NumData(), len(f.Types()), len(g.Types()))
	}
	for _, tr := range f.Types() {
		a, b := f.ItemsOfType(tr.Type), g.ItemsOfType(tr.Type)
		if len(a) != len(b) {
			t.Fatalf("type %d: %d vs %d items", tr.Type, len(a), len(b))
		}
		for k := range a {
			if a[k].ID != b[k].ID || !bytes.Equal(a[k].Data, b[k].Data) {
				t.Fatalf("type %d item %d differs", tr.Type, k)
			}
		}
	}
	for i := range f.NumData() {
		if g.DataSize(i) != f.DataSize(i) {
			t.Fatalf("blob %d size %d vs %d", i, f.DataSize(i), g.DataSize(i))
		}
		if plain[i] == nil {
			if f.Version() == 4 && !bytes.Equal(f.RawData(i), g.RawData(i)) {
				t.Fatalf("undecodable blob %d not preserved", i)
			}
			continue
		}
		d, err := g.Data(i)
		if err != nil || !bytes.Equal(d, plain[i]) {
			t.Fatalf("blob %d differs after round trip: %v", i, err)
		}
	}
}

func TestRoundTripSample(t *testing.T) {
	f, err := Load(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, f)
}

// writeBack re-encodes a loaded version 4 file keeping its compressed blobs.
func writeBack(t testing.TB, f *File) []byte {
	t.Helper()
	var w Writer
	for i := range f.NumItems() {
		it := f.Item(i)
		if err := w.AddItem(it.Type, it.ID, it.Data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range f.NumData() {
		if _, err := w.AddRawData(f.RawData(i), f.DataSize(i)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestByteCompatible: a map written by the reference editor, read and
// written back with its compressed blobs, is byte-identical, so Writer lays
// out header, tables, items and data exactly as the reference writer.
func TestByteCompatible(t *testing.T) {
	paths := []string{"testdata/dm1.map"}
	sys, _ := filepath.Glob("/usr/share/games/teeworlds/data/maps/*.map")
	if len(sys) == 0 {
		testenv.Partly(t, "the stock maps (Debian package teeworlds-data)", errors.New("none installed; checking testdata/dm1.map only"))
	}
	paths = append(paths, sys...)
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Load(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := writeBack(t, f); !bytes.Equal(got, b) {
				t.Fatalf("write-back differs (%d vs %d bytes)", len(got), len(b))
			}
			checkRoundTrip(t, f)
		})
	}
}

func TestDM1Header(t *testing.T) {
	b, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		t.Fatal(err)
	}
	if crc := crc32.ChecksumIEEE(b); crc != 0x64548818 || len(b) != 6793 {
		t.Fatalf("fixture crc %08x size %d", crc, len(b))
	}
	f, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	var types []int
	for _, tr := range f.Types() {
		types = append(types, tr.Type)
	}
	if !slices.Equal(types, []int{0, 1, 2, 3, 4, 5, 6}) {
		t.Fatalf("types %v", types)
	}
	v, ok := f.Find(0, 0)
	if n, _ := v.Int(0); !ok || n != 1 {
		t.Fatalf("version item %v", v)
	}
	for i := range f.NumData() {
		if d, err := f.Data(i); err != nil || len(d) != f.DataSize(i) {
			t.Fatalf("blob %d: %v", i, err)
		}
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(sample(f))
	if b, err := os.ReadFile("testdata/dm1.map"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("DATA"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := DefaultLimits()
		lim.MaxDataSize = 1 << 20 // keep fuzzing fast
		lim.MaxTotalDataSize = 4 << 20
		df, err := LoadWithLimits(b, lim)
		if err != nil {
			if df != nil {
				t.Fatal("error with a non-nil file")
			}
			return
		}
		checkRoundTrip(t, df)
	})
}

func BenchmarkLoadAndInflate(b *testing.B) {
	data, err := os.ReadFile("testdata/dm1.map")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Load(data)
		if err != nil {
			b.Fatal(err)
		}
		for i := range f.NumData() {
			if _, err := f.Data(i); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestInflateBounded: the output buffer never grows past the declared size,
// whatever the size relative to the growth steps.
func TestInflateBounded(t *testing.T) {
	for _, n := range []int{0, 1, inflateChunk - 1, inflateChunk, inflateChunk + 1, 3*inflateChunk + 7} {
		src := bytes.Repeat([]byte("tile"), n/4+1)[:n]
		out, err := inflate(compressZlib(src), n)
		if err != nil || !bytes.Equal(out, src) {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if cap(out) > n {
			t.Errorf("%d bytes: buffer grew to %d", n, cap(out))
		}
		if n == 0 {
			continue
		}
		if _, err := inflate(compressZlib(src), n-1); !errors.Is(err, ErrDataSize) {
			t.Errorf("%d bytes declared as %d: %v", n, n-1, err)
		}
	}
}
