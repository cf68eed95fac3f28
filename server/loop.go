package server

// Pipeline (who owns what):
//
//	socket ──readLoop (recv.go)──> rx chan (bounded, drops when full) ──> Run loop
//	  readLoop: screens each datagram through the edge (package edge:
//	            size/header checks, token requests and server-info answers,
//	            token check of CONNECT, budgets). It stamps each datagram with
//	            its arrival time and the slot of its address (edge.PeerTable).
//	            The edge reads the peer table and the published info; the
//	            reader owns only its buffers and token generator.
//	  Run loop: the only goroutine touching slots, Conns, the world, snapshot
//	            storage, votes and bans. It ticks the world at 50 Hz on an
//	            absolute schedule (package tickclock: tick N starts at the game's start + N*20ms),
//	            handles packets and console lines between ticks (every queued
//	            packet before a tick), runs the connection timers once per
//	            tick and writes every outgoing datagram (batch.go).
//	  Wake-ups: the reader wakes the loop (rxWake, a Poke) only for datagrams
//	            of peers that are not in game (handshake, map download,
//	            CONNECT); an in-game client's datagrams (inputs, chat, votes)
//	            wait in rx for the next tick, which handles them before it is
//	            simulated. Their arrival time is the reader's stamp, so input
//	            timing is exact, and what they answer leaves with the tick's
//	            snapshots as before; the loop wakes 50 times a second instead
//	            of once per datagram, and ticking in pairs 25 times, once
//	            per pair of ticks (pairs.go; a lone game at any size).
//	  Sleep: a game with no client in any state whose world has nothing to
//	            do (world.IdleTicks) does not tick: the loop wakes for a
//	            datagram, a console line or its SleepHeartbeat, and each
//	            wake-up first brings the world to the wall clock with
//	            SkipIdle (catchUp), so the tick a joining client sees, the
//	            match timer and the recordings are those of a game that
//	            ticked all along (sleep.go).
//	  console.ReadLines: reads console lines into consoleCh (bounded).
//	  side channels (econ, FIFO): SubmitConsole queues lines (bounded).
//	  relay: waits on those, Holds and ctx so the loop waits on its timer
//	            alone; hands each to the loop and Pokes the timer.

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"twserver/console"
	"twserver/edge"
	"twserver/metrics"
	"twserver/netproto"
	"twserver/session"
	"twserver/sockio"
	"twserver/tickclock"
	"twserver/waketimer"

	"github.com/rs/zerolog"
)

// ReasonShutdown is the CLOSE reason sent to every client on shutdown.
const ReasonShutdown = "Server shutdown"

// Run serves until ctx is cancelled (or a console, rcon or vote "shutdown").
// Shutdown order, like net/http's Server.Shutdown: first the game loop stops
// ticking and handling packets; then every connected client is sent CLOSE
// "Server shutdown" and its slot is freed (recording, if any, is finished);
// after ShutdownFlushWait for those datagrams to leave, the socket is closed,
// which ends the reader goroutine, and Run waits for it. The console reader
// is waited for at most 100 ms, since a blocked read of stdin cannot be
// interrupted (it holds no state). Nothing in Run blocks on a peer, so it
// returns within a fraction of a second of ctx being cancelled; callers
// that need a hard bound (cmd/twserver uses 5 s) wait on Run with a timer.
// Run returns nil after a requested shutdown and may be called once.
func (s *Server) Run(ctx context.Context) error {
	err := errors.New("server: Run called twice")
	s.runOnce.Do(func() { err = s.run(ctx) })
	return err
}

