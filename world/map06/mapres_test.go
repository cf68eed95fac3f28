package map06

import (
	"bytes"
	"compress/zlib"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"twserver/world/map06/internal/stockblob"
)

// TestStockBlobsMatchImages checks every embedded blob against the PNG file
// it was made from: the header has the image's size, the stream inflates
// to exactly its pixels, and the blob is byte for byte what the generator
// makes from the PNG today (so a change of the compressor cannot leave
// stale blobs behind). Every PNG has its blob and no blob lacks its PNG.
func TestStockBlobsMatchImages(t *testing.T) {
	pngs, _ := filepath.Glob("mapres/*.png")
	blobs, _ := filepath.Glob("mapres/*.blob")
	if len(pngs) == 0 || len(pngs) != len(blobs) {
		t.Fatalf("%d PNG files, %d blobs", len(pngs), len(blobs))
	}
	for _, p := range pngs {
		name := strings.TrimSuffix(filepath.Base(p), ".png")
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pix, w, h, err := stockblob.Pixels(img)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s, err := loadStock(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.width != w || s.height != h || s.size != len(pix) {
			t.Errorf("%s: blob says %dx%d (%d bytes), the PNG is %dx%d (%d)", name, s.width, s.height, s.size, w, h, len(pix))
		}
		zr, err := zlib.NewReader(bytes.NewReader(s.compressed))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, pix) {
			t.Errorf("%s: the blob inflates to %d bytes (err %v), not the PNG's %d pixels bytes", name, len(got), err, len(pix))
		}
		want, err := stockblob.Encode(src)
		if err != nil {
			t.Fatal(err)
		}
		embedded, _ := mapresFS.ReadFile("mapres/" + name + ".blob")
		if !bytes.Equal(embedded, want) {
			t.Errorf("%s: embedded blob differs from stockblob.Encode of the PNG: run go run ./world/map06/gen -blobs", name)
		}
	}
}
