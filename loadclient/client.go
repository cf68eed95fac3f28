// Package loadclient is a synthetic Teeworlds 0.7 client for load tests: it
// does the real handshake (token, CONNECT, INFO), downloads the map when its
// cache lacks it, goes through READY / start info / ENTERGAME, sends INPUTs
// acknowledging the newest snapshot at the real clients' pace (Pace: on
// change, else every second tick; or every tick), and reconstructs every
// snapshot (reassembly, delta, CRC) with package snap. It measures what a
// server gives each client: snapshots, bytes, packets, errors and the delay
// from sending an input to receiving the first snapshot of its tick.
//
// One Client owns one UDP socket and one reader goroutine; one driver
// goroutine (driver.go) runs the timers and sends the inputs of every client
// of a run on an absolute 20 ms schedule. Run starts many.
package loadclient

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/snap"
)

// Protocol values of the 0.7.5 client (net.md A3.1).
const (
	// NetVersion is the version string INFO carries.
	NetVersion = "0.7 802f1be60a05665f"
	// ClientVersion is the 0.7.5 client version number (0x0705).
	ClientVersion = 0x0705
	// DefaultEnterTimeout bounds the time from start to in game.
	DefaultEnterTimeout = 20 * time.Second
	// inputRing is how many sent inputs wait for their snapshot (latency).
	inputRing = 128
	// targetLead is how early (before its tick starts) an input should reach
	// the server, judged from INPUTTIMING.
	targetLead = 10 * time.Millisecond
	// maxMargin bounds how far ahead of the server the client predicts.
	maxMargin = time.Second
	// maxCatchUp bounds the inputs one client sends at once after the driver
	// woke late; older missed inputs are counted as skipped.
	maxCatchUp = 50
	// socketReadBuffer is the receive buffer asked for each client socket.
	socketReadBuffer = 1 << 20
)

// Config describes one load client.
type Config struct {
	Server       netip.AddrPort // server address
	Source       netip.Addr     // local address to send from (zero: chosen by the system)
	Name         string         // player name (at most 15 bytes are used)
	Clan         string
	Password     string
	Pattern      Pattern
	Pace         Pace // PaceReal (zero value) or PaceTick
	Seed         uint64
	Maps         *MapCache     // shared map cache; nil: a private one
	EnterTimeout time.Duration // start to in game; 0: DefaultEnterTimeout
	Index        int           // reported in Stats
	// Ticks, when set, collects the snapshot ticks every client of a run
	// received, so each client's share of them can be reported.
	Ticks *TickSet
	// OnSnapshot, when set, is called with every snapshot the client
	// reconstructed and verified (CRC), from the client's reader goroutine
	// with the client locked: it must return quickly and must not keep s,
	// which the client reuses.
	OnSnapshot func(tick int32, s *snap.Snapshot)
	// OnGameMessage, when set, is called with every game message the client
	// decoded, with the same rules as OnSnapshot (m is not kept by the client).
	OnGameMessage func(m gamemsg.Message)
	// Netem, when active, impairs the client's own traffic (loss, delay,
	// jitter, reordering, duplicates per direction, a blackout).
	Netem *Netem
	// RunStart is when the run started (the blackout is timed from it);
	// zero: when the client opens.
	RunStart time.Time
	// IdleTarget, when not zero, is the aim of PatternIdle instead of
	// (100, 0). The aim is relative to the tee; for a free-view spectator
	// it is where the camera goes, i.e. which part of the map the server
	// sends.
	IdleTarget [2]int32
	// Proto6 makes the client speak 0.6 with DDNet's security token, as
	// the DDNet 16.4 client does (client6.go), instead of 0.7.
	Proto6 bool
	// Vanilla6 (with Proto6) makes it a vanilla 0.6 client: no token, no
	// CLIENTVER; it goes through the server's anti-spoof handshake.
	Vanilla6 bool
	// Hold, when not HoldNone, stalls the client at that stage of the way
	// into the game (hold.go); HoldKeepAlive keeps the stalled connection
	// alive (keep-alives and acks) instead of going silent.
	Hold          HoldStage
	HoldKeepAlive bool
	// HoldLive, when set, counts the client when it stalls (Held).
	HoldLive *HoldLive
}

// Stage names, reported in Stats.Stage.
const (
	StageToken     = "token"
	StageConnect   = "connect"
	StageInfo      = "info"      // INFO sent, waiting for MAP_CHANGE
	StageMap       = "map"       // downloading the map
	StageReady     = "ready"     // READY sent, waiting for CON_READY
	StageStartInfo = "startinfo" // start info sent, waiting for Sv_ReadyToEnter
	StageEntering  = "entering"  // ENTERGAME sent, waiting for two snapshots
	StageInGame    = "ingame"
	StageClosed    = "closed"
)

