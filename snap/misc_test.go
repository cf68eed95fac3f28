package snap

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStrToIntsGolden(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want []int32
		back string
	}{
		// 'a'+128 = 0xe1 …; unused bytes 0x80; last byte of the last int 0.
		{"abc", 2, []int32{int32(-0x1e1d1c80), int32(-0x7f7f8000)}, "abc"},
		{"", 1, []int32{int32(-0x7f7f8000)}, ""},
		// 4n−1 bytes fit; the rest is cut.
		{"abcdefg", 2, []int32{int32(-0x1e1d1c1c), int32(-0x1a19_1900)}, "abcdefg"},
		{"abcdefgh", 2, []int32{int32(-0x1e1d1c1c), int32(-0x1a19_1900)}, "abcdefg"},
		// Bytes ≥ 0x80 wrap: 0xc3+128 = 0x43.
		{"\xc3\xa4", 1, []int32{0x43240000 | 0x8000}, "\xc3\xa4"},
	} {
		got := StrToInts(make([]int32, tc.n), tc.s)
		if !slices.Equal(got, tc.want) {
			t.Errorf("StrToInts(%q, %d) = %#x, want %#x", tc.s, tc.n, got, tc.want)
		}
		if back := IntsToStr(got); back != tc.back {
			t.Errorf("IntsToStr = %q, want %q", back, tc.back)
		}
	}
	// Round trip for every length up to the capacity of 6 ints (skin names).
	for n := range 24 {
		s := strings.Repeat("x", n)
		if back := IntsToStr(StrToInts(make([]int32, 6), s)); back != s {
			t.Errorf("round trip %d: %q", n, back)
		}
	}
	if got := StrToInts(nil, "abc"); len(got) != 0 {
		t.Errorf("no ints: %v", got)
	}
}

func TestStorage(t *testing.T) {
	var st Storage
	s := build(t, it(11, 0, 8, 0, 0))
	for tick := int32(0); tick <= 400; tick += 2 {
		st.Add(tick, time.Duration(tick)*time.Millisecond, s)
		if st.Oldest() < tick-HistoryTicks {
			t.Fatalf("tick %d: oldest %d kept", tick, st.Oldest())
		}
	}
	if st.Len() != HistoryTicks/2+1 || st.Newest() != 400 || st.Oldest() != 250 {
		t.Fatalf("len %d newest %d oldest %d", st.Len(), st.Newest(), st.Oldest())
	}
	got, tag, ok := st.Get(300)
	if !ok || tag != 300*time.Millisecond || !got.Equal(s) {
		t.Fatalf("Get(300) = %v %v", tag, ok)
	}
	if _, _, ok := st.Get(301); ok {
		t.Fatalf("Get(301) found")
	}
	if _, _, ok := st.Get(248); ok {
		t.Fatalf("purged tick found")
	}
	st.Ack(-1)
	if st.Len() != 76 {
		t.Fatalf("ack −1 purged: %d", st.Len())
	}
	st.Ack(390)
	if st.Oldest() != 390 || st.Len() != 6 {
		t.Fatalf("after ack: oldest %d len %d", st.Oldest(), st.Len())
	}
	// Every tick for a long time: bounded by MaxStored.
	for tick := int32(1000); tick < 1500; tick++ {
		st.Alloc(tick, 0)
		if st.Len() > MaxStored {
			t.Fatalf("len %d", st.Len())
		}
	}
	if st.Len() != MaxStored {
		t.Fatalf("len %d, want %d", st.Len(), MaxStored)
	}
	// A tick going backwards resets.
	st.Alloc(5, 0)
	if st.Len() != 1 || st.Oldest() != 5 {
		t.Fatalf("after reset len %d", st.Len())
	}
	st.PurgeAll()
	if st.Len() != 0 || st.Newest() != -1 {
		t.Fatalf("PurgeAll")
	}
	// Steady state does not allocate: a full window (a client that does not
	// ack) recycles its oldest entry. (Refilling the window after a purge
	// allocates: only MaxFree purged entries are kept.)
	tick := int32(2000)
	for range MaxStored {
		st.Add(tick, 0, s)
		tick++
	}
	allocs := testing.AllocsPerRun(200, func() {
		st.Add(tick, 0, s)
		tick++
	})
	if allocs != 0 {
		t.Fatalf("allocs %v", allocs)
	}
}

func TestIDPool(t *testing.T) {
	p := NewIDPool()
	sec := time.Second
	for want := range 3 {
		if id, err := p.New(0); err != nil || id != want {
			t.Fatalf("New = %d %v, want %d", id, err, want)
		}
	}
	if !p.Free(1, 10*sec) || p.Free(1, 10*sec) || p.Free(-1, 0) || p.Free(MaxIDs, 0) || p.Free(50, 0) {
		t.Fatalf("Free results wrong")
	}
	if p.InUse() != 2 {
		t.Fatalf("InUse %d", p.InUse())
	}
	// Before the delay (and exactly at its end) id 1 stays blocked.
	if id, _ := p.New(10 * sec); id != 3 {
		t.Fatalf("New during delay = %d", id)
	}
	if id, _ := p.New(15 * sec); id != 4 {
		t.Fatalf("New at end of delay = %d", id)
	}
	// After the delay the freed id comes first (head of the free list).
	if id, _ := p.New(15*sec + 1); id != 1 {
		t.Fatalf("New after delay = %d, want 1", id)
	}
	if id, _ := p.New(15*sec + 1); id != 5 {
		t.Fatalf("next = %d, want 5", id)
	}
	// Timed ids are released in the order they were freed; all of them at
	// once end up LIFO on the free list.
	p.Free(0, 20*sec)
	p.Free(2, 21*sec)
	if id, _ := p.New(30 * sec); id != 2 {
		t.Fatalf("after both delays = %d, want 2", id)
	}
	if id, _ := p.New(30 * sec); id != 0 {
		t.Fatalf("then %d, want 0", id)
	}
	// TimeoutAll releases at once.
	p.Free(3, 40*sec)
	p.TimeoutAll()
	if id, _ := p.New(40 * sec); id != 3 {
		t.Fatalf("after TimeoutAll = %d", id)
	}
	// Exhaustion is an error, not a crash.
	p.Reset()
	for i := range MaxIDs {
		if id, err := p.New(0); err != nil || id != i {
			t.Fatalf("New %d = %d %v", i, id, err)
		}
	}
	if _, err := p.New(0); err != ErrIDPoolExhausted {
		t.Fatalf("exhausted: %v", err)
	}
	p.Free(77, 0)
	if _, err := p.New(IDReuseDelay); err != ErrIDPoolExhausted {
		t.Fatalf("reused at exactly the delay: %v", err)
	}
	if id, err := p.New(IDReuseDelay + 1); err != nil || id != 77 {
		t.Fatalf("after delay: %d %v", id, err)
	}
}
