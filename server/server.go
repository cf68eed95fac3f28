// Package server is the twserver game server: a UDP socket, one reader
// goroutine and one game-loop goroutine that owns every client slot, the world
// and the snapshots (see loop.go for the pipeline).
package server

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"twserver/bots"
	"twserver/botslots"
	"twserver/config"
	"twserver/console"
	"twserver/dialect6"
	"twserver/edge"
	"twserver/encpool"
	"twserver/gamemsg"
	"twserver/live"
	"twserver/mapdl"
	"twserver/mapstore"
	"twserver/metrics"
	"twserver/netproto"
	"twserver/observe"
	"twserver/procs"
	"twserver/record"
	"twserver/session"
	"twserver/snap"
	"twserver/sockio"
	"twserver/tickclock"
	"twserver/vote"
	"twserver/waketimer"
	"twserver/world"
	"twserver/world/twmap"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// GameVersion is the version reported in server info.
const GameVersion = "0.7.5"

// ServerVersion is the server_version written in teehistorian headers.
const ServerVersion = GameVersion + ", twserver"

// Queue bounds of the server (every resource has a named bound).
const (
	// RecvBufSize is larger than the largest datagram so oversized ones are seen.
	RecvBufSize = 2048
	// RecvQueueLen bounds packets waiting for the game loop; more are dropped.
	RecvQueueLen = 1024
	// rxPoolSize bounds the receive buffers (RecvBufSize each): a full queue
	// plus the batch the reader holds and the few the loop holds. They are allocated as the
	// queue first reaches each depth, then recycled.
	rxPoolSize = RecvQueueLen + sockio.ReadBatchSize + 8
	// ConsoleQueueLen bounds console lines waiting for the game loop.
	ConsoleQueueLen = 64
	// MaxConsoleLine is the longest console line accepted.
	MaxConsoleLine = console.MaxLine
	// MaxCatchUpTicks bounds the ticks simulated back-to-back after a stall;
	// beyond it the schedule is moved forward.
	MaxCatchUpTicks = 50
	// ShutdownFlushWait is how long Run waits for the last CLOSE packets to leave.
	ShutdownFlushWait = 50 * time.Millisecond
)

// Options configure a Server.
type Options struct {
	// Config is the validated configuration.
	Config config.Config
	// Logger receives structured logs.
	Logger zerolog.Logger
	// Conn is the socket; nil opens a UDP socket on Config.Server.Bind:Port.
	Conn sockio.PacketConn
	// Map overrides the map selected by Config (nil: Config.Map, else the
	// embedded default map).
	Map *twmap.Map
	// Console, if set, is read line by line for console commands.
	Console io.Reader
	// Seed seeds the world's random generator; 0 picks a random seed.
	Seed uint64
	// Pool, if set, builds and encodes the per-client snapshots of a tick
	// in parallel (shared by the games of a process).
	Pool *encpool.Pool
	// Procs, if set, sizes the process's runtime parallelism: the loop
	// calls its Note after each wake-up (shared by the games of a process).
	Procs *procs.Sizer
	// AlignTicks and TickPhase place the games of one process on one grid:
	// with AlignTicks, every even tick starts TickPhase past a multiple of
	// tickclock.PairPeriod since a process-wide origin, so games of one phase
	// wake together (tickclock.Phase), others not. Else tick 0 starts with the loop.
	AlignTicks bool
	TickPhase  time.Duration
	// Navs holds the bots' navigation graphs (nil: the game's own; shared by the games of a process).
	Navs *bots.NavCache
	// Build is twserver's version, shown after the game's in the server info (edge.Versions).
	Build string
}