type sentInput struct {
	tick int32
	at   time.Duration
}

// sendDelays is how many inputs' send delays a client keeps, indexed by
// intended tick, for INPUTTIMING to tell lateness the client caused itself
// (Stats.LateOwn) from lateness on the server's side.
const sendDelays = 64

// sendDelay is when an input meant for tick left behind its schedule.
type sendDelay struct {
	tick  int32
	delay time.Duration
}

// Client is one synthetic 0.7 client. Its reader goroutine and the driver
// share it under mu.
type Client struct {
	mu    sync.Mutex
	cfg   Config
	live  Live
	stats Stats

	sock  *net.UDPConn
	start time.Time
	now   time.Duration
	conn  *conn
	recv  *snap.Receiver
	gen   *InputGen
	pk    netproto.Packer
	up    netproto.Unpacker
	buf   []byte

	stage   string
	enterBy time.Duration // not in game by then: failure
	failure error
	failAt  time.Duration // when failure was set
	deliver func([]byte)
	// finished: the driver closed the client; the reader stops.
	finished bool
	readDone chan struct{}

	// map download
	mapKey      MapKey
	mapBuf      []byte
	mapCPR      int    // chunks per request
	mapChunk    int    // chunk size
	mapGot      int    // chunks received since the last request
	enteredSnap int    // snapshots since ENTERGAME, until in game
	details6    MapKey // 0.6: the last map-details (name, crc, size, SHA-256)
	mapSHAKnown bool   // 0.6: the map being downloaded has a SHA-256 from map-details

	// slot-holding (hold.go)
	held   bool          // stalled at cfg.Hold: no more progress
	heldAt time.Duration // when it stalled
	// holdSend is the conn's writer while a silent stalled client is muted
	holdSend func([]byte)
	// holdPing is when a kept-alive stalled client last sent a PING
	holdPing time.Duration

	// in game
	inGame     bool
	inGameAt   time.Duration
	ackTick    int32
	crcStreak  int
	lastTick   int32
	seenTick   int32 // the last snapshot's tick, kept across map changes (Stats.TickBacks)
	seenAny    bool  // a snapshot came (seenTick is set)
	lastTickAt time.Duration
	// lastSnapAt is when the last snapshot came in game, kept across map
	// changes (Stats.MaxSnapInterval); 0 before the first.
	lastSnapAt time.Duration
	margin     time.Duration
	nextInput  time.Duration // scheduled time of the next input; < 0: align to the driver
	inputs     [inputRing]sentInput
	delays     [sendDelays]sendDelay // by intended tick % sendDelays
	// the last INPUT sent (PaceReal sends an unchanged one only when it is
	// RealPaceFloor old); sentAny false: none since entering the game
	lastSent    [PlayerInputInts]int32
	lastSentAt  time.Duration
	sentAny     bool
	inHead, inN int

	// network impairment (netem.go); nil links when not impaired
	upLink, downLink *link
	netOff           time.Duration // client clock + netOff = run time
	recvFn, rawFn    func([]byte)  // the links' outputs (made once)
	mapStart         time.Duration // MAP_CHANGE of the download in progress
	preBlackout      bool          // had an in-game snapshot before the blackout
	recovered        bool          // had one after it
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.EnterTimeout <= 0 {
		cfg.EnterTimeout = DefaultEnterTimeout
	}
	if cfg.Maps == nil {
		cfg.Maps = &MapCache{}
	}
	c := &Client{cfg: cfg, buf: make([]byte, recvBufferSize), ackTick: -1, lastTick: -1,
		margin: 40 * time.Millisecond, nextInput: -1}
	c.stats.FirstSnapTick, c.stats.LastSnapTick = -1, -1
	c.stats.BlackoutRecovery = -1
	c.deliver = c.onChunk
	c.rawFn = c.writeRaw
	c.recvFn = func(b []byte) { c.onDatagram(c.now, b) }
	c.stats.Index = cfg.Index
	c.stats.Name = cfg.Name
	c.stats.Proto = "0.7"
	if cfg.Proto6 {
		c.stats.Proto = "0.6"
	}
	return c
}

// Entered reports whether the client is in game now (safe from any goroutine).
func (c *Client) Entered() bool { return c.live.InGame.Load() }

// Send sends the game message m (vital) to the server now, e.g. a
// Cl_Kill or Cl_Say. It reports false while the client is not in game.
// Safe from any goroutine while Run runs.
func (c *Client) Send(m gamemsg.Message) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pk.Reset()
	if err := gamemsg.Encode(&c.pk, m); err != nil {
		return false
	}
	return c.sendNowLocked()
}

