package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"twserver/loadclient"
	"twserver/loadclient/scenario"
)

// phaseReport is one phase of a scenario run: what it did and how the
// clients fared meanwhile (from the load's status, every half second).
type phaseReport struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// InGameMin and InGameMax over the phase's samples, InGameEnd at its
	// last one.
	InGameMin int `json:"in_game_min"`
	InGameMax int `json:"in_game_max"`
	InGameEnd int `json:"in_game_end"`
	// SnapsPerSecMean and SnapsPerSecMin are the snapshots per second per
	// client in game over the phase's samples (mean and lowest).
	SnapsPerSecMean float64 `json:"snaps_per_sec_mean"`
	SnapsPerSecMin  float64 `json:"snaps_per_sec_min"`
	// Failed, CRCErrors, RxBytes and TxBytes happened during the phase.
	Failed    int   `json:"failed"`
	CRCErrors int64 `json:"crc_errors"`
	RxBytes   int64 `json:"rx_bytes"`
	TxBytes   int64 `json:"tx_bytes"`
	// ServerCPUPct (mean, % of one core) and ServerRSSMB (highest) are the
	// server's over the phase, when its processes were sampled (twload
	// bench, or -o with -pid).
	ServerCPUPct float64 `json:"server_cpu_pct,omitempty"`
	ServerRSSMB  float64 `json:"server_rss_mb,omitempty"`
	// What the phase did: its impairment, the flood's or the hold's
	// summary, the clients that left.
	Netem string                   `json:"netem,omitempty"`
	Left  int                      `json:"left,omitempty"`
	Flood *loadclient.FloodSummary `json:"flood,omitempty"`
	Hold  *loadclient.HoldSummary  `json:"hold,omitempty"`
	Error string                   `json:"error,omitempty"`
}

// scenarioReport is the JSON summary of `twload -scenario`.
type scenarioReport struct {
	Scenario    string             `json:"scenario"`
	File        string             `json:"file"`
	Description string             `json:"description,omitempty"`
	TotalS      float64            `json:"total_s"`
	Phases      []phaseReport      `json:"phases"`
	Load        loadclient.Summary `json:"load"`
}

// statusLog keeps a run's statuses (one every half second; a scenario
// lasts at most scenario.MaxTotal, so at most 14,400).
type statusLog struct {
	mu  sync.Mutex
	all []loadclient.Status
}

func (l *statusLog) add(s loadclient.Status) {
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
}

// phaseAt returns the index of the phase running at run time t.
func phaseAt(sc *scenario.Scenario, t time.Duration) int {
	var end time.Duration
	for i, p := range sc.Phases {
		end += p.Duration
		if t < end {
			return i
		}
	}
	return len(sc.Phases) - 1
}

