package live

import (
	"sync"
	"testing"
	"time"
)

// fill publishes a frame of tick with n items through the loop's calls.
func fill(t *testing.T, h *Hub, tick int32, n int) *Frame {
	t.Helper()
	f := h.NewFrame()
	f.Tick = tick
	for i := range n {
		d, err := f.NewItem(1, uint16(i), 3)
		if err != nil {
			t.Fatal(err)
		}
		d[0], d[1], d[2] = tick, int32(i), 7
	}
	f.Players = append(f.Players, Player{ID: int(tick), Name: "p"})
	h.Publish(f)
	return f
}

// TestHubPool: the loop reuses the pooled frames no reader holds, never a
// held one or the newest, numbers them without gaps, and fills them
// without allocating once their buffers have grown.
func TestHubPool(t *testing.T) {
	h := NewHub()
	if f := h.Acquire(); f.Seq != 0 {
		t.Fatalf("new hub: frame %d", f.Seq)
	} else {
		f.Release()
	}
	fill(t, h, 1, 10)
	held := h.Acquire()
	for tick := int32(2); tick < 20; tick++ {
		fill(t, h, tick, 10)
	}
	if held.Seq != 1 || held.Tick != 1 || len(held.Items) != 10 || held.Data(held.Items[9])[0] != 1 || held.Players[0].ID != 1 {
		t.Errorf("held frame changed: seq %d tick %d %d items", held.Seq, held.Tick, len(held.Items))
	}
	held.Release()
	f := h.Acquire()
	if f.Seq != 19 || f.Tick != 19 || len(f.Items) != 10 || len(f.Players) != 1 {
		t.Errorf("newest: seq %d tick %d, %d items %d players", f.Seq, f.Tick, len(f.Items), len(f.Players))
	}
	f.Release()
	tick := int32(20)
	if a := testing.AllocsPerRun(100, func() {
		f := h.NewFrame()
		f.Tick = tick
		for i := range 10 {
			_, _ = f.NewItem(1, uint16(i), 3)
		}
		f.Players = append(f.Players, Player{ID: 1})
		f.Events = append(f.Events, Event{Seq: 1})
		h.Publish(f)
		tick++
	}); a != 0 {
		t.Errorf("a frame allocates %.1f times", a)
	}
}

// TestHubReaders: every attached reader is signalled (coalesced) per
// publication, Wanted follows the readers and Demand, and Attach is
// bounded.
func TestHubReaders(t *testing.T) {
	h := NewHub()
	now := time.Unix(100, 0)
	if h.Wanted(now) {
		t.Error("wanted without readers")
	}
	r, err := h.Attach()
	if err != nil {
		t.Fatal(err)
	}
	if !h.Wanted(now) || h.Readers() != 1 {
		t.Error("not wanted with a reader")
	}
	fill(t, h, 1, 1)
	fill(t, h, 2, 1)
	select {
	case <-r.C():
	default:
		t.Fatal("no signal")
	}
	select {
	case <-r.C():
		t.Fatal("two signals queued for one reader")
	default:
	}
	r.Detach()
	r.Detach()
	if h.Wanted(now) || h.Readers() != 0 {
		t.Error("wanted after the reader left")
	}
	h.Demand(now)
	if !h.Wanted(now.Add(DemandFor-time.Second)) || h.Wanted(now.Add(DemandFor)) {
		t.Error("Demand does not last DemandFor")
	}
	var rs []*Reader
	for range MaxReaders {
		r, err := h.Attach()
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if _, err := h.Attach(); err != ErrTooManyReaders {
		t.Errorf("reader %d: %v", MaxReaders+1, err)
	}
	for _, r := range rs {
		r.Detach()
	}
}

// TestHubConcurrent: readers acquiring while the loop publishes see every
// frame whole (its items all of its tick); run it with -race.
func TestHubConcurrent(t *testing.T) {
	h := NewHub()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				f := h.Acquire()
				for _, it := range f.Items {
					if d := f.Data(it); d[0] != f.Tick {
						t.Errorf("frame %d of tick %d has an item of tick %d", f.Seq, f.Tick, d[0])
					}
				}
				f.Release()
			}
		}()
	}
	for tick := int32(1); tick <= 2000; tick++ {
		fill(t, h, tick, 1+int(tick)%20)
	}
	close(stop)
	wg.Wait()
}

// TestFeed: the feed keeps the last MaxEvents events in order, numbered
// without gaps.
func TestFeed(t *testing.T) {
	var fd Feed
	if got := fd.AppendTo(nil); len(got) != 0 {
		t.Fatalf("empty feed: %d events", len(got))
	}
	for i := range MaxEvents + 7 {
		fd.Add(Event{Kind: EventChat, Weapon: i})
	}
	got := fd.AppendTo(nil)
	if len(got) != MaxEvents || got[0].Weapon != 7 || got[0].Seq != 8 || got[len(got)-1].Seq != MaxEvents+7 {
		t.Errorf("%d events, first %+v, last %+v", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq != got[i-1].Seq+1 {
			t.Fatalf("gap at %d", i)
		}
	}
}

// TestNewMapLayer: tiles row by row; a map beyond MaxMapTiles has none.
func TestNewMapLayer(t *testing.T) {
	m := NewMapLayer(3, "m", 3, 2, func(x, y int) byte { return byte(10*y + x) })
	if m.Gen != 3 || string(m.Tiles) != string([]byte{0, 1, 2, 10, 11, 12}) {
		t.Errorf("layer %+v", m)
	}
	if big := NewMapLayer(1, "big", MaxMapTiles, 2, func(int, int) byte { return 1 }); big.Tiles != nil || big.Width != MaxMapTiles {
		t.Errorf("big layer has %d tiles", len(big.Tiles))
	}
}
