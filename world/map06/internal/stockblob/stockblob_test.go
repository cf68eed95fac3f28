package stockblob

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func TestEncodeParse(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{10, 20, 30, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b, err := Encode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	w, h, z, err := Parse(b)
	if err != nil || w != 3 || h != 2 || len(z) == 0 || &z[0] != &b[HeaderSize] {
		t.Fatalf("Parse: %d x %d, %d stream bytes, err %v", w, h, len(z), err)
	}
}

func TestParseBad(t *testing.T) {
	hdr := func(w, h uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, w)
		return append(binary.BigEndian.AppendUint32(b, h), 0x78)
	}
	for name, b := range map[string][]byte{
		"empty":      nil,
		"header":     hdr(1, 1)[:HeaderSize],
		"zero width": hdr(0, 4),
		"too high":   hdr(4, MaxDim+1),
		"huge":       hdr(1<<31, 1),
	} {
		if _, _, _, err := Parse(b); !errors.Is(err, ErrBadBlob) {
			t.Errorf("%s: err %v, want ErrBadBlob", name, err)
		}
	}
	if _, err := Encode([]byte("not a png")); err == nil {
		t.Error("Encode of garbage: no error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 0x78})
	f.Fuzz(func(t *testing.T, b []byte) {
		w, h, z, err := Parse(b)
		if err == nil && (w < 1 || h < 1 || w > MaxDim || h > MaxDim || len(z) == 0) {
			t.Fatalf("accepted %d x %d with %d stream bytes", w, h, len(z))
		}
	})
}
