package dialect6

import "twserver/gamemsg"

// Skin6 is a 0.6 skin: one skin name and, when UseCustomColor is set, a body
// and a feet colour (packed HSL, 0xHHSSLL, lightness in the 0.6 scale).
type Skin6 struct {
	Name           string
	UseCustomColor bool
	ColorBody      int32
	ColorFeet      int32
}

// standardSkin is one entry of the standard-skin table: a 0.6 skin name and
// the 0.7 six-part skin that looks like it.
type standardSkin struct {
	name   string
	parts  [gamemsg.NumSkinParts]string
	custom [gamemsg.NumSkinParts]bool
	colors [gamemsg.NumSkinParts]int32
}

// standardSkins maps the skins shipped with both families onto each other
// (the 0.7 client's preset skins, which carry the names of the 0.6 skins they
// redraw; the table DDNet-Server uses for its 0.7 clients). Entry 0 is the
// fallback.
var standardSkins = [...]standardSkin{
	{"default", [6]string{"standard", "", "", "standard", "standard", "standard"}, [6]bool{true, false, false, true, true, false}, [6]int32{1798004, 0, 0, 1799582, 1869630, 0}},
	{"bluekitty", [6]string{"kitty", "whisker", "", "standard", "standard", "negative"}, [6]bool{true, true, false, true, true, true}, [6]int32{8681144, -8229413, 0, 7885547, 8868585, 9043712}},
	{"bluestripe", [6]string{"standard", "stripes", "", "standard", "standard", "standard"}, [6]bool{true, false, false, true, true, false}, [6]int32{10187898, 0, 0, 750848, 1944919, 0}},
	{"brownbear", [6]string{"bear", "bear", "hair", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{1082745, -15634776, 0, 1082745, 1147174, 0}},
	{"cammo", [6]string{"standard", "cammo2", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{5334342, -11771603, 0, 750848, 1944919, 0}},
	{"cammostripes", [6]string{"standard", "cammostripes", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{5334342, -14840320, 0, 750848, 1944919, 0}},
	{"coala", [6]string{"koala", "twinbelly", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{184, -15397662, 0, 184, 9765959, 0}},
	{"limekitty", [6]string{"kitty", "whisker", "", "standard", "standard", "negative"}, [6]bool{true, true, false, true, true, true}, [6]int32{4612803, -12229920, 0, 3827951, 3827951, 8256000}},
	{"pinky", [6]string{"standard", "whisker", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{15911355, -801066, 0, 15043034, 15043034, 0}},
	{"redbopp", [6]string{"standard", "donny", "unibop", "standard", "standard", "standard"}, [6]bool{true, true, true, true, true, false}, [6]int32{16177260, -16590390, 16177260, 16177260, 7624169, 0}},
	{"redstripe", [6]string{"standard", "stripe", "", "standard", "standard", "standard"}, [6]bool{true, false, false, true, true, false}, [6]int32{16307835, 0, 0, 184, 9765959, 0}},
	{"saddo", [6]string{"standard", "saddo", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{7171455, -9685436, 0, 3640746, 5792119, 0}},
	{"toptri", [6]string{"standard", "toptri", "", "standard", "standard", "standard"}, [6]bool{true, false, false, true, true, false}, [6]int32{6119331, 0, 0, 3640746, 5792119, 0}},
	{"twinbop", [6]string{"standard", "duodonny", "twinbopp", "standard", "standard", "standard"}, [6]bool{true, true, true, true, true, false}, [6]int32{15310519, -1600806, 15310519, 15310519, 37600, 0}},
	{"twintri", [6]string{"standard", "twintri", "", "standard", "standard", "standard"}, [6]bool{true, true, false, true, true, false}, [6]int32{3447932, -14098717, 0, 185, 9634888, 0}},
	{"warpaint", [6]string{"standard", "warpaint", "", "standard", "standard", "standard"}, [6]bool{true, false, false, true, true, false}, [6]int32{1944919, 0, 0, 750337, 1944919, 0}},
}

// Skin parts (SKINPART_*).
const (
	partBody       = 0
	partMarking    = 1
	partDecoration = 2
	partHands      = 3
	partFeet       = 4
)

// markingColor7 is the marking colour a custom-coloured 0.6 skin gets in 0.7
// (a faint white, alpha 0x22).
const markingColor7 = 0x22FFFFFF

// Lightness floors of the two colour scales: a 0.6 custom colour's lightness
// l maps to 0.5+l/2 before use, a 0.7 one's to 61/255+l·194/255.
var (
	darkest6 = float32(0.5)
	darkest7 = float32(61) / float32(255)
)

// Skin7From6 maps a 0.6 skin onto a 0.7 six-part skin: a standard skin name
// becomes its 0.7 preset (any other name the "default" preset), and custom
// body/feet colours are converted to the 0.7 scale and applied to body,
// decoration, hands (body colour), marking (faint white) and feet.
func Skin7From6(s Skin6) gamemsg.Skin {
	std := &standardSkins[0]
	for i := range standardSkins {
		if standardSkins[i].name == s.Name {
			std = &standardSkins[i]
			break
		}
	}
	k := gamemsg.Skin{PartNames: std.parts, UseCustomColors: std.custom, PartColors: std.colors}
	if s.UseCustomColor {
		body := convertColor(s.ColorBody, darkest6, darkest7)
		feet := convertColor(s.ColorFeet, darkest6, darkest7)
		for _, p := range [...]int{partBody, partMarking, partDecoration, partHands, partFeet} {
			k.UseCustomColors[p] = true
		}
		k.PartColors[partBody] = body
		k.PartColors[partMarking] = markingColor7
		k.PartColors[partDecoration] = body
		k.PartColors[partHands] = body
		k.PartColors[partFeet] = feet
	}
	return k
}

// Skin6From7 maps a 0.7 six-part skin onto a 0.6 skin. A skin equal to a
// preset of the standard table (names, custom switches, and colours where
// custom) becomes that skin without custom colours. Any other skin becomes
// the table entry sharing the most of body, marking and decoration names,
// coloured with its body and feet colours converted to the 0.6 scale; when
// neither body nor feet are custom-coloured it keeps the 0.6 skin's own
// colours instead of a white tee.
func Skin6From7(k *gamemsg.Skin) Skin6 {
	for i := range standardSkins {
		if sameSkin(k, &standardSkins[i]) {
			return Skin6{Name: standardSkins[i].name}
		}
	}
	best, bestN := 0, -1
	for i := range standardSkins {
		n := 0
		for p := partBody; p <= partDecoration; p++ {
			if k.PartNames[p] == standardSkins[i].parts[p] {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	s := Skin6{Name: standardSkins[best].name}
	if !k.UseCustomColors[partBody] && !k.UseCustomColors[partFeet] {
		return s
	}
	body, feet := int32(255), int32(255) // lightness 1 (white) where not custom
	if k.UseCustomColors[partBody] {
		body = k.PartColors[partBody]
	}
	if k.UseCustomColors[partFeet] {
		feet = k.PartColors[partFeet]
	}
	s.UseCustomColor = true
	s.ColorBody = convertColor(body, darkest7, darkest6)
	s.ColorFeet = convertColor(feet, darkest7, darkest6)
	return s
}

func sameSkin(k *gamemsg.Skin, s *standardSkin) bool {
	for p := range gamemsg.NumSkinParts {
		if k.PartNames[p] != s.parts[p] || k.UseCustomColors[p] != s.custom[p] ||
			(s.custom[p] && k.PartColors[p] != s.colors[p]) {
			return false
		}
	}
	return true
}

// convertColor moves a packed HSL colour (0xHHSSLL; higher bits ignored)
// from one lightness scale to the other: the lightness is first expanded
// with the source floor (m = from + l·(1−from)), then compressed with the
// target floor (l = (m−to)/(1−to), clamped to 0..1). float32 arithmetic
// and round-half-away-from-zero, so results match the reference clients'
// colour code bit for bit.
func convertColor(c int32, from, to float32) int32 {
	h := float32((c>>16)&0xff) / 255
	s := float32((c>>8)&0xff) / 255
	l := float32(c&0xff) / 255
	l = from + l*(1-from)
	l = (l - to) / (1 - to)
	l = min(max(l, 0), 1)
	return roundToInt(h*255)<<16 + roundToInt(s*255)<<8 + roundToInt(l*255)
}

// roundToInt rounds half away from zero in float32 (the reference round_to_int).
func roundToInt(f float32) int32 {
	if f > 0 {
		return int32(f + 0.5)
	}
	return int32(f - 0.5)
}
