package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"twserver/bots"
	"twserver/botslots"
	"twserver/config"
	"twserver/encpool"
	"twserver/mapstore"
	"twserver/metrics"
	"twserver/procs"
	"twserver/server"
	"twserver/tickclock"
)

// MaxGames bounds the games one process runs (one -config file each).
const MaxGames = 64

// gameFlags are the flags that set one game's setting; with several -config
// files they are refused as ambiguous.
var gameFlags = []string{"port", "bind", "map", "name", "gametype", "max-clients", "player-slots", "password", "rcon-password"}

// checkMap loads the map a game starts with (map.file, the first of
// map.dir's rotation or of map.dir), so that a missing or broken map
// stops the start as a configuration error (exit 2) naming its key; the
// game's own load then finds it in mapstore's cache.
func checkMap(mc config.MapConfig) error {
	if _, err := mapstore.ByConfig(mc); err != nil {
		key := "map.file"
		if mc.File == "" {
			key = "map.dir"
		}
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// gamePrefix is what an error about a game's configuration starts with:
// its -config file, or the -f files ("" for the defaults alone).
func gamePrefix(path string, refFiles []string) string {
	switch {
	case path != "":
		return path + ": "
	case len(refFiles) > 0:
		return strings.Join(refFiles, ", ") + ": "
	}
	return ""
}

// checkGames checks what only matters when one process runs several games:
// distinct addresses, one metrics endpoint, no Agones (an Agones
// GameServer is one game).
func checkGames(cfgs []config.Config, paths []string) error {
	if len(cfgs) > MaxGames {
		return fmt.Errorf("%d games in one process; at most %d", len(cfgs), MaxGames)
	}
	if len(cfgs) == 1 {
		return nil
	}
	addrs := map[string]string{}
	listen := ""
	for i, c := range cfgs {
		a := gameAddr(c)
		if prev, ok := addrs[a]; ok {
			return fmt.Errorf("%s and %s both use UDP %s: every game needs its own server.port", prev, paths[i], a)
		}
		addrs[a] = paths[i]
		if c.Metrics.Listen != "" {
			if listen != "" && listen != c.Metrics.Listen {
				return fmt.Errorf("%s: metrics.listen %q differs from %q: one process serves one metrics endpoint for all its games", paths[i], c.Metrics.Listen, listen)
			}
			listen = c.Metrics.Listen
		}
		if err := checkWeb(cfgs, c, paths[i]); err != nil {
			return err
		}
		if rc := c.Record; rc.Teehistorian || rc.Demo {
			d := "record " + recordDir(rc.Dir)
			if prev, ok := addrs[d]; ok {
				return fmt.Errorf("%s and %s both record into %s: every game needs its own record.dir (each prunes, lists and serves its directory)", prev, paths[i], rc.Dir)
			}
			addrs[d] = paths[i]
		}
		if c.Agones.Enabled {
			return fmt.Errorf("%s: agones.enabled with several games: an Agones GameServer runs one game per process", paths[i])
		}
		if c.Econ.Port != 0 {
			a := "econ " + net.JoinHostPort(c.Econ.Bind, strconv.Itoa(c.Econ.Port))
			if prev, ok := addrs[a]; ok {
				return fmt.Errorf("%s and %s both use %s: every game needs its own econ.port", prev, paths[i], a)
			}
			addrs[a] = paths[i]
		}
		if f := c.Server.InputFIFO; f != "" {
			if prev, ok := addrs["fifo "+f]; ok {
				return fmt.Errorf("%s and %s both use server.input_fifo %s: every game needs its own", prev, paths[i], f)
			}
			addrs["fifo "+f] = paths[i]
		}
	}
	return nil
}

// recordDir is a record.dir as an absolute, clean path (as given when it
// cannot be made absolute), to compare games' directories.
func recordDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return filepath.Clean(dir)
}

// gameAddr is a game's UDP address as configured.
func gameAddr(c config.Config) string {
	return c.Server.Bind + ":" + strconv.Itoa(c.Server.Port)
}

// game is one running game of the process.
type game struct {
	name string // the game label: its UDP port
	cfg  config.Config
	srv  *server.Server
	side *sideChannels
	log  zerolog.Logger
	err  error // what Run returned
}

// runGames starts one server per configuration, each with its own socket,
// loop goroutine and side channels, and one metrics endpoint for all; it
// blocks until ctx ends (a signal) or every game has stopped, and returns
// the process exit code. console, if not nil, feeds the console of the
// only game (with several games each has rcon and econ instead).
func runGames(ctx context.Context, stop context.CancelFunc, cfgs []config.Config, console io.Reader, log zerolog.Logger, memProf string, up upgradeArgs) int {
	consoles := make([]io.Reader, len(cfgs))
	if len(cfgs) == 1 {
		consoles[0] = console
	} else if console != nil {
		log.Info().Int("games", len(cfgs)).Msg("running several games in one process; the console on standard input is off (use each game's rcon or econ)")
	}
	setGCPercent(log)
	pool, sizer, restore := runtimeProcs(len(cfgs), log) // one per process: every game's snapshots share it
	defer restore()
	defer pool.Close()
	defer procSockets.closeAll() // last: after the games and listeners closed theirs
	games, err := startGames(ctx, cfgs, consoles, pool, sizer, log)
	defer stopSides(games)
	if err != nil {
		if up.in != nil {
			_ = up.in.Refuse(err.Error()) // the old process goes on
		}
		return 1
	}
	if memProf != "" {
		defer func() {
			writeHeapProfile(memProf, log)
			runtime.KeepAlive(games) // profile the servers' memory, not their absence
		}()
	}
	return serveGames(ctx, stop, games, httpConfig{metrics: metricsListen(cfgs), web: webConfig(cfgs)}, log, up)
}

// startGames creates the servers (bound sockets, loaded maps) and their
// side channels, not yet running; consoles[i], if not nil, is game i's
// console input. On an error the games started so far are returned with it.
func startGames(ctx context.Context, cfgs []config.Config, consoles []io.Reader, pool *encpool.Pool, sizer *procs.Sizer, log zerolog.Logger) ([]*game, error) {
	games := make([]*game, 0, len(cfgs))
	navs := bots.NewNavCache(botslots.MaxNavs) // the bots' graphs, one per map for every game
	for i, cfg := range cfgs {
		g := &game{cfg: cfg, log: log}
		if len(cfgs) > 1 {
			g.log = log.With().Str("game", gameAddr(cfg)).Logger()
		}
		conn, choice, err := procSockets.udp(gameAddr(cfg))
		if err != nil {
			g.log.Error().Err(err).Msg("cannot start")
			return games, err
		}
		if choice.Fallback != nil && !errors.Is(choice.Fallback, errors.ErrUnsupported) {
			g.log.Warn().Str("socket", string(choice.Kind)).Err(choice.Fallback).
				Msg("the paced socket cannot be set up: reading through the runtime's poller, a wake-up per datagram")
		}
		// Several games tick in groups that share a wake-up, the groups
		// at phases spread over a tick (tickclock.Phase).
		srv, err := server.New(server.Options{Config: cfg, Logger: g.log, Console: consoles[i], Pool: pool, Procs: sizer, Conn: conn, Navs: navs, Build: version,
			AlignTicks: len(cfgs) > 1, TickPhase: tickclock.Phase(i, len(cfgs))})
		if err != nil {
			g.log.Error().Err(err).Msg("cannot start")
			return games, err
		}
		g.srv = srv
		if n, err := procSockets.restoreBans(gameAddr(cfg), srv); err != nil {
			g.log.Error().Err(err).Msg("upgrade: cannot restore the bans handed over; the game starts without them")
		} else if n > 0 {
			g.log.Info().Int("bans", n).Msg("upgrade: bans restored")
		}
		if n, world, err := procSockets.adopt(gameAddr(cfg), srv); err != nil {
			g.log.Error().Err(err).Msg("cannot take over the clients handed over")
			return games, err
		} else if n > 0 && world {
			g.log.Info().Int("clients", n).Msg("upgrade: clients taken over with the game's world: they play on")
		} else if n > 0 {
			g.log.Info().Int("clients", n).Msg("upgrade: clients taken over without the game's world (the old process sent none): they join a new game, as after a map change")
		}
		g.name = strconv.Itoa(int(srv.Addr().Port()))
		g.log.Info().Str("addr", srv.Addr().String()).Str("map", srv.MapName()).Str("socket", string(srv.Socket())).Msg("listening")
		if g.side, err = startSideChannels(ctx, cfg, srv, g.log); err != nil {
			g.log.Error().Err(err).Msg("cannot start")
			return games, err
		}
		games = append(games, g)
	}
	return games, nil
}

// stopSides stops the games' side channels (registration deletes, Agones)
// within the shutdown grace.
func stopSides(games []*game) {
	deadline := time.Now().Add(shutdownGrace)
	for _, g := range games {
		g.side.stop(deadline)
	}
}

// serveGames runs every game's loop, and the metrics endpoint and the web
// page as hc says, until ctx ends or every game has stopped; it returns the
// process exit code. One game stopping (rcon shutdown, an error) leaves the
// others running.
func serveGames(ctx context.Context, stop context.CancelFunc, games []*game, hc httpConfig, log zerolog.Logger, up upgradeArgs) int {
	mctx, stopMetrics := context.WithCancel(ctx)
	waitMetrics, err := startHTTP(mctx, hc, games, log)
	if err != nil {
		stopMetrics()
		log.Error().Err(err).Str("metrics", hc.metrics).Str("web", hc.web.Listen).Msg("cannot start metrics endpoint or web page")
		return 1
	}
	defer func() { stopMetrics(); waitMetrics() }()

	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	defer signal.Stop(usr2)
	defer installUpgradeCommand(usr2, log)()
	started := time.Now().UnixNano() // a game's tick (or sleep) after this proves it runs (reportReady)
	var wg sync.WaitGroup
	for _, g := range games {
		wg.Go(func() {
			g.err = g.srv.Run(ctx)
			if len(games) > 1 {
				g.log.Info().Msg("game stopped")
			}
		})
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	if up.in != nil {
		go reportReady(up.in, games, started, log)
	}
	for waiting := true; waiting; {
		waiting = false
		select {
		case <-usr2:
			if upgrade(games, up.args, log) {
				exitUpgraded()
			}
			waiting = true // the games go on
		case <-allDone:
		case <-ctx.Done():
			stop() // a second signal kills the process
			select {
			case <-allDone:
			case <-time.After(shutdownGrace):
				log.Error().Msg("server stopped: shutdown did not finish in time")
				return 1
			}
		}
	}
	code := 0
	for _, g := range games {
		if g.err != nil && !errors.Is(g.err, context.Canceled) {
			g.log.Error().Err(g.err).Msg("server stopped")
			code = 1
		}
	}
	if code == 0 {
		log.Info().Msg("server stopped")
	}
	return code
}

// metricsListen is the process's metrics address: the one the games'
// files agree on (checkGames), or "" when none sets it.
func metricsListen(cfgs []config.Config) string {
	for _, c := range cfgs {
		if c.Metrics.Listen != "" {
			return c.Metrics.Listen
		}
	}
	return ""
}

// metricsGames describes the games for the metrics endpoint.
func metricsGames(games []*game) []metrics.Game {
	out := make([]metrics.Game, len(games))
	for i, g := range games {
		out[i] = metrics.Game{Name: g.name, Source: g.srv, Register: g.side.registerState()}
	}
	return out
}

// DefaultGOGC is the garbage collector's target (GOGC) of a twserver
// process unless GOGC is set in the environment: a new collection starts
// when the heap has grown by half its live size, not doubled. In steady
// play the server allocates next to nothing per packet and per snapshot,
// so a lower target costs few extra collections; it keeps an idle or
// lightly loaded process's heap, and so its resident memory, closer to
// what it uses. GOMEMLIMIT is left to the environment.
const DefaultGOGC = 50

// setGCPercent applies DefaultGOGC unless GOGC is set in the environment.
func setGCPercent(log zerolog.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(DefaultGOGC)
	log.Debug().Int("gogc", DefaultGOGC).Msg("garbage collector target")
}

// runtimeProcs starts the encode pool of a process with games games and,
// unless GOMAXPROCS is set in the environment, the Sizer of its runtime
// threads (Ps): one P as long as one core carries the process, up to a
// ceiling when it does not (package procs), the pool's usable workers
// following. The ceiling is the CPUs the runtime found, or one P per two
// games when that is more: with 16 games on 2 Ps their loops and readers
// queue behind each other in the Go scheduler, and on a busy machine the
// process's 2 threads get 2 threads' share of the CPUs (measured with 1024
// clients, scripts/bench1024.sh: 11 % of the ticks were skipped with 2 Ps
// and none with 8). restore gives the runtime back its Ps of before (for
// a caller that goes on, such as a test).
func runtimeProcs(games int, log zerolog.Logger) (pool *encpool.Pool, sizer *procs.Sizer, restore func()) {
	before := runtime.GOMAXPROCS(0)
	restore = func() { runtime.GOMAXPROCS(before) }
	if os.Getenv("GOMAXPROCS") != "" {
		return encpool.New(0), nil, restore
	}
	ceiling := max(before, games/2)
	pool = encpool.New(ceiling - 1)
	sizer = procs.New(ceiling, time.Now(), func(c procs.Change) {
		pool.Limit(c.To - 1)
		log.Debug().Int("from", c.From).Int("to", c.To).Float64("cpu_share", c.Share).Msg("runtime threads (GOMAXPROCS)")
	})
	log.Debug().Int("ceiling", ceiling).Int("games", games).Msg("runtime threads sized to the CPU used")
	return pool, sizer, restore
}
