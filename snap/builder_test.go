package snap

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBuilderSortsAndCRC(t *testing.T) {
	var b Builder
	b.Reset()
	add := func(typ, id uint16, vals ...int32) {
		t.Helper()
		d, err := b.NewItem(typ, id, len(vals))
		if err != nil {
			t.Fatalf("NewItem(%d,%d): %v", typ, id, err)
		}
		copy(d, vals)
	}
	add(11, 3, 8, 0, 0)
	add(5, 0, 4, 0, 0)
	add(11, 0, 1, 2, 3)
	add(7, 0)
	var s Snapshot
	b.Finish(&s)
	wantKeys := []uint32{Key(5, 0), Key(7, 0), Key(11, 0), Key(11, 3)}
	if s.NumItems() != len(wantKeys) {
		t.Fatalf("NumItems = %d", s.NumItems())
	}
	for i, k := range wantKeys {
		if s.Key(i) != k {
			t.Errorf("key %d = %#x, want %#x", i, s.Key(i), k)
		}
	}
	if got := s.Item(2); got.Type != 11 || got.ID != 0 || len(got.Data) != 3 || got.Data[2] != 3 {
		t.Errorf("item 2 = %+v", got)
	}
	if len(s.ItemData(1)) != 0 {
		t.Errorf("empty item has data %v", s.ItemData(1))
	}
	if s.CRC() != 8+4+6 {
		t.Errorf("CRC = %d", s.CRC())
	}
	if s.Find(Key(11, 3)) != 3 || s.Find(Key(11, 4)) != -1 {
		t.Errorf("Find wrong")
	}
}

