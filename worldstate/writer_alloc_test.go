package worldstate

import (
	"testing"

	"twserver/world"
	"twserver/world/twmap"
)

// TestWriterAllocs: a Writer appends a world's state (players in it)
// without allocating once its buffer grew (the recorder's checkpoints on
// the game loop); Append, without a Writer, allocates (the control).
func TestWriterAllocs(t *testing.T) {
	w, err := world.New(twmap.Default(), world.DefaultConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for cid := range 16 {
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		w.Tick()
	}
	var wr Writer
	buf := wr.Append(nil, w)
	if a := testing.AllocsPerRun(20, func() { buf = wr.Append(buf[:0], w) }); a != 0 {
		t.Errorf("Writer.Append allocates %.0f times", a)
	}
	if a := testing.AllocsPerRun(20, func() { buf = wr.AppendRecorded(buf[:0], w) }); a != 0 {
		t.Errorf("Writer.AppendRecorded allocates %.0f times", a)
	}
	if a := testing.AllocsPerRun(5, func() { _ = Append(buf[:0], w) }); a == 0 {
		t.Error("Append without a Writer does not allocate: the check cannot fail")
	}
}
