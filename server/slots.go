package server

import (
	"net/netip"
	"time"
	"unsafe"

	"twserver/chat"
	"twserver/encpool"
	"twserver/gamemsg"
	"twserver/mapdl"
	"twserver/netproto"
	"twserver/session"
	"twserver/snap"
)

// client is one slot; owned by the game loop.
type client struct {
	id      int
	state   session.State
	addr    netip.AddrPort
	conn    *netproto.Conn // nil while the slot is empty (openConn)
	created time.Duration
	// progressAt is when the client last moved on towards the game
	// (accept, INFO, map request, READY, a map change; pregame.go)
	progressAt time.Duration
	// entered: the client has been in the game on this connection (it is
	// pre-game again only after a map change; never evicted then)
	entered bool

	version      int32
	ddnetVersion int32 // DDNet clients: the version from clientver@ddnet.tw (session)
	// rejoinOffered is when a DDNet client's new CONNECT from this slot's
	// address was answered (rejoin6.go); 0 for none.
	rejoinOffered time.Duration
	name, clan    string
	country       int32
	skin          gamemsg.Skin
	gotStartInfo  bool
	dl            mapdl.Download // the map download: chunks sent and asked, tail-loss probe, copies

	snapRate      session.SnapRate
	lastAckedTick int32
	fullTick      int32 // the newest full snapshot sent: acks of older ticks are not used as a base (a client may drop them on it)
	latencyMs     int
	storage       snap.Storage
	out           encpool.Out     // the snapshot messages the encode pool made for this tick
	inputs        *session.Inputs // with the Conn (openConn); nil while the slot is empty
	lastDirection int32

	// packet budget (flood bound), set when the connection is accepted
	budget session.Budget
	// dlBudget is the packet budget before the client is in game
	// (session.MaxDownloadPacketsPerSecond), set with budget
	dlBudget session.Budget

	rcon session.Rcon // the rcon login and the lists it announces

	// infoChanges counts the changes of name, clan, country and skin, and
	// the slot's resets (dialect6.Game.PlayerCurrent's version).
	infoChanges uint32

	chat     chat.Limiter  // chat and emoticon spam limits (its vote: Server.vote)
	lastSkin time.Duration // its last skin or info change
}

// warmClients is how many clients' state warm loads at once before the
// snapshot round reaches them: what 16 clients read stays in the core's
// private cache while their encoding writes.
const warmClients = 16

// warm loads the cache lines the loop reads first for each of cs: the
// slot, its Conn, input ring and stored snapshots, with bases every line
// of its delta base. At 1024 clients each client's state has left the
// core's caches since its last tick; loaded one level at a time for many
// clients, the misses overlap instead of stalling the loop one client
// after another (BenchmarkLoop1024Clients). The sum is only what keeps the
// loads.
func warm(cs []*client, bases bool) (sum uint8) {
	for _, c := range cs {
		sum += uint8(c.state)
	}
	for _, c := range cs {
		if c.conn != nil && c.inputs != nil {
			base := int32(-1)
			if bases {
				base = c.lastAckedTick
			}
			sum += *(*uint8)(unsafe.Pointer(&c.budget)) + c.storage.Warm(base) + c.conn.Warm() + c.inputs.Warm()
		}
	}
	return sum
}

// openConn gives a slot just reset for a new connection its Conn and input
// ring. A Conn embeds its resend buffer and outbox (about 70 kB), the ring
// holds session.InputRingSize inputs (9 kB): allocated per connection, so an empty
// slot costs a few hundred bytes and a server's memory follows its
// clients, not max_clients.
func (c *client) openConn() {
	c.conn, c.inputs = new(netproto.Conn), session.NewInputs()
}

// reset clears a slot for reuse. The buffers that grow with use (the
// Conn's outbox, stored snapshots) are released, so memory follows the
// connected clients rather than every client ever connected.
func (c *client) reset() {
	c.state = session.Empty
	c.addr = netip.AddrPort{}
	c.conn, c.inputs = nil, nil // their buffers go with the client (openConn)
	c.version, c.name, c.clan, c.country = 0, "", "", -1
	c.ddnetVersion, c.rejoinOffered = 0, 0
	c.skin = gamemsg.Skin{}
	c.infoChanges++
	c.gotStartInfo = false
	c.dl = mapdl.Download{}
	c.entered = false
	c.resetSnapState()
	c.storage = snap.Storage{}
	c.rcon = session.Rcon{}
	c.chat, c.lastSkin = chat.Limiter{}, 0
	c.budget, c.dlBudget = session.Budget{}, session.Budget{}
}

// resetSnapState clears snapshot and input bookkeeping (on entering and on map change).
func (c *client) resetSnapState() {
	c.snapRate = session.SnapRateInit
	c.lastAckedTick, c.fullTick = -1, -1
	c.storage.PurgeAll()
	if c.inputs != nil {
		c.inputs.Reset()
	}
}

// sameIPCount counts non-empty slots with the given IP (port ignored).
func (s *Server) sameIPCount(ip netip.Addr) int {
	n := 0
	for _, c := range s.clients {
		if c.state != session.Empty && c.addr.Addr() == ip {
			n++
		}
	}
	return n
}