// The reference's CRC tests: Flag {4,0,0} → 4; {99999999,1,1} → 100000001;
// {0xFFFFFFFF,1,1} → 1 (wrapping).
func TestCRCGolden(t *testing.T) {
	for _, tc := range []struct {
		data []int32
		want uint32
	}{
		{[]int32{4, 0, 0}, 4},
		{[]int32{99999999, 1, 1}, 100000001},
		{[]int32{-1, 1, 1}, 1},
		{[]int32{0x7fffffff, 1}, 0x80000000},
	} {
		var b Builder
		d, err := b.NewItem(5, 0, len(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		copy(d, tc.data)
		var s Snapshot
		b.Finish(&s)
		if s.CRC() != tc.want {
			t.Errorf("CRC(%v) = %d, want %d", tc.data, s.CRC(), tc.want)
		}
	}
}

func TestBuilderLimits(t *testing.T) {
	t.Run("items", func(t *testing.T) {
		var b Builder
		for i := range MaxItems {
			if _, err := b.NewItem(1, uint16(i), 0); err != nil {
				t.Fatalf("item %d: %v", i, err)
			}
		}
		if _, err := b.NewItem(1, MaxItems, 0); !errors.Is(err, ErrTooManyItems) {
			t.Fatalf("item past limit: %v", err)
		}
		if b.NumItems() != MaxItems {
			t.Fatalf("NumItems = %d", b.NumItems())
		}
	})
	t.Run("bytes", func(t *testing.T) {
		var b Builder
		// One item as large as possible: 8 + 12 + 4*w < 65536.
		if _, err := b.NewItem(1, 0, MaxWords); err != nil {
			t.Fatalf("largest item: %v", err)
		}
		if b.Size() != MaxSnapshotSize-4 {
			t.Fatalf("Size = %d", b.Size())
		}
		if _, err := b.NewItem(1, 1, 0); !errors.Is(err, ErrSnapTooLarge) {
			t.Fatalf("item past size: %v", err)
		}
		b.Reset()
		if _, err := b.NewItem(1, 0, MaxWords+1); !errors.Is(err, ErrSnapTooLarge) {
			t.Fatalf("oversized item: %v", err)
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		var b Builder
		if _, err := b.NewItem(9, 9, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := b.NewItem(9, 9, 1); !errors.Is(err, ErrDuplicateKey) {
			t.Fatalf("dup: %v", err)
		}
		b.Reset()
		if _, err := b.NewItem(9, 9, 1); err != nil {
			t.Fatalf("after reset: %v", err)
		}
	})
	t.Run("bad", func(t *testing.T) {
		b := Builder{Sizes: Sizes7}
		if _, err := b.NewItem(MaxType+1, 0, 1); !errors.Is(err, ErrBadKey) {
			t.Errorf("type: %v", err)
		}
		if _, err := b.NewItem(1, 0, -1); !errors.Is(err, ErrNegativeSize) {
			t.Errorf("size: %v", err)
		}
		if _, err := b.NewItem(11, 0, 4); !errors.Is(err, ErrSizeMismatch) {
			t.Errorf("static size: %v", err)
		}
		if _, err := b.NewItem(23, 0, 4); err != nil {
			t.Errorf("non-static type: %v", err)
		}
		if b.NumItems() != 1 {
			t.Errorf("refused items were added: %d", b.NumItems())
		}
	})
	t.Run("zeroed", func(t *testing.T) {
		var b Builder
		d, _ := b.NewItem(1, 0, 4)
		copy(d, []int32{1, 2, 3, 4})
		b.Reset()
		d, _ = b.NewItem(1, 0, 4)
		for _, v := range d {
			if v != 0 {
				t.Fatalf("not zeroed: %v", d)
			}
		}
	})
}

func TestBuilderAllocs(t *testing.T) {
	var b Builder
	var s Snapshot
	build := func() {
		b.Reset()
		for i := range 200 {
			d, err := b.NewItem(uint16(1+i%20), uint16(199-i), 10)
			if err != nil {
				t.Fatal(err)
			}
			d[0] = int32(i)
		}
		b.Finish(&s)
	}
	build()
	if n := testing.AllocsPerRun(50, build); n != 0 {
		t.Errorf("allocs per build = %v, want 0", n)
	}
}

// TestBuilderOrders: whatever order the items come in (ascending,
// descending, random, runs of each as a world adds them, sizes 0 and up),
// Finish holds them sorted by key, each with its own data, and the CRC of
// all of them.
func TestBuilderOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var b Builder
	var s Snapshot
	sortedBuilds, tailBuilds, dups := 0, 0, 0
	for iter := range 5000 {
		b.Reset()
		want := map[uint32][]int32{}
		var keys []uint32
		typ := uint16(0)
		mode := iter % 5
		for run := range r.IntN(5) {
			n := r.IntN(70)
			if mode >= 3 { // ascending types: in key order, but for mode 4's first run
				typ += 1 + uint16(r.IntN(3))
			} else {
				typ = uint16(r.IntN(30))
			}
			base := uint16(r.IntN(100))
			for k := range n {
				var id uint16
				switch {
				case mode == 4 && run == 0:
					id = uint16(r.IntN(400)) // a first run in any order, the rest above it
				case mode == 0 || mode >= 3:
					id = base + uint16(k) // ascending
				case mode == 1:
					id = base + uint16(n-k) // descending
				default:
					id = uint16(r.IntN(400))
				}
				key := Key(typ, id)
				if _, dup := want[key]; dup || (len(keys) > 0 && r.IntN(20) == 0) {
					// A key added before (in or out of order) is refused,
					// and the builder stays as it was.
					if !dup {
						key = keys[r.IntN(len(keys))]
					}
					items, words := b.NumItems(), b.words
					if _, err := b.NewItem(uint16(key>>16), uint16(key), 1); err != ErrDuplicateKey {
						t.Fatalf("iter %d: adding %x again: %v, want ErrDuplicateKey", iter, key, err)
					}
					if b.NumItems() != items || b.words != words {
						t.Fatalf("iter %d: a refused duplicate changed the builder", iter)
					}
					dups++
					continue
				}
				d, err := b.NewItem(typ, id, r.IntN(4))
				if err != nil {
					t.Fatal(err)
				}
				for i := range d {
					d[i] = r.Int32()
				}
				want[key] = slices.Clone(d)
				keys = append(keys, key)
			}
		}
		switch {
		case b.tail == 0 && len(keys) > 1:
			sortedBuilds++
		case b.tail > 1 && b.tail < len(keys)-1:
			tailBuilds++
		}
		b.Finish(&s)
		slices.Sort(keys)
		if s.NumItems() != len(keys) {
			t.Fatalf("iter %d: %d items, want %d", iter, s.NumItems(), len(keys))
		}
		var crc uint32
		for i, k := range keys {
			if s.Key(i) != k || !slices.Equal(s.ItemData(i), want[k]) {
				t.Fatalf("iter %d: item %d is %x %v, want %x %v", iter, i, s.Key(i), s.ItemData(i), k, want[k])
			}
			for _, v := range want[k] {
				crc += uint32(v)
			}
		}
		if s.CRC() != crc {
			t.Fatalf("iter %d: CRC %d, want %d", iter, s.CRC(), crc)
		}
	}
	// Every way of Finish ran: builds in key order copied as they are,
	// builds with a tail in key order above the rest, the others sorted.
	if sortedBuilds < 500 || sortedBuilds > 2500 || tailBuilds < 300 || dups < 1000 {
		t.Errorf("%d builds in key order, %d with a tail, %d duplicates refused: the test does not exercise every way",
			sortedBuilds, tailBuilds, dups)
	}
	t.Logf("%d builds in key order, %d with a tail, %d duplicates refused", sortedBuilds, tailBuilds, dups)
}

// TestNewItemsMatchesNewItem builds random snapshots twice, once adding
// runs with NewItems and once with one NewItem per id (the model): the
// same refusals, the same data returned, the same snapshot. The runs come
// above the builder's keys (its one-copy path) and below them, with
// duplicates, sizes the size table refuses and snapshots filling up.
func TestNewItemsMatchesNewItem(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var a, m Builder
	var sa, sm Snapshot
	fast, full := 0, 0
	for iter := range 3000 {
		sizes := (*SizeTable)(nil)
		if iter%3 == 0 {
			sizes = Sizes7
		}
		a.Sizes, m.Sizes = sizes, sizes
		a.Reset()
		m.Reset()
		typ := uint16(0)
		for range r.IntN(8) {
			switch r.IntN(12) {
			case 0:
				typ = MaxType + uint16(r.IntN(2)) // the largest type, and one above
			case 1, 2:
				typ = uint16(r.IntN(30)) // any order
			default:
				typ += uint16(r.IntN(3)) // mostly in key order
			}
			ids := r.Uint64() & r.Uint64()
			size := r.IntN(6)
			switch r.IntN(10) {
			case 0:
				size = 2000 + r.IntN(4000) // fills the snapshot within a run
			case 1:
				size = -1
			}
			if iter%3 == 0 && r.IntN(2) == 0 {
				if s, ok := Sizes7.Static(int32(typ)); ok {
					size = s
				}
			}
			wasFast := len(a.keys) == 0 || Key(typ, uint16(bits.TrailingZeros64(ids))) > a.max
			got, errA := a.NewItems(typ, ids, size)
			var errM error
			start := m.words
			for x := ids; x != 0; x &= x - 1 {
				if _, err := m.NewItem(typ, uint16(bits.TrailingZeros64(x)), size); err != nil {
					errM = err
					break
				}
			}
			want := m.data[start:m.words] // NewItem's items lie end to end
			if errA != errM || len(got) != len(want) {
				t.Fatalf("iter %d: NewItems(%d, %x, %d) = %d ints, %v; NewItem gives %d ints, %v", iter, typ, ids, size, len(got), errA, len(want), errM)
			}
			if errA == ErrSnapTooLarge || errA == ErrTooManyItems {
				full++
			} else if errA == nil && wasFast && ids != 0 {
				fast++
			}
			for i := range got {
				if got[i] != 0 {
					t.Fatalf("iter %d: NewItems data not zeroed", iter)
				}
				v := r.Int32()
				got[i] = v
				want[i] = v
			}
		}
		a.Finish(&sa)
		m.Finish(&sm)
		if !sa.Equal(&sm) || sa.CRC() != sm.CRC() {
			t.Fatalf("iter %d: NewItems built another snapshot: keys %x / %x", iter, sa.keys, sm.keys)
		}
	}
	t.Logf("one-copy runs %d, full %d", fast, full)
	if fast < 1000 || full < 50 {
		t.Fatalf("runs on the one-copy path %d, runs filling the snapshot %d: the test did not reach both", fast, full)
	}
}
