package collision

import (
	"math"
	"testing"

	"twserver/world/vmath"
)

// fuzzMap builds a small map (up to 16x16) from fuzz bytes: the first two
// bytes are the size, the rest tile indices (values 0..3 mostly, so that
// solid, death and nohook tiles are common).
func fuzzMap(data []byte) *Map {
	if len(data) < 2 {
		return New(1, 1, nil)
	}
	w, h := int(data[0]%16)+1, int(data[1]%16)+1
	game := make([]byte, w*h)
	for i := range game {
		if 2+i < len(data) {
			game[i] = data[2+i] % 5 // 4 is air too
		}
	}
	return New(w, h, game)
}

// bounded maps a fuzz float to a finite value within ±limit.
func bounded(f float32, limit float32) float32 {
	if f != f || math.IsInf(float64(f), 0) {
		return 0
	}
	return float32(math.Mod(float64(f), float64(limit)))
}

func FuzzCollision(f *testing.F) {
	seed := func(m []byte, px, py, vx, vy, e float32) {
		f.Add(m, px, py, vx, vy, e)
	}
	seed([]byte{7, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 2, 3, 0, 0, 0, 1}, 48, 48, 5, 9, 0)
	seed([]byte{3, 3, 1, 1, 1, 1, 0, 1, 1, 1, 1}, 48, 48, 30, -20, 0.5)
	seed([]byte{10, 10}, 100, 100, 0, 0, 0)
	seed([]byte{5, 5, 1, 0, 1, 0, 1, 0, 3, 0, 3, 0}, 70, 40, -300, 250, 1)
	// Long sub-stepped move: float32 rounding accumulates over 921 additions.
	seed([]byte{15, 15}, 500, 300, -920, -1, 0)
	f.Fuzz(func(t *testing.T, m []byte, px, py, vx, vy, e float32) {
		c := fuzzMap(m)
		span := float32(max(c.Width(), c.Height())*TileSize + 256)
		pos := vmath.V(bounded(px, span), bounded(py, span))
		vel := vmath.V(bounded(vx, 1000), bounded(vy, 1000))
		e = float32(math.Abs(float64(bounded(e, 1))))
		size := vmath.V(28, 28)

		startFree := !c.TestBox(pos, size)
		np, nv, death := c.MoveBox(pos, vel, size, e)
		if wp, wv, wd := moveBoxTestingAll(c, pos, vel, size, e); !sameVec(np, wp) || !sameVec(nv, wv) || death != wd {
			t.Fatalf("MoveBox(%v, %v, e=%v) = %v %v %v, testing every corner gives %v %v %v", pos, vel, e, np, nv, death, wp, wv, wd)
		}
		if isNaN32(np.X) || isNaN32(np.Y) || isNaN32(nv.X) || isNaN32(nv.Y) {
			t.Fatalf("MoveBox(%v, %v) gave NaN: %v %v", pos, vel, np, nv)
		}
		if startFree && c.TestBox(np, size) {
			t.Fatalf("MoveBox(%v, %v, e=%v) ended inside solid at %v", pos, vel, e, np)
		}
		// Each of the int(|v|)+1 sub-steps moves at most |v|/(n+1) per axis
		// (reflection never increases a component when e <= 1), plus the
		// float32 rounding of every sub-step addition.
		steps := float64(int(vmath.Length(vel)) + 1)
		slack := func(p, v float32) float64 {
			return steps*(math.Abs(float64(p))+math.Abs(float64(v))+1)*1.2e-7 + 1e-3
		}
		if dx := math.Abs(float64(np.X - pos.X)); dx > math.Abs(float64(vel.X))+slack(pos.X, vel.X) {
			t.Fatalf("MoveBox moved x by %v with vel %v", dx, vel)
		}
		if dy := math.Abs(float64(np.Y - pos.Y)); dy > math.Abs(float64(vel.Y))+slack(pos.Y, vel.Y) {
			t.Fatalf("MoveBox moved y by %v with vel %v", dy, vel)
		}
		if math.Abs(float64(nv.X)) > math.Abs(float64(vel.X)) || math.Abs(float64(nv.Y)) > math.Abs(float64(vel.Y)) {
			t.Fatalf("MoveBox grew velocity %v -> %v", vel, nv)
		}

		// IntersectLine from pos to pos+vel.
		p1 := pos.Add(vel)
		hit, at, before := c.IntersectLine(pos, p1)
		switch hit {
		case 0:
			if at != p1 || before != p1 {
				t.Fatalf("no hit but at %v before %v, want %v", at, before, p1)
			}
		case FlagSolid, FlagSolid | FlagNoHook:
			if !c.CheckPoint(at.X, at.Y) {
				t.Fatalf("hit point %v not solid", at)
			}
			if c.CheckPoint(before.X, before.Y) && before != pos {
				t.Fatalf("point before hit %v is solid", before)
			}
		default:
			t.Fatalf("IntersectLine hit value %d", hit)
		}

		// MovePoint either moves by vel into free space or stays put.
		mp, mv, bounces := c.MovePoint(pos, vel, e)
		if mp != pos && (mp != pos.Add(vel) || c.CheckPoint(mp.X, mp.Y)) {
			t.Fatalf("MovePoint %v + %v -> %v", pos, vel, mp)
		}
		if bounces < 0 || bounces > 2 || isNaN32(mv.X) || isNaN32(mv.Y) {
			t.Fatalf("MovePoint bounces %d vel %v", bounces, mv)
		}
	})
}

func isNaN32(f float32) bool { return f != f }