// SendRaw sends msg, a game message already packed in the client's own
// dialect (header included; e.g. a 0.6 Cl_ChangeInfo, which has no 0.7
// form), vital, now. It reports false while the client is not in game.
// Safe from any goroutine while Run runs.
func (c *Client) SendRaw(msg []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pk.Reset()
	c.pk.AddRaw(msg)
	return c.sendNowLocked()
}

// sendNowLocked sends c.pk (vital) and flushes, if the client is in game.
func (c *Client) sendNowLocked() bool {
	if !c.inGame || c.finished || c.failure != nil {
		return false
	}
	c.sendMsg(true)
	c.conn.flush(c.clock())
	return c.failure == nil
}

// Live returns the counters the client updates while running.
func (c *Client) Live() *Live { return &c.live }

// Run connects, plays until ctx is done, disconnects and returns the
// client's statistics. Failures are reported in Stats.Failure. It drives the
// one client with its own driver; Run (the package function) drives many
// with one.
func (c *Client) Run(ctx context.Context) Stats {
	var st Stats
	drive(ctx, 1, func(int) time.Duration { return 0 }, func(int) *Client { return c },
		func(_ int, s Stats) { st = s }, nil)
	return st
}

// open creates the socket and sends the first token request. The caller
// starts readLoop afterwards when it returns true.
func (c *Client) open() bool {
	c.start = time.Now()
	c.stage = StageToken
	c.readDone = make(chan struct{})
	laddr := &net.UDPAddr{}
	if c.cfg.Source.IsValid() {
		laddr.IP = c.cfg.Source.AsSlice()
	}
	sock, err := net.DialUDP("udp", laddr, net.UDPAddrFromAddrPort(c.cfg.Server))
	if err != nil {
		c.stats.Failure = "socket: " + err.Error()
		c.stats.Stage = c.stage
		c.finished = true
		close(c.readDone)
		return false
	}
	c.sock = sock
	// room for a few seconds of snapshots when this process is starved of
	// CPU, so a late reader finds them instead of the kernel dropping them
	// (the kernel caps it at net.core.rmem_max; best effort)
	sock.SetReadBuffer(socketReadBuffer)
	c.stats.Source = sock.LocalAddr().String()

	tok := netproto.TokenNone
	for tok == netproto.TokenNone {
		tok = netproto.Token(rand.Uint32())
	}
	c.conn = newConn(tok, c.write)
	c.conn.six = c.cfg.Proto6
	c.conn.vanilla = c.cfg.Proto6 && c.cfg.Vanilla6
	if n := c.cfg.Netem; n.Active() {
		if !c.cfg.RunStart.IsZero() {
			c.netOff = c.start.Sub(c.cfg.RunStart)
		}
		c.upLink = newLink(n.Up, n, c.cfg.Seed, 1)
		c.downLink = newLink(n.Down, n, c.cfg.Seed, 2)
	}
	c.recv = snap.NewReceiver(snapTables(c.cfg.Proto6))
	c.gen = NewInputGen(c.cfg.Pattern, c.cfg.Seed)
	if c.cfg.Pattern == PatternIdle && c.cfg.IdleTarget != [2]int32{} {
		c.gen.cur.TargetX, c.gen.cur.TargetY = c.cfg.IdleTarget[0], c.cfg.IdleTarget[1]
	}
	c.enterBy = c.cfg.EnterTimeout
	c.nextInput = -1
	c.conn.start(c.clock())
	return true
}

