package worldstate

import (
	"errors"
	"os"
	"sync"
	"testing"

	"twserver/world"
	"twserver/world/twmap"
)

var ctf1 = sync.OnceValues(func() (*twmap.Map, error) {
	data, err := os.ReadFile("../world/testdata/ctf1.map")
	if err != nil {
		return nil, err
	}
	return twmap.Load("ctf1", data)
})

func newWorld(t testing.TB) *world.World {
	t.Helper()
	m, err := ctf1()
	if err != nil {
		t.Fatal(err)
	}
	cfg := world.DefaultConfig()
	cfg.GameType = world.GameCTF
	w, err := world.New(m, cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// played is a world with two players that ran a while.
func played(t testing.TB) *world.World {
	w := newWorld(t)
	for cid := 0; cid < 2; cid++ {
		if err := w.AddPlayer(cid, world.PlayerInfo{Name: "p<b>"}); err != nil {
			t.Fatal(err)
		}
	}
	for k := int32(0); k < 200; k++ {
		in := world.Input{Direction: 1 - k/40%3, TargetX: 100, TargetY: -30, Fire: k & world.InputStateMask, Jump: k / 7 % 2}
		w.DirectInput(0, in)
		w.SetInput(0, in)
		w.Tick()
		w.DrainEvents(func(world.Event) {})
		w.PostSnap()
	}
	return w
}

// TestRoundTrip: a state read back writes the same bytes, and its tick and
// scores are the saved ones.
func TestRoundTrip(t *testing.T) {
	w := played(t)
	data := Append(nil, w)
	r := newWorld(t)
	if err := Read(r, data); err != nil {
		t.Fatal(err)
	}
	if again := Append(nil, r); string(again) != string(data) {
		t.Fatal("the read state writes other bytes")
	}
	if r.CurrentTick() != w.CurrentTick() || r.CurrentTick() != 200 || r.Score(0) != w.Score(0) {
		t.Fatalf("tick %d score %d, saved tick %d score %d", r.CurrentTick(), r.Score(0), w.CurrentTick(), w.Score(0))
	}
	if n := newWorld(t); n.CurrentTick() == w.CurrentTick() {
		t.Fatal("control: a fresh world has the saved tick")
	}
	m, _ := ctf1()
	dm, err := world.New(m, world.DefaultConfig(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := Read(dm, data); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a CTF state read into a DM world: %v", err)
	}
	if err := Read(newWorld(t), make([]byte, MaxState+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an oversized state: %v", err)
	}
	big := newWorld(t)
	if err := big.AddPlayer(5, world.PlayerInfo{Name: string(make([]byte, 2*MaxString))}); err != nil {
		t.Fatal(err)
	}
	if err := Read(newWorld(t), Append(nil, big)); err != nil {
		t.Fatalf("a state with an over-long name (cut) is refused: %v", err)
	}
}

// FuzzRead: no input makes Read panic, and a state it accepts reads back
// the same way.
func FuzzRead(f *testing.F) {
	good := Append(nil, played(f))
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("TWWS\x01"))
	bad := append([]byte(nil), good...)
	bad[len(bad)/3] ^= 0x55
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		w := newWorld(t)
		if err := Read(w, data); err != nil {
			return
		}
		again := Append(nil, w)
		if err := Read(newWorld(t), again); err != nil {
			t.Fatalf("an accepted state writes one that is refused: %v", err)
		}
	})
}
