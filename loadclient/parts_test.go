package loadclient

import (
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"twserver/snap"
)

func TestInputPatterns(t *testing.T) {
	for _, p := range []Pattern{PatternIdle, PatternWalk, PatternJumpFire, PatternRandom} {
		t.Run(p.String(), func(t *testing.T) {
			q, err := ParsePattern(p.String())
			if err != nil || q != p {
				t.Fatalf("ParsePattern(%q) = %v, %v", p, q, err)
			}
			a, b := NewInputGen(p, 7), NewInputGen(p, 7)
			dirs := map[int32]bool{}
			fires := map[int32]bool{}
			for range 500 {
				x, y := a.Next(), b.Next()
				if x != y {
					t.Fatal("same seed, different inputs")
				}
				if x.Direction < -1 || x.Direction > 1 || x.Jump < 0 || x.Jump > 1 || x.Hook < 0 || x.Hook > 1 ||
					x.Fire < 0 || x.Fire > inputStateMask || x.WantedWeapon < 0 || x.WantedWeapon > 6 {
					t.Fatalf("input out of range: %+v", x)
				}
				if x.TargetX == 0 && x.TargetY == 0 {
					t.Fatal("zero aim")
				}
				dirs[x.Direction] = true
				fires[x.Fire] = true
			}
			switch p {
			case PatternIdle:
				if len(dirs) != 1 || len(fires) != 1 {
					t.Fatalf("idle moves: %v %v", dirs, fires)
				}
			case PatternWalk:
				if !dirs[-1] || !dirs[1] {
					t.Fatalf("walk directions %v", dirs)
				}
			case PatternJumpFire, PatternRandom:
				if len(fires) < 10 {
					t.Fatalf("%s fired %d distinct counters", p, len(fires))
				}
			}
		})
	}
	if _, err := ParsePattern("dance"); err == nil {
		t.Fatal("unknown pattern accepted")
	}
	if p, _ := ParsePattern("jump+fire"); p != PatternJumpFire {
		t.Fatal("jump+fire")
	}
	r1, r2 := NewInputGen(PatternRandom, 1), NewInputGen(PatternRandom, 2)
	same := true
	for range 50 {
		if r1.Next() != r2.Next() {
			same = false
		}
	}
	if same {
		t.Fatal("different seeds give the same inputs")
	}
}

func TestHistogram(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Mean() != 0 {
		t.Fatal("empty histogram")
	}
	for i := 1; i <= 100; i++ {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	h.Add(5 * time.Second) // overflow bucket
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0.5, 51 * time.Millisecond}, {0.9, 91 * time.Millisecond}, {0.01, 2 * time.Millisecond}, {1, 5 * time.Second},
	}
	for _, tt := range tests {
		got := h.Quantile(tt.q)
		if got < tt.want-HistBucket || got > tt.want+HistBucket {
			t.Errorf("Quantile(%v) = %v, want about %v", tt.q, got, tt.want)
		}
	}
	var m Histogram
	m.Merge(&h)
	m.Merge(&h)
	if m.Count() != 2*h.Count() || m.Quantile(0.5) != h.Quantile(0.5) {
		t.Fatal("merge")
	}
	if got := h.Quantile(0.999); got != 5*time.Second {
		t.Fatalf("overflow quantile %v", got)
	}
}

func TestMapCache(t *testing.T) {
	data := []byte("not really a map, but bytes with a crc")
	k := MapKey{Name: "loadtest", CRC: crc32.ChecksumIEEE(data), Size: len(data), SHA256: sha256.Sum256(data)}
	dir := t.TempDir()
	c := &MapCache{Dir: dir}
	if c.Has(k) {
		t.Fatal("empty cache has the map")
	}
	bad := k
	bad.CRC++
	if err := c.Store(bad, data); !errors.Is(err, ErrMapCRC) {
		t.Fatalf("Store with wrong crc: %v", err)
	}
	bad = k
	bad.SHA256[0]++
	if err := c.Store(bad, data); !errors.Is(err, ErrMapSHA256) {
		t.Fatalf("Store with wrong sha: %v", err)
	}
	if err := c.Store(k, data[1:]); !errors.Is(err, ErrMapSize) {
		t.Fatalf("Store with wrong size: %v", err)
	}
	if err := c.Store(k, data); err != nil {
		t.Fatal(err)
	}
	if !c.Has(k) {
		t.Fatal("stored map missing")
	}
	if _, err := os.Stat(filepath.Join(dir, k.FileName())); err != nil {
		t.Fatal(err)
	}
	fresh := &MapCache{Dir: dir}
	if !fresh.Has(k) || fresh.Len() != 1 {
		t.Fatal("map not found in the directory")
	}
	evil := k
	evil.Name = "../x"
	if (&MapCache{Dir: dir}).Has(evil) || validName("a/b") || validName("..") || !validName("dm1") {
		t.Fatal("name check")
	}
}

