package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"twserver/internal/nodns"
	"twserver/loadclient"
	"twserver/loadclient/scenario"
)

// Bounds of `twload bench`.
const (
	maxBenchServers = 8
	maxBenchWindows = 20
	maxBenchWindow  = 10 * time.Minute
	maxBenchGames   = 64 // twserver's MaxGames
	maxBenchCounts  = 16
	// benchSample is how often the server processes are sampled.
	benchSample = 500 * time.Millisecond
	// benchScrape is how often a server's /metrics is read (each read costs
	// the server some work).
	benchScrape = 2 * time.Second
	// benchSettle is the pause between a server binding its ports and the load.
	benchSettle = 500 * time.Millisecond
	// benchStopWait is how long a server gets to exit after SIGTERM before SIGKILL.
	benchStopWait = 5 * time.Second
	// DefaultBenchSettle is -settle's default: the time after the ramp-up
	// before the window. The last client starts joining at the end of the
	// ramp-up; its join (map download, entering the game) and the second
	// after it, during which twserver's reader reads each datagram as it
	// comes (sockio.PacedHold), cost the server more than the steady state
	// the window measures (docs/performance.md#the-join-cost).
	DefaultBenchSettle = 3 * time.Second
	// maxBenchPoints bounds a run's time series.
	maxBenchPoints = 4 * int(maxBenchWindow/benchSample)
)

// Placeholders of a -server command line.
const (
	phPort    = "{port}"    // the game's UDP port: one process per game
	phConfigs = "{configs}" // -config FILE per game (twserver's several games in one process)
	phMetrics = "{metrics}" // a free loopback host:port for the server's /metrics
	phMap     = "{map}"     // the name of -map's file (copied into maps/ of the process)
	phDir     = "{dir}"     // the process's own working directory
)

// benchServer is one -server: its name and command words.
type benchServer struct {
	Name string   `json:"name"`
	Cmd  string   `json:"cmd"`
	Args []string `json:"-"`
}

// perProcess reports whether the command serves one game per process
// (it has {port}); otherwise one process serves every game.
func (s *benchServer) perProcess() bool { return strings.Contains(s.Cmd, phPort) }

// benchConfig is the parsed command line of `twload bench`.
type benchConfig struct {
	Servers    []benchServer `json:"servers"`
	Clients    []int         `json:"clients"`
	Games      int           `json:"games"`
	Windows    int           `json:"windows"`
	WindowS    float64       `json:"window_s"`
	RampUpS    float64       `json:"ramp_up_s"`
	SettleS    float64       `json:"settle_s"`
	Proto      string        `json:"proto"`
	Pattern    string        `json:"pattern"`
	Pace       string        `json:"pace"`
	Map        string        `json:"map,omitempty"`
	GameConfig string        `json:"game_config,omitempty"`
	Metrics    bool          `json:"metrics"`
	// DDNetExtensions: snapshot items and messages of DDNet-Server's own
	// extensions, which twload's vanilla decoders reject, are not errors.
	DDNetExtensions bool `json:"ddnet_extensions"`
	// Scenario is the scenario file every run plays (-scenario) instead
	// of -clients, -rampup and -window.
	Scenario     string `json:"scenario,omitempty"`
	scenario     *scenario.Scenario
	window       time.Duration
	rampUp       time.Duration
	settle       time.Duration
	startTimeout time.Duration
	pattern      loadclient.Pattern
	pace         loadclient.Pace
	out          string
}