// numClients counts non-empty slots.
func (s *Server) numClients() int {
	n := 0
	for _, c := range s.clients {
		if c.state != session.Empty {
			n++
		}
	}
	return n
}

// freeSlot returns the lowest free slot or nil.
func (s *Server) freeSlot() *client {
	for _, c := range s.clients {
		if c.state == session.Empty && !s.bots.Has(c.id) {
			return c
		}
	}
	return nil
}

// sendRaw queues one datagram built outside a Conn (pre-connection CLOSE)
// in the loop's send batch.
func (s *Server) sendRaw(b []byte, to netip.AddrPort) {
	s.queueOut(append(s.nextOut(), b...), to)
}

// flushConn moves every datagram waiting in a client's Conn outbox into the
// loop's send batch (written by flushAll at the end of the wake-up, or when
// the batch is full).
func (s *Server) flushConn(c *client) {
	for c.conn.Pending() > 0 {
		p, ok := c.conn.Poll(s.nextOut())
		if !ok {
			return
		}
		s.queueOut(p, c.addr)
	}
}

// sendMsg queues one message (header included) to a client.
func (s *Server) sendMsg(c *client, msg []byte, flags netproto.SendFlags) {
	if c.state == session.Empty {
		return
	}
	if err := c.conn.Send(s.now(), msg, flags); err != nil && c.conn.State() != netproto.StateError {
		s.warn().Err(err).Int("cid", c.id).Msg("send failed")
	}
	// The Conn holds at most OutboxPackets datagrams: write them out before
	// a long burst (snapshot parts, map chunks) would overflow it.
	if c.conn.Pending() >= netproto.OutboxPackets/2 {
		s.flushConn(c)
	}
}

// sendSys packs a system message with fill and sends it vital (and flushed).
func (s *Server) sendSys(c *client, id int32, flush bool, fill func(p *netproto.Packer)) {
	s.pk.Reset()
	if !session.SysHeader(c.conn.Dialect(), &s.pk, id) {
		return
	}
	if fill != nil {
		fill(&s.pk)
	}
	if s.pk.Err() != nil {
		s.warn().Err(s.pk.Err()).Int32("msg", id).Msg("system message too large")
		return
	}
	flags := netproto.SendVital
	if flush {
		flags |= netproto.SendFlush
	}
	s.sendMsg(c, s.pk.Bytes(), flags)
}

// sendGame encodes a game message and sends it vital to one client; a 0.6
// client gets the translated form (dialect6), or nothing when the message has
// no 0.6 form.
func (s *Server) sendGame(c *client, m gamemsg.Message, flush bool) {
	if c.conn.Dialect().Is6() {
		s.sendGame6(c, m, flush)
		return
	}
	s.pk.Reset()
	if err := gamemsg.Encode(&s.pk, m); err != nil {
		s.warn().Err(err).Str("msg", gamemsg.Name(m.ID())).Msg("game message not sent")
		return
	}
	if s.pk.Err() != nil {
		return
	}
	flags := netproto.SendVital
	if flush {
		flags |= netproto.SendFlush
	}
	s.sendMsg(c, s.pk.Bytes(), flags)
}

// broadcastGame sends a game message to every in-game client (to == -1) or to one.
func (s *Server) broadcastGame(to int, m gamemsg.Message) {
	if to >= 0 {
		if to < len(s.clients) && s.clients[to].state == session.Ingame {
			s.sendGame(s.clients[to], m, false)
		}
		return
	}
	s.rec.GameMessage(m)
	for _, c := range s.clients {
		if c.state == session.Ingame {
			s.sendGame(c, m, false)
		}
	}
}

// dropClient disconnects a slot with a reason: the client gets CLOSE(reason),
// other players Sv_ClientDrop, and the slot is freed.
func (s *Server) dropClient(c *client, reason string) {
	if c.state == session.Empty {
		return
	}
	s.rec.Drop(c.id, c.name, c.state == session.Ingame, reason)
	wasIngame := c.state == session.Ingame
	silent := wasIngame && s.silentSpectator(c.id)
	if wasIngame {
		s.world.RemovePlayer(c.id)
		s.voteClientLeft(c.id)
	}
	c.conn.Disconnect(s.now(), reason)
	s.flushConn(c)
	s.edge.Peers.Remove(c.addr)
	delete(s.byAddr, c.addr)
	logReason := reason
	if logReason == "" {
		logReason = "disconnected by client"
	}
	if wasIngame {
		s.log.Info().Int("cid", c.id).Str("addr", c.addr.String()).Str("reason", logReason).
			Str("name", c.name).Msg("player left the game")
	} else {
		// peers can cause these at will: rate-limited
		s.rateLog().Int("cid", c.id).Str("addr", c.addr.String()).Str("reason", logReason).Msg("client dropped")
	}
	s.con.Drop(c.id, c.addr, c.name, reason, wasIngame)
	if wasIngame {
		s.emitLeave(c)
	}
	c.reset()
	s.vote.Clear(c.id) // its ballot and last call
	if wasIngame {
		for _, o := range s.clients {
			if o.state == session.Ingame {
				s.sendGame(o, &gamemsg.SvClientDrop{ClientID: int32(c.id), Reason: reason, Silent: silent}, false)
			}
		}
	}
	s.publishInfo()
}
