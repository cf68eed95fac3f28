// Package cells compares mapres images tile cell by tile cell: the rule
// cmd gen uses to build map06's table, and the map06 tests use to check it.
package cells

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
)

// Cell comparison thresholds (see Differs).
const (
	visibleAlpha   = 16 // alpha from which a pixel counts as drawn
	pixelDelta     = 48 // premultiplied channel difference that counts
	changedPercent = 25 // share of changed pixels that makes a cell differ
)

// Load decodes a PNG into non-premultiplied RGBA.
func Load(path string) (*image.NRGBA, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out, nil
}

// premul returns pixel (x, y) with the colour premultiplied by alpha.
func premul(img *image.NRGBA, x, y int) [4]int {
	p := img.Pix[img.PixOffset(x, y):]
	a := int(p[3])
	return [4]int{int(p[0]) * a / 255, int(p[1]) * a / 255, int(p[2]) * a / 255, a}
}

// Differs reports whether cell c (bit y*16+x of the 16x16 tile grid) of
// image b shows something else than the same cell of a: the cell is blank
// (no pixel with alpha visibleAlpha or more) in one and not in the other, or
// more than changedPercent of its pixels differ by more than pixelDelta in
// some premultiplied channel (a different picture, not a retouch). An image
// of another size is compared at the same relative position.
func Differs(a, b *image.NRGBA, c int) bool {
	wa, ha := a.Rect.Dx(), a.Rect.Dy()
	wb, hb := b.Rect.Dx(), b.Rect.Dy()
	cx, cy := c%16, c/16
	drawnA, drawnB, changed, n := false, false, 0, 0
	for y := cy * ha / 16; y < (cy+1)*ha/16; y++ {
		for x := cx * wa / 16; x < (cx+1)*wa/16; x++ {
			pa, pb := premul(a, x, y), premul(b, x*wb/wa, y*hb/ha)
			drawnA = drawnA || pa[3] >= visibleAlpha
			drawnB = drawnB || pb[3] >= visibleAlpha
			for k := range 4 {
				if d := pa[k] - pb[k]; d > pixelDelta || -d > pixelDelta {
					changed++
					break
				}
			}
			n++
		}
	}
	return drawnA != drawnB || changed*100 > n*changedPercent
}
