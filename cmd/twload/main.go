// Command twload runs synthetic Teeworlds 0.7 clients (or, with -proto 06
// or mix, DDNet-style 0.6 clients too) against a server: each
// does the real handshake, downloads the map when it lacks it, enters the
// game, sends inputs at the real clients' pace (-pace) and decodes every snapshot (delta and CRC
// check). Against an IPv4 loopback target every client gets its own
// loopback source address unless -sources says otherwise, so a server's
// per-address limit does not refuse them. While it runs, a status line on
// a terminal's standard error shows time left, clients in game,
// snapshots/s and errors; at the end it prints a JSON summary (clients
// connected and failed with reasons, snapshots, bytes and packets per
// second per client, CRC errors, input-to-snapshot latency percentiles)
// and, on standard error, a short table of the same with the limit behind
// any refusal and the flag that lifts it.
//
// Exit status: 0 when every client entered the game and no snapshot or
// message failed its checks, 1 otherwise, 2 for usage errors.
//
// Two subcommands test the server's defences (loopback targets only,
// bounded in rate and time): `twload hold` (hold.go) opens many
// connections from distinct 127.x.y.z addresses that stall on their way
// into the game, and `twload flood` (flood.go) sends unverified packets
// from many addresses while a few normal clients play. `twload bench`
// (bench.go) starts servers itself, a fresh process per window, loads them
// side by side and measures them from /proc; its report (benchreport.go,
// html.go) is also what `twload -o DIR` writes for a single run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"twserver/loadclient"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "hold":
			return runHold(args[1:], stdout, stderr)
		case "flood":
			return runFlood(args[1:], stdout, stderr)
		case "bench":
			return runBench(args[1:], stdout, stderr)
		}
	}
	c := newCommand("twload", "server address `host:port`", stderr)
	fs, usage := c.fs, c.usage
	fs.Usage = func() { // -h: the subcommands too, which have flags of their own
		fmt.Fprint(stderr, "usage: twload [flags]          synthetic clients against a server on loopback\n"+
			"       twload hold [flags]     connections that stall on their way into the game\n"+
			"       twload flood [flags]    a bounded flood of unverified datagrams while clients play\n"+
			"       twload bench [flags]    servers it starts, loaded side by side and measured\n"+
			"(each subcommand lists its flags with -h; docs/load-testing.md)\n\nflags of twload:\n")
		fs.PrintDefaults()
	}
	clients := fs.Int("clients", 8, "number of clients (1..64)")
	fs.IntVar(clients, "n", 8, "shorthand for -clients")
	duration := fs.Duration("duration", 30*time.Second, "how long the run lasts after the ramp-up")
	rampUp := fs.Duration("rampup", 2*time.Second, "clients start evenly spread over this time")
	pattern := fs.String("pattern", "random", "input pattern: idle, walk, jumpfire, random")
	pace := fs.String("pace", "real", "when inputs go out: real (as the 0.7.5 and DDNet clients: on change, else every 2nd tick) or tick (every tick, 50/s: the pace of older twload versions, to compare with their figures)")
	seed := fs.Uint64("seed", 1, "seed of the random pattern (client i uses seed+i)")
	sources := fs.Int("sources", -1, "spread clients over this many loopback source addresses starting at -source-base (0: system default; -1: one address per client against an IPv4 loopback target, so a server's per-address limit accepts them all)")
	sourceBase := fs.String("source-base", "127.0.0.1", "first source address for -sources")
	mapDir := fs.String("mapdir", "", "directory caching downloaded maps across runs (empty: memory only)")
	password := fs.String("password", "", "server password")
	enterTimeout := fs.Duration("enter-timeout", loadclient.DefaultEnterTimeout, "a client that is not in game after this long fails")
	perClient := fs.Bool("per-client", false, "include per-client statistics in the JSON summary")
	proto := fs.String("proto", "07", "client dialect: 07, 06 (DDNet 0.6 with the security token), 06vanilla (0.6 without it) or mix (alternating 07 and 06)")
	freshMaps := fs.Bool("fresh-maps", false, "every client downloads the map (no sharing between the clients of the run)")
	// network impairment inside the clients' own sockets: both directions,
	// then -up / -down override single settings for one direction
	loss := fs.String("loss", "0%", "share of datagrams dropped, both directions (5% or 0.05)")
	delay := fs.Duration("delay", 0, "one-way delay added to every datagram, both directions")
	jitter := fs.Duration("jitter", 0, "the delay varies uniformly by ±this, both directions")
	reorder := fs.String("reorder", "0%", "share of datagrams held 50 ms longer (overtaken by later ones), both directions")
	dup := fs.String("dup", "0%", "share of datagrams sent twice, both directions")
	upSpec := fs.String("up", "", "client-to-server settings overriding the above, e.g. loss=10%,delay=40ms,jitter=20ms,reorder=0%,dup=0%")
	downSpec := fs.String("down", "", "server-to-client settings overriding the above (same syntax as -up)")
	blackout := fs.String("blackout", "", "LENGTH@START: no datagram in or out for LENGTH from START into the run, e.g. 2s@30s")
	outDir := fs.String("o", "", "also write report.json and report.html (time series, plots) into this directory")
	pid := fs.Int("pid", 0, "with -o: sample this server process (and its children) for CPU and memory in the report")
	targets := fs.Int("targets", 1, "load this many servers at once, on consecutive ports from -addr's (-clients each)")
	scenarioFile := fs.String("scenario", "", "run the phases of this scenario file (TOML; see docs/load-testing.md) instead of -n/-duration/-rampup and the impairment flags")
	server, code, ok := c.parse(args)
	if !ok {
		return code
	}
	if *scenarioFile != "" {
		var clash []string
		fs.Visit(func(f *flag.Flag) {
			if scenarioSets[f.Name] {
				clash = append(clash, "-"+f.Name)
			}
		})
		if len(clash) > 0 {
			return usage("%s: the scenario file sets these (drop the flags or edit the file)", strings.Join(clash, ", "))
		}
		live, ok := c.liveStatus()
		if !ok {
			return usage("-status must be auto, on or off")
		}
		if *pid < 0 || *pid > 0 && *outDir == "" {
			return usage("-pid needs -o and a process id")
		}
		return runScenarioCmd(c, server, *scenarioFile, scenarioOpts{mapDir: *mapDir, password: *password, sourceBase: *sourceBase,
			perClient: *perClient, live: live, outDir: *outDir, pid: *pid}, stdout, stderr)
	}
	pat, err := loadclient.ParsePattern(*pattern)
	if err != nil {
		return usage("%v", err)
	}
	pc, err := loadclient.ParsePace(*pace)
	if err != nil {
		return usage("%v", err)
	}
	netem, err := parseNetem(*loss, *delay, *jitter, *reorder, *dup, *upSpec, *downSpec, *blackout)
	if err != nil {
		return usage("%v", err)
	}
	rc := loadclient.RunConfig{
		Server: server, Clients: *clients, RampUp: *rampUp, Duration: *duration,
		Pattern: pat, Pace: pc, Seed: *seed, Sources: *sources, Password: *password,
		Maps: &loadclient.MapCache{Dir: *mapDir}, EnterTimeout: *enterTimeout,
		Netem: netem, FreshMaps: *freshMaps,
		Proto: *proto,
	}
	if *sources < 0 {
		rc.Sources = autoSources(server, *clients)
	}
	if rc.Sources > 0 {
		if rc.SourceBase, err = netip.ParseAddr(*sourceBase); err != nil {
			return usage("bad -source-base: %v", err)
		}
	}
	if err := rc.Validate(); err != nil {
		return usage("%v", err)
	}
	rcs, err := targetConfigs(rc, *targets)
	if err != nil {
		return usage("%v", err)
	}
	live, ok := c.liveStatus()
	if !ok {
		return usage("-status must be auto, on or off")
	}
	if *pid < 0 || *pid > 0 && *outDir == "" {
		return usage("-pid needs -o and a process id")
	}
	smp, err := reportSampler(*outDir, *pid)
	if err != nil {
		return c.fail(err)
	}
	if live || smp != nil {
		attachStatus(rcs, func(s loadclient.Status) {
			if smp != nil {
				smp.status(s)
			}
			if live {
				fmt.Fprintf(stderr, "\r%s\x1b[K", s)
			}
		})
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	smpStop := smp.sampleIn(ctx)
	defer smpStop()
	cpu0, start := cpuTime(), time.Now()
	sum, err := loadclient.RunMany(ctx, rcs)
	noteCPU(&sum, cpuTime()-cpu0, time.Since(start))
	smpStop()
	if live {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return c.fail(err)
	}
	if smp != nil {
		if err := writeLoadReport(*outDir, smp, &sum, rc, *pid, nil); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(stderr, "twload: report in %s\n", filepath.Join(*outDir, "report.html"))
	}
	if !*perClient {
		sum.PerClient = nil
	}
	if code := c.writeJSON(&sum, stdout); code != 0 {
		return code
	}
	writeTable(stderr, &sum)
	if !sum.OK() {
		writeFail(stderr, &sum)
		return 1
	}
	return 0
}

