package server

import (
	"time"

	"twserver/netproto"
	"twserver/snap"
	"twserver/world"
)

// Snapshot item used to read a player's position from its own snapshot
// (0.7.5 NETOBJTYPE_CHARACTER: x at index 1, y at index 2).
const (
	objCharacter = 10
	charX        = 1
	charY        = 2
)

// snapDue reports whether a client with the given rate gets a snapshot on tick
// (net.md A4.3): INIT every 10th tick, RECOVER every 50th, FULL every
// snapshot tick.
func snapDue(rate int, tick int32) bool {
	switch rate {
	case snapRateInit:
		return tick%10 == 0
	case snapRateRecover:
		return tick%50 == 0
	}
	return true
}

// sendSnapshots builds, stores and sends the snapshot of tick for every
// in-game client whose rate allows it (net.md A4.2).
func (s *Server) sendSnapshots(tick int32) {
	now := s.now()
	for _, c := range s.clients {
		if c.state != stateIngame || !snapDue(c.snapRate, tick) {
			continue
		}
		s.builder.Reset()
		if err := s.world.Snap(c.id, &s.builder); err != nil {
			s.warn().Err(err).Int("cid", c.id).Msg("snapshot incomplete")
		}
		cur := c.storage.Alloc(tick, now)
		s.builder.Finish(cur)

		base, baseTick := &s.empty, int32(-1)
		if c.lastAckedTick >= 0 {
			if b, _, ok := c.storage.Get(c.lastAckedTick); ok {
				base, baseTick = b, c.lastAckedTick
			} else if c.snapRate == snapRateFull {
				c.snapRate = snapRateRecover
			}
		}
		if err := s.enc.Encode(snap.MsgIDs7, tick, baseTick, base, cur, snap.Sizes7); err != nil {
			s.warn().Err(err).Int("cid", c.id).Msg("snapshot too large")
			continue
		}
		for i := range s.enc.NumMessages() {
			s.sendMsg(c, s.enc.Message(i), netproto.SendFlush)
			if c.state == stateEmpty {
				break
			}
		}
	}
}

// onInput handles NETMSG_INPUT (net.md A4.8).
func (s *Server) onInput(c *client, u *netproto.Unpacker) {
	ackTick := u.GetInt()
	intended := u.GetInt()
	size := u.GetInt()
	if u.Err() != nil || size < 0 || size/4 > netproto.MaxInputInts {
		s.stats.BadMessages.Add(1)
		return
	}
	var data [netproto.MaxInputInts]int32
	n := int(size / 4)
	for i := range n {
		data[i] = u.GetInt()
	}
	pingCorrection := u.GetIntOrDefault(0)
	if u.Err() != nil {
		s.stats.BadMessages.Add(1)
		return
	}
	if c.state != stateIngame {
		return
	}
	if ackTick > c.lastAckedTick || ackTick < 0 {
		c.lastAckedTick = ackTick
		c.storage.Ack(ackTick)
	}
	if ackTick > 0 {
		c.snapRate = snapRateFull
	}
	cur := s.world.CurrentTick()
	if intended > c.lastInputTick {
		timeLeft := s.tickStart(intended).Sub(time.Now()) / time.Millisecond
		s.pk.Reset()
		s.pk.AddMsgHeader(netproto.NetmsgInputTiming, true)
		s.pk.AddInt(intended)
		s.pk.AddInt(int32(timeLeft))
		s.sendMsg(c, s.pk.Bytes(), 0)
	}
	c.lastInputTick = intended
	if intended <= cur {
		intended = cur + 1
	}
	pingCorrection = min(max(pingCorrection, 0), 50)
	if _, tag, ok := c.storage.Get(c.lastAckedTick); ok && c.lastAckedTick >= 0 {
		c.latencyMs = max(0, int((s.now()-tag)/time.Millisecond)-int(pingCorrection))
		s.world.SetLatency(c.id, c.latencyMs)
	}
	in, err := world.DecodeInput(data[:n])
	if err != nil {
		return
	}
	c.inputs[c.inputHead] = storedInput{tick: intended, in: in}
	c.inputHead = (c.inputHead + 1) % inputRingSize
	s.world.DirectInput(c.id, in)
}

// inputFor returns the stored input stamped for tick.
func (c *client) inputFor(tick int32) (world.Input, bool) {
	for i := range c.inputs {
		if c.inputs[i].tick == tick {
			return c.inputs[i].in, true
		}
	}
	return world.Input{}, false
}

// playerPos returns a client's character position from the newest snapshot
// sent to it (ok false when it has no character in it).
func (c *client) playerPos() (x, y int32, ok bool) {
	sn, _, found := c.storage.Get(c.storage.Newest())
	if !found || c.storage.Len() == 0 {
		return 0, 0, false
	}
	i := sn.Find(snap.Key(objCharacter, uint16(c.id)))
	if i < 0 {
		return 0, 0, false
	}
	d := sn.ItemData(i)
	if len(d) <= charY {
		return 0, 0, false
	}
	return d[charX], d[charY], true
}