func (s *Server) run(ctx context.Context) error {
	// With the paced socket the timer is what wakes the loop: a timerfd, one
	// thread wake-up an expiry (package waketimer). A MemConn's tests run on
	// a synctest clock, which a timerfd does not follow: a runtime timer.
	// The loop waits on nothing else; the rest Pokes it (relay, received).
	s.timer = waketimer.NewRuntime(0)
	if _, paced := s.conn.(sockio.PacedConn); paced {
		s.timer = waketimer.New(0)
	}
	timer := s.timer
	defer timer.Stop()
	readerDone := make(chan struct{})
	s.pace.Start(netproto.TickDuration)
	go s.readLoop(readerDone)
	consoleDone := make(chan struct{})
	stopConsole := make(chan struct{})
	if s.console != nil {
		go console.ReadLines(s.console, MaxConsoleLine, s.consoleCh, stopConsole, consoleDone)
	} else {
		close(consoleDone)
	}
	work, relayDone := make(chan func() bool, 1), make(chan struct{})
	go s.relay(ctx, work, stopConsole, relayDone)
	s.log.Info().Str("map", s.curMap.Name).Int("size", s.curMap.Size).Str("gametype", s.cfg.Game.Type).
		Int("max_clients", s.cfg.Server.MaxClients).Str("timer", timer.Kind()).Msg("server started")
	s.sched.Begin(time.Now())
	s.emitStarted()
	s.publishInfo()                          // observers installed after New get the info too
	s.gauges.Bans.Store(int32(s.bans.Len())) // bans restored by a live upgrade
	for !s.pendingShutdown {
		timer.Wait()
		s.catchUp()
		if s.rxWake.Swap(false) { // received
			s.drainRx()
		}
		select {
		case f := <-work:
			if f() {
				s.pendingShutdown = true
				continue
			}
		default:
		}
		s.advance()
		s.flushAll()
		s.endTickWork()
		s.procs.Note(time.Now(), s.ticks.TakeLate()) // nil: none
		timer.Reset(s.nextWake())
	}
	s.con.q.Stop() // SubmitConsole stops waiting
	s.pace.Stop()
	s.shutdown()
	s.rec.Stop()
	_ = s.conn.Close()
	close(stopConsole)
	<-readerDone
	<-relayDone
	// The console reader may be blocked in a Read of stdin that never returns;
	// it owns nothing, so do not wait for it beyond a short grace.
	select {
	case <-consoleDone:
	case <-time.After(100 * time.Millisecond):
	}
	s.log.Info().Msg("server shut down")
	return nil
}

// relay waits for the loop's rare work (console lines, lines of side
// channels, Holds, the end of ctx), so that the loop waits on its timer
// alone: it hands each over as a function for the loop to run, reporting
// whether the loop stops, one at a time, and Pokes the timer.
func (s *Server) relay(ctx context.Context, work chan<- func() bool, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		f := func() bool { return true } // ctx is done
		select {
		case <-stop:
			return
		case <-ctx.Done():
		case line := <-s.consoleCh:
			f = func() bool { return s.runConsole(console.Caller{Kind: console.Stdin}, line) }
		case sub := <-s.con.q.C():
			f = func() bool { return sub.Run(s.cons, s.auditAdmin) }
		case h := <-s.holds: // Hold
			f = func() bool { close(h.held); <-h.release; s.catchUp(); return false }
		}
		select {
		case work <- f:
			s.timer.Poke()
		case <-stop:
			return
		}
	}
}

// drainRx handles every packet already queued, without blocking.
func (s *Server) drainRx() { s.drainRxBefore(time.Time{}) }

// drainRxBefore handles, without blocking, the queued packets that arrived
// before t (every one when t is zero), in arrival order; the first that
// arrived later is held for the next call (s.pairs.held).
func (s *Server) drainRxBefore(t time.Time) {
	if p := s.pairs.held; p != nil {
		if !t.IsZero() && !p.at.Before(t) {
			return
		}
		s.pairs.held = nil
		s.handlePacket(p)
		s.free <- p
	}
	for range RecvQueueLen {
		select {
		case p := <-s.rx:
			if !t.IsZero() && !p.at.Before(t) {
				s.pairs.held = p
				return
			}
			s.handlePacket(p)
			s.free <- p
		default:
			return
		}
	}
}

