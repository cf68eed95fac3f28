package replay

import (
	"bytes"
	"testing"

	"twserver/demo"
	"twserver/snap"
)

// FuzzWriteDemo: any input either fails or gives a demo that reads back
// whole, with as many snapshot ticks as WriteDemo reports, the first a
// keyframe.
func FuzzWriteDemo(f *testing.F) {
	f.Add(simulate(f, 120, 3))
	f.Add(simulate(f, 300, 5)[:2000])
	f.Fuzz(func(t *testing.T, data []byte) {
		e, r := fuzzEngine(data)
		if e == nil {
			return
		}
		var out bytes.Buffer
		res, err := e.WriteDemo(&out, r, DemoOptions{View: FreeView})
		if err != nil {
			return
		}
		_, ticks, err := demo.ReadAll(out.Bytes(), snap.Sizes7)
		if err != nil {
			t.Fatalf("the demo does not read back: %v", err)
		}
		if len(ticks) != res.Snapshots || !ticks[0].Keyframe || ticks[0].Tick != res.FirstTick || ticks[len(ticks)-1].Tick != res.LastTick {
			t.Fatalf("%d ticks read (%d..%d), %d written (%d..%d)", len(ticks), ticks[0].Tick, ticks[len(ticks)-1].Tick,
				res.Snapshots, res.FirstTick, res.LastTick)
		}
	})
}
