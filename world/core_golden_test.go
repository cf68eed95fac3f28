package world

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/vmath"
)

// goldenMap builds the 40x30 game layer described in the header of
// testdata/physics-golden.txt.
func goldenMap() *collision.Map {
	const w, h = 40, 30
	game := make([]byte, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var idx byte
			switch {
			case x == 0 || x == w-1 || y == 0 || y == h-1 || y == 25:
				idx = collision.TileSolid
			case y == 14 && x >= 10 && x <= 19:
				idx = collision.TileSolid
			case y == 14 && x >= 20 && x <= 29:
				idx = collision.TileNoHook
			case x == 35 && y == 24:
				idx = collision.TileDeath
			}
			game[y*w+x] = idx
		}
	}
	return collision.New(w, h, game)
}

// goldenScenario describes one scripted run of the golden file.
type goldenScenario struct {
	a, b  vmath.Vec2 // start positions; b is used only when twoCores
	aVel  vmath.Vec2
	two   bool
	input func(t int) CoreInput // input of A at tick t
}

// defaultGoldenInput is the per-tick input default of the golden file.
func defaultGoldenInput() CoreInput { return CoreInput{TargetX: 100} }

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

var goldenScenarios = []goldenScenario{
	1: {a: vmath.V(216, 785), input: func(t int) CoreInput {
		in := defaultGoldenInput()
		switch {
		case t < 20:
			in.Direction = 1
		case t < 40:
			in.Direction = -1
		}
		in.Jump = b2i((t >= 5 && t < 8) || (t >= 15 && t < 17))
		return in
	}},
	2: {a: vmath.V(528, 785), input: func(t int) CoreInput {
		return CoreInput{TargetX: 0, TargetY: -100, Hook: b2i(t >= 3 && t < 45), Direction: 1}
	}},
	3: {a: vmath.V(784, 785), input: func(t int) CoreInput {
		return CoreInput{TargetX: 0, TargetY: -100, Hook: b2i(t >= 2)}
	}},
	4: {a: vmath.V(200, 785), b: vmath.V(500, 785), two: true, input: func(t int) CoreInput {
		return CoreInput{TargetX: 300, Hook: b2i(t >= 3 && t < 50)}
	}},
	5: {a: vmath.V(200, 785), b: vmath.V(220, 785), two: true, input: func(t int) CoreInput {
		in := defaultGoldenInput()
		in.Direction = 1
		return in
	}},
	6: {a: vmath.V(1072, 785), input: func(t int) CoreInput {
		in := defaultGoldenInput()
		in.Direction = 1
		return in
	}},
	7: {a: vmath.V(300, 500), aVel: vmath.V(30, -5), input: func(t int) CoreInput {
		return CoreInput{TargetX: -50, TargetY: 30}
	}},
}

// formatGoldenLine formats one core as a line of the golden file.
func formatGoldenLine(tick int, who string, c *CharacterCore) string {
	var n NetCore
	c.Write(&n)
	return fmt.Sprintf("%d %s %d %d %d %d %d %d %d %d %d %d %d %d %d %d ev=%d death=%d",
		tick, who, n.X, n.Y, n.VelX, n.VelY, n.Angle, n.Direction, n.Jumped, n.HookedPlayer,
		n.HookState, n.HookTick, n.HookX, n.HookY, n.HookDx, n.HookDy, c.TriggeredEvents, b2i(c.Death))
}

// runGoldenScenario runs scenario s for ticks 1..60 as the golden header
// prescribes and returns the formatted lines.
func runGoldenScenario(col *collision.Map, s goldenScenario) []string {
	wc := &WorldCore{Tuning: tuning.Default()}
	var a, b CharacterCore
	a.Init(wc, col)
	a.Reset()
	a.Pos, a.Vel = s.a, s.aVel
	wc.Characters[0] = &a
	if s.two {
		b.Init(wc, col)
		b.Reset()
		b.Pos = s.b
		wc.Characters[1] = &b
	}
	var lines []string
	for t := 1; t <= 60; t++ {
		a.Input = s.input(t)
		a.Tick(true)
		if s.two {
			b.Input = CoreInput{}
			b.Tick(false)
		}
		a.Move()
		a.Quantize()
		if s.two {
			b.Move()
			b.Quantize()
		}
		lines = append(lines, formatGoldenLine(t, "A", &a))
		if s.two {
			lines = append(lines, formatGoldenLine(t, "B", &b))
		}
	}
	return lines
}

// readGolden returns the trace lines of every scenario of the golden file.
func readGolden(t *testing.T) map[int][]string {
	t.Helper()
	f, err := os.Open("testdata/physics-golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := make(map[int][]string)
	cur := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, _ := fmt.Sscanf(line, "# scenario %d", &cur); n == 1 {
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cur == 0 {
			t.Fatalf("trace line before any scenario: %q", line)
		}
		out[cur] = append(out[cur], line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReferenceCoreGolden reproduces every line of the reference core
// traces exactly. testdata/physics-golden.txt is a reference golden: it was
// written by the reference's own gamecore.cpp and collision.cpp (0.7.5,
// compiled into a harness, see its header), not by this code.
func TestReferenceCoreGolden(t *testing.T) {
	golden := readGolden(t)
	if len(golden) != len(goldenScenarios)-1 {
		t.Fatalf("golden file has %d scenarios, want %d", len(golden), len(goldenScenarios)-1)
	}
	col := goldenMap()
	total := 0
	for id := 1; id < len(goldenScenarios); id++ {
		t.Run(fmt.Sprintf("scenario%d", id), func(t *testing.T) {
			want := golden[id]
			got := runGoldenScenario(col, goldenScenarios[id])
			if len(got) != len(want) {
				t.Fatalf("got %d lines, want %d", len(got), len(want))
			}
			bad := 0
			for i := range want {
				if got[i] != want[i] {
					bad++
					if bad <= 5 {
						t.Errorf("line %d:\n got  %s\n want %s", i+1, got[i], want[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d lines differ", bad, len(want))
			}
			total += len(want)
		})
	}
	t.Logf("%d golden lines compared", total)
}