// advance runs every tick that is due, then the connection timers.
func (s *Server) advance() {
	if s.pendingMap != "" { // requested by a console line since the last tick
		name := s.pendingMap
		s.pendingMap = ""
		s.changeMap(name)
	}
	if s.sleep.asleep {
		// The world was brought to the clock at the wake-up (catchUp);
		// the connection timers run for whoever came meanwhile.
		s.updateConns()
		return
	}
	now := time.Now()
	due := s.sched.Due(now, s.world.CurrentTick())
	if due == 0 {
		// No tick due. Connection timers (resends, flushes, timeouts) run
		// once per tick, not once per received datagram.
		return
	}
	planned := s.plannedTicks(now)
	s.ticks.ObserveLate(now.Sub(s.sched.TickStart(s.world.CurrentTick() + int32(planned))))
	s.tickWake = now
	// Datagrams that arrived before a tick (inputs stamped for it) are
	// handled before it is simulated; a paced reader reads them now.
	s.readTick()
	// Every due tick is simulated, and snapshots go out at most once per
	// wake-up, so a late loop does not build snapshots nobody will use. They
	// are built at the newest snapshot tick among the due ones: the
	// reference only snapshots when the last due tick is itself a snapshot
	// tick, which halves its snapshot rate whenever it wakes late; doing it
	// at the newest even tick keeps 25 snapshots per second under load.
	behind := due > MaxCatchUpTicks
	if behind {
		s.ticks.Dropped.Add(uint64(due - MaxCatchUpTicks))
	}
	s.ticks.Skipped.Add(uint64(max(due-planned, 0))) // a pair's first tick has no wake-up of its own by plan
	due = min(due, MaxCatchUpTicks)
	s.ticks.Ticks.Add(uint64(due))
	snapAt := due - 1
	if s.cfg.Server.SnapshotRate != 50 && (s.world.CurrentTick()+int32(due))%2 != 0 {
		snapAt = due - 2 // -1 when the only due tick is odd: no snapshot
	}
	s.ticks.SnapsSkipped.Add(uint64(tickclock.SnapTicksIn(s.world.CurrentTick()+1, s.world.CurrentTick()+int32(due), s.cfg.Server.SnapshotRate == 50) - min(1, snapAt+1)))
	defer s.publishGauges()
	for n := range due {
		// What arrived before this tick's start, in arrival order; at the
		// last tick everything queued (as a loop woken at each tick would).
		if n < due-1 {
			s.drainRxBefore(s.sched.TickStart(s.world.CurrentTick() + 1))
		} else {
			s.drainRx()
		}
		if n == snapAt {
			s.doTick()
		} else {
			s.simulateTick(false)
		}
		s.bots.AfterTick() // after the snapshot round, as a client's input comes (and the replay gives it)
		if s.pendingMap != "" {
			name := s.pendingMap
			s.pendingMap = ""
			s.changeMap(name)
			return
		}
	}
	if behind {
		// Far behind (suspended or overloaded): move the schedule instead of spinning.
		s.sched.Rebase(now, s.world.CurrentTick())
		s.warn().Msg("game loop fell behind; tick schedule moved")
	}
	s.updateConns()
}

// endTickWork records the work of a wake-up that ran ticks (from the
// wake-up to the last datagram written).
func (s *Server) endTickWork() {
	if s.tickWake.IsZero() {
		return
	}
	end := time.Now()
	s.ticks.ObserveWork(end.Sub(s.tickWake), end)
	s.tickWake = time.Time{}
}

// doTick simulates one tick, then sends the snapshots if it is a snapshot
// tick (every second tick, or every tick with snapshot_rate 50; net.md A4.3)
// and publishes the live frame if it is a frame tick (live.go).
func (s *Server) doTick() {
	s.simulateTick(true)
	tick := s.world.CurrentTick()
	if s.cfg.Server.SnapshotRate == 50 || tick%2 == 0 {
		s.sendSnapshots(tick)
		s.world.PostSnap() // events of ticks without snapshots went out with this one
	}
	s.publishFrame(tick, s.tickWake) // world.Snap only reads: any tick will do
}

// simulateTick runs one world tick and sends its messages (no snapshots);
// snapshots says whether doTick sends the tick's snapshots (the recorder
// notes a snapshot tick whose snapshots a catch-up skips: its events stay).
func (s *Server) simulateTick(snapshots bool) {
	next := s.world.CurrentTick() + 1
	s.bots.BeforeTick()
	for _, c := range s.clients {
		if c.state == session.Ingame {
			if in, ok := c.inputs.For(next); ok {
				s.world.SetInput(c.id, in)
				s.rec.Input(c.id, &in)
			} else {
				s.rec.NoInput(c.id)
			}
		}
	}
	s.rec.BeforeTick(!snapshots && (s.cfg.Server.SnapshotRate == 50 || next%2 == 0))
	s.world.Tick()
	s.rec.AfterTick()
	s.world.DrainEvents(s.onWorldEvent)
	s.dropKicked()
	s.tickVote()
	s.sendRconLists(s.world.CurrentTick())
	if s.world.CurrentTick()%50 == 0 {
		if sig := s.infoSignature(); sig != s.infoSig {
			s.publishInfo() // scores or teams changed
		}
	}
}

