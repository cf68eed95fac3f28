package world

import (
	"encoding/binary"
	"testing"

	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// fuzzMap builds a small map (up to 16x16) from fuzz bytes: the first two
// bytes are the size, the rest tile indices (values 0..3 mostly, so that
// solid, death and nohook tiles are common).
func fuzzMap(data []byte) *collision.Map {
	if len(data) < 2 {
		return collision.New(1, 1, nil)
	}
	w, h := int(data[0]%16)+1, int(data[1]%16)+1
	game := make([]byte, w*h)
	for i := range game {
		if 2+i < len(data) {
			game[i] = data[2+i] % 5 // 4 is air too
		}
	}
	return collision.New(w, h, game)
}

// FuzzCoreTick drives two cores with fuzzed inputs and checks that positions
// and velocities stay finite, the speed cap holds after Tick and quantized
// values survive a network round trip unchanged.
func FuzzCoreTick(f *testing.F) {
	f.Add([]byte{7, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 3, 0, 0, 0, 1}, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 200, 100})
	f.Add([]byte{15, 15}, []byte{0xff, 0, 0x80, 0x7f, 3})
	f.Fuzz(func(t *testing.T, m, inputs []byte) {
		c := fuzzMap(m)
		wc := &WorldCore{Tuning: tuning.Default()}
		var cores [2]CharacterCore
		for i := range cores {
			cores[i].Init(wc, c)
			cores[i].Reset()
			cores[i].Pos = vmath.V(float32(48+20*i), 48)
			wc.Characters[i] = &cores[i]
		}
		for tick := 0; tick < 100 && len(inputs) >= 4; tick++ {
			b := binary.LittleEndian.Uint32(inputs)
			inputs = inputs[1:]
			in := CoreInput{
				Direction: int32(b%3) - 1,
				TargetX:   int32(int8(b >> 8)),
				TargetY:   int32(int8(b >> 16)),
				Jump:      int32(b>>24) & 1,
				Hook:      int32(b>>25) & 1,
			}
			if in.TargetX == 0 && in.TargetY == 0 {
				in.TargetY = -1 // the server never lets (0,0) through
			}
			cores[tick%2].Input = in
			for i := range cores {
				cores[i].Tick(i == tick%2)
				if l := vmath.Length(cores[i].Vel); l > velocityCap*1.0001 {
					t.Fatalf("velocity %v above cap", l)
				}
			}
			for i := range cores {
				cores[i].Move()
				cores[i].Quantize()
				p, v := cores[i].Pos, cores[i].Vel
				if isNaN32(p.X) || isNaN32(p.Y) || isNaN32(v.X) || isNaN32(v.Y) {
					t.Fatalf("tick %d core %d: NaN pos %v vel %v", tick, i, p, v)
				}
				var n1, n2 NetCore
				cores[i].Write(&n1)
				cp := cores[i]
				cp.Read(&n1)
				cp.Write(&n2)
				if n1 != n2 {
					t.Fatalf("quantized core does not round trip: %+v vs %+v", n1, n2)
				}
			}
		}
	})
}

func isNaN32(f float32) bool { return f != f }