// Server is one game server. Create it with New and run it with Run.
type Server struct {
	cfg     config.Config
	log     zerolog.Logger
	conn    sockio.PacketConn
	console io.Reader
	seed    uint64
	version [2]string // the server info's version strings, 0.7 and 0.6 (edge.Versions of Options.Build)

	sched tickclock.Clock // the tick schedule of the current map (Options.AlignTicks, TickPhase)

	epoch time.Time // origin of the monotonic durations given to netproto
	// clock, if set, replaces the wall clock of now: tests that step the
	// loop by hand (never Run) drive two servers with the same time.
	clock func() time.Duration

	// reader side (recv.go)
	rx     chan *rxPacket
	rxWake atomic.Bool   // the reader's signal that rx holds a datagram to handle now (with timer.Poke)
	pace   sockio.Pacer  // paced reads: the reader hands its state to the loop, which reads at each tick (paced.go)
	paceR  *reader       // the reader state the pacer hands over (set before the reader first pauses)
	ingame atomic.Uint64 // bit i: slot i is in game (published by the loop, read by the reader)
	free   chan *rxPacket
	// warmSum keeps the loads of warm (snapshot rounds)
	warmSum uint8
	// the edge (package edge): the reader's screening, budgets, counters,
	// the addresses owning a slot, the published info, the master hooks
	edge  *edge.Edge
	stats *edge.Stats // &edge.Stats

	// console lines from stdin (console.go)
	consoleCh chan string
	holds     chan *holdReq    // Hold's requests (hold.go)
	timer     *waketimer.Timer // the loop's wait (loop.go), made before the goroutines that Poke it

	// game loop state (owned by the loop goroutine only)
	curMap          *twmap.Map
	world           *world.World
	clients         []*client
	byAddr          map[netip.AddrPort]int
	bans            edge.BanList
	vote            vote.Game
	enc             *encpool.Fan    // the shared snapshot encoders as this game uses them, and the loop's own
	procs           *procs.Sizer    // Options.Procs (nil: none)
	encTick         snapTick        // the snapshot tick the encoders run (snapsend.go)
	snapDue         []*client       // scratch: clients getting a snapshot this tick
	snapRound       world.SnapRound // what the tick's snapshots share, prepared once per snapshot tick
	empty           snap.Snapshot
	pk              netproto.Packer
	up              netproto.Unpacker
	sess            session.Dispatcher // the system messages of the slots (handshake.go)
	sysH            sysHandler         // its handler during one Dispatch
	sendBuf         []byte
	out             *sockio.SendBatch // datagrams written at the end of the wake-up (batch.go)
	scratch         [netproto.MaxPayload6]byte
	infoSig         uint64            // infoSignature of the published info
	pendingShutdown bool              // shutdown requested by rcon or vote
	pendingMap      string            // map change requested by console/vote, done between ticks
	cons            *console.Console  // the console running the command lines (console.go)
	pendingKicks    uint64            // client ids (bits) the world kicked for inactivity, dropped after the events
	killMsg         gamemsg.SvKillMsg // onWorldEvent's message of a kill, reused (no allocation per kill)
	infoRows        []edge.InfoPlayer // scratch of infoPlayers

	warnLimit *rate.Limiter // bounds the peer-triggerable log lines (warn, rateLog)

	runOnce sync.Once

	ticks    metrics.TickTiming // tick measurements (ticktime.go)
	gauges   metrics.Gauges     // published gauges and loop counters (gauges.go)
	tickWake time.Time          // wake-up of the ticks being run; zero between them
	pairs    pairState          // ticking in pairs while few clients play (pairs.go)
	sleep    sleepState         // an empty game's sleep (sleep.go)

	// side channels (hooks.go); installed before Run
	observers observe.Observers

	rec  *record.Recorder // recording (package record)
	bots *botslots.Slots  // the bots (package botslots, bots.go)

	// the 0.6 game layer (snapsend.go, sys6.go)
	trans6  *dialect6.Game  // translation of the game layer for 0.6 clients
	curMap6 *mapdl.Variant6 // what 0.6 clients are sent of curMap, nil until one asks (mapdl.go map6)
	con     conState        // console output to side channels (conlines.go)
	live    liveState       // frames for the web page and API (live.go)
}

// New loads the map, creates the world and opens the socket. It does not start
// any goroutine; call Run.
func New(o Options) (*Server, error) {
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       o.Config,
		log:       o.Logger,
		console:   o.Console,
		seed:      o.Seed,
		version:   edge.Versions(GameVersion, o.Build),
		epoch:     time.Now(),
		rx:        make(chan *rxPacket, RecvQueueLen),
		free:      make(chan *rxPacket, rxPoolSize),
		consoleCh: make(chan string, ConsoleQueueLen),
		holds:     make(chan *holdReq),
		byAddr:    make(map[netip.AddrPort]int),
		enc:       encpool.NewFan(o.Pool),
		procs:     o.Procs,
		live:      liveState{hub: live.NewHub()},

		sched: tickclock.New(o.AlignTicks, o.TickPhase),
	}
	s.edge = edge.New(s.write)
	s.stats = &s.edge.Stats
	s.edge.Master.Token = edge.NewGlobalToken()
	s.trans6 = new(dialect6.Game)
	s.con.q = console.NewQueue(ConsoleQueueLen)
	s.rec = record.New(record.Options{Config: &s.cfg, Log: s.log, ServerVersion: ServerVersion})
	s.bots = botslots.New(botslots.Options{Config: &s.cfg, Host: botHost{s}, Rec: s.rec, Log: s.log, Events: &s.con.Events, Seed: s.seed, Navs: o.Navs})
	cons, err := console.New(conHost{s}, s.conHandlers())
	if err != nil {
		return nil, err
	}
	s.cons = cons
	s.warnLimit = rate.NewLimiter(rate.Every(warnEvery), warnBurst)
	if s.seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s.seed = binary.LittleEndian.Uint64(b[:])
	}
	m := o.Map
	if m == nil {
		var err error
		if m, err = mapstore.ByConfig(s.cfg.Map); err != nil {
			return nil, err
		}
	}
	s.clients = make([]*client, s.cfg.Server.MaxClients)
	for i := range s.clients {
		s.clients[i] = &client{id: i}
	}
	if err := s.setMap(m); err != nil {
		return nil, err
	}
	s.conn = o.Conn
	if s.conn == nil {
		addr := net.JoinHostPort(s.cfg.Server.Bind, strconv.Itoa(s.cfg.Server.Port))
		c, choice, err := sockio.ListenUDP(addr)
		if err != nil {
			return nil, err
		}
		s.conn = c
		s.noteSocket(choice)
	} else {
		s.gauges.Socket = sockio.KindOf(s.conn)
	}
	s.out = sockio.NewSendBatch(s.conn)
	s.publishInfo()
	s.publishGauges()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() netip.AddrPort { return s.conn.LocalAddr() }