// multiFlag collects a repeated string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// runBench is `twload bench`: see the -h text and docs/load-testing.md.
func runBench(args []string, stdout, stderr io.Writer) int {
	c := newCommand("twload bench", "unused by bench (the servers' addresses come from the processes it starts)", stderr)
	fs := c.fs
	var servers, names multiFlag
	fs.Var(&servers, "server", "server command line (repeat for each server; quotes as in a shell, no shell run); placeholders: {port} (one process per game on this loopback port), {configs} (twserver: -config FILE per game, written by twload), {metrics} (loopback host:port for /metrics), {map}, {dir}")
	fs.Var(&names, "name", "name of the server of the same position (default: its program's file name)")
	clients := fs.String("clients", "0,4,16,63", "client counts per game, comma-separated (0: the idle server)")
	games := fs.Int("games", 1, fmt.Sprintf("games per server (1..%d): N processes of a {port} command, or N -config files for {configs}", maxBenchGames))
	windows := fs.Int("windows", 3, fmt.Sprintf("windows per client count (1..%d); even windows run the servers in reverse order", maxBenchWindows))
	window := fs.Duration("window", 20*time.Second, "measured time of each run, after the ramp-up")
	rampUp := fs.Duration("rampup", 3*time.Second, "clients join evenly over this time before the window")
	settle := fs.Duration("settle", DefaultBenchSettle, "after the ramp-up, the clients play this long before the window starts (the last joins' tail); the CPU from the start to here is the join figure")
	proto := fs.String("proto", "07", "client dialect: 07, 06, 06vanilla or mix")
	pattern := fs.String("pattern", "random", "input pattern: idle, walk, jumpfire, random")
	pace := fs.String("pace", "real", "when inputs go out: real (as the real clients) or tick (every tick)")
	mapFile := fs.String("map", "", "map file copied into every server's maps/ (and maps7/) directory, named by {map}, and the map of {configs}")
	gameConfig := fs.String("game-config", "", "TOML file every {configs} file starts from (twload sets server.bind, server.port and metrics.listen)")
	metrics := fs.Bool("metrics", false, "turn on the {configs} servers' /metrics and scrape every server's (also {metrics}) every "+benchScrape.String()+" for the tick work; it costs the server CPU and memory, so it is off by default")
	ddnetExt := fs.Bool("ddnet-extensions", false, "snapshot items and messages twload's vanilla decoders reject (DDNet-Server's own extensions) are counted apart, not as errors")
	startTimeout := fs.Duration("start-timeout", 20*time.Second, "a server that has not bound its ports after this long fails the run")
	out := fs.String("o", "", "directory for report.json, report.html and the servers' logs (default: a new temporary directory)")
	scenarioFile := fs.String("scenario", "", "every run plays this scenario file's phases (TOML) instead of -clients, -rampup, -window, -proto and -pattern; one game")
	if _, code, ok := c.parse(args); !ok {
		return code
	}
	bc := benchConfig{Games: *games, Windows: *windows, WindowS: window.Seconds(), RampUpS: rampUp.Seconds(), SettleS: settle.Seconds(),
		Proto: *proto, Pattern: *pattern, Pace: *pace, Map: *mapFile, GameConfig: *gameConfig,
		Metrics: *metrics, DDNetExtensions: *ddnetExt, window: *window, rampUp: *rampUp, settle: *settle, startTimeout: *startTimeout, out: *out}
	if *scenarioFile != "" {
		var clash []string
		c.fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "clients", "rampup", "window", "proto", "pattern", "pace", "games":
				clash = append(clash, "-"+f.Name)
			}
		})
		if len(clash) > 0 {
			return c.usage("%s: not with -scenario (the scenario file sets the clients and their times; one game)", strings.Join(clash, ", "))
		}
		sc, err := loadScenario(*scenarioFile)
		if err != nil {
			return c.usage("%v", err)
		}
		bc.scenario, bc.Scenario = sc, *scenarioFile
		bc.window, bc.rampUp, bc.settle = sc.Total(), 0, 0
		bc.WindowS, bc.RampUpS, bc.SettleS, bc.Proto, bc.Pattern = sc.Total().Seconds(), 0, 0, sc.Proto, sc.Pattern.String()
		*clients = strconv.Itoa(sc.Clients())
	}
	if err := bc.init(servers, names, *clients); err != nil {
		return c.usage("%v", err)
	}
	if err := nodns.Check(); err != nil { // every server starts confined (startProc)
		return c.fail(fmt.Errorf("refused: the servers' name look-ups cannot be confined to the machine: %v", err))
	}
	if bc.out == "" {
		d, err := os.MkdirTemp("", "twbench")
		if err != nil {
			return c.fail(err)
		}
		bc.out = d
	}
	if err := os.MkdirAll(bc.out, 0o755); err != nil {
		return c.fail(err)
	}
	if d, err := filepath.Abs(bc.out); err == nil { // the servers run in their own directories
		bc.out = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, bc.bound())
	defer cancel()
	fmt.Fprintf(stderr, "twload bench: %d servers x %d client counts x %d windows, at most %v; output in %s\n",
		len(bc.Servers), len(bc.Clients), bc.Windows, bc.bound().Round(time.Second), bc.out)
	live := isTerminal(os.Stderr)
	rep := bc.run(ctx, stderr, live)
	rep.summarize()
	rep.writeText(stdout)
	for _, r := range rep.Rows {
		if len(r.Phases) > 0 {
			fmt.Fprintf(stdout, "%s, window %d, phases of %s:\n", r.Server, r.Window, bc.Scenario)
			writePhaseTable(stdout, r.Phases)
		}
	}
	if code := writeReport(&rep, bc.out); code != nil {
		return c.fail(code)
	}
	fmt.Fprintf(stderr, "twload bench: report in %s\n", filepath.Join(bc.out, "report.html"))
	if !rep.OK {
		fmt.Fprintf(stderr, "twload bench: FAIL: %s\n", rep.FirstProblem)
		return 1
	}
	return 0
}

