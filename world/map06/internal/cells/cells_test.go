package cells

import (
	"image"
	"image/color"
	"testing"
)

// fill returns a w x h image whose cell (0,0) is painted by paint and the
// rest transparent.
func fill(w, h int, paint func(x, y int) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h / 16 {
		for x := range w / 16 {
			img.SetNRGBA(x, y, paint(x, y))
		}
	}
	return img
}

func TestDiffers(t *testing.T) {
	solid := func(c color.NRGBA) func(x, y int) color.NRGBA { return func(int, int) color.NRGBA { return c } }
	red := fill(256, 256, solid(color.NRGBA{200, 0, 0, 255}))
	cases := []struct {
		name string
		b    *image.NRGBA
		want bool
	}{
		{"identical", fill(256, 256, solid(color.NRGBA{200, 0, 0, 255})), false},
		{"retouched colour", fill(256, 256, solid(color.NRGBA{180, 20, 0, 255})), false},
		{"other picture", fill(256, 256, solid(color.NRGBA{0, 0, 200, 255})), true},
		{"blank", image.NewNRGBA(image.Rect(0, 0, 256, 256)), true},
		{"one faint pixel on blank", fill(256, 256, func(x, y int) color.NRGBA {
			if x == 0 && y == 0 {
				return color.NRGBA{255, 255, 255, 10}
			}
			return color.NRGBA{}
		}), true}, // a is drawn, b is blank (alpha 10 < 16)
		{"a row changed", fill(256, 256, func(x, y int) color.NRGBA {
			if y == 0 {
				return color.NRGBA{0, 0, 200, 255}
			}
			return color.NRGBA{200, 0, 0, 255}
		}), false},
		{"a third changed", fill(256, 256, func(x, y int) color.NRGBA {
			if y < 6 {
				return color.NRGBA{0, 0, 200, 255}
			}
			return color.NRGBA{200, 0, 0, 255}
		}), true},
		{"same picture at twice the size", fill(512, 512, solid(color.NRGBA{200, 0, 0, 255})), false},
	}
	for _, c := range cases {
		if got := Differs(red, c.b, 0); got != c.want {
			t.Errorf("%s: Differs %v, want %v", c.name, got, c.want)
		}
		if Differs(red, c.b, 17) {
			t.Errorf("%s: blank cell 17 differs", c.name)
		}
	}
}
