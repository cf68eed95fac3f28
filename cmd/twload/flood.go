package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"twserver/loadclient"
)

// floodReport is the JSON summary of `twload flood`.
type floodReport struct {
	Flood loadclient.FloodSummary `json:"flood"`
	// Players are the normal clients that played through the flood
	// (none when -players 0).
	Players *playersReport `json:"players,omitempty"`
	// ServerCPU is the server's CPU (utime+stime from /proc/PID/stat) when
	// -server-pid was given.
	ServerCPU *cpuReport `json:"server_cpu,omitempty"`
}

type playersReport struct {
	Clients     int             `json:"clients"`
	Connected   int             `json:"connected"`
	Failed      int             `json:"failed"`
	Bad         int64           `json:"bad_snapshots_or_messages"`
	SnapsPerSec loadclient.Dist `json:"snapshots_per_sec_per_client"`
	SnapGaps    int64           `json:"snap_gaps"`
	// SnapsPerServerSec counts per second of server time (see loadclient.Summary).
	SnapsPerServerSec loadclient.Dist        `json:"snapshots_per_server_sec_per_client"`
	Failures          map[string]int         `json:"failures,omitempty"`
	Latency           loadclient.Percentiles `json:"input_to_snapshot_latency_ms"`
}

type cpuReport struct {
	PID int `json:"pid"`
	// BaselinePct is the server's CPU (% of one core) while only the
	// players played, FloodPct while the flood ran.
	BaselineS   float64 `json:"baseline_s"`
	BaselinePct float64 `json:"baseline_pct"`
	FloodPct    float64 `json:"flood_pct"`
	// USPerPacket is the extra CPU the flood cost per datagram sent:
	// (flood CPU - baseline CPU rate × flood time) / datagrams, in µs.
	USPerPacket float64 `json:"us_per_packet"`
}

