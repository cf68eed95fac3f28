package bots

import (
	"errors"
	"fmt"
	"math"

	"twserver/world"
	"twserver/world/collision"
	"twserver/world/tuning"
	"twserver/world/twmap"
	"twserver/world/vmath"
)

// Bounds of a navigation graph. BuildNav refuses a map beyond them with an
// error (it never panics), so a hostile map cannot make the build unbounded.
const (
	// MaxNavTiles is the largest game layer (width*height) a graph is built for.
	MaxNavTiles = 1 << 21
	// MaxNavNodes is the most standable tiles (graph nodes) of one map.
	MaxNavNodes = 1 << 16
	// MaxNavEdges is the most edges of one graph.
	MaxNavEdges = 1 << 20
	// MaxNavSimTicks bounds the character-core ticks simulated to find and
	// check the edges of one map (the build's time).
	MaxNavSimTicks = 40_000_000
	// maxPrimTicks bounds one simulated move.
	maxPrimTicks = 110
)

// Errors of BuildNav.
var (
	// ErrNavMap: the map is nil or its game layer is malformed.
	ErrNavMap = errors.New("bots: no usable game layer")
	// ErrNavTooBig: the map exceeds one of the MaxNav* bounds.
	ErrNavTooBig = errors.New("bots: map too big for a navigation graph")
)

// Edge kinds, the way a move gets from one standable tile to another.
const (
	EdgeWalk       = iota // walking (and walking off a ledge: falling)
	EdgeJump              // a ground jump
	EdgeDoubleJump        // a ground jump and an air jump
	EdgeHook              // a jump and a hook to a hookable tile
	NumEdgeKinds
)

// prim is a move template: the inputs of a simulated move from rest on a
// node. dir is the horizontal direction; the fields are ticks from the start
// (-1: never).
type prim struct {
	kind      uint8
	jump1     int8 // ground jump tick
	jump2     int8 // air jump tick
	dirFrom   int8 // direction held from this tick...
	dirUntil  int8 // ...until this tick (-1: to the end)
	hookDeg   int8 // hook aim elevation in degrees (0: no hook)
	hookUntil int8 // hook held until this tick
}

// basePrims are the move templates tried from every node, each in both
// directions; prims holds them followed by the extended ones.
var prims []prim

// basePrims: Walking
// templates come first: at equal cost the first found is kept.
var basePrims = [...]prim{
	{kind: EdgeWalk, jump1: -1, jump2: -1, dirUntil: -1},
	{kind: EdgeWalk, jump1: -1, jump2: -1, dirUntil: 8}, // step off a ledge
	{kind: EdgeJump, jump1: 0, jump2: -1, dirUntil: -1},
	{kind: EdgeJump, jump1: 0, jump2: -1, dirUntil: 7},
	{kind: EdgeJump, jump1: 0, jump2: -1, dirFrom: 12, dirUntil: -1},
	{kind: EdgeDoubleJump, jump1: 0, jump2: 10, dirUntil: -1},
	{kind: EdgeDoubleJump, jump1: 0, jump2: 22, dirUntil: -1},
	{kind: EdgeDoubleJump, jump1: 0, jump2: 16, dirFrom: 26, dirUntil: -1},
	{kind: EdgeDoubleJump, jump1: 0, jump2: 14, dirUntil: 18},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirUntil: -1, hookDeg: 45, hookUntil: 30},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirUntil: -1, hookDeg: 65, hookUntil: 35},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirFrom: 10, dirUntil: -1, hookDeg: 85, hookUntil: 45},
	{kind: EdgeHook, jump1: 0, jump2: 25, dirUntil: -1, hookDeg: 60, hookUntil: 24},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirUntil: -1, hookDeg: 30, hookUntil: 20},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirUntil: -1, hookDeg: 75, hookUntil: 20},
	{kind: EdgeHook, jump1: 0, jump2: 20, dirFrom: 0, dirUntil: -1, hookDeg: 80, hookUntil: 60},
	{kind: EdgeHook, jump1: 0, jump2: -1, dirFrom: 0, dirUntil: -1, hookDeg: 50, hookUntil: 60},
}

// numBasePrims is the number of templates tried from every node; the
// others (extendedPrims) only from nodes that need them.
var numBasePrims = len(basePrims)

func init() {
	prims = append(prims, basePrims[:]...)
	for _, dirFrom := range [2]int8{0, 16} {
		for _, jump2 := range [3]int8{-1, 16, 28} {
			for _, h := range [4][2]int8{{0, 0}, {45, 30}, {70, 40}, {88, 60}} {
				k := uint8(EdgeJump)
				if jump2 >= 0 {
					k = EdgeDoubleJump
				}
				if h[0] != 0 {
					k = EdgeHook
				}
				prims = append(prims, prim{kind: k, jump1: 0, jump2: jump2, dirFrom: dirFrom, dirUntil: -1, hookDeg: h[0], hookUntil: h[1]})
			}
		}
	}
}

