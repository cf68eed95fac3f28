package bots

import "twserver/world/vmath"

// move follows the planned path to the goal, re-planning when the bot is
// off its path or stuck.
func (b *Bot) move() {
	in := &b.in
	t := &b.tr[b.cid]
	p := t.pos
	n := b.nav
	grounded := t.core.Grounded()
	// stuck: not moved far enough for StuckTicks
	if vmath.Distance(p, b.stuckRef) > StuckTicksDist {
		b.stuckRef, b.stuckTick = p, b.now
	} else if b.now-b.stuckTick > StuckTicks {
		b.stuckRef, b.stuckTick = p, b.now
		if b.curEdge >= 0 {
			b.fail(b.curEdge)
		} else if nx := b.pl.next(); nx >= 0 {
			b.fail(nx)
		}
		b.curEdge = -1
		b.pl.plen, b.pl.pidx = 0, 0
		b.planTick = b.now - replanTicks
		b.unstickTil = b.now + 20
		b.unstickDir = int32(b.rng.intn(2))*2 - 1
	}
	if b.now < b.unstickTil {
		in.Direction = b.unstickDir
		in.Jump = int32((b.unstickTil - b.now) / 5 % 2)
		in.Hook = 1
		if b.target < 0 {
			in.TargetX, in.TargetY = b.unstickDir*60, -100
		}
		return
	}
	if b.curEdge >= 0 {
		b.followEdge(p, grounded)
		return
	}
	me := int32(-1)
	if grounded {
		me = n.landNode(p)
	}
	if me < 0 {
		b.steer(p, b.goal)
		return
	}
	if me == b.goalNode || b.goalNode < 0 {
		b.steer(p, b.goal)
		if vmath.Distance(p, b.goal) < 12 {
			b.goalUntil = 0 // reached: the mode picks the next goal
			in.Direction = 0
		}
		return
	}
	next := b.pl.next()
	if next >= 0 && nodeOfEdgeSource(n, next) != me {
		next = -1
	}
	if next < 0 || b.planGoal != b.goalNode {
		if b.now-b.planTick < replanTicks && next < 0 && b.planGoal == b.goalNode {
			b.steer(p, b.goal)
			return
		}
		b.planTick = b.now
		b.planGoal = b.goalNode
		if !b.pl.plan(n, me, b.goalNode, b) {
			b.detour()
			return
		}
		next = b.pl.next()
	}
	e := &n.edges[next]
	pr := &prims[e.prim]
	if pr.kind != EdgeWalk {
		// a jump or hook move: start it when a simulation from the bot's own
		// state lands where the move goes; else line up on the node's
		// centre, slowly, hook released; if even then it would not land
		// there, count the move as failed and plan another way
		c := n.nodePos(me)
		dx := c.X - p.X
		if b.prevHook() || dx > 40 || dx < -40 || !b.lands(next) {
			aligned := dx <= 3 && dx >= -3 && t.vel.X <= 0.8 && t.vel.X >= -0.8 && !b.prevHook()
			in.Direction = 0
			if dx > 3 && t.vel.X < dx/4 {
				in.Direction = 1
			} else if dx < -3 && t.vel.X > dx/4 {
				in.Direction = -1
			}
			if !aligned {
				b.alignSince = b.now
			} else if b.now-b.alignSince > alignTicks {
				b.fail(next)
				b.pl.plen, b.pl.pidx = 0, 0
				b.planTick = b.now - replanTicks
			}
			return
		}
	}
	b.curEdge, b.edgeStart = next, b.now
	b.edgeTry[pr.kind]++
	b.followEdge(p, grounded)
}

func (b *Bot) prevHook() bool { return b.in.Hook != 0 || b.tr[b.cid].core.HookState > 0 }