// readLoop receives datagrams until the driver closes the socket.
func (c *Client) readLoop() {
	defer close(c.readDone)
	for {
		n, err := c.sock.Read(c.buf)
		c.mu.Lock()
		if c.finished {
			c.mu.Unlock()
			return
		}
		now := c.clock()
		if err != nil {
			// ICMP port unreachable shows up as a read error on a connected
			// socket: the server is not there (yet). The handshake timers
			// decide when to give up.
			if c.conn.state == stateOnline || errors.Is(err, net.ErrClosed) {
				c.fail(fmt.Errorf("socket: %w", err))
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
			continue
		}
		if c.downLink != nil {
			c.downLink.admit(now+c.netOff, c.buf[:n], c.recvFn)
		} else {
			c.onDatagram(now, c.buf[:n])
		}
		c.mu.Unlock()
	}
}

// tickLocked runs the client's timers and sends every input scheduled up to
// due (the driver's scheduled time for this client, on the client's clock).
// It reports whether the client failed. c.mu is held.
func (c *Client) tickLocked(due time.Duration) bool {
	now := c.clock()
	if c.failure != nil {
		return true
	}
	if err := c.conn.update(now); err != nil {
		c.fail(err)
		return true
	}
	if c.held {
		// stalled on purpose: no enter timeout and no progress; a silent
		// client's conn sends nothing (holdAt muted it)
		c.holdKeepAlive(now)
		return false
	}
	if !c.inGame {
		if now > c.enterBy {
			c.fail(fmt.Errorf("not in game after %v (stage %s)", c.cfg.EnterTimeout, c.stage))
			return true
		}
	} else {
		if c.nextInput < 0 {
			// the first slot of this client's schedule at or after
			// entering (due may lie before it when the driver runs late)
			c.nextInput = due
			if late := c.inGameAt - due; late > 0 {
				c.nextInput += (late + netproto.TickDuration - 1) / netproto.TickDuration * netproto.TickDuration
			}
		}
		if behind := int64((due-c.nextInput)/netproto.TickDuration) + 1; behind > maxCatchUp {
			c.stats.SkippedInputs += behind - maxCatchUp
			c.nextInput += time.Duration(behind-maxCatchUp) * netproto.TickDuration
		}
		for c.nextInput <= due && c.failure == nil {
			c.stats.SendDelay.Add(now - c.nextInput)
			c.sendInput(now, c.nextInput)
			c.nextInput += netproto.TickDuration
		}
		// the inputs of this tick in one packet (the reference flushes
		// each, one per frame), with anything else waiting
		c.conn.flush(now)
	}
	return c.failure != nil
}

// finishLocked disconnects and returns the final statistics; the caller
// closes the socket after unlocking. c.mu is held.
func (c *Client) finishLocked() Stats {
	now := c.clock()
	c.finished = true
	if c.held && c.holdSend != nil {
		c.conn.send = c.holdSend // a silent stalled client still says goodbye
	}
	if c.failure == nil {
		c.conn.close(now, "twload done")
	} else {
		c.conn.close(now, "twload: "+c.failure.Error())
		c.stats.Failure = failureClass(c.failure)
		if c.stats.FirstBadError == "" {
			c.stats.FirstBadError = c.failure.Error()
		}
	}
	if c.inGame {
		c.stats.InGame += now - c.inGameAt
	}
	c.stats.Stage = c.stage
	c.stats.DroppedPkts = c.conn.dropped
	if c.upLink != nil {
		c.stats.NetUp, c.stats.NetDown = c.upLink.stats, c.downLink.stats
	}
	c.stats.BlackoutInGame = c.preBlackout
	c.stats.Held, c.stats.HeldAt, c.stats.FailAt = c.held, c.heldAt, c.failAt
	return c.stats
}

// pumpLocked releases the impaired datagrams that fell due (the driver
// calls it at every wake-up). c.mu is held.
func (c *Client) pumpLocked() {
	if c.upLink == nil || c.failure != nil {
		return
	}
	now := c.clock()
	c.downLink.release(now+c.netOff, c.recvFn)
	c.upLink.release(now+c.netOff, c.rawFn)
}

func (c *Client) clock() time.Duration {
	c.now = time.Since(c.start)
	return c.now
}

func (c *Client) fail(err error) {
	if c.failure == nil {
		c.failure = err
		c.failAt = c.now
	}
}

// write sends one datagram, through the impairment when there is one.
func (c *Client) write(b []byte) {
	if c.upLink != nil {
		c.upLink.admit(c.now+c.netOff, b, c.rawFn)
		return
	}
	c.writeRaw(b)
}

// writeRaw sends one datagram on the socket.
func (c *Client) writeRaw(b []byte) {
	if _, err := c.sock.Write(b); err != nil && c.conn.state == stateOnline {
		c.fail(fmt.Errorf("socket: %w", err))
		return
	}
	c.live.BytesOut.Add(int64(len(b)))
	c.stats.TotalBytesOut += int64(len(b))
	if c.inGame {
		c.stats.BytesOut += int64(len(b))
		c.stats.PacketsOut++
	}
}

func (c *Client) onDatagram(now time.Duration, b []byte) {
	c.live.BytesIn.Add(int64(len(b)))
	c.stats.TotalBytesIn += int64(len(b))
	if c.inGame {
		c.stats.BytesIn += int64(len(b))
		c.stats.PacketsIn++
	}
	switch c.conn.feed(now, b, c.deliver) {
	case evAccepted:
		if c.holdAt(HoldConnect) {
			return
		}
		c.stage = StageInfo
		if c.cfg.Proto6 {
			c.sendInfo6()
			break
		}
		c.pk.Reset()
		c.pk.AddMsgHeader(netproto.NetmsgInfo, true)
		c.pk.AddString(NetVersion)
		c.pk.AddString(c.cfg.Password)
		c.pk.AddInt(ClientVersion)
		c.sendMsg(true)
	case evClosed:
		c.fail(&closedError{reason: c.conn.closeMsg})
	}
	if c.conn.state == stateConnect && c.stage == StageToken {
		c.stage = StageConnect
	}
}

// closedError is a CLOSE from the server.
type closedError struct{ reason string }

func (e *closedError) Error() string { return "closed by server: " + e.reason }

// failureClass turns an error into a short reason for counting failures
// across clients.
func failureClass(err error) string {
	var ce *closedError
	if errors.As(err, &ce) {
		return ce.Error()
	}
	return err.Error()
}

// sendMsg sends the packer's message at once, with whatever the packet
// under construction holds, as the reference client's SendMsg with
// MSGFLAG_FLUSH (every vital message of the way in, inputs). Nothing else
// flushes but update's flush after FlushInterval of idle sending, as in
// the reference connection: the RESEND flag of a gap, the chunks resent at
// the server's RESEND flag and the timer resends wait for it. During a map
// download the 0.7.5 client sends nothing between its requests, so the
// measuring client must not answer a loss sooner than it would.
func (c *Client) sendMsg(vital bool) {
	c.queueMsg(vital)
	c.conn.flush(c.now)
}

// queueMsg queues the packer's message; it goes out with the next flush
// (the reference client's PING_REPLY, sent without MSGFLAG_FLUSH).
func (c *Client) queueMsg(vital bool) {
	if err := c.pk.Err(); err != nil {
		c.fail(err)
		return
	}
	if err := c.conn.queue(c.now, c.pk.Bytes(), vital); err != nil {
		c.fail(err)
	}
}

// sendSys sends an empty vital system message (0.7 id; mapped for 0.6).
func (c *Client) sendSys(id int32) {
	if c.cfg.Proto6 {
		id = sysID6(id)
	}
	c.pk.Reset()
	c.pk.AddMsgHeader(id, true)
	c.sendMsg(true)
}

func (c *Client) bad(kind string, err error) {
	c.stats.BadMessages++
	if c.stats.FirstBadError == "" {
		c.stats.FirstBadError = kind + ": " + err.Error()
	}
}

// onChunk handles one delivered message.
func (c *Client) onChunk(data []byte) {
	if c.held {
		return // a stalled client makes no progress
	}
	id, system, n, err := netproto.ParseMsgHeader(data)
	if err != nil {
		c.bad("message header", err)
		return
	}
	body := data[n:]
	if c.inGame {
		c.countRx(id, system, len(data))
	}
	switch {
	case c.cfg.Proto6 && system:
		c.onSystem6(id, body)
	case c.cfg.Proto6:
		c.onGame6(id, body)
	case system:
		c.onSystem(id, body)
	default:
		c.onGame(id, body)
	}
}

// Character object types (the items countType counts for CharsInView).
const (
	charType7 = 10 // 0.7 NETOBJTYPE_CHARACTER (objRules7)
	charType6 = 9  // 0.6 NETOBJTYPE_CHARACTER (objRules6)
)

func charType(six bool) uint32 {
	if six {
		return charType6
	}
	return charType7
}

// countRx adds one in-game message of size bytes to the breakdown by kind.
func (c *Client) countRx(id int32, system bool, size int) {
	r, n := &c.stats.Rx, int64(size)
	ids, _ := snapTables(c.cfg.Proto6)
	timing := int32(netproto.NetmsgInputTiming)
	if c.cfg.Proto6 {
		timing = netproto.Netmsg6InputTiming
	}
	switch {
	case !system:
		r.Game++
		r.GameBytes += n
	case id == ids.SnapSingle:
		r.SnapSingle++
		r.SnapSingleBytes += n
	case id == ids.Snap:
		r.SnapSlice++
		r.SnapSliceBytes += n
	case id == ids.SnapEmpty:
		r.SnapEmpty++
		r.SnapEmptyBytes += n
	case id == timing:
		r.Timing++
		r.TimingBytes += n
	default:
		r.Sys++
		r.SysBytes += n
	}
}

func (c *Client) onSystem(id int32, body []byte) {
	switch id {
	case netproto.NetmsgMapChange:
		c.onMapChange(body)
	case netproto.NetmsgMapData:
		c.onMapData(body)
	case netproto.NetmsgConReady:
		if c.stage != StageReady {
			return
		}
		if c.cfg.Proto6 {
			c.sendStartInfo6()
			c.stage = StageStartInfo
			return
		}
		si := gamemsg.ClStartInfo{Name: c.cfg.Name, Clan: c.cfg.Clan, Country: -1, Skin: gamemsg.DefaultSkin}
		c.pk.Reset()
		if err := si.Encode(&c.pk); err != nil {
			c.fail(err)
			return
		}
		c.sendMsg(true)
		c.stage = StageStartInfo
	case netproto.NetmsgSnap, netproto.NetmsgSnapEmpty, netproto.NetmsgSnapSingle:
		c.onSnap(id, body)
	case netproto.NetmsgInputTiming:
		c.up.Reset(body)
		intended := c.up.GetInt()
		left := c.up.GetInt()
		if c.up.Err() != nil {
			c.bad("INPUTTIMING", c.up.Err())
			return
		}
		// Keep inputs about targetLead early, like the 0.7.5 client's
		// prediction margin: a late input moves the margin up at once, an
		// early one lets it decay slowly.
		if left < 0 {
			c.stats.LateInputs++
			// Late only because this client sent it late (a stalled
			// driver): on its schedule it would have been in time.
			if d := c.delays[max(intended, 0)%sendDelays]; d.tick == intended && time.Duration(left)*time.Millisecond+d.delay >= 0 {
				c.stats.LateOwn++
			}
		}
		if c.inGame {
			c.stats.Timings++
			c.stats.TimeLeftSum += int64(left)
		}
		diff := time.Duration(left)*time.Millisecond - targetLead
		if diff < 0 {
			c.margin -= diff / 2
		} else {
			c.margin -= diff / 16
		}
		c.margin = min(max(c.margin, 0), maxMargin)
	case netproto.NetmsgPing:
		c.pk.Reset()
		id := int32(netproto.NetmsgPingReply)
		if c.cfg.Proto6 {
			id = sysID6(id)
		}
		c.pk.AddMsgHeader(id, true)
		c.queueMsg(false)
	case netproto.NetmsgServerInfo, netproto.NetmsgPingReply, netproto.NetmsgRconAuthOn,
		netproto.NetmsgRconAuthOff, netproto.NetmsgRconLine, netproto.NetmsgRconCmdAdd,
		netproto.NetmsgRconCmdRem, netproto.NetmsgMaplistEntryAdd, netproto.NetmsgMaplistEntryRem:
	default:
		c.stats.UnknownMsgs++
	}
}

func (c *Client) onMapChange(body []byte) {
	c.up.Reset(body)
	var k MapKey
	k.Name = c.up.GetString()
	k.CRC = uint32(c.up.GetInt())
	k.Size = int(c.up.GetInt())
	cpr := int(c.up.GetInt())
	chunk := int(c.up.GetInt())
	sha := c.up.GetRaw(32)
	if err := c.up.Err(); err != nil {
		c.fail(fmt.Errorf("bad MAP_CHANGE: %w", err))
		return
	}
	copy(k.SHA256[:], sha)
	switch {
	case !validName(k.Name):
		c.fail(fmt.Errorf("bad MAP_CHANGE: map name %q", k.Name))
		return
	case k.Size <= 0 || k.Size > MaxMapSize:
		c.fail(fmt.Errorf("bad MAP_CHANGE: map size %d", k.Size))
		return
	case cpr <= 0 || chunk <= 0 || chunk > netproto.MaxChunkSize:
		c.fail(fmt.Errorf("bad MAP_CHANGE: %d chunks of %d bytes per request", cpr, chunk))
		return
	}
	if c.restartMap(k, cpr, chunk) {
		c.sendSys(netproto.NetmsgRequestMapData)
	}
}

// restartMap starts over the way into the game for a MAP_CHANGE of k
// (cpr chunks of chunk bytes per request): READY at once when the map is
// cached, else it reports that the download is to be started.
func (c *Client) restartMap(k MapKey, cpr, chunk int) bool {
	// a map change restarts the way into the game
	if c.inGame {
		c.stats.InGame += c.now - c.inGameAt
		c.enterBy = c.now + c.cfg.EnterTimeout
	}
	c.inGame, c.enteredSnap, c.ackTick = false, 0, -1
	c.conn.rx = nil
	c.inN, c.lastTick = 0, -1 // ticks restart with the new map
	c.stats.FirstSnapTick, c.stats.LastSnapTick = -1, -1
	c.live.InGame.Store(false)
	c.recv.Reset()
	c.mapKey, c.mapCPR, c.mapChunk = k, cpr, chunk
	if k.SHA256 != ([32]byte{}) && c.cfg.Maps.Has(k) {
		c.mapBuf = nil
		c.sendSys(netproto.NetmsgReady)
		c.stage = StageReady
		return false
	}
	c.mapBuf = make([]byte, 0, k.Size)
	c.mapGot = 0
	c.mapStart = c.now
	c.stage = StageMap
	return true
}

// finishMap verifies and stores the downloaded map and sends READY.
func (c *Client) finishMap() {
	if err := c.cfg.Maps.Store(c.mapKey, c.mapBuf); err != nil {
		c.fail(fmt.Errorf("map download: %w", err))
		return
	}
	c.stats.MapDownloads++
	c.stats.MapBytes = len(c.mapBuf)
	c.stats.MapTime = c.now - c.mapStart
	c.mapBuf = nil
	c.sendSys(netproto.NetmsgReady)
	c.stage = StageReady
}

func (c *Client) onMapData(body []byte) {
	if c.stage != StageMap || c.mapBuf == nil {
		return
	}
	want := min(c.mapChunk, c.mapKey.Size-len(c.mapBuf))
	if len(c.mapBuf)+want == c.mapKey.Size && c.holdAt(HoldMap) {
		return // a map smaller than a window: stall before its last chunk
	}
	if len(body) < want {
		c.fail(fmt.Errorf("MAP_DATA: %d bytes, want %d", len(body), want))
		return
	}
	c.mapBuf = append(c.mapBuf, body[:want]...)
	c.mapGot++
	if c.mapGot == c.mapCPR && c.holdAt(HoldMap) {
		return // one window of chunks received, the rest never asked for
	}
	if len(c.mapBuf) == c.mapKey.Size {
		c.finishMap()
		return
	}
	if c.mapGot%c.mapCPR == 0 {
		c.sendSys(netproto.NetmsgRequestMapData)
	}
}

func (c *Client) onGame(id int32, body []byte) {
	c.up.Reset(body)
	m, err := gamemsg.Decode(id, &c.up)
	if errors.Is(err, gamemsg.ErrUnknownMessage) {
		c.stats.UnknownMsgs++
		return
	}
	if err != nil {
		c.bad(gamemsg.Name(id), err)
		return
	}
	if c.cfg.OnGameMessage != nil {
		c.cfg.OnGameMessage(m)
	}
	if _, ok := m.(*gamemsg.SvReadyToEnter); ok && c.stage == StageStartInfo {
		if c.holdAt(HoldReady) {
			return
		}
		c.sendSys(netproto.NetmsgEnterGame)
		c.stage = StageEntering
		c.enteredSnap = 0
	}
}

func (c *Client) onSnap(id int32, body []byte) {
	// Snapshots count from ENTERGAME on; a 0.6 client also takes them
	// before (DDNet's vanilla anti-spoof handshake sends snapshots right
	// after CON_READY and waits for the INPUT that acknowledges them).
	if c.stage != StageEntering && c.stage != StageInGame && !(c.cfg.Proto6 && c.stage == StageStartInfo) {
		return
	}
	ids, _ := snapTables(c.cfg.Proto6)
	if id != ids.SnapEmpty {
		c.stats.SnapParts++
	}
	tick, done, err := c.recv.Handle(id, body)
	switch {
	case err == nil && done:
		c.onSnapshot(tick, id == ids.SnapEmpty)
	case err == nil:
	case errors.Is(err, snap.ErrBadCRC):
		c.stats.CRCErrors++
		c.live.CRCErrors.Add(1)
		c.noteBad("snapshot crc", tick, err)
		c.crcStreak++
		if c.crcStreak > 10 {
			c.ackTick = -1 // ask for a full snapshot, as the 0.7.5 client does
		}
	case errors.Is(err, snap.ErrNoBase):
		c.stats.NoBase++
		c.ackTick = -1
	case errors.Is(err, snap.ErrStaleTick) && c.stage == StageStartInfo && tick == c.lastTick:
		// A 0.6 client counts a repeated tick as another snapshot (it
		// takes ticks >= the last): the anti-spoof handshake's three
		// SNAPEMPTY of one tick bring it online.
		c.onSnapshot(tick, true)
	case errors.Is(err, snap.ErrStaleTick):
		c.stats.Stale++
	default:
		c.stats.DeltaErrors++
		c.noteBad("snapshot", tick, err)
	}
}

func (c *Client) noteBad(kind string, tick int32, err error) {
	if c.stats.FirstBadError == "" {
		c.stats.FirstBadError = fmt.Sprintf("%s (tick %d): %v", kind, tick, err)
	}
}

func (c *Client) onSnapshot(tick int32, empty bool) {
	now := c.now
	sn, _ := c.recv.Latest()
	if sn != nil && !empty {
		rules := objRules7[:]
		if c.cfg.Proto6 {
			rules = objRules6[:]
		}
		if bad, first := validateSnapshot(sn, rules, c.cfg.Proto6 && !c.cfg.Vanilla6); bad > 0 {
			c.stats.BadItems += int64(bad)
			c.noteBad("snapshot item", tick, errors.New(first))
		}
	}
	if sn != nil && c.cfg.OnSnapshot != nil {
		c.cfg.OnSnapshot(tick, sn)
	}
	c.ackTick, c.crcStreak = tick, 0
	if c.seenAny && tick <= c.seenTick {
		c.stats.TickBacks++
	}
	c.seenTick, c.seenAny = tick, true
	if c.inGame && c.lastTick >= 0 && tick > c.lastTick {
		c.stats.noteSpacing(tick-c.lastTick, now-c.lastTickAt)
	}
	c.lastTick, c.lastTickAt = tick, now
	if !c.inGame {
		c.enteredSnap++
		if c.enteredSnap < 2 {
			return
		}
		entering := c.stage == StageEntering
		c.inGame, c.inGameAt = true, now
		c.conn.rx = &c.stats.Rx
		c.stage = StageInGame
		if !entering {
			c.nextInput, c.sentAny = -1, false // inputs, but not in the game yet
			return
		}
		c.live.InGame.Store(true)
		if !c.stats.Entered {
			c.stats.Entered = true
			c.stats.ConnectTime = now
		}
		c.nextInput, c.sentAny = -1, false // the driver aligns it to its schedule
		return
	}
	c.stats.Snapshots++
	if c.lastSnapAt > 0 {
		c.stats.MaxSnapInterval = max(c.stats.MaxSnapInterval, now-c.lastSnapAt)
	}
	c.lastSnapAt = now
	if n := c.cfg.Netem; n != nil && n.Blackout > 0 && !c.recovered {
		switch rt := now + c.netOff; {
		case rt < n.BlackoutAt:
			c.preBlackout = true
		case rt >= n.BlackoutAt+n.Blackout && c.preBlackout:
			c.recovered = true
			c.stats.BlackoutRecovery = rt - n.BlackoutAt - n.Blackout
		}
	}
	if c.stats.FirstSnapTick < 0 {
		c.stats.FirstSnapTick = tick
	}
	c.stats.LastSnapTick = tick
	if c.cfg.Ticks != nil {
		c.cfg.Ticks.Add(tick)
	}
	c.live.Snapshots.Add(1)
	if empty {
		c.stats.SnapEmpty++
	}
	if sn != nil {
		c.stats.CharsInView += int64(sn.CountType(charType(c.cfg.Proto6)))
	}
	for c.inN > 0 && c.inputs[c.inHead].tick <= tick {
		c.stats.Latency.Add(now - c.inputs[c.inHead].at)
		c.inHead = (c.inHead + 1) % inputRing
		c.inN--
	}
}

// predictTick estimates the tick an input sent now should be meant for: the
// server's current tick (from the newest snapshot and the time since) plus
// the margin INPUTTIMING keeps the input early by.
func (c *Client) predictTick(now time.Duration) int32 {
	return c.lastTick + 1 + int32((now-c.lastTickAt+c.margin)/netproto.TickDuration)
}

// sendInput sends the input scheduled for sched (its tick is predicted from
// sched, so inputs caught up after a late wake-up keep consecutive ticks);
// latency is measured from now, when it really leaves.
func (c *Client) sendInput(now, sched time.Duration) {
	in := c.gen.Next()
	ints := in.Ints()
	if c.cfg.Pace == PaceReal && c.sentAny && ints == c.lastSent && sched-c.lastSentAt < RealPaceFloor {
		return // unchanged and recent: the real clients wait too
	}
	c.lastSent, c.lastSentAt, c.sentAny = ints, sched, true
	tick := c.predictTick(sched)
	c.pk.Reset()
	if c.cfg.Proto6 {
		c.pk.AddMsgHeader(netproto.Netmsg6Input, true)
	} else {
		c.pk.AddMsgHeader(netproto.NetmsgInput, true)
	}
	c.pk.AddInt(c.ackTick)
	c.pk.AddInt(tick)
	c.pk.AddInt(PlayerInputInts * 4)
	for _, v := range ints {
		c.pk.AddInt(v)
	}
	if !c.cfg.Proto6 {
		c.pk.AddInt(0) // ping correction (0.6 has none)
	}
	c.queueMsg(false) // flushed at the end of the tick
	c.stats.Inputs++
	if c.inN == inputRing { // no snapshot for a long time: forget the oldest
		c.inHead = (c.inHead + 1) % inputRing
		c.inN--
	}
	c.inputs[(c.inHead+c.inN)%inputRing] = sentInput{tick: tick, at: now}
	c.inN++
	if tick >= 0 {
		c.delays[tick%sendDelays] = sendDelay{tick: tick, delay: now - sched}
	}
}
