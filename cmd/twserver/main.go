// Command twserver runs a Teeworlds 0.7.5-compatible game server.
//
// With no arguments it serves the embedded default map on UDP port 8303 on all
// addresses. A TOML file (-config) sets everything; flags override the file.
// Given -config several times, one process runs one game per file, each
// isolated (its own socket, slots, world, bans and recordings).
// Console commands (kick, ban, change_map, restart, status, ...) are read from
// standard input. SIGINT/SIGTERM shut the server down: every client is told
// "Server shutdown" and the process exits within 5 seconds.
package main

import (
	"context"
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
		port     = fs.Int("port", -1, "UDP port (overrides server.port)")
		bind     = fs.String("bind", "", "local IP address to listen on (overrides server.bind)")
		mapFile  = fs.String("map", "", "path of a .map `file` to serve (overrides map.file)")
		name     = fs.String("name", "", "server name (overrides server.name)")
		gametype = fs.String("gametype", "", "dm, tdm, ctf, lms or lts (overrides game.type)")
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
	var cfgPaths []string
	fs.Func("config", "TOML configuration `file`; given several times, one process runs one game per file", func(p string) error {
		cfgPaths = append(cfgPaths, p)
		return nil
	})
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
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(cfgPaths) > 1 {
		for _, f := range gameFlags {
			if set[f] {
				fmt.Fprintf(stderr, "twserver: -%s sets one game's setting; with several -config files set it in each file\n", f)
				return 2
			}
		}
	}
	if len(cfgPaths) == 0 {
		cfgPaths = []string{""} // the defaults: one game
	}
	// override applies the flags to a game's configuration (over its file).
	override := func(cfg *config.Config) {
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
	}
	var cfgs []config.Config
	for _, path := range cfgPaths {
		cfg := config.Default()
		if path != "" {
			c, err := config.Load(path)
			if err != nil {
				fmt.Fprintf(stderr, "twserver: %v\n", err)
				return 2
			}
			cfg = c
		}
		override(&cfg)
		if err := cfg.Validate(); err != nil {
			if len(cfgPaths) > 1 {
				err = fmt.Errorf("%s: %w", path, err)
			}
			fmt.Fprintf(stderr, "twserver: %v\n", err)
			return 2
		}
		cfgs = append(cfgs, cfg)
	}
	if err := checkGames(cfgs, cfgPaths); err != nil {
		fmt.Fprintf(stderr, "twserver: %v\n", err)
		return 2
	}
	cfg := cfgs[0]
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

	var console io.Reader
	if !*noStdin {
		console = stdin
	}
	return runGames(ctx, stop, cfgs, console, log, *memProf)
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