// init checks the flags and fills the servers and client counts.
func (bc *benchConfig) init(servers, names []string, clients string) error {
	if len(servers) == 0 || len(servers) > maxBenchServers {
		return fmt.Errorf("give 1..%d -server commands", maxBenchServers)
	}
	if len(names) > len(servers) {
		return errors.New("more -name than -server")
	}
	seen := map[string]bool{}
	for i, cmd := range servers {
		w, err := splitWords(cmd)
		if err != nil {
			return fmt.Errorf("-server %q: %v", cmd, err)
		}
		s := benchServer{Name: filepath.Base(w[0]), Cmd: cmd, Args: w}
		if i < len(names) {
			s.Name = names[i]
		}
		for base, k := s.Name, 2; seen[s.Name]; k++ {
			s.Name = fmt.Sprintf("%s-%d", base, k)
		}
		seen[s.Name] = true
		hasConfigs := strings.Contains(cmd, phConfigs)
		if s.perProcess() && hasConfigs {
			return fmt.Errorf("-server %q: {port} (a process per game) and {configs} (one process for all) exclude each other", cmd)
		}
		if bc.Games > 1 && !s.perProcess() && !hasConfigs {
			return fmt.Errorf("-server %q: -games %d needs {port} (a process per game) or {configs} (twserver's games in one process)", cmd, bc.Games)
		}
		bc.Servers = append(bc.Servers, s)
	}
	for _, f := range strings.Split(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > loadclient.MaxClients {
			return fmt.Errorf("-clients: %q is not a count 0..%d", f, loadclient.MaxClients)
		}
		if n > 0 && bc.Games > loadclient.MaxTargets {
			return fmt.Errorf("-clients %d with -games %d: one twload loads at most %d games", n, bc.Games, loadclient.MaxTargets)
		}
		bc.Clients = append(bc.Clients, n)
	}
	if len(bc.Clients) > maxBenchCounts {
		return fmt.Errorf("at most %d client counts", maxBenchCounts)
	}
	switch {
	case bc.Games < 1 || bc.Games > maxBenchGames:
		return fmt.Errorf("-games must be 1..%d", maxBenchGames)
	case bc.Windows < 1 || bc.Windows > maxBenchWindows:
		return fmt.Errorf("-windows must be 1..%d", maxBenchWindows)
	case bc.window <= 0 || bc.window > maxBenchWindow && bc.scenario == nil:
		return fmt.Errorf("-window must be in (0, %v]", maxBenchWindow)
	case bc.settle < 0 || bc.settle > maxBenchWindow:
		return fmt.Errorf("-settle must be in [0, %v]", maxBenchWindow)
	case bc.rampUp < 0 || bc.rampUp > maxBenchWindow:
		return fmt.Errorf("-rampup must be in [0, %v]", maxBenchWindow)
	case bc.startTimeout <= 0 || bc.startTimeout > time.Minute:
		return errors.New("-start-timeout must be in (0, 1m]")
	}
	var err error
	if bc.pattern, err = loadclient.ParsePattern(bc.Pattern); err != nil {
		return err
	}
	if bc.pace, err = loadclient.ParsePace(bc.Pace); err != nil {
		return err
	}
	rc := loadclient.RunConfig{Server: netip.MustParseAddrPort("127.0.0.1:8303"), Clients: 1, Duration: time.Second, Proto: bc.Proto}
	if err := rc.Validate(); err != nil {
		return err
	}
	if bc.Map != "" {
		if _, err := os.Stat(bc.Map); err != nil {
			return fmt.Errorf("-map: %v", err)
		}
		if bc.Map, err = filepath.Abs(bc.Map); err != nil { // the servers run in their own directories
			return err
		}
	}
	return nil
}

