package bots

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"twserver/world/twmap"
)

// gridMap builds a map from rows of tile characters: '#' solid, 'X'
// unhookable, '!' death, '.' air.
func gridMap(rows ...string) *twmap.Map {
	w, h := len(rows[0]), len(rows)
	m := &twmap.Map{Width: w, Height: h, Game: make([]byte, w*h)}
	for y, r := range rows {
		for x := 0; x < w && x < len(r); x++ {
			switch r[x] {
			case '#':
				m.Game[y*w+x] = twmap.TileSolid
			case 'X':
				m.Game[y*w+x] = twmap.TileNoHook
			case '!':
				m.Game[y*w+x] = twmap.TileDeath
			}
		}
	}
	return m
}

func hasEdge(n *Nav, fx, fy, tx, ty, kind int) bool {
	from, to := n.tileNode(fx, fy), n.tileNode(tx, ty)
	if from < 0 || to < 0 {
		return false
	}
	for ei := n.first[from]; ei < n.first[from+1]; ei++ {
		if n.edges[ei].to == to && (kind < 0 || int(prims[n.edges[ei].prim].kind) == kind) {
			return true
		}
	}
	return false
}

// TestNavEdges checks the graph on small maps: a ledge is reached by a
// jump, a high ledge only by a double jump or the hook, a hook move needs a
// hookable ceiling, and no edge crosses a death tile.
func TestNavEdges(t *testing.T) {
	low := gridMap(
		"##########",
		"#........#",
		"#........#",
		"#........#",
		"#.....####",
		"#.....####",
		"##########",
	)
	n, err := BuildNav(low)
	if err != nil {
		t.Fatal(err)
	}
	if !hasEdge(n, 1, 5, 2, 5, EdgeWalk) || !hasEdge(n, 2, 5, 1, 5, EdgeWalk) {
		t.Errorf("no walking edge between neighbours")
	}
	if !hasEdge(n, 4, 5, 6, 3, -1) {
		t.Errorf("no edge up a two-tile ledge")
	}
	fall := false
	for x := 1; x <= 5; x++ {
		fall = fall || hasEdge(n, 6, 3, x, 5, EdgeWalk)
	}
	if !fall {
		t.Errorf("no falling edge down the ledge")
	}

	// a room whose floor, walls and ledge are unhookable: hook edges
	// exist only when the ceiling is hookable
	room := func(ceiling byte) *twmap.Map {
		rows := []string{strings.Repeat(string(ceiling), 14), "X............X", "X............X"}
		for i := 0; i < 6; i++ {
			rows = append(rows, "X........XXXXX")
		}
		return gridMap(append(rows, "XXXXXXXXXXXXXX")...)
	}
	hook, err := BuildNav(room('#'))
	if err != nil {
		t.Fatal(err)
	}
	nohook, err := BuildNav(room('X'))
	if err != nil {
		t.Fatal(err)
	}
	if hook.EdgesOfKind(EdgeHook) == 0 {
		t.Errorf("no hook edges under a hookable ceiling")
	}
	if k := nohook.EdgesOfKind(EdgeHook); k != 0 {
		t.Errorf("%d hook edges with nothing hookable", k)
	}

	// death tiles between two platforms: walking off would die
	death := gridMap(
		"############",
		"#..........#",
		"#..........#",
		"#..........#",
		"###......###",
		"###!!!!!!###",
		"############",
	)
	d, err := BuildNav(death)
	if err != nil {
		t.Fatal(err)
	}
	if hasEdge(d, 2, 3, 1, 3, EdgeWalk) == false {
		t.Errorf("no walking edge on the left platform")
	}
	for i := range d.edges {
		from := d.nodes[nodeOfEdgeSource(d, int32(i))]
		to := d.nodes[d.edges[i].to]
		if to.y > 3 || from.y > 3 {
			t.Errorf("edge into the death pit: %v -> %v", from, to)
		}
	}
}

// TestBuildNavBounds: malformed and oversized maps are refused with errors.
func TestBuildNavBounds(t *testing.T) {
	if _, err := BuildNav(nil); !errors.Is(err, ErrNavMap) {
		t.Errorf("nil map: %v", err)
	}
	if _, err := BuildNav(&twmap.Map{Width: 3, Height: 3, Game: make([]byte, 8)}); !errors.Is(err, ErrNavMap) {
		t.Errorf("short game layer: %v", err)
	}
	big := &twmap.Map{Width: 2048, Height: 1025, Game: make([]byte, 2048*1025)}
	if _, err := BuildNav(big); !errors.Is(err, ErrNavTooBig) {
		t.Errorf("oversized map: %v", err)
	}
	// a checkerboard of floors: more standable tiles than MaxNavNodes
	w, h := 1024, 260
	many := &twmap.Map{Width: w, Height: h, Game: make([]byte, w*h)}
	for y := 1; y < h; y += 2 {
		for x := 0; x < w; x++ {
			many.Game[y*w+x] = twmap.TileSolid
		}
	}
	if _, err := BuildNav(many); !errors.Is(err, ErrNavTooBig) {
		t.Errorf("too many nodes: %v", err)
	}
	// positive control: a small map builds
	if _, err := BuildNav(gridMap("#...#", "#...#", "#####")); err != nil {
		t.Errorf("small map: %v", err)
	}
}

// TestNavCache: one build per map content, shared by concurrent callers,
// bounded in entries.
func TestNavCache(t *testing.T) {
	c := NewNavCache(2)
	maps := make([]*twmap.Map, 3)
	for i := range maps {
		maps[i] = gridMap("#....#", "#....#", "######")
		maps[i].SHA256[0] = byte(i + 1)
	}
	var wg sync.WaitGroup
	got := make([]*Nav, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := c.Get(maps[0])
			if err != nil {
				t.Error(err)
			}
			got[i] = n
		}()
	}
	wg.Wait()
	for _, n := range got {
		if n != got[0] || n == nil {
			t.Fatalf("concurrent Gets returned different graphs")
		}
	}
	c.Get(maps[1])
	c.Get(maps[2])
	if c.Len() != 2 {
		t.Errorf("cache holds %d graphs, want 2", c.Len())
	}
	if n, _ := c.Get(maps[0]); n == got[0] {
		t.Errorf("the least recently used graph was not dropped")
	}
	if _, err := c.Get(&twmap.Map{Width: 1, Height: 1}); err == nil {
		t.Errorf("a malformed map was accepted")
	}
}

// FuzzBuildNav: any game layer builds or errors, never panics, and the
// graph's edges point at nodes.
func FuzzBuildNav(f *testing.F) {
	f.Add(uint8(10), []byte("##########.........#..........#####....!!!!####"))
	f.Add(uint8(3), []byte{1, 0, 1, 3, 0, 3, 1, 1, 1})
	f.Fuzz(func(t *testing.T, width uint8, tiles []byte) {
		w := int(width)%40 + 1
		h := len(tiles)/w + 1
		if h > 40 {
			h = 40
		}
		m := &twmap.Map{Width: w, Height: h, Game: make([]byte, w*h)}
		for i := range m.Game {
			if i < len(tiles) {
				m.Game[i] = tiles[i] % 4
			}
		}
		n, err := BuildNav(m)
		if err != nil {
			return
		}
		for _, e := range n.edges {
			if e.to < 0 || int(e.to) >= len(n.nodes) {
				t.Fatalf("edge to %d of %d nodes", e.to, len(n.nodes))
			}
		}
	})
}