// input returns the core input of prim p in direction dir at tick t.
func (p *prim) input(dir int32, t int) world.CoreInput {
	var in world.CoreInput
	if t >= int(p.dirFrom) && (p.dirUntil < 0 || t < int(p.dirUntil)) {
		in.Direction = dir
	}
	if (p.jump1 >= 0 && t == int(p.jump1)) || (p.jump2 >= 0 && t == int(p.jump2)) {
		in.Jump = 1
	}
	in.TargetX, in.TargetY = dir*100, 0
	if p.hookDeg != 0 {
		a := float64(p.hookDeg) * math.Pi / 180
		in.TargetX = int32(float64(dir) * 100 * math.Cos(a))
		in.TargetY = int32(-100 * math.Sin(a))
		if t < int(p.hookUntil) {
			in.Hook = 1
		}
	}
	return in
}

// edge is one move of the graph.
type edge struct {
	to   int32
	cost uint16 // ticks of the simulated move plus a preference penalty
	prim uint8  // index into prims
	dir  int8   // -1 or 1
}

// node is a standable tile: free, with a solid tile below.
type node struct{ x, y int16 }

// item is a map entity the bots care about (pickups, spawns, flag stands).
type item struct {
	kind int
	pos  vmath.Vec2
}

// Nav is the navigation graph of one map: nodes on the standable tiles and
// edges for walking, jumping, double jumping, falling and hooking, each
// found by simulating the world's character core (so a listed move is one
// the physics really makes, from rest) and never touching a death tile. A
// Nav is immutable after BuildNav and safe for concurrent readers.
type Nav struct {
	col    *collision.Map
	w, h   int
	nodeAt []int32 // per tile: node index or -1
	nodes  []node
	first  []int32 // edges of node i: edges[first[i]:first[i+1]]
	edges  []edge
	items  []item
	stands [2]vmath.Vec2
	hasFlg [2]bool
	// SimTicks is how many core ticks the build simulated.
	simTicks int
}

// Nodes returns the number of nodes (standable tiles).
func (n *Nav) Nodes() int { return len(n.nodes) }

// Edges returns the number of edges.
func (n *Nav) Edges() int { return len(n.edges) }

// EdgesOfKind returns the number of edges of one kind (Edge* constants).
func (n *Nav) EdgesOfKind(kind int) int {
	c := 0
	for i := range n.edges {
		if int(prims[n.edges[i].prim].kind) == kind {
			c++
		}
	}
	return c
}

// SimTicks returns how many character-core ticks the build simulated.
func (n *Nav) SimTicks() int { return n.simTicks }

// Bytes returns the graph's approximate memory in bytes.
func (n *Nav) Bytes() int {
	return len(n.nodeAt)*4 + len(n.nodes)*4 + len(n.first)*4 + len(n.edges)*8 + len(n.items)*24 + n.w*n.h
}

func (n *Nav) free(x, y int) bool {
	return n.col.GetTile(x*collision.TileSize, y*collision.TileSize)&(collision.FlagSolid|collision.FlagDeath) == 0
}

func (n *Nav) solid(x, y int) bool {
	return n.col.GetTile(x*collision.TileSize, y*collision.TileSize)&collision.FlagSolid != 0
}

// nodePos returns the position of a tee standing on node i.
func (n *Nav) nodePos(i int32) vmath.Vec2 {
	nd := n.nodes[i]
	return vmath.V(float32(int(nd.x)*32+16), float32(int(nd.y)*32+32)-world.PhysSize/2-1)
}

// tileNode returns the node at tile (x, y) or -1.
func (n *Nav) tileNode(x, y int) int32 {
	if x < 0 || y < 0 || x >= n.w || y >= n.h {
		return -1
	}
	return n.nodeAt[y*n.w+x]
}

// nodeNear returns a node for a position: the tile's own node, or the first
// one below it (a few tiles), or one beside it; -1 if none is close.
func (n *Nav) nodeNear(p vmath.Vec2) int32 {
	tx, ty := int(p.X)/32, int(p.Y)/32
	for dy := 0; dy < 12; dy++ {
		if i := n.tileNode(tx, ty+dy); i >= 0 {
			return i
		}
		if dy > 0 && !n.free(tx, ty+dy) {
			break
		}
	}
	for r := 1; r <= 3; r++ {
		for _, dx := range [2]int{-r, r} {
			for dy := -1; dy <= 3; dy++ {
				if i := n.tileNode(tx+dx, ty+dy); i >= 0 {
					return i
				}
			}
		}
	}
	return -1
}

