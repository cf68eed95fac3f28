package world

import (
	"twserver/world/vmath"
)

// canSpawn picks a spawn position for player cid of team (CanSpawn).
// Survival modes give every free candidate a random score instead of
// rating its distance to the other characters.
func (c *controller) canSpawn(team, cid int) (vmath.Vec2, bool) {
	w := c.w
	if team == TeamSpectators || w.paused || w.resetRequested {
		return vmath.Vec2{}, false
	}
	ev := spawnEval{friendlyTeam: -1, pos: vmath.V(100, 100), random: c.isSurvival(), cid: cid}
	if c.isTeamplay() {
		ev.friendlyTeam = team
		c.evaluateSpawnType(&ev, 1+(team&1))
		if !ev.got {
			c.evaluateSpawnType(&ev, 0)
			if !ev.got {
				c.evaluateSpawnType(&ev, 1+((team+1)&1))
			}
		}
	} else {
		c.evaluateSpawnType(&ev, 0)
		c.evaluateSpawnType(&ev, 1)
		c.evaluateSpawnType(&ev, 2)
	}
	return ev.pos, ev.got
}

type spawnEval struct {
	pos          vmath.Vec2
	got          bool
	friendlyTeam int
	score        float32
	random       bool
	cid          int
}

var spawnOffsets = [5]vmath.Vec2{{X: 0, Y: 0}, {X: -32, Y: 0}, {X: 0, Y: -32}, {X: 32, Y: 0}, {X: 0, Y: 32}}

func (c *controller) evaluateSpawnType(ev *spawnEval, typ int) {
	w := c.w
	for _, sp := range w.spawns[typ] {
		var buf [MaxClients]*Character
		near := w.findChars(buf[:0], sp, 64)
		result := -1
		for idx := 0; idx < 5 && result == -1; idx++ {
			result = idx
			cand := sp.Add(spawnOffsets[idx])
			for _, ch := range near {
				if w.col.CheckPoint(cand.X, cand.Y) || vmath.Distance(ch.pos, cand) <= PhysSize {
					result = -1
					break
				}
			}
		}
		if result == -1 {
			continue
		}
		p := sp.Add(spawnOffsets[result])
		var s float32
		switch {
		case !ev.random:
			s = c.evaluateSpawnPos(ev, p)
		case w.spawnScoreHook != nil:
			s = w.spawnScoreHook(ev.cid, p)
		default:
			s = w.randomSpawnScore()
		}
		if !ev.got || ev.score > s {
			ev.got = true
			ev.score = s
			ev.pos = p
		}
	}
}

func (c *controller) evaluateSpawnPos(ev *spawnEval, pos vmath.Vec2) float32 {
	w := c.w
	var score float32
	for i := len(w.chars) - 1; i >= 0; i-- {
		ch := w.chars[i]
		if !ch.inWorld {
			continue
		}
		mod := float32(1)
		if ev.friendlyTeam != -1 && ch.p.team == ev.friendlyTeam {
			mod = 0.5
		}
		d := vmath.Distance(pos, ch.pos)
		if d == 0 {
			score += float32(mod * 1000000000)
		} else {
			score += float32(mod * (1 / d))
		}
	}
	return score
}
