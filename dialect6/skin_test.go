package dialect6

import (
	"testing"

	"twserver/gamemsg"
)

// Colour conversions between the 0.7 scale (lightness floor 61/255) and the
// 0.6 scale (floor 0.5), ops-facts.md 4.2. The expectations were computed
// by a separate float32 C implementation of the same formula.
func TestConvertColor(t *testing.T) {
	for _, tc := range []struct{ c, to6, to7 int32 }{
		{0, 0, 87},
		{255, 255, 255},
		{65408, 65342, 65452},
		{0x123456, 1192960, 1193104},
		{1798004, 1797932, 1798052},
		{0x1c00ff, 1835263, 1835263},
		{0xaabbcc, 11189169, 11189213},
		{9765959, 9765888, 9766022},
		{-1, 0xffffff, 0xffffff}, // higher bits ignored: h=s=l=255
	} {
		if got := convertColor(tc.c, darkest7, darkest6); got != tc.to6 {
			t.Errorf("7→6 %#x = %#x, want %#x", tc.c, got, tc.to6)
		}
		if got := convertColor(tc.c, darkest6, darkest7); got != tc.to7 {
			t.Errorf("6→7 %#x = %#x, want %#x", tc.c, got, tc.to7)
		}
	}
}

// A 0.6 colour taken to 0.7 and back keeps hue and saturation and moves the
// lightness by at most one step.
func TestConvertColorRoundTrip(t *testing.T) {
	for c := int32(0); c <= 0xffffff; c += 0x10101 {
		back := convertColor(convertColor(c, darkest6, darkest7), darkest7, darkest6)
		if back>>8 != c>>8 || abs(back&0xff-c&0xff) > 1 {
			t.Fatalf("%#x → %#x", c, back)
		}
	}
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// Every standard skin survives 0.6 → 0.7 → 0.6, with and without custom
// colours; an unknown 0.6 name becomes the default preset.
func TestStandardSkinsRoundTrip(t *testing.T) {
	for _, std := range standardSkins {
		s := Skin6{Name: std.name}
		k := Skin7From6(s)
		if k.PartNames != std.parts || k.UseCustomColors != std.custom || k.PartColors != std.colors {
			t.Errorf("%s: 0.7 form %+v", std.name, k)
		}
		if got := Skin6From7(&k); got != s {
			t.Errorf("%s: back to 0.6 as %+v", std.name, got)
		}
		// With custom colours only the part names identify the skin: the
		// first entry with the same body, marking and decoration wins.
		first := std.name
		for _, o := range standardSkins {
			if [3]string(o.parts[:3]) == [3]string(std.parts[:3]) {
				first = o.name
				break
			}
		}
		c := Skin6{Name: std.name, UseCustomColor: true, ColorBody: 0x1c80c0, ColorFeet: 0x7f40ff}
		k = Skin7From6(c)
		got := Skin6From7(&k)
		if got.Name != first || !got.UseCustomColor || got.ColorBody>>8 != c.ColorBody>>8 ||
			abs(got.ColorBody&0xff-c.ColorBody&0xff) > 1 || abs(got.ColorFeet&0xff-c.ColorFeet&0xff) > 1 {
			t.Errorf("%s custom: %+v back as %+v", std.name, c, got)
		}
	}
	if k := Skin7From6(Skin6{Name: "x_ninja"}); k != (gamemsg.Skin{PartNames: standardSkins[0].parts,
		UseCustomColors: standardSkins[0].custom, PartColors: standardSkins[0].colors}) {
		t.Errorf("unknown skin: %+v", k)
	}
}

func TestSkin7From6CustomColors(t *testing.T) {
	k := Skin7From6(Skin6{Name: "default", UseCustomColor: true, ColorBody: 0, ColorFeet: 255})
	want := gamemsg.Skin{
		PartNames:       [6]string{"standard", "", "", "standard", "standard", "standard"},
		UseCustomColors: [6]bool{true, true, true, true, true, false},
		PartColors:      [6]int32{87, 0x22FFFFFF, 87, 87, 255, 0},
	}
	if k != want {
		t.Fatalf("got %+v\nwant %+v", k, want)
	}
}

func TestSkin6From7(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   gamemsg.Skin
		want Skin6
	}{
		// The 0.7 "default" preset without custom colours (the skin the
		// server assumes): the default 0.6 skin in its own colours.
		{"default uncoloured", gamemsg.DefaultSkin, Skin6{Name: "default"}},
		// kitty body and whisker marking: bluekitty shares two of three
		// parts (first in the table wins the tie with limekitty).
		{"closest", gamemsg.Skin{
			PartNames:       [6]string{"kitty", "whisker", "", "standard", "standard", "standard"},
			UseCustomColors: [6]bool{true, false, false, false, true, false},
			PartColors:      [6]int32{0x123456, 0, 0, 0, 0, 0},
		}, Skin6{Name: "bluekitty", UseCustomColor: true, ColorBody: 1192960, ColorFeet: 0}},
		// only the feet custom: the body goes white (lightness 1)
		{"feet only", gamemsg.Skin{
			PartNames:       [6]string{"bear", "bear", "", "standard", "standard", "standard"},
			UseCustomColors: [6]bool{false, false, false, false, true, false},
			PartColors:      [6]int32{0, 0, 0, 0, 65408, 0},
		}, Skin6{Name: "brownbear", UseCustomColor: true, ColorBody: 255, ColorFeet: 65342}},
	} {
		if got := Skin6From7(&tc.in); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