// runFlood is `twload flood`: unverified packets from many loopback
// addresses while a few normal clients play; the server's CPU from /proc.
func runFlood(args []string, stdout, stderr io.Writer) int {
	c := newCommand("twload flood", "server address `host:port` (IPv4 loopback only)", stderr)
	fs, usage := c.fs, c.usage
	rateF := fs.Int("rate", 100000, fmt.Sprintf("packets per second (1..%d)", loadclient.MaxFloodRate))
	duration := fs.Duration("duration", 20*time.Second, fmt.Sprintf("flood duration (at most %v)", loadclient.MaxFloodDuration))
	sources := fs.Int("sources", 2000, fmt.Sprintf("source addresses, one socket each (1..%d)", loadclient.MaxFloodSources))
	base := fs.String("source-base", loadclient.DefaultFloodSourceBase.String(), "first source address (127.x.y.z)")
	kinds := fs.String("kinds", "", "mix of kinds, e.g. token=1,connect=1,info=1,garbage=1 (default: all equal)")
	senders := fs.Int("senders", 4, "sending goroutines (sendmmsg batches)")
	players := fs.Int("players", 4, "normal clients playing through the flood (0..16)")
	baseline := fs.Duration("baseline", 5*time.Second, "players-only time measured before the flood (for the server's baseline CPU)")
	pid := fs.Int("server-pid", 0, "server process id: report its CPU from /proc/PID/stat (0: no CPU figures)")
	seed := fs.Uint64("seed", 1, "seed of the packet mix and tokens")
	server, rc, ok := c.parse(args)
	if !ok {
		return rc
	}
	src, err := netip.ParseAddr(*base)
	if err != nil {
		return usage("bad -source-base: %v", err)
	}
	w, err := loadclient.ParseFloodWeights(*kinds)
	if err != nil {
		return usage("%v", err)
	}
	if *players < 0 || *players > 16 || *baseline < 0 || *baseline > time.Minute {
		return usage("-players must be 0..16 and -baseline 0..1m")
	}
	live, ok := c.liveStatus()
	if !ok {
		return usage("-status must be auto, on or off")
	}
	fc := loadclient.FloodConfig{Server: server, Rate: *rateF, Duration: *duration, Sources: *sources,
		SourceBase: src, Weights: w, Senders: *senders, Seed: *seed, Live: new(atomic.Uint64)}
	if err := fc.Validate(); err != nil {
		return usage("%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var rep floodReport
	const ramp = 2 * time.Second
	playDone := make(chan loadclient.Summary, 1)
	var players0 atomic.Pointer[loadclient.Status]
	total := *duration
	if *players > 0 { // the players' ramp-up and run, which outlasts the flood by a second
		total += time.Second + ramp + *baseline + time.Second
	}
	stopStatus := c.statusLine(live, total, func() string {
		line := fmt.Sprintf("flood sent %d", fc.Live.Load())
		if p := players0.Load(); p != nil {
			line += fmt.Sprintf("  players in game %d/%d  %.1f snaps/s/client  failed %d", p.InGame, p.Started, p.SnapRate, p.Failed)
		}
		return line
	})
	if *players > 0 {
		rc := loadclient.RunConfig{Server: server, Clients: *players, RampUp: time.Second,
			Duration: ramp + *baseline + *duration + time.Second, Pattern: loadclient.PatternRandom, Seed: *seed,
			Maps: &loadclient.MapCache{}, EnterTimeout: loadclient.DefaultEnterTimeout, NamePrefix: "player",
			Status: func(s loadclient.Status) { players0.Store(&s) }}
		go func() {
			s, _ := loadclient.Run(ctx, rc)
			playDone <- s
		}()
		sleepCtx(ctx, time.Second+ramp) // in game before measuring
	}
	var c0, c1, c2 float64
	var t0, t1, t2 time.Time
	if *pid > 0 {
		c0, t0 = procCPU(*pid), time.Now()
		sleepCtx(ctx, *baseline)
		c1, t1 = procCPU(*pid), time.Now()
	}
	sum, err := loadclient.RunFlood(ctx, fc)
	if err != nil {
		stopStatus()
		return c.fail(err)
	}
	if *pid > 0 {
		c2, t2 = procCPU(*pid), time.Now()
		baseRate := 0.0
		if d := t1.Sub(t0).Seconds(); d > 0 {
			baseRate = (c1 - c0) / d
		}
		fd := t2.Sub(t1).Seconds()
		r := &cpuReport{PID: *pid, BaselineS: t1.Sub(t0).Seconds(), BaselinePct: baseRate * 100, FloodPct: (c2 - c1) / fd * 100}
		if sum.SentTotal > 0 {
			r.USPerPacket = ((c2 - c1) - baseRate*fd) / float64(sum.SentTotal) * 1e6
		}
		rep.ServerCPU = r
	}
	rep.Flood = sum
	status := 0
	if *players > 0 {
		ps := <-playDone
		pr := &playersReport{Clients: ps.Clients, Connected: ps.Connected, Failed: ps.Failed,
			Bad:         ps.CRCErrors + ps.DeltaErrors + ps.BadMessages + ps.BadItems,
			SnapsPerSec: ps.SnapsPerSec, Failures: ps.Failures, Latency: ps.LatencyMs, SnapGaps: ps.SnapGaps, SnapsPerServerSec: ps.SnapsPerServerSec}
		rep.Players = pr
		if !ps.OK() {
			status = 1
		}
	}
	stopStatus()
	if rc := c.writeJSON(rep, stdout); rc != 0 {
		return rc
	}
	writeFloodTable(stderr, &rep)
	return status
}

// writeFloodTable prints the short human summary of a flood: what was
// sent, how the players fared and the server's CPU.
func writeFloodTable(w io.Writer, r *floodReport) {
	f := &r.Flood
	fmt.Fprintf(w, "twload flood: %d datagrams in %.1f s against %s from %d addresses: %.0f/s (target %d/s), %d send errors\n",
		f.SentTotal, f.DurationS, f.Server, f.Sources, f.AchievedPPS, f.RatePPS, f.SendErrors)
	if p := r.Players; p != nil {
		fmt.Fprintf(w, "  players in game %d/%d (failed %d), snapshots/s per client min %.2f mean %.2f, gaps %d, bad %d\n",
			p.Connected, p.Clients, p.Failed, p.SnapsPerSec.Min, p.SnapsPerSec.Mean, p.SnapGaps, p.Bad)
		writeReasons(w, p.Failures)
	}
	if c := r.ServerCPU; c != nil {
		fmt.Fprintf(w, "  server CPU %.1f %% of a core (players only %.1f %%): %.3f µs per datagram\n", c.FloodPct, c.BaselinePct, c.USPerPacket)
	}
}

// procCPU returns utime+stime of a process in seconds (0 when unreadable).
func procCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	// fields after the command name (which may hold spaces) in parentheses
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc (100 on Linux).
const clockTicks = 100

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