// MapName returns the name of the map loaded at start.
func (s *Server) MapName() string { return s.curMap.Name }

// Counters returns the current counter values by name.
func (s *Server) Counters() map[string]uint64 { return s.stats.Counters() }

// now returns the monotonic time since the server's epoch, the clock of netproto.
func (s *Server) now() time.Duration {
	if s.clock != nil {
		return s.clock()
	}
	return time.Since(s.epoch)
}

// worldConfig maps the server configuration to the world's settings.
func (s *Server) worldConfig() world.Config {
	wc := world.DefaultConfig()
	wc.GameType = world.ParseGameType(s.cfg.Game.Type)
	wc.ScoreLimit = s.cfg.Game.ScoreLimit
	wc.TimeLimit = s.cfg.Game.TimeLimit
	wc.Warmup = s.cfg.Game.Warmup
	wc.PlayerSlots = min(s.cfg.Server.PlayerSlots, s.cfg.Server.MaxClients)
	wc.MaxClients = s.cfg.Server.MaxClients
	wc.InactiveKickTime = s.cfg.Game.InactiveKickTime
	wc.InactiveKick = s.cfg.Game.InactiveKick
	wc.InactiveKickSpec = s.cfg.Game.InactiveKickSpec
	wc.SpamProtection = s.cfg.Game.SpamProtection
	wc.StrictSpectate = s.cfg.Game.StrictSpectate
	wc.PlayerReadyMode = s.cfg.Game.PlayerReadyMode
	if len(s.cfg.Map.Rotation) > 0 { // sv_maprotation: rotate after MatchesPerMap matches
		wc.MatchesPerMap = s.cfg.Game.MatchesPerMap
	}
	wc.TeamDamage = s.cfg.Game.TeamDamage
	wc.Powerups = s.cfg.Game.Powerups
	wc.RespawnDelayTDM = s.cfg.Game.RespawnDelayTDM
	wc.MatchSwap = s.cfg.Game.MatchSwap
	wc.Countdown = s.cfg.Game.Countdown
	wc.TournamentMode = s.cfg.Game.TournamentMode != 0
	wc.TeambalanceTime = s.cfg.Game.TeambalanceTime
	return wc
}

// setMap creates a fresh world on m. Called before Run and between ticks.
func (s *Server) setMap(m *twmap.Map) error {
	w, err := world.New(m, s.worldConfig(), s.seed)
	if err != nil {
		return fmt.Errorf("map %s: %w", m.Name, err)
	}
	s.curMap, s.world = m, w
	s.curMap6 = nil // derived when a 0.6 client first asks (map6)
	// Loading a map and deriving its 0.6 variant leave megabytes of
	// garbage (decoded images, inflated layers) that the garbage collector,
	// with a server allocating almost nothing afterwards, would otherwise
	// keep for minutes and the process's RSS for longer: collect it now and
	// give the pages back, so the memory a server settles at is its
	// working set from the start.
	debug.FreeOSMemory()
	s.sched.Begin(time.Now())
	s.rec.GameStart(record.Game{World: w, Map: m, Seed: s.seed})
	for _, c := range s.clients { // every connected client joins the new game on the engine level
		if c.state != session.Empty {
			s.rec.Join(c.id, !c.conn.Dialect().Is6())
		}
	}
	s.bots.NewGame(w, m)
	return nil
}

// RecordCounters returns the recording counters by name.
func (s *Server) RecordCounters() map[string]uint64 { return s.rec.Counters() }

// RecordingBusy reports whether the file at path is a recording being written or closed.
func (s *Server) RecordingBusy(path string) bool { return s.rec.Busy(path) }
