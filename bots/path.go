package bots

import "twserver/world/vmath"

// MaxPlanExpansions bounds the nodes one path search expands; beyond it the
// search returns the path to the node it found closest to the goal.
const MaxPlanExpansions = 6000

// MaxPathLen is the most edges a planned path keeps.
const MaxPathLen = 256

// failPenalty is the extra cost in ticks of a move that failed lately.
const failPenalty = 400

// planner holds one bot's preallocated A* buffers, sized to its graph.
type planner struct {
	g      []int32
	parent []int32 // edge index into nav.edges that reached the node, -1 for the start
	stamp  []uint32
	closed []uint32
	gen    uint32
	heap   []heapItem
	path   [MaxPathLen]int32 // edge indices, start to goal
	plen   int
	pidx   int // next edge of the path
}

type heapItem struct {
	f    int32
	node int32
}

func newPlanner(n int) *planner {
	return &planner{
		g:      make([]int32, n),
		parent: make([]int32, n),
		stamp:  make([]uint32, n),
		closed: make([]uint32, n),
		heap:   make([]heapItem, 0, 4*n+16),
	}
}

func (p *planner) push(it heapItem) bool {
	if len(p.heap) == cap(p.heap) {
		return false
	}
	p.heap = append(p.heap, it)
	i := len(p.heap) - 1
	for i > 0 {
		j := (i - 1) / 2
		if p.heap[j].f <= p.heap[i].f {
			break
		}
		p.heap[i], p.heap[j] = p.heap[j], p.heap[i]
		i = j
	}
	return true
}

func (p *planner) pop() heapItem {
	top := p.heap[0]
	last := len(p.heap) - 1
	p.heap[0] = p.heap[last]
	p.heap = p.heap[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && p.heap[l].f < p.heap[m].f {
			m = l
		}
		if r < last && p.heap[r].f < p.heap[m].f {
			m = r
		}
		if m == i {
			break
		}
		p.heap[i], p.heap[m] = p.heap[m], p.heap[i]
		i = m
	}
	return top
}

// heuristic estimates the ticks from a to b (fast run: 10 units a tick).
func heuristic(n *Nav, a, b int32) int32 {
	na, nb := n.nodes[a], n.nodes[b]
	d := vmath.Length(vmath.V(float32(int(na.x)-int(nb.x)), float32(int(na.y)-int(nb.y))))
	return int32(d * 32 / 10)
}

// plan searches a path from node start to node goal and stores it; it
// reports whether a path (possibly partial, towards the closest node found)
// was stored. Moves that failed the bot b recently cost failPenalty more.
func (p *planner) plan(n *Nav, start, goal int32, b *Bot) bool {
	p.plen, p.pidx = 0, 0
	if start < 0 || goal < 0 || start == goal {
		return false
	}
	p.gen++
	if p.gen == 0 {
		clear(p.stamp)
		clear(p.closed)
		p.gen = 1
	}
	p.heap = p.heap[:0]
	p.g[start], p.parent[start], p.stamp[start] = 0, -1, p.gen
	p.push(heapItem{f: heuristic(n, start, goal), node: start})
	best, bestH := start, heuristic(n, start, goal)
	for expanded := 0; len(p.heap) > 0 && expanded < MaxPlanExpansions; expanded++ {
		it := p.pop()
		u := it.node
		if p.closed[u] == p.gen {
			expanded--
			continue
		}
		p.closed[u] = p.gen
		if u == goal {
			best = u
			break
		}
		if h := heuristic(n, u, goal); h < bestH {
			best, bestH = u, h
		}
		for ei := n.first[u]; ei < n.first[u+1]; ei++ {
			e := &n.edges[ei]
			g := p.g[u] + int32(e.cost)
			if b != nil && b.nfail > 0 && b.avoided(ei) {
				g += failPenalty // failed lately: only if nothing else goes
			}
			if p.stamp[e.to] == p.gen && p.g[e.to] <= g {
				continue
			}
			p.g[e.to], p.parent[e.to], p.stamp[e.to] = g, ei, p.gen
			if !p.push(heapItem{f: g + heuristic(n, e.to, goal), node: e.to}) {
				break
			}
		}
	}
	if best == start {
		return false
	}
	// count the path's length, skip what does not fit, fill from the back
	total := 0
	for v := best; v != start; total++ {
		v = nodeOfEdgeSource(n, p.parent[v])
	}
	v := best
	for i := 0; i < total-MaxPathLen; i++ {
		v = nodeOfEdgeSource(n, p.parent[v])
	}
	k := min(total, MaxPathLen)
	for i := k - 1; i >= 0; i-- {
		ei := p.parent[v]
		p.path[i] = ei
		v = nodeOfEdgeSource(n, ei)
	}
	p.plen = k
	return k > 0
}

// nodeOfEdgeSource returns the node an edge starts from (binary search in first).
func nodeOfEdgeSource(n *Nav, ei int32) int32 {
	lo, hi := 0, len(n.nodes)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if n.first[mid] <= ei {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return int32(lo)
}

// next returns the next edge of the path or -1.
func (p *planner) next() int32 {
	if p.pidx >= p.plen {
		return -1
	}
	return p.path[p.pidx]
}
