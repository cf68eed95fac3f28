// Package stockblob is the form in which map06 embeds the stock images a
// 0.6 map variant may need: the image's pixels already as the data blob a
// map stores them in (non-premultiplied RGBA rows, zlib-compressed by
// world/datafile), behind an 8-byte header with the width and height. A
// server appends the blob to a variant as it is, without decoding a PNG or
// compressing anything at run time.
//
// Layout: width (uint32, big endian), height (uint32, big endian), then
// the zlib stream of width*height*4 bytes.
package stockblob

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"

	"twserver/world/datafile"
)

// HeaderSize is the length of the width and height before the zlib stream.
const HeaderSize = 8

// MaxDim bounds each side of an image a blob may describe, as map06 bounds
// embedded images (map06.MaxImageDim).
const MaxDim = 1 << 13

// ErrBadBlob is returned for a blob whose header is short or out of range.
var ErrBadBlob = errors.New("stockblob: malformed blob")

// Encode decodes a PNG and returns its blob.
func Encode(pngData []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return nil, fmt.Errorf("stockblob: %w", err)
	}
	pix, w, h, err := Pixels(img)
	if err != nil {
		return nil, err
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(w))
	out = binary.BigEndian.AppendUint32(out, uint32(h))
	return append(out, datafile.Compress(pix)...), nil
}

// Pixels returns img's non-premultiplied RGBA rows, the form a map stores,
// and its size.
func Pixels(img image.Image) (pix []byte, w, h int, err error) {
	r := img.Bounds()
	w, h = r.Dx(), r.Dy()
	if w < 1 || h < 1 || w > MaxDim || h > MaxDim {
		return nil, 0, 0, fmt.Errorf("%w: image is %dx%d (1..%d per side)", ErrBadBlob, w, h, MaxDim)
	}
	rgba, ok := img.(*image.NRGBA)
	if !ok || rgba.Rect.Min != (image.Point{}) || rgba.Stride != 4*w {
		rgba = image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(rgba, rgba.Rect, img, r.Min, draw.Src)
	}
	return rgba.Pix, w, h, nil
}

// Parse splits a blob into the image's size and its zlib stream (a slice
// of blob, not a copy). It checks the header only; the stream is the
// generator's output, checked by map06's tests.
func Parse(blob []byte) (w, h int, z []byte, err error) {
	if len(blob) <= HeaderSize {
		return 0, 0, nil, fmt.Errorf("%w: %d bytes", ErrBadBlob, len(blob))
	}
	w = int(binary.BigEndian.Uint32(blob))
	h = int(binary.BigEndian.Uint32(blob[4:]))
	if w < 1 || h < 1 || w > MaxDim || h > MaxDim {
		return 0, 0, nil, fmt.Errorf("%w: header says %dx%d (1..%d per side)", ErrBadBlob, w, h, MaxDim)
	}
	return w, h, blob[HeaderSize:], nil
}