// bound is the longest the whole bench may take: every run's start-up,
// settling, ramp-up, window and stop, plus a minute.
func (bc *benchConfig) bound() time.Duration {
	per := bc.startTimeout + benchSettle + bc.rampUp + bc.settle + bc.window + benchStopWait + loadclient.DefaultEnterTimeout
	return time.Duration(len(bc.Servers)*len(bc.Clients)*bc.Windows)*per + time.Minute
}

// run runs every window of every client count against every server.
func (bc *benchConfig) run(ctx context.Context, log io.Writer, live bool) benchReport {
	rep := benchReport{Config: *bc, Started: time.Now().UTC().Format(time.RFC3339), OK: true, ServerSampled: true}
	rep.Machine = machineInfo()
	for _, n := range bc.Clients {
		for w := 1; w <= bc.Windows; w++ {
			order := make([]int, len(bc.Servers))
			for i := range order {
				order[i] = i
				if w%2 == 0 {
					order[i] = len(order) - 1 - i
				}
			}
			for pos, si := range order {
				if ctx.Err() != nil {
					rep.fail("bench stopped: %v", context.Cause(ctx))
					return rep
				}
				s := &bc.Servers[si]
				fmt.Fprintf(log, "twload bench: %s, %d clients x %d games, window %d/%d\n", s.Name, n, bc.Games, w, bc.Windows)
				row := bc.runOne(ctx, s, n, w, pos, log, live)
				if row.Error != "" {
					rep.fail("%s, %d clients, window %d: %s", s.Name, n, w, row.Error)
					fmt.Fprintf(log, "twload bench: %s\n", row.Error)
				}
				rep.Rows = append(rep.Rows, row)
			}
		}
	}
	return rep
}

// benchProc is one server process of a run.
type benchProc struct {
	cmd  *exec.Cmd
	prog string // the server's program, as given
	done chan struct{}
	err  error
	log  *os.File
}

// stop ends the process group: SIGTERM, SIGKILL after benchStopWait.
func (p *benchProc) stop() {
	pg := -p.cmd.Process.Pid
	syscall.Kill(pg, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(benchStopWait):
		syscall.Kill(pg, syscall.SIGKILL)
		<-p.done
	}
	syscall.Kill(pg, syscall.SIGKILL) // anything of the group left behind
	p.log.Close()
}

// exited reports whether the process ended by itself.
func (p *benchProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// freeUDPPorts returns n distinct loopback UDP ports that were free a
// moment ago (held open together while picked, so none comes twice).
func freeUDPPorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer c.Close()
		ports = append(ports, c.LocalAddr().(*net.UDPAddr).Port)
	}
	return ports, nil
}