// reportSampler returns the sampler of a run's report (-o dir, created
// here; with pid > 0 it samples that process tree), or nil without -o.
func reportSampler(dir string, pid int) (*sampler, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pids := func() []int { return nil }
	if pid > 0 {
		pids = func() []int { return procTree(pid) }
	}
	return newSampler(time.Now(), pids, ""), nil
}

// sampleIn samples in the background until ctx ends or the returned stop
// is called (which may be called more than once); a nil sampler does
// nothing.
func (s *sampler) sampleIn(ctx context.Context) (stop func()) {
	if s == nil {
		return func() {}
	}
	ctx, stop = context.WithCancel(ctx)
	go s.run(ctx)
	return stop
}

// writeFail prints the verdict line of a failed run.
func writeFail(w io.Writer, sum *loadclient.Summary) {
	fmt.Fprintf(w, "twload: FAIL: %d/%d connected, %d failed, %d crc errors, %d delta errors, %d bad items, %d bad messages\n",
		sum.Connected, sum.Clients, sum.Failed, sum.CRCErrors, sum.DeltaErrors, sum.BadItems, sum.BadMessages)
}

// parseNetem builds the impairment from the flags: the both-direction
// settings, then -up and -down on top, then the blackout. It returns nil
// when nothing is impaired.
func parseNetem(loss string, delay, jitter time.Duration, reorder, dup, up, down, blackout string) (*loadclient.Netem, error) {
	var both loadclient.Impair
	var err error
	if both.Loss, err = loadclient.ParsePercent(loss); err != nil {
		return nil, fmt.Errorf("-loss: %w", err)
	}
	if both.Reorder, err = loadclient.ParsePercent(reorder); err != nil {
		return nil, fmt.Errorf("-reorder: %w", err)
	}
	if both.Dup, err = loadclient.ParsePercent(dup); err != nil {
		return nil, fmt.Errorf("-dup: %w", err)
	}
	both.Delay, both.Jitter = delay, jitter
	if err := both.Validate(); err != nil {
		return nil, err
	}
	n := &loadclient.Netem{Up: both, Down: both}
	if n.Up, err = loadclient.ParseImpair(both, up); err != nil {
		return nil, fmt.Errorf("-up: %w", err)
	}
	if n.Down, err = loadclient.ParseImpair(both, down); err != nil {
		return nil, fmt.Errorf("-down: %w", err)
	}
	if blackout != "" {
		if n.Blackout, n.BlackoutAt, err = loadclient.ParseBlackout(blackout); err != nil {
			return nil, err
		}
	}
	if !n.Active() {
		return nil, nil
	}
	return n, nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