// updateConns runs the connection timers and drops failed connections.
func (s *Server) updateConns() {
	now := s.now()
	for _, c := range s.clients {
		if c.state == session.Empty {
			continue
		}
		c.conn.Update(now)
		s.probeHandshake(c, now)
		if c.conn.State() == netproto.StateError {
			s.dropFailed(c)
		}
	}
	s.checkPregame(now)
}

// flushAll writes every datagram waiting in any Conn, in slot order, and
// everything else queued in the send batch (one WriteBatch per
// SendBatchSize datagrams). It also publishes which slots are in game for
// the reader (see Wake-ups above).
func (s *Server) flushAll() {
	var ingame uint64
	for _, c := range s.clients {
		if c.state != session.Empty && c.conn.Pending() > 0 {
			s.flushConn(c)
		}
		if c.state == session.Ingame {
			ingame |= 1 << uint(c.id)
		}
	}
	s.flushOut()
	if ingame != s.ingame.Load() {
		s.ingame.Store(ingame)
	}
}

// shutdown tells every client "Server shutdown" and frees all slots.
func (s *Server) shutdown() {
	n := 0
	for _, c := range s.clients {
		if c.state != session.Empty {
			s.dropClient(c, ReasonShutdown)
			n++
		}
	}
	s.flushOut()
	if n > 0 {
		time.Sleep(ShutdownFlushWait) // let the CLOSE datagrams leave before the socket closes
	}
}

// handlePacket processes one datagram in the loop.
func (s *Server) handlePacket(p *rxPacket) {
	// The reader tagged the packet with the slot of its address; the slot
	// may have been freed (and reused) since, so the address is compared.
	if p.cid >= 0 && p.cid < len(s.clients) {
		if c := s.clients[p.cid]; c.state != session.Empty && c.addr == p.addr {
			s.feedClient(c, p.data(), p.at)
			return
		}
	}
	if cid, ok := s.byAddr[p.addr]; ok { // accepted after the reader screened it
		s.feedClient(s.clients[cid], p.data(), p.at)
		return
	}
	if p.cid >= 0 || p.cid == edge.CIDAccepted6 {
		// Let through as its slot's traffic, so never checked as a
		// connection request (token), and that slot is gone: a dropped
		// client's stale packet, not a CONNECT (a 0.7 data packet may even
		// read as a DDNet ACCEPT); or the data behind a DDNet ACCEPT the
		// loop refused.
		return
	}
	if req, ok := s.edge.Request(p.data()); ok {
		s.onConnect(p.addr, req)
	}
}

// onConnect handles a checked connection request from an address without a
// slot. Bans, the slot count and the per-IP limit count clients of every
// dialect together.
func (s *Server) onConnect(addr netip.AddrPort, req edge.Request) {
	now := s.now()
	if on := s.cfg.Server.Accept07; req.Dialect.Is6() && !s.cfg.Server.Accept06 || !req.Dialect.Is6() && !on {
		s.gauges.Refused[metrics.RefuseDialect].Add(1)
		s.sendRaw(req.AppendClose(s.sendBuf[:0], edge.ReasonDialectOff(req.Dialect)), addr)
		return
	}
	if reason, banned := s.bans.Check(addr.Addr(), time.Now()); banned {
		s.gauges.Refused[metrics.RefuseBanned].Add(1)
		if reason != "" {
			s.sendRaw(req.AppendClose(s.sendBuf[:0], reason), addr)
		}
		return
	}
	if reason, why := s.admitPregame(addr); reason != "" {
		s.gauges.Refused[why].Add(1)
		s.sendRaw(req.AppendClose(s.sendBuf[:0], reason), addr)
		s.rateLog().Str("addr", addr.String()).Str("reason", metrics.RefuseReasons[why]).Msg("refused: pre-game bound")
		return
	}
	if s.freeSlot() == nil && !s.bots.Evict() {
		s.gauges.Refused[metrics.RefuseFull].Add(1)
		s.sendRaw(req.AppendClose(s.sendBuf[:0], netproto.ReasonServerFull), addr)
		s.rateLog().Str("addr", addr.String()).Msg("refused: server full")
		return
	}
	if lim := s.cfg.Server.MaxClientsPerIP; s.sameIPCount(addr.Addr()) >= lim {
		s.gauges.Refused[metrics.RefusePerIP].Add(1)
		reason := strings.Replace(netproto.ReasonTooManySameIP, "%d", strconv.Itoa(lim), 1)
		s.sendRaw(req.AppendClose(s.sendBuf[:0], reason), addr)
		s.rateLog().Str("addr", addr.String()).Msg("refused: per-IP limit")
		return
	}
	s.gauges.Connects.Add(1)
	c := s.freeSlot()
	c.reset()
	c.openConn()
	c.state = session.Auth
	c.addr = addr
	c.created = now
	c.progressAt = now
	req.Start(c.conn, now)
	if req.Dialect.Is6() {
		s.trans6.Connect(c.id, req.Dialect == netproto.DialectDDNet)
	}
	c.budget, c.dlBudget = session.NewClientBudget(), session.NewDownloadBudget()
	s.rec.Join(c.id, !c.conn.Dialect().Is6())
	s.byAddr[addr] = c.id
	s.edge.Peers.Add(addr, c.id)
	if req.Dialect == netproto.Dialect6 {
		// The anti-spoof handshake took the place of INFO (and the server
		// has no password): on to the real map.
		c.state = session.Connecting
		s.sendMapChange(c)
	}
	s.flushConn(c)
	s.log.Debug().Int("cid", c.id).Str("addr", addr.String()).Str("dialect", req.Dialect.String()).Msg("connection accepted")
}