// runScenario runs a scenario's plan: the clients' run and, beside it,
// each flood and hold in its phase. show, when not nil, gets the clients'
// live status with the phase it falls in. It returns the clients' summary
// and every phase's figures.
func runScenario(ctx context.Context, sc *scenario.Scenario, pl scenario.Plan, show func(string, loadclient.Status)) (loadclient.Summary, []phaseReport, error) {
	var log statusLog
	phases := make([]phaseReport, len(sc.Phases))
	pl.Run.Status = func(s loadclient.Status) {
		log.add(s)
		if show != nil {
			i := phaseAt(sc, s.Elapsed)
			show(fmt.Sprintf("phase %d/%d %s", i+1, len(sc.Phases), sc.Phases[i].Label()), s)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	// side runs run(), At into the run, and stores its outcome in its phase
	side := func(at time.Duration, phase int, run func() error) {
		wg.Go(func() {
			sleepCtx(ctx, at-time.Since(start))
			if ctx.Err() != nil {
				return
			}
			if err := run(); err != nil {
				mu.Lock()
				phases[phase].Error = err.Error()
				mu.Unlock()
			}
		})
	}
	for _, f := range pl.Floods {
		side(f.At, f.Phase, func() error {
			s, err := loadclient.RunFlood(ctx, f.Config)
			mu.Lock()
			defer mu.Unlock()
			phases[f.Phase].Flood = &s
			return err
		})
	}
	for _, h := range pl.Holds {
		side(h.At, h.Phase, func() error {
			s, err := loadclient.RunHold(ctx, h.Config)
			s.PerClient = nil
			mu.Lock()
			defer mu.Unlock()
			phases[h.Phase].Hold = &s
			return err
		})
	}
	sum, err := loadclient.Run(ctx, pl.Run)
	wg.Wait()
	if err != nil {
		return sum, nil, err
	}
	fillPhases(sc, pl, phases, log.all)
	return sum, phases, nil
}

// fillPhases computes every phase's client figures from the statuses.
func fillPhases(sc *scenario.Scenario, pl scenario.Plan, phases []phaseReport, log []loadclient.Status) {
	var at time.Duration
	var before loadclient.Status // the last status before the phase
	k := 0
	for i, p := range sc.Phases {
		r := &phases[i]
		r.Name, r.Kind = p.Label(), string(p.Kind)
		r.StartS, r.EndS = at.Seconds(), (at + p.Duration).Seconds()
		switch p.Kind {
		case scenario.Loss:
			r.Netem = "up " + p.Up.String() + "; down " + p.Down.String()
		case scenario.Blackout:
			r.Netem = "blackout"
		}
		for _, l := range pl.Run.LeaveAt {
			if p.Kind == scenario.Leave && l == max(at, 1) {
				r.Left++
			}
		}
		at += p.Duration
		last, n, sum := before, 0, 0.0
		r.InGameMin, r.SnapsPerSecMin = -1, -1
		for ; k < len(log) && log[k].Elapsed <= at; k++ { // a status covers the half second before it
			s := log[k]
			last = s
			if r.InGameMin < 0 || s.InGame < r.InGameMin {
				r.InGameMin = s.InGame
			}
			r.InGameMax = max(r.InGameMax, s.InGame)
			if s.InGame > 0 {
				n++
				sum += s.SnapRate
				if r.SnapsPerSecMin < 0 || s.SnapRate < r.SnapsPerSecMin {
					r.SnapsPerSecMin = s.SnapRate
				}
			}
		}
		r.InGameMin, r.SnapsPerSecMin = max(r.InGameMin, 0), round2(max(r.SnapsPerSecMin, 0))
		if n > 0 {
			r.SnapsPerSecMean = round2(sum / float64(n))
		}
		r.InGameEnd = last.InGame
		r.Failed = last.Failed - before.Failed
		r.CRCErrors = last.CRCErrors - before.CRCErrors
		r.RxBytes, r.TxBytes = last.BytesIn-before.BytesIn, last.BytesOut-before.BytesOut
		before = last
	}
}

// serverPhases fills the phases' server CPU and memory from the report's
// samples (nothing when the server was not sampled).
func serverPhases(phases []phaseReport, points []benchPoint) {
	for i := range phases {
		p := &phases[i]
		var cpu []float64
		for _, pt := range points {
			if pt.T > p.StartS && pt.T <= p.EndS && (pt.CPUPct > 0 || pt.RSSMB > 0) {
				cpu = append(cpu, pt.CPUPct)
				p.ServerRSSMB = max(p.ServerRSSMB, pt.RSSMB)
			}
		}
		if len(cpu) > 0 {
			p.ServerCPUPct = round2(mean(cpu))
		}
	}
}

// writePhaseTable prints the phases of a scenario run, one a line.
func writePhaseTable(w io.Writer, phases []phaseReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  phase\tkind\ts\tin game min–max (end)\tsnaps/s per client mean (min)\tfailed\tcrc\tserver CPU %\twhat it did")
	for _, p := range phases {
		what := p.Netem
		switch {
		case p.Error != "":
			what = "ERROR: " + p.Error
		case p.Flood != nil:
			what = fmt.Sprintf("flood: %d datagrams, %.0f/s, %d send errors", p.Flood.SentTotal, p.Flood.AchievedPPS, p.Flood.SendErrors)
		case p.Hold != nil:
			what = fmt.Sprintf("hold at %s: %d of %d held, %d dropped (p50 %.1f s after stalling), %d still held",
				p.Hold.Stage, p.Hold.Held, p.Hold.Clients, p.Hold.Dropped, p.Hold.DroppedAfterS.P50, p.Hold.StillHeld)
		case p.Left > 0:
			what = fmt.Sprintf("%d clients left", p.Left)
		}
		cpu := "-"
		if p.ServerCPUPct > 0 {
			cpu = fmt.Sprintf("%.1f", p.ServerCPUPct)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%g–%g\t%d–%d (%d)\t%.2f (%.2f)\t%d\t%d\t%s\t%s\n", p.Name, p.Kind, p.StartS, p.EndS,
			p.InGameMin, p.InGameMax, p.InGameEnd, p.SnapsPerSecMean, p.SnapsPerSecMin, p.Failed, p.CRCErrors, cpu, what)
	}
	tw.Flush()
}

// scenarioSets names the flags of the load mode a scenario file sets
// itself; giving one with -scenario is a usage error.
var scenarioSets = map[string]bool{
	"n": true, "clients": true, "duration": true, "rampup": true, "pattern": true, "pace": true, "seed": true, "proto": true,
	"fresh-maps": true, "enter-timeout": true, "sources": true, "targets": true,
	"loss": true, "delay": true, "jitter": true, "reorder": true, "dup": true, "up": true, "down": true, "blackout": true,
}

// scenarioOpts are the load mode's flags that still apply to a scenario.
type scenarioOpts struct {
	mapDir, password, sourceBase string
	perClient, live              bool
	outDir                       string
	pid                          int
}

// loadScenario reads and parses a scenario file (at most
// scenario.MaxFileSize bytes are read).
func loadScenario(path string) (*scenario.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, scenario.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// scenarioRunConfig is the clients' run of a scenario against server with
// the options that still apply.
func scenarioRunConfig(sc *scenario.Scenario, server netip.AddrPort, o scenarioOpts) (scenario.Plan, error) {
	pl := sc.Plan(server)
	rc := &pl.Run
	rc.Maps, rc.Password = &loadclient.MapCache{Dir: o.mapDir}, o.password
	if rc.Sources < 0 {
		rc.Sources = autoSources(server, rc.Clients)
	}
	if rc.Sources > 0 {
		var err error
		if rc.SourceBase, err = netip.ParseAddr(o.sourceBase); err != nil {
			return pl, fmt.Errorf("bad -source-base: %v", err)
		}
	}
	return pl, rc.Validate()
}

// runScenarioCmd is `twload -scenario FILE`: the scenario's phases against
// the server, the JSON summary with every phase's figures on standard
// output, the table on standard error, with -o the report with the phases
// as bands in its plots.
func runScenarioCmd(c *command, server netip.AddrPort, path string, o scenarioOpts, stdout, stderr io.Writer) int {
	sc, err := loadScenario(path)
	if err != nil {
		return c.usage("%v", err)
	}
	pl, err := scenarioRunConfig(sc, server, o)
	if err != nil {
		return c.usage("%v", err)
	}
	smp, err := reportSampler(o.outDir, o.pid)
	if err != nil {
		return c.fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	smpStop := smp.sampleIn(ctx)
	defer smpStop()
	fmt.Fprintf(stderr, "twload: scenario %s (%s): %d phases, %v, %d clients against %s\n",
		sc.Name, path, len(sc.Phases), sc.Total(), pl.Run.Clients, server)
	cpu0, start := cpuTime(), time.Now()
	sum, phases, err := runScenario(ctx, sc, pl, func(phase string, s loadclient.Status) {
		if smp != nil {
			smp.status(s)
		}
		if o.live {
			fmt.Fprintf(stderr, "\r%s  %s\x1b[K", phase, s)
		}
	})
	noteCPU(&sum, cpuTime()-cpu0, time.Since(start))
	smpStop()
	if o.live {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return c.fail(err)
	}
	if smp != nil {
		if err := writeLoadReport(o.outDir, smp, &sum, pl.Run, o.pid, phases); err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(stderr, "twload: report in %s\n", filepath.Join(o.outDir, "report.html"))
	}
	if !o.perClient {
		sum.PerClient = nil
	}
	rep := scenarioReport{Scenario: sc.Name, File: path, Description: sc.Description, TotalS: sc.Total().Seconds(), Phases: phases, Load: sum}
	if code := c.writeJSON(&rep, stdout); code != 0 {
		return code
	}
	writeTable(stderr, &sum)
	writePhaseTable(stderr, phases)
	failed := !sum.OK()
	for _, p := range phases {
		failed = failed || p.Error != ""
	}
	if failed {
		writeFail(stderr, &sum)
		return 1
	}
	return 0
}