// freeTCPAddr returns a loopback TCP address that was free a moment ago.
func freeTCPAddr() (string, error) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// runOne starts server s for one window, loads it with n clients per
// game, samples it and stops it.
func (bc *benchConfig) runOne(ctx context.Context, s *benchServer, n, window, pos int, log io.Writer, live bool) benchRow {
	row := benchRow{Server: s.Name, Clients: n, Games: bc.Games, Window: window, Order: pos + 1}
	dir := filepath.Join(bc.out, "runs", fmt.Sprintf("%s-c%d-w%d", safeName(s.Name), n, window))
	os.RemoveAll(dir)
	procs, ports, metricsAddr, err := bc.start(s, dir)
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	if err != nil {
		row.Error = err.Error()
		return row
	}
	pids := func() []int {
		var all []int
		for _, p := range procs {
			all = append(all, procTree(p.cmd.Process.Pid)...)
		}
		return all
	}
	if ports, err = waitBound(ctx, procs, pids, ports, bc.startTimeout); err != nil {
		row.Error = err.Error() + " (see " + dir + ")"
		return row
	}
	row.Ports = ports
	time.Sleep(benchSettle)

	start := time.Now()
	smp := newSampler(start, pids, metricsAddr)
	smpCtx, smpStop := context.WithCancel(ctx)
	smpDone := make(chan struct{})
	go func() { defer close(smpDone); smp.run(smpCtx) }()
	var sum *loadclient.Summary
	if bc.scenario != nil {
		sum, row.Phases, row.Error = bc.runScenario(ctx, ports[0], smp, log, live)
	} else if n > 0 {
		rcs := make([]loadclient.RunConfig, len(ports))
		for g, port := range ports {
			addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
			rcs[g] = loadclient.RunConfig{Server: addr, Clients: n, RampUp: bc.rampUp, Duration: bc.settle + bc.window,
				Pattern: bc.pattern, Pace: bc.pace, Seed: 1 + uint64(g*loadclient.MaxClients), Proto: bc.Proto,
				Sources: autoSources(addr, n), SourceBase: netip.MustParseAddr("127.0.0.2"),
				Maps: &loadclient.MapCache{}, EnterTimeout: loadclient.DefaultEnterTimeout}
		}
		attachStatus(rcs, func(st loadclient.Status) {
			smp.status(st)
			if live {
				fmt.Fprintf(log, "\r%s\x1b[K", st)
			}
		})
		cpu0, t0 := cpuTime(), time.Now()
		s, err := loadclient.RunMany(ctx, rcs)
		noteCPU(&s, cpuTime()-cpu0, time.Since(t0)) // twload's own, with the sampling
		if live {
			fmt.Fprintln(log)
		}
		if err != nil {
			row.Error = err.Error()
		} else {
			sum = &s
		}
	} else {
		select {
		case <-ctx.Done():
		case <-time.After(bc.rampUp + bc.settle + bc.window):
		}
	}
	smpStop()
	<-smpDone
	smp.sample(time.Now()) // the last point
	for _, p := range procs {
		if p.exited() && row.Error == "" {
			row.Error = fmt.Sprintf("the server exited during the run: %v (see %s)", p.err, dir)
		}
	}
	if smp.offLoopback != "" {
		row.Error = "refused: the server has a " + smp.offLoopback + " (not loopback)"
	}
	row.fill(smp, sum, (bc.rampUp + bc.settle).Seconds(), bc.DDNetExtensions)
	serverPhases(row.Phases, row.Series)
	return row
}

// runScenario plays the bench's scenario against the server on port.
func (bc *benchConfig) runScenario(ctx context.Context, port int, smp *sampler, log io.Writer, live bool) (*loadclient.Summary, []phaseReport, string) {
	addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port))
	pl, err := scenarioRunConfig(bc.scenario, addr, scenarioOpts{sourceBase: "127.0.0.2"})
	if err != nil {
		return nil, nil, err.Error()
	}
	cpu0, t0 := cpuTime(), time.Now()
	s, phases, err := runScenario(ctx, bc.scenario, pl, func(phase string, st loadclient.Status) {
		smp.status(st)
		if live {
			fmt.Fprintf(log, "\r%s  %s\x1b[K", phase, st)
		}
	})
	noteCPU(&s, cpuTime()-cpu0, time.Since(t0))
	if live {
		fmt.Fprintln(log)
	}
	if err != nil {
		return nil, nil, err.Error()
	}
	for _, p := range phases {
		if p.Error != "" {
			return &s, phases, "phase " + p.Name + ": " + p.Error
		}
	}
	return &s, phases, ""
}

// safeName keeps letters, digits, '-', '_' and '.' of a server name for a
// directory name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// start starts the processes of server s for one run in dir: one per game
// for a {port} command, else one. It returns them, each game's port (nil
// when the ports are to be found from the process's sockets) and the
// /metrics address ("" without one).
func (bc *benchConfig) start(s *benchServer, dir string) ([]*benchProc, []int, string, error) {
	var metricsAddr string
	if strings.Contains(s.Cmd, phMetrics) || bc.Metrics && strings.Contains(s.Cmd, phConfigs) {
		var err error
		if metricsAddr, err = freeTCPAddr(); err != nil {
			return nil, nil, "", err
		}
	}
	nproc := 1
	if s.perProcess() {
		nproc = bc.Games
	}
	var ports []int
	if s.perProcess() || strings.Contains(s.Cmd, phConfigs) {
		var err error
		if ports, err = freeUDPPorts(bc.Games); err != nil {
			return nil, nil, "", err
		}
	}
	var procs []*benchProc
	for i := range nproc {
		pdir := filepath.Join(dir, fmt.Sprintf("p%d", i+1))
		if err := os.MkdirAll(filepath.Join(pdir, "home"), 0o755); err != nil {
			return procs, nil, "", err
		}
		mapName, err := bc.copyMap(pdir)
		if err != nil {
			return procs, nil, "", err
		}
		var words []string
		for _, w := range s.Args {
			if w == phConfigs {
				files, err := bc.writeConfigs(pdir, ports, metricsAddr)
				if err != nil {
					return procs, nil, "", err
				}
				for _, f := range files {
					words = append(words, "-config", f)
				}
				continue
			}
			port := ""
			if s.perProcess() {
				port = strconv.Itoa(ports[i])
			}
			w = strings.NewReplacer(phPort, port, phMetrics, metricsAddr, phMap, mapName, phDir, pdir).Replace(w)
			words = append(words, w)
		}
		p, err := startProc(words, pdir)
		if err != nil {
			return procs, nil, "", err
		}
		procs = append(procs, p)
	}
	return procs, ports, metricsAddr, nil
}