// landNode returns the node a grounded tee at p stands on, or -1.
func (n *Nav) landNode(p vmath.Vec2) int32 {
	ty := int(p.Y) / 32
	if i := n.tileNode(int(p.X)/32, ty); i >= 0 {
		return i
	}
	if i := n.tileNode(int(p.X-world.PhysSize/2)/32, ty); i >= 0 {
		return i
	}
	return n.tileNode(int(p.X+world.PhysSize/2)/32, ty)
}

// BuildNav builds the navigation graph of map m. It is bounded by the
// MaxNav* constants and returns an error, never panics, on a map beyond them.
func BuildNav(m *twmap.Map) (*Nav, error) {
	if m == nil || m.Width <= 0 || m.Height <= 0 || len(m.Game) != m.Width*m.Height {
		return nil, ErrNavMap
	}
	if m.Width*m.Height > MaxNavTiles {
		return nil, fmt.Errorf("%w: %dx%d tiles (max %d)", ErrNavTooBig, m.Width, m.Height, MaxNavTiles)
	}
	n := &Nav{col: collision.New(m.Width, m.Height, m.Game), w: m.Width, h: m.Height}
	n.nodeAt = make([]int32, m.Width*m.Height)
	for i := range n.nodeAt {
		n.nodeAt[i] = -1
	}
	for y := 0; y < m.Height-1; y++ {
		for x := 0; x < m.Width; x++ {
			if !n.free(x, y) || !n.solid(x, y+1) {
				continue
			}
			if len(n.nodes) >= MaxNavNodes {
				return nil, fmt.Errorf("%w: more than %d standable tiles", ErrNavTooBig, MaxNavNodes)
			}
			n.nodeAt[y*m.Width+x] = int32(len(n.nodes))
			n.nodes = append(n.nodes, node{int16(x), int16(y)})
		}
	}
	for _, e := range m.Entities {
		x, y := e.Pos()
		p := vmath.V(x, y)
		switch e.Kind {
		case twmap.EntityFlagStandRed:
			n.stands[world.TeamRed], n.hasFlg[world.TeamRed] = p, true
		case twmap.EntityFlagStandBlue:
			n.stands[world.TeamBlue], n.hasFlg[world.TeamBlue] = p, true
		}
		n.items = append(n.items, item{kind: e.Kind, pos: p})
	}
	if err := n.buildEdges(); err != nil {
		return nil, err
	}
	return n, nil
}

// buildEdges simulates the base move templates from every node, then the
// extended ones from the nodes that cannot yet reach every item of the map
// (a base, say, whose way out needs a move the base templates miss).
func (n *Nav) buildEdges() error {
	wc := &world.WorldCore{Tuning: tuning.Default()}
	wc.Tuning.PlayerCollision = 0
	wc.Tuning.PlayerHooking = 0
	var core world.CharacterCore
	core.Init(wc, n.col)
	per := make([][]edge, len(n.nodes))
	total := 0
	for i := range n.nodes {
		per[i] = n.nodeEdges(&core, int32(i), 0, numBasePrims, per[i])
		total += len(per[i])
		if total > MaxNavEdges {
			return fmt.Errorf("%w: more than %d edges", ErrNavTooBig, MaxNavEdges)
		}
		if n.simTicks > MaxNavSimTicks {
			return fmt.Errorf("%w: more than %d simulated ticks", ErrNavTooBig, MaxNavSimTicks)
		}
	}
	for _, i := range n.trapped(per) {
		total -= len(per[i])
		per[i] = n.nodeEdges(&core, i, numBasePrims, len(prims), per[i])
		total += len(per[i])
		if total > MaxNavEdges {
			return fmt.Errorf("%w: more than %d edges", ErrNavTooBig, MaxNavEdges)
		}
		if n.simTicks > MaxNavSimTicks {
			return fmt.Errorf("%w: more than %d simulated ticks", ErrNavTooBig, MaxNavSimTicks)
		}
	}
	n.first = make([]int32, len(n.nodes)+1)
	n.edges = make([]edge, 0, total)
	for i := range per {
		n.first[i] = int32(len(n.edges))
		n.edges = append(n.edges, per[i]...)
	}
	n.first[len(n.nodes)] = int32(len(n.edges))
	return nil
}