func TestRunConfig(t *testing.T) {
	ok := RunConfig{Server: netip.MustParseAddrPort("127.0.0.1:8303"), Clients: 63, Duration: time.Second,
		Sources: 16, SourceBase: netip.MustParseAddr("127.0.0.2")}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := ok.SourceAddr(17); got != netip.MustParseAddr("127.0.0.3") {
		t.Fatalf("SourceAddr(17) = %v", got)
	}
	bad := []func(*RunConfig){
		func(r *RunConfig) { r.Clients = 0 },
		func(r *RunConfig) { r.Clients = 65 },
		func(r *RunConfig) { r.Duration = 0 },
		func(r *RunConfig) { r.Server = netip.AddrPort{} },
		func(r *RunConfig) { r.SourceBase = netip.MustParseAddr("::1") },
	}
	for i, f := range bad {
		r := ok
		f(&r)
		if r.Validate() == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	if (&RunConfig{}).SourceAddr(3).IsValid() {
		t.Fatal("no sources must mean no address")
	}
}

func TestSummarize(t *testing.T) {
	st := []Stats{
		{Entered: true, InGame: 2 * time.Second, Snapshots: 50, BytesIn: 2000, PacketsOut: 100, ConnectTime: 300 * time.Millisecond},
		{Entered: true, InGame: 2 * time.Second, Snapshots: 48, CRCErrors: 1, FirstBadError: "crc"},
		{Failure: "closed by server: This server is full"},
	}
	st[0].Latency.Add(20 * time.Millisecond)
	s := Summarize(st)
	if s.Connected != 2 || s.Failed != 1 || s.Failures["closed by server: This server is full"] != 1 ||
		s.CRCErrors != 1 || s.SnapsPerSec.Max != 25 || s.SnapsPerSec.Min != 24 || s.LatencyMs.Samples != 1 || s.OK() {
		t.Fatalf("summary %+v", s)
	}
}

func TestValidateItem(t *testing.T) {
	tests := []struct {
		name string
		it   snap.Item
		want string // substring of the problem, "" = valid
	}{
		{"player info", snap.Item{Type: 11, ID: 3, Data: []int32{8, 5, 30}}, ""},
		{"player info bad flags", snap.Item{Type: 11, Data: []int32{0x80, 0, 0}}, "player_flags"},
		{"player info short", snap.Item{Type: 11, Data: []int32{0, 0}}, "has 2 ints"},
		{"character", snap.Item{Type: 10, Data: make([]int32, 22)}, ""},
		{"character health 11", snap.Item{Type: 10, Data: append(make([]int32, 15), 11, 0, 0, 0, 0, 0, 0)}, "health"},
		{"character inherited direction unchecked", snap.Item{Type: 10, Data: append([]int32{0, 0, 0, 0, 0, 0, 5}, make([]int32, 15)...)}, ""},
		{"character core direction checked", snap.Item{Type: 9, Data: append([]int32{0, 0, 0, 0, 0, 0, 5}, make([]int32, 8)...)}, "direction"},
		{"pickup type 8", snap.Item{Type: 4, Data: []int32{0, 0, 8}}, "type"},
		{"game data flags", snap.Item{Type: 6, Data: []int32{0, 0x40, 0}}, "game_state_flags"},
		{"sound 41", snap.Item{Type: 21, Data: []int32{0, 0, 41}}, "sound_id"},
		{"damage 7 ints", snap.Item{Type: 22, Data: []int32{0, 0, 1, 0, 9, 9, 1}}, ""},
		{"type 64", snap.Item{Type: 64, Data: []int32{1}}, "outside 1..63"},
		{"type 0", snap.Item{Type: 0, Data: nil}, "outside 1..63"},
		{"unknown type 40 skipped", snap.Item{Type: 40, Data: []int32{1, 2}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := validateItem(tt.it, objRules7[:])
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("validateItem = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestValidateExtendedItems: a DDNet client's snapshot may hold DDNet's
// extended items (type-0 announcements and the announced types, GameInfoEx
// with its size checked); the 0.7.5 and vanilla 0.6 clients' may not.
func TestValidateExtendedItems(t *testing.T) {
	type item struct {
		typ, id uint16
		data    []int32
	}
	announce := func(id uint16, uuid [exSize]int32) item { return item{0, id, uuid[:]} }
	other := [exSize]int32{1, 2, 3, 4}
	tests := []struct {
		name  string
		items []item
		ex    bool
		bad   int
		want  string
	}{
		{"GameInfoEx announced", []item{announce(0x7fff, gameInfoExUUID), {0x7fff, 0, []int32{0, 8, 0}}}, true, 0, ""},
		{"unknown type announced", []item{announce(0x7ffe, other), {0x7ffe, 0, []int32{1, 2, 3, 4, 5}}}, true, 0, ""},
		{"GameInfoEx of the wrong size", []item{announce(0x7fff, gameInfoExUUID), {0x7fff, 0, []int32{0, 8}}}, true, 1, "GameInfoEx (id 0) has 2 ints"},
		{"not announced", []item{{0x7fff, 0, []int32{0, 8, 0}}}, true, 1, "does not announce"},
		{"announcement below the range", []item{announce(5, other)}, true, 1, "extended type announcement"},
		{"announcement without a UUID", []item{{0, 0x7fff, []int32{1}}}, true, 1, "extended type announcement"},
		{"vanilla client", []item{announce(0x7fff, gameInfoExUUID), {0x7fff, 0, []int32{0, 8, 0}}}, false, 2, "outside 1..63"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b snap.Builder
			for _, it := range tt.items {
				d, err := b.NewItem(it.typ, it.id, len(it.data))
				if err != nil {
					t.Fatal(err)
				}
				copy(d, it.data)
			}
			var s snap.Snapshot
			b.Finish(&s)
			bad, first := validateSnapshot(&s, objRules6[:], tt.ex)
			if bad != tt.bad || !strings.Contains(first, tt.want) {
				t.Fatalf("validateSnapshot = %d %q, want %d %q", bad, first, tt.bad, tt.want)
			}
		})
	}
}