// copyMap copies -map into dir/maps and dir/maps7 (where the reference
// servers look for it) and returns its name, "" without -map.
func (bc *benchConfig) copyMap(dir string) (string, error) {
	if bc.Map == "" {
		return "", nil
	}
	b, err := os.ReadFile(bc.Map)
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(bc.Map), ".map")
	for _, sub := range []string{"maps", "maps7"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, sub, name+".map"), b, 0o644); err != nil {
			return "", err
		}
	}
	return name, nil
}

// writeConfigs writes one twserver config file per game into dir: the
// -game-config file's settings (default: 64 slots, 16 players, 4 clients
// per address, no inactivity kick) with the game bound to 127.0.0.1 on its
// port, and the shared metrics endpoint.
func (bc *benchConfig) writeConfigs(dir string, ports []int, metricsAddr string) ([]string, error) {
	base := map[string]any{}
	if bc.GameConfig != "" {
		if _, err := toml.DecodeFile(bc.GameConfig, &base); err != nil {
			return nil, fmt.Errorf("-game-config: %v", err)
		}
	}
	table := func(k string) map[string]any {
		t, ok := base[k].(map[string]any)
		if !ok {
			t = map[string]any{}
			base[k] = t
		}
		return t
	}
	setDefault := func(t map[string]any, k string, v any) {
		if _, ok := t[k]; !ok {
			t[k] = v
		}
	}
	srv := table("server")
	setDefault(srv, "max_clients", 64)
	setDefault(srv, "player_slots", 16)
	setDefault(srv, "max_clients_per_ip", 4)
	setDefault(table("game"), "inactive_kick_time", 0)
	if bc.Map != "" {
		table("map")["file"] = bc.Map
	}
	srv["bind"] = "127.0.0.1"
	if metricsAddr != "" {
		table("metrics")["listen"] = metricsAddr
	}
	var files []string
	for g, port := range ports {
		srv["port"] = port
		f := filepath.Join(dir, fmt.Sprintf("game%d.toml", g+1))
		w, err := os.Create(f)
		if err != nil {
			return nil, err
		}
		err = toml.NewEncoder(w).Encode(base)
		w.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// startProc starts words in dir (its own process group, HOME=dir/home,
// killed with twload, output to dir/server.log), its host-name look-ups
// confined to the machine (internal/nodns: the reference servers look
// names up at start even when they do not register).
func startProc(words []string, dir string) (*benchProc, error) {
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logf, "# %q\n", words)
	prog := words[0]
	if strings.ContainsRune(prog, '/') && !filepath.IsAbs(prog) { // relative to twload's directory, not the server's
		var err error
		if prog, err = filepath.Abs(prog); err != nil {
			return nil, err
		}
	}
	cmd := nodns.Command(prog, words[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "XDG_DATA_HOME=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "HOME="+filepath.Join(dir, "home"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %v", words[0], err)
	}
	p := &benchProc{cmd: cmd, prog: words[0], done: make(chan struct{}), log: logf}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitBound waits until the processes have bound the game ports on
// loopback (or, with ports nil, one UDP port, which it fills in), and
// refuses a server with any socket off loopback.
func waitBound(ctx context.Context, procs []*benchProc, pids func() []int, ports []int, timeout time.Duration) ([]int, error) {
	deadline := time.Now().Add(timeout)
	for {
		socks := treeSockets(pids())
		if what, ok := offLoopback(socks); !ok {
			return nil, fmt.Errorf("refused: the server has a %s, not a loopback address (bind it to 127.0.0.1: twserver -bind 127.0.0.1, teeworlds-server and DDNet-Server 'bindaddr 127.0.0.1'; and no master registration)", what)
		}
		bound := map[int]bool{}
		for _, s := range socks {
			if s.Proto == "udp" {
				bound[int(s.Local.Port())] = true
			}
		}
		if len(ports) == 0 && len(bound) > 0 {
			if len(bound) > 1 {
				return nil, fmt.Errorf("the server bound %d UDP ports: say which with {port}", len(bound))
			}
			for p := range bound {
				ports = append(ports, p)
			}
			return ports, nil
		}
		all := len(ports) > 0
		for _, p := range ports {
			all = all && bound[p]
		}
		if all {
			return ports, nil
		}
		for _, p := range procs {
			if p.exited() {
				return nil, fmt.Errorf("%s exited before binding its port: %v", p.prog, p.err)
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server did not bind UDP ports %v on loopback within %v", ports, timeout)
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sampler records a run's time series: the server processes' CPU and
// memory from /proc, the tick work from /metrics, and the clients' figures
// from the load's status.
type sampler struct {
	start   time.Time
	pids    func() []int
	metrics string

	mu          sync.Mutex
	points      []benchPoint
	prevT       time.Duration
	prevCPU     int64
	prevTick    [2]float64 // sum of seconds, count
	lastScrape  time.Time
	peakHWM     int64
	lastStatus  loadclient.Status
	offLoopback string
}

func newSampler(start time.Time, pids func() []int, metrics string) *sampler {
	s := &sampler{start: start, pids: pids, metrics: metrics}
	s.prevCPU = sampleTree(pids()).CPUNanos
	s.prevTick, s.lastScrape = s.scrapeTick(), start
	return s
}

// run samples every benchSample until ctx ends.
func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(benchSample)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.sample(now)
		}
	}
}

// status records the load's live figures (called by the status callback).
func (s *sampler) status(st loadclient.Status) {
	s.mu.Lock()
	s.lastStatus = st
	s.mu.Unlock()
}

// sample adds one point.
func (s *sampler) sample(now time.Time) {
	pids := s.pids()
	ts := sampleTree(pids)
	var tick [2]float64
	scraped := s.metrics != "" && now.Sub(s.lastScrape) >= benchScrape-benchSample/2
	if scraped {
		tick = s.scrapeTick()
		s.lastScrape = now
	}
	if what, ok := offLoopback(treeSockets(pids)); !ok {
		s.mu.Lock()
		s.offLoopback = what
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now.Sub(s.start)
	dt := t - s.prevT
	if dt < benchSample/2 || len(s.points) >= maxBenchPoints { // a rate over a short interval is noise
		return
	}
	p := benchPoint{T: round2(t.Seconds()), RSSMB: round2(float64(ts.RSSKB) / 1024),
		CPUPct: round2(float64(ts.CPUNanos-s.prevCPU) / float64(dt) * 100), cpuNanos: ts.CPUNanos,
		userTicks: ts.UserTicks, sysTicks: ts.SysTicks,
		InGame: s.lastStatus.InGame, SnapsPerSec: round2(s.lastStatus.SnapRate)}
	if dc := tick[1] - s.prevTick[1]; scraped && dc > 0 {
		p.TickMs = round2((tick[0] - s.prevTick[0]) / dc * 1000)
	}
	if scraped {
		s.prevTick = tick
	}
	s.points = append(s.points, p)
	s.prevT, s.prevCPU = t, ts.CPUNanos
	s.peakHWM = max(s.peakHWM, ts.HWMKB)
}

// scrapeTick reads the sum and count of twserver_tick_duration_seconds
// over every game from /metrics (zeros without one).
func (s *sampler) scrapeTick() [2]float64 {
	var r [2]float64
	if s.metrics == "" {
		return r
	}
	cl := http.Client{Timeout: 200 * time.Millisecond}
	resp, err := cl.Get("http://" + s.metrics + "/metrics")
	if err != nil {
		return r
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 16<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		for i, suffix := range []string{"_sum", "_count"} {
			name := "twserver_tick_duration_seconds" + suffix
			if !strings.HasPrefix(l, name+" ") && !strings.HasPrefix(l, name+"{") {
				continue
			}
			f := strings.Fields(l)
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				r[i] += v
			}
		}
	}
	return r
}