// nodeEdges adds to list the edges of templates prims[lo:hi] from node i,
// keeping the cheapest move per target node.
func (n *Nav) nodeEdges(core *world.CharacterCore, i int32, lo, hi int, list []edge) []edge {
	for pi := lo; pi < hi; pi++ {
		for _, dir := range [2]int32{-1, 1} {
			to, ticks, ok := n.simulate(core, i, &prims[pi], dir)
			if !ok {
				continue
			}
			e := edge{to: to, cost: uint16(ticks + 2 + 4*int(prims[pi].kind)), prim: uint8(pi), dir: int8(dir)}
			j := 0
			for j < len(list) && list[j].to != to {
				j++
			}
			if j == len(list) {
				list = append(list, e)
			} else if e.cost < list[j].cost {
				list[j] = e
			}
		}
	}
	return list
}

// trapped returns the nodes that can be reached from a spawn or flag
// stand but from which some spawn or flag stand cannot be reached over the
// edges in per.
func (n *Nav) trapped(per [][]edge) []int32 {
	// reverse adjacency
	cnt := make([]int32, len(n.nodes)+1)
	for i := range per {
		for _, e := range per[i] {
			cnt[e.to+1]++
		}
	}
	for i := 1; i < len(cnt); i++ {
		cnt[i] += cnt[i-1]
	}
	rev := make([]int32, cnt[len(n.nodes)])
	fill := append([]int32(nil), cnt[:len(n.nodes)]...)
	for i := range per {
		for _, e := range per[i] {
			rev[fill[e.to]] = int32(i)
			fill[e.to]++
		}
	}
	ok := make([]bool, len(n.nodes))
	for i := range ok {
		ok[i] = true
	}
	mark := make([]uint32, len(n.nodes))
	queue := make([]int32, 0, len(n.nodes))
	gen := uint32(0)
	for _, it := range n.items {
		a := n.nodeNear(it.pos)
		if a < 0 || it.kind > twmap.EntityFlagStandBlue {
			continue
		}
		gen++
		queue = append(queue[:0], a)
		mark[a] = gen
		for k := 0; k < len(queue); k++ {
			v := queue[k]
			for _, u := range rev[cnt[v]:cnt[v+1]] {
				if mark[u] != gen {
					mark[u] = gen
					queue = append(queue, u)
				}
			}
		}
		for i := range ok {
			ok[i] = ok[i] && mark[i] == gen
		}
	}
	// only nodes a player can get to matter: forward from the items
	gen++
	queue = queue[:0]
	for _, it := range n.items {
		if a := n.nodeNear(it.pos); a >= 0 && mark[a] != gen && it.kind <= twmap.EntityFlagStandBlue {
			mark[a] = gen
			queue = append(queue, a)
		}
	}
	for k := 0; k < len(queue); k++ {
		for _, e := range per[queue[k]] {
			if mark[e.to] != gen {
				mark[e.to] = gen
				queue = append(queue, e.to)
			}
		}
	}
	var out []int32
	for i, good := range ok {
		if !good && mark[i] == gen {
			out = append(out, int32(i))
		}
	}
	return out
}

// simulate runs template p in direction dir from rest on node from and
// returns the node it lands on and the ticks it took; ok is false if the
// move dies, leaves the map, lands back where it started or never lands.
func (n *Nav) simulate(c *world.CharacterCore, from int32, p *prim, dir int32) (to int32, ticks int, ok bool) {
	c.Reset()
	c.Pos = n.nodePos(from)
	start := n.nodes[from]
	hooked := false
	for t := 0; t < maxPrimTicks; t++ {
		c.Input = p.input(dir, t)
		c.Tick(true)
		hooked = hooked || c.TriggeredEvents&world.CoreEventHookAttachGround != 0
		c.Move()
		c.Quantize()
		n.simTicks++
		if c.Death || c.Pos.X < 0 || c.Pos.Y < 0 || c.Pos.X >= float32(n.w*32) || c.Pos.Y >= float32(n.h*32) {
			return -1, 0, false
		}
		if t < 2 || !c.Grounded() || c.Vel.Y < 0 {
			continue
		}
		if p.hookDeg != 0 && t < int(p.hookUntil) {
			continue
		}
		if p.hookDeg != 0 && !hooked {
			return -1, 0, false // the hook held nothing: a jump template covers it
		}
		if (p.jump2 >= 0 && t <= int(p.jump2)) || (p.dirFrom > 0 && t <= int(p.dirFrom)) {
			if p.kind != EdgeWalk {
				return -1, 0, false // landed before the move was complete
			}
		}
		l := n.landNode(c.Pos)
		if l < 0 {
			if p.kind == EdgeWalk {
				return -1, 0, false
			}
			continue
		}
		nd := n.nodes[l]
		if nd == start {
			if p.kind == EdgeWalk {
				continue
			}
			return -1, 0, false
		}
		return l, t + 1, true
	}
	return -1, 0, false
}