// packetBudget is the budget c's next datagram is charged to.
func (c *client) packetBudget() *session.Budget {
	if c.state == session.Ingame {
		return &c.budget
	}
	return &c.dlBudget
}

// feedClient gives a datagram to a slot's Conn (read in the slot's dialect) and handles its messages;
// at is the datagram's arrival time (taken by the reader).
func (s *Server) feedClient(c *client, datagram []byte, at time.Time) {
	now := s.now()
	if !c.packetBudget().Allow(now) {
		s.stats.Flood.Add(1)
		return
	}
	if c.conn.Dialect() == netproto.DialectDDNet && s.rejoin6(c, datagram) {
		return
	}
	if err := s.edge.Feed(c.conn, c.addr.Addr(), now, datagram, s.scratch[:0]); err != nil {
		if errors.Is(err, netproto.ErrTruncated) || errors.Is(err, netproto.ErrTooLarge) || errors.Is(err, netproto.ErrBadHeader) ||
			errors.Is(err, netproto.ErrBadHuffman) || errors.Is(err, netproto.ErrHuffmanOverflow) {
			s.stats.Malformed.Add(1)
		}
		return
	}
	for {
		ch, ok := c.conn.Recv()
		if !ok {
			break
		}
		s.onMessage(c, ch, at)
		if c.state == session.Empty {
			return // dropped while handling
		}
	}
	c.conn.FlushResend(now) // a gap: ask for the resend now, not with the next packet
	if c.conn.State() == netproto.StateError {
		s.dropFailed(c)
	}
}

// The "Stressing network" ban (net.md A1.10): a connection that fails
// (timeout, CLOSE from the client, broken reliability) within StressWindow
// of being accepted bans its IP address for StressBanTime.
const (
	// StressWindow: a connection failing this soon after being accepted is a stress.
	StressWindow = time.Second
	// StressBanTime is how long a stressing address is banned.
	StressBanTime = time.Minute
	// ReasonStressing is the reason of the ban (shown in the ban text).
	ReasonStressing = "Stressing network"
)

// dropFailed drops a slot whose Conn reached StateError with the Conn's
// reason (none when the client closed: the reference ignores reasons sent
// by clients), banning the address if it failed within StressWindow.
func (s *Server) dropFailed(c *client) {
	reason := c.conn.Reason()
	if c.conn.ClosedByPeer() {
		reason = ""
	}
	stressed := s.now()-c.created < StressWindow
	ip := c.addr.Addr()
	s.dropClient(c, reason)
	if stressed {
		s.banIP(ip, StressBanTime, ReasonStressing)
	}
}

// Bound of the peer-triggerable log lines (warn, rateLog): a burst of
// warnBurst, then one per warnEvery.
const (
	warnEvery = time.Second
	warnBurst = 10
)

// warn returns a rate-limited warning event (peer-triggerable warnings).
func (s *Server) warn() *zerolog.Event {
	if !s.warnLimit.Allow() {
		return nil
	}
	return s.log.Warn()
}

// rateLog returns a rate-limited info event (peer-triggerable notices).
func (s *Server) rateLog() *zerolog.Event {
	if !s.warnLimit.Allow() {
		return nil
	}
	return s.log.Info()
}
