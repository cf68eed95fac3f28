package server

import (
	"time"

	"twserver/encpool"
	"twserver/netproto"
	"twserver/session"
	"twserver/snap"
	"twserver/world"
)

// sendSnapshots builds, stores and sends the snapshot of tick for every
// in-game client whose rate allows it (net.md A4.2). With an encode pool and
// enough clients, the building and encoding fan out to it; the messages are
// queued in slot order either way.
func (s *Server) sendSnapshots(tick int32) {
	now := s.now()
	s.setPlayers6()
	due := s.snapDue[:0]
	for _, c := range s.clients {
		if c.state == session.Ingame && c.snapRate.Due(tick) {
			due = append(due, c)
		}
	}
	s.snapDue = due
	if len(due) > 0 { // a game of bots alone snapshots for nobody
		s.world.PrepareSnap(&s.snapRound)
	}
	start := time.Now()
	defer func() { s.enc.Note(time.Since(start)) }()
	if s.enc.Use(len(due)) {
		s.encTick = snapTick{s: s, due: due, tick: tick, now: now}
		s.enc.Run(&s.encTick, len(due))
		s.encTick.due = nil
		for _, c := range due {
			s.sendEncoded(c, c.out.Len(), c.out.Msg)
		}
		return
	}
	w := &s.enc.Own
	for i, c := range due {
		if i%warmClients == 0 {
			s.warmSum = warm(due[i:min(i+warmClients, len(due))], true)
		}
		if s.encodeSnap(w, c, tick, now) {
			s.sendEncoded(c, w.Enc.NumMessages(), w.Enc.Message)
		}
	}
}

// snapTick is a snapshot tick as the encode pool runs it: the due clients
// built and encoded into their Out.
type snapTick struct {
	s    *Server
	due  []*client
	tick int32
	now  time.Duration
}

// Encode builds and encodes client i's snapshot with w's scratch into its
// Out (encodeSnap: it touches only the client and read-only state).
func (t *snapTick) Encode(w *encpool.Worker, i int) {
	c := t.due[i]
	if t.s.encodeSnap(w, c, t.tick, t.now) {
		c.out.Keep(&w.Enc)
	} else {
		c.out.Skip()
	}
}

// sendEncoded queues client c's n snapshot messages (msg(i)), stopping
// when the client is dropped meanwhile.
func (s *Server) sendEncoded(c *client, n int, msg func(int) []byte) {
	for i := range n {
		s.sendMsg(c, msg(i), netproto.SendFlush)
		if c.state == session.Empty {
			return
		}
	}
}

// encodeSnap builds client c's snapshot of tick with w's builder, stores it
// and encodes the delta against the acknowledged one into w's encoder; false
// when there is nothing to send. It touches only c, w and read-only state
// (the world after its tick, the 0.6 translation's players, set before the
// round by setPlayers6) and c's own 0.6 id map, so the pool runs it for
// several clients at once, 0.7 and 0.6 alike.
func (s *Server) encodeSnap(w *encpool.Worker, c *client, tick int32, now time.Duration) bool {
	w.B.Reset()
	if err := s.world.SnapWith(&s.snapRound, c.id, &w.B); err != nil {
		s.warn().Err(err).Int("cid", c.id).Msg("snapshot incomplete")
	}
	cur := c.storage.Alloc(tick, now)
	ids, sizes := snap.MsgIDs7, snap.Sizes7
	if c.conn.Dialect().Is6() {
		// The one place where a 0.6 client's snapshot differs: the world's
		// 0.7 snapshot translated with w's scratch, then stored and
		// delta-encoded with the 0.6 ids and static sizes.
		if err := s.trans6.SnapshotTo(&w.W6, cur, &w.B, c.id, tick); err != nil {
			s.warn().Err(err).Int("cid", c.id).Msg("0.6 snapshot incomplete")
		}
		ids, sizes = snap.MsgIDs6, snap.Sizes6
	} else {
		w.B.Finish(cur)
	}

	base, baseTick := &s.empty, int32(-1)
	if b, _, ok := c.storage.Get(c.lastAckedTick); ok && c.lastAckedTick >= 0 {
		base, baseTick = b, c.lastAckedTick
	} else if c.snapRate == session.SnapRateFull {
		c.snapRate = session.SnapRateRecover // acked snapshot unknown (or -1): full snapshots at 1/s
	}
	if baseTick < 0 {
		c.fullTick = tick
	}
	if err := w.Enc.Encode(ids, tick, baseTick, base, cur, sizes); err != nil {
		s.warn().Err(err).Int("cid", c.id).Msg("snapshot too large")
		return false
	}
	size := 0
	for i := range w.Enc.NumMessages() {
		size += len(w.Enc.Message(i))
	}
	s.gauges.Snapshots.Add(1)
	s.gauges.SnapshotBytes.Observe(size)
	return true
}

// onInput handles NETMSG_INPUT (net.md A4.8). at is the arrival time of the
// datagram, taken by the reader when it read it: the time left reported in
// INPUTTIMING and the latency are measured against it, so time the packet
// spent queued behind a tick does not count against the client.
func (s *Server) onInput(c *client, m *session.Input, at time.Time) {
	ackTick, intended, pingCorrection := m.AckTick, m.Intended, m.PingCorrection
	if c.conn.Dialect().Is6() {
		s.trans6.Input(m.Data)
	}
	if c.state != session.Ingame {
		return
	}
	if (ackTick > c.lastAckedTick && ackTick >= c.fullTick) || ackTick < 0 {
		c.lastAckedTick = ackTick
		c.storage.Ack(ackTick)
	}
	if ackTick > 0 {
		c.snapRate = session.SnapRateFull
	}
	stamp, newest := c.inputs.Accept(intended, s.world.CurrentTick())
	if newest {
		timeLeft := s.sched.TickStart(intended).Sub(at) / time.Millisecond
		s.pk.Reset()
		if session.SysHeader(c.conn.Dialect(), &s.pk, netproto.NetmsgInputTiming) {
			s.pk.AddInt(intended)
			s.pk.AddInt(int32(timeLeft))
			s.sendMsg(c, s.pk.Bytes(), 0)
		}
	}
	pingCorrection = min(max(pingCorrection, 0), 50)
	if _, tag, ok := c.storage.Get(c.lastAckedTick); ok && c.lastAckedTick >= 0 {
		c.latencyMs = max(0, int((at.Sub(s.epoch)-tag)/time.Millisecond)-int(pingCorrection))
		s.world.SetLatency(c.id, c.latencyMs)
	}
	in, err := world.DecodeInput(m.Data)
	if err != nil {
		return
	}
	if in.Direction != c.lastDirection {
		c.lastDirection = in.Direction
		s.log.Debug().Int("cid", c.id).Int32("direction", in.Direction).Int32("tick", stamp).Msg("input direction")
	}
	c.inputs.Store(stamp, in)
	s.rec.DirectInput(c.id, &in)
	s.world.DirectInput(c.id, in)
}
