package map06

import (
	"embed"
	"fmt"

	"twserver/world/map06/internal/stockblob"
)

// mapresFS holds the Teeworlds 0.7.5 stock images that some map may need
// embedded: those stockIncompatible marks as differing in any cell. They
// are kept as stock blobs (package stockblob: the pixels already compressed
// as a map's data blob), made from the PNG files beside them by cmd gen
// (see mapres/README.md for their licence), so deriving a variant neither
// decodes a PNG nor compresses an image: it copies the blob.
//
//go:embed mapres/*.blob
var mapresFS embed.FS

// stockImage is a stock image ready to append as a data blob.
type stockImage struct {
	name          string
	width, height int
	compressed    []byte // zlib stream of the RGBA pixels (in the binary's read-only data)
	size          int    // width*height*4
}

// loadStock returns the stock image name from its embedded blob.
func loadStock(name string) (*stockImage, error) {
	b, err := mapresFS.ReadFile("mapres/" + name + ".blob")
	if err != nil {
		return nil, fmt.Errorf("stock image %q is not embedded: %w", name, err)
	}
	w, h, z, err := stockblob.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("stock image %q: %w", name, err)
	}
	return &stockImage{name: name, width: w, height: h, compressed: z, size: w * h * 4}, nil
}