// followEdge plays the current move's inputs and ends the move on landing.
func (b *Bot) followEdge(p vmath.Vec2, grounded bool) {
	in := &b.in
	n := b.nav
	e := &n.edges[b.curEdge]
	pr := &prims[e.prim]
	tk := int(b.now - b.edgeStart)
	if tk > 0 && grounded && b.tr[b.cid].vel.Y >= 0 && (pr.hookDeg == 0 || tk > int(pr.hookUntil)) {
		if l := n.landNode(p); l == e.to {
			b.pl.pidx++
			b.edgeDone[pr.kind]++
			b.curEdge = -1
			b.move()
			return
		} else if l >= 0 && l != nodeOfEdgeSource(n, b.curEdge) && (pr.kind != EdgeWalk || tk > 2) {
			b.fail(b.curEdge)
			b.curEdge = -1 // landed elsewhere: plan from here
			b.pl.plen, b.pl.pidx = 0, 0
			b.planTick = b.now - replanTicks
			b.move()
			return
		}
	}
	if tk > int(e.cost)+40 {
		b.fail(b.curEdge)
		b.curEdge = -1
		b.pl.plen, b.pl.pidx = 0, 0
		return
	}
	ci := pr.input(int32(e.dir), tk)
	in.Direction, in.Jump, in.Hook = ci.Direction, ci.Jump, ci.Hook
	if pr.kind == EdgeWalk && pr.dirUntil < 0 {
		// walking: keep going to the next node (no need to stop on each tile)
		in.Direction = int32(e.dir)
	}
	if pr.hookDeg != 0 || b.target < 0 {
		if pr.hookDeg != 0 && tk <= 1 || b.target < 0 {
			in.TargetX, in.TargetY = ci.TargetX, ci.TargetY
		}
	}
}

// steer walks (and jumps) straight towards q when no move of the graph applies.
func (b *Bot) steer(p, q vmath.Vec2) {
	in := &b.in
	dx := q.X - p.X
	in.Direction = 0
	if dx > 8 {
		in.Direction = 1
	} else if dx < -8 {
		in.Direction = -1
	}
	t := &b.tr[b.cid]
	if q.Y < p.Y-48 && t.core.Grounded() && b.now%20 < 2 {
		in.Jump = 1
	}
	if t.vel.Y > 2 && q.Y < p.Y-32 && t.core.Jumped&2 == 0 && b.in.Jump == 0 {
		in.Jump = 1
	}
	if b.target < 0 {
		in.TargetX, in.TargetY = in.Direction*100+1, 0
	}
}

// detour handles a goal the graph cannot bring the bot closer to: an item
// is given up for a while, and the bot heads for a random node for
// detourTicks before it looks at its goal again.
func (b *Bot) detour() {
	if b.goalItem >= 0 {
		b.taken[b.goalItem] = b.now + 15*50
		b.goalItem = -1
	}
	n := b.nav
	if len(n.nodes) == 0 {
		return
	}
	nd := int32(b.rng.intn(len(n.nodes)))
	b.goal, b.goalNode, b.goalUntil = n.nodePos(nd), nd, b.now+detourTicks
	b.detourUntil = b.now + detourTicks
}

// alignTicks is how long a bot lined up for a move waits for a simulation
// to say the move works before it gives the move up.
const alignTicks = 10

// lands simulates move ei from the bot's own current state (a copy of its
// core) and reports whether it ends on e's target node without dying.
func (b *Bot) lands(ei int32) bool {
	e := &b.nav.edges[ei]
	pr := &prims[e.prim]
	c := b.tr[b.cid].core
	for t := 0; t < maxPrimTicks; t++ {
		c.Input = pr.input(int32(e.dir), t)
		c.Tick(true)
		c.Move()
		c.Quantize()
		if c.Death {
			return false
		}
		if t < 2 || !c.Grounded() || c.Vel.Y < 0 || (pr.hookDeg != 0 && t < int(pr.hookUntil)) {
			continue
		}
		if l := b.nav.landNode(c.Pos); l >= 0 {
			return l == e.to
		}
	}
	return false
}
