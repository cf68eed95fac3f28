package world

import (
	"twserver/world/vmath"
)

// tickCTF is the flag logic of CGameControllerCTF::Tick.
func (c *controller) tickCTF() {
	w := c.w
	if w.resetRequested || w.paused {
		return
	}
	for fi := 0; fi < 2; fi++ {
		f := w.flags[fi]
		if f == nil {
			continue
		}
		if f.carrier != nil {
			other := w.flags[fi^1]
			if other != nil && other.atStand && vmath.Distance(f.pos, other.pos) < flagPhysSize+PhysSize {
				c.teamScore[fi^1] += 100
				f.carrier.p.score += 5
				diff := float32(w.tick - f.grabTick)
				w.sendGameMsg(GameMsgCTFCapture, -1, int32(fi), int32(f.carrier.p.cid), int32(diff))
				for _, g := range w.flags {
					g.reset()
				}
				if c.doWincheckMatch() {
					return
				}
			}
			continue
		}
		var buf [MaxClients]*Character
		for _, ch := range w.findChars(buf[:0], f.pos, flagPhysSize) {
			if !ch.alive || ch.p.team == TeamSpectators {
				continue
			}
			if hit, _, _ := w.col.IntersectLine(f.pos, ch.pos); hit != 0 {
				continue
			}
			if ch.p.team == f.team {
				if !f.atStand {
					ch.p.score++
					w.emit(EvFlagReturn, -1, int32(ch.p.cid), int32(ch.p.team))
					w.sendGameMsg(GameMsgCTFReturn, -1)
					f.reset()
				}
			} else {
				if f.atStand {
					c.teamScore[fi^1]++
				}
				f.grab(w, ch)
				ch.p.score++
				w.emit(EvFlagGrab, -1, int32(ch.p.cid), int32(ch.p.team))
				w.sendGameMsg(GameMsgCTFGrab, -1, int32(fi))
				break
			}
		}
	}
	c.doWincheckMatch()
}
