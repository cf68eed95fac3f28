package map06

import (
	"bytes"
	"embed"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"sync"

	"twserver/world/datafile"
)

// mapresFS holds the Teeworlds 0.7.5 stock images that some map may need
// embedded: those stockIncompatible marks as differing in any cell (cmd gen
// copies exactly these; see mapres/README.md for their licence).
//
//go:embed mapres/*.png
var mapresFS embed.FS

// stockImage is a decoded, compressed stock image ready to append as a
// data blob.
type stockImage struct {
	name          string
	width, height int
	compressed    []byte // zlib stream of the RGBA pixels
	size          int    // width*height*4
}

var stockCache sync.Map // name -> func() (*stockImage, error)

// loadStock returns the stock image name, decoding and compressing it once
// per process.
func loadStock(name string) (*stockImage, error) {
	f, _ := stockCache.LoadOrStore(name, sync.OnceValues(func() (*stockImage, error) { return decodeStock(name) }))
	return f.(func() (*stockImage, error))()
}

func decodeStock(name string) (*stockImage, error) {
	b, err := mapresFS.ReadFile("mapres/" + name + ".png")
	if err != nil {
		return nil, fmt.Errorf("stock image %q is not embedded: %w", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("stock image %q: %w", name, err)
	}
	r := img.Bounds()
	if r.Dx() < 1 || r.Dy() < 1 || r.Dx() > MaxImageDim || r.Dy() > MaxImageDim {
		return nil, fmt.Errorf("stock image %q is %dx%d", name, r.Dx(), r.Dy())
	}
	// Non-premultiplied RGBA rows, as the map format stores pixels.
	rgba := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(rgba, rgba.Rect, img, r.Min, draw.Src)
	return &stockImage{
		name: name, width: r.Dx(), height: r.Dy(),
		compressed: datafile.Compress(rgba.Pix),
		size:       len(rgba.Pix),
	}, nil
}
