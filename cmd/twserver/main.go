// Command twserver runs a Teeworlds 0.7.5-compatible game server.
//
// With no arguments it serves the embedded default map on UDP port 8303 on all
// addresses. A TOML file (-config) sets everything, or, as teeworlds-server
// takes them, files of console commands (-f server.cfg) and commands as
// arguments ("sv_port 8304"). Precedence: defaults < file < environment
// (SV_PORT=8304, TWSERVER_METRICS_LISTEN=...) < command line.
// Given -config several times, one process runs one game per file, each
// isolated (its own socket, slots, world, bans and recordings).
// Console commands (kick, ban, change_map, restart, status, ...) are read from
// standard input. SIGINT, SIGTERM and SIGHUP shut the server down: every client is told
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
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"twserver/config"
	"twserver/handover"
	"twserver/watch"
)

// shutdownGrace bounds the time between the signal and the process exit.
const shutdownGrace = 5 * time.Second

// logTimeFormat is the time of a console log line: the full local date and
// time, which fail2ban and log collectors read without a year guess.
const logTimeFormat = "2006-01-02 15:04:05.000"

// loadGame builds one game's configuration: the defaults, then its file
// (path: TOML, or the reference syntax for a name ending in .cfg) or the -f
// files, then the environment, then the command-line commands, then the
// flags (override). It returns the warnings to log.
func loadGame(path string, refFiles, commands []string, override func(*config.Loader)) (config.Config, []config.Warning, error) {
	l := config.NewLoader()
	var err error
	switch {
	case strings.HasSuffix(path, ".cfg"):
		err = l.ExecFile(path)
	case path != "":
		err = l.LoadTOML(path)
	}
	for _, f := range refFiles {
		if err == nil {
			err = l.ExecFile(f)
		}
	}
	if err == nil {
		err = l.ApplyEnv(os.LookupEnv)
		l.CheckEnv(os.Environ(), handover.EnvVar, InitEnv)
	}
	for _, c := range commands {
		if err == nil {
			err = l.ExecCommand(c)
		}
	}
	if err != nil {
		return config.Config{}, l.Warnings, err
	}
	override(l)
	cfg, err := l.Finish()
	return cfg, l.Warnings, err
}

// watchChild is the executable whose child processes replay recordings
// for the web page's viewer (web.Options.WatchChild): this binary, set by
// main; "" (a test's run) replays them in the process.
var watchChild string

// selfExe is the running binary for a child of the same version: on Linux
// /proc/self/exe, the file this process runs even after an upgrade
// replaced the one at its path; elsewhere that path ("" if unknown).
func selfExe() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	exe, _ := os.Executable()
	return exe
}

func main() {
	if watch.IsChild() { // a replay for the recorded-game viewer (watchChild)
		os.Exit(watch.RunChild())
	}
	watchChild = selfExe()
	handover.Remember() // before the binary can be replaced: an upgrade starts the file at this path
	if asInit() {
		os.Exit(runInit())
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stderr))
}

