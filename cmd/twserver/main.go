// Command twserver runs a Teeworlds 0.7.5-compatible game server.
//
// With no arguments it serves the embedded default map on UDP port 8303 on all
// addresses. A TOML file (-config) sets everything; flags override the file.
// Console commands (kick, ban, change_map, restart, status, ...) are read from
// standard input. SIGINT/SIGTERM shut the server down: every client is told
// "Server shutdown" and the process exits within 5 seconds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"twserver/config"
	"twserver/server"
)

// shutdownGrace bounds the time between the signal and the process exit.
const shutdownGrace = 5 * time.Second

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

// run parses args, starts the server and blocks until a signal or a fatal error.
// It returns the process exit code: 0 clean, 1 runtime error, 2 usage/config error.
func run(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("twserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfgPath  = fs.String("config", "", "TOML configuration `file`")
		port     = fs.Int("port", -1, "UDP port (overrides server.port)")
		bind     = fs.String("bind", "", "local IP address to listen on (overrides server.bind)")
		mapFile  = fs.String("map", "", "path of a .map `file` to serve (overrides map.file)")
		name     = fs.String("name", "", "server name (overrides server.name)")
		gametype = fs.String("gametype", "", "dm, tdm or ctf (overrides game.type)")
		maxCl    = fs.Int("max-clients", 0, "connection slots 1..64 (overrides server.max_clients)")
		slots    = fs.Int("player-slots", 0, "non-spectator players 0..16 (overrides server.player_slots)")
		password = fs.String("password", "", "server password (overrides server.password)")
		rconPw   = fs.String("rcon-password", "", "rcon password (overrides server.rcon_password)")
		logLevel = fs.String("log-level", "", "debug, info, warn or error (overrides log.level)")
		logFmt   = fs.String("log-format", "", "console or json (overrides log.format)")
		noStdin  = fs.Bool("no-console", false, "do not read console commands from standard input")
		cpuProf  = fs.String("cpuprofile", "", "write a CPU profile of the whole run to `file` (pprof)")
		memProf  = fs.String("memprofile", "", "write a heap profile to `file` at exit (pprof)")
		hcURL    = fs.String("healthcheck", "", "only probe a running server's /healthz at this loopback `URL` and exit 0 if healthy (container health checks)")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *hcURL != "" {
		return healthcheck(*hcURL, stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "twserver: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	cfg := config.Default()
	if *cfgPath != "" {
		c, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintf(stderr, "twserver: %v\n", err)
			return 2
		}
		cfg = c
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["port"] {
		cfg.Server.Port = *port
	}
	if set["bind"] {
		cfg.Server.Bind = *bind
	}
	if set["map"] {
		cfg.Map.File, cfg.Map.Dir, cfg.Map.Rotation = *mapFile, "", nil
	}
	if set["name"] {
		cfg.Server.Name = *name
	}
	if set["gametype"] {
		cfg.Game.Type = *gametype
	}
	if set["max-clients"] {
		cfg.Server.MaxClients = *maxCl
	}
	if set["player-slots"] {
		cfg.Server.PlayerSlots = *slots
	}
	if set["password"] {
		cfg.Server.Password = *password
	}
	if set["rcon-password"] {
		cfg.Server.RconPassword = *rconPw
	}
	if set["log-level"] {
		cfg.Log.Level = *logLevel
	}
	if set["log-format"] {
		cfg.Log.Format = *logFmt
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "twserver: %v\n", err)
		return 2
	}
	log := newLogger(cfg.Log, stderr)
	if *cpuProf != "" {
		stopProf, err := startCPUProfile(*cpuProf)
		if err != nil {
			fmt.Fprintf(stderr, "twserver: %v\n", err)
			return 1
		}
		defer stopProf()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opts := server.Options{Config: cfg, Logger: log}
	if !*noStdin {
		opts.Console = stdin
	}
	srv, err := server.New(opts)
	if err != nil {
		log.Error().Err(err).Msg("cannot start")
		return 1
	}
	log.Info().Str("addr", srv.Addr().String()).Str("map", srv.MapName()).Msg("listening")
	if *memProf != "" {
		defer func() {
			writeHeapProfile(*memProf, log)
			runtime.KeepAlive(srv) // profile the server's memory, not its absence
		}()
	}
	side := startSideChannels(ctx, cfg, srv, log)
	mctx, stopMetrics := context.WithCancel(ctx)
	waitMetrics, err := startMetrics(mctx, cfg.Metrics, srv, side, log)
	if err != nil {
		stopMetrics()
		side.stop(time.Now().Add(shutdownGrace))
		log.Error().Err(err).Str("listen", cfg.Metrics.Listen).Msg("cannot start metrics endpoint")
		return 1
	}
	defer func() { stopMetrics(); waitMetrics() }()
	errc := make(chan error, 1)
	go func() { errc <- srv.Run(ctx) }()
	var deadline time.Time
	select {
	case err = <-errc:
		deadline = time.Now().Add(shutdownGrace)
	case <-ctx.Done():
		stop() // a second signal kills the process
		deadline = time.Now().Add(shutdownGrace)
		select {
		case err = <-errc:
		case <-time.After(shutdownGrace):
			err = errors.New("shutdown did not finish in time")
		}
	}
	side.stop(deadline)
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error().Err(err).Msg("server stopped")
		return 1
	}
	log.Info().Msg("server stopped")
	return 0
}

func newLogger(c config.LogConfig, w io.Writer) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(c.Level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	out := w
	if c.Format == "console" {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: true}
	}
	zerolog.TimeFieldFormat = time.RFC3339Nano
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger()
}

// startCPUProfile starts CPU profiling into path; the returned function
// stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeHeapProfile writes the heap profile (after a GC) to path.
func writeHeapProfile(path string, log zerolog.Logger) {
	f, err := os.Create(path)
	if err != nil {
		log.Error().Err(err).Msg("heap profile")
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		log.Error().Err(err).Msg("heap profile")
	}
}