// run parses args, starts the server and blocks until a signal or a fatal error.
// It returns the process exit code: 0 clean, 1 runtime error, 2 usage/config error.
func run(args []string, stdin io.Reader, stderr io.Writer) int {
	allArgs := args // an upgrade starts the new binary with them
	fs := flag.NewFlagSet("twserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: twserver [flags] [console command ...]\n"+
			"Console commands given as arguments (twserver -f server.cfg \"sv_port 8304\") apply after the\n"+
			"files and the environment, as with teeworlds-server. No argument: the embedded map on UDP 8303.\n"+
			"Exit status: 0 clean shutdown, 1 runtime error, 2 usage or configuration error.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var (
		port     = fs.Int("port", 0, "UDP port (overrides server.port)")
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
	var cfgPaths, refFiles, commands []string
	fs.Func("config", "TOML configuration `file` (a name ending in .cfg: the reference's syntax); given several times, one process runs one game per file", func(p string) error {
		cfgPaths = append(cfgPaths, p)
		return nil
	})
	fs.Func("f", "execute a `file` of the reference server's console commands (teeworlds-server -f); may be repeated", func(p string) error {
		refFiles = append(refFiles, p)
		return nil
	})
	// Flags and console commands may alternate, as teeworlds-server takes
	// them: twserver -f server.cfg "sv_port 8304" -log-format json.
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return 0 // the usage asked for is no error
		} else if err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		commands = append(commands, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *hcURL != "" {
		return healthcheck(*hcURL, stderr)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// A configuration that cannot be read stops the start before the
	// logger is made from it: the error comes in the format the flag or
	// the environment asks for, so a JSON log collector reads it.
	early := os.Getenv(config.EnvName("log.format"))
	if set["log-format"] {
		early = *logFmt
	}
	fail := func(format string, a ...any) int {
		configFailed(stderr, early, fmt.Errorf(format, a...))
		return 2
	}
	if len(refFiles) > 0 && len(cfgPaths) > 0 {
		return fail("-f and -config cannot be combined (with several games give each its file with -config, FILE.cfg for the reference syntax)")
	}
	if len(cfgPaths) > 1 {
		for _, f := range gameFlags {
			if set[f] {
				return fail("-%s sets one game's setting; with several -config files set it in each file", f)
			}
		}
		if len(commands) > 0 {
			return fail("the command %q sets one game's setting; with several -config files set it in each file", commands[0])
		}
	}
	if len(cfgPaths) == 0 {
		cfgPaths = []string{""} // the defaults (or the -f files): one game
	}
	// override applies the flags to a game's configuration, last.
	override := func(l *config.Loader) {
		cfg := l.Config()
		flagSet := func(name, key string, apply func()) {
			if set[name] {
				apply()
				l.Set(key, "flag -"+name)
			}
		}
		flagSet("port", "server.port", func() { cfg.Server.Port = *port })
		flagSet("bind", "server.bind", func() { cfg.Server.Bind = *bind })
		if set["map"] {
			l.SetMapFile(*mapFile, "flag -map")
		}
		flagSet("name", "server.name", func() { cfg.Server.Name = *name })
		flagSet("gametype", "game.type", func() { cfg.Game.Type = *gametype })
		flagSet("max-clients", "server.max_clients", func() { cfg.Server.MaxClients = *maxCl })
		flagSet("player-slots", "server.player_slots", func() { cfg.Server.PlayerSlots = *slots })
		flagSet("password", "server.password", func() { cfg.Server.Password = *password })
		flagSet("rcon-password", "server.rcon_password", func() { cfg.Server.RconPassword = *rconPw })
		flagSet("log-level", "log.level", func() { cfg.Log.Level = *logLevel })
		flagSet("log-format", "log.format", func() { cfg.Log.Format = *logFmt })
	}
	var cfgs []config.Config
	var warnings [][]config.Warning
	for _, path := range cfgPaths {
		cfg, warns, err := loadGame(path, refFiles, commands, override)
		if err != nil {
			if len(cfgPaths) > 1 && !strings.HasPrefix(err.Error(), path) {
				err = fmt.Errorf("%s: %w", path, err)
			}
			return fail("%w", err)
		}
		cfgs = append(cfgs, cfg)
		warnings = append(warnings, warns)
	}
	if err := checkGames(cfgs, cfgPaths); err != nil {
		return fail("%w", err)
	}
	cfg := cfgs[0]
	log := newLogger(cfg.Log, stderr)
	for i, warns := range warnings {
		glog := log
		if len(cfgs) > 1 {
			glog = log.With().Str("game", gameAddr(cfgs[i])).Logger()
		}
		for _, w := range warns {
			e := glog.Warn().Str("where", w.Where)
			if w.Command != "" {
				e = e.Str("command", w.Command)
			}
			e.Msg(w.Msg)
		}
		c := cfgs[i]
		glog.Info().Str("name", c.Server.Name).Int("port", c.Server.Port).Int("max_clients", c.Server.MaxClients).
			Int("player_slots", min(c.Server.PlayerSlots, c.Server.MaxClients)).Str("gametype", c.Game.Type).Int("warmup", c.Game.Warmup).
			Bool("register", c.Register.Enabled).Msg("configuration")
	}
	in, err := handover.Inherited()
	if err != nil {
		log.Error().Err(err).Msg("cannot read the upgrade's handover")
		return 2
	}
	for i, c := range cfgs {
		if err := checkMap(c.Map); err != nil { // a map that cannot load is the configuration's error
			err = fmt.Errorf("%s%w", gamePrefix(cfgPaths[i], refFiles), err)
			log.Error().Err(err).Msg("cannot load the map: not started")
			if in != nil {
				_ = in.Refuse(err.Error()) // the old process goes on
			}
			return 2
		}
	}
	if in != nil {
		if err := takeOver(in, cfgs); err != nil {
			log.Error().Err(err).Msg("upgrade refused: the old process goes on")
			_ = in.Refuse(err.Error())
			return 1
		}
	}
	if *cpuProf != "" {
		stopProf, err := startCPUProfile(*cpuProf)
		if err != nil {
			fmt.Fprintf(stderr, "twserver: %v\n", err)
			return 1
		}
		defer stopProf()
	}

	ctx, stop := stopOnSignal(log)
	defer stop()

	var console io.Reader
	if !*noStdin {
		console = stdin
		if in != nil && isTerminal(stdin) {
			console = nil
			log.Info().Msg("upgrade: standard input is a terminal, which its shell takes back as the old process exits: " +
				"this process reads no console there (use rcon, econ or server.input_fifo)")
		}
	}
	return runGames(ctx, stop, cfgs, console, log, *memProf, upgradeArgs{args: allArgs, in: in})
}

// isTerminal reports whether r is a terminal. The new process of an
// upgrade started from a shell's terminal must not read it: the shell
// reads it again once the old process, its job, exits, and a read begun
// before would take the operator's next shell command as a console command.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// stopSignals shut the server down cleanly: SIGINT (Ctrl-C), SIGTERM
// (docker stop, systemctl stop) and SIGHUP (the terminal closed, or an
// operator's habit of "kill -HUP to reload"; an upgrade is SIGUSR2), which
// would otherwise end the process at once, telling no client and cutting
// the recordings short.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// stopOnSignal returns a context that ends at the first of stopSignals,
// logging which; stop restores the signals' default, so that a second
// one kills the process at once.
func stopOnSignal(log zerolog.Logger) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	go func() {
		select {
		case s := <-ch:
			log.Info().Str("signal", signalName(s)).Msg("signal received: shutting down (a second one kills the process at once)")
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// signalName is a signal's name as kill(1) takes it (SIGHUP).
func signalName(s os.Signal) string {
	if n, ok := s.(syscall.Signal); ok {
		if name := unix.SignalName(n); name != "" {
			return name
		}
	}
	return s.String()
}

func newLogger(c config.LogConfig, w io.Writer) zerolog.Logger {
	lvl, err := zerolog.ParseLevel(c.Level)
	if err != nil {
		lvl = zerolog.InfoLevel
	}
	out := w
	if c.Format == "console" {
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: logTimeFormat, NoColor: true}
	}
	zerolog.TimeFieldFormat = time.RFC3339Nano
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger()
}

// configFailed reports err, a configuration that cannot be read, on w:
// a JSON log line when format is "json", else the line
// "twserver: ERROR" for the operator at the terminal.
func configFailed(w io.Writer, format string, err error) {
	if format == "json" {
		l := newLogger(config.LogConfig{Format: "json", Level: "error"}, w)
		l.Error().Err(err).Msg("configuration error: not started")
		return
	}
	fmt.Fprintf(w, "twserver: %v\n", err)
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
