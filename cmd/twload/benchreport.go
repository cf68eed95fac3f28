package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"twserver/loadclient"
)

// benchPoint is one sample of a run's time series (T in seconds since the
// load started).
type benchPoint struct {
	T           float64 `json:"t"`
	CPUPct      float64 `json:"cpu_pct"`           // server processes, % of one core since the last point
	RSSMB       float64 `json:"rss_mb"`            // resident memory of the server processes
	SnapsPerSec float64 `json:"snaps_per_sec"`     // per client in game
	InGame      int     `json:"in_game"`           // clients in game
	TickMs      float64 `json:"tick_ms,omitempty"` // mean tick work since the last point (/metrics)
	cpuNanos    int64   // the server processes' CPU time so far
	// userTicks and sysTicks are the server processes' utime and stime so far
	userTicks, sysTicks int64
}

// benchRow is one run: one server in one window at one client count.
type benchRow struct {
	Server  string `json:"server"`
	Clients int    `json:"clients"` // per game
	Games   int    `json:"games"`
	Window  int    `json:"window"`
	Order   int    `json:"order"` // position in its window (1: ran first)
	Ports   []int  `json:"ports"`
	Error   string `json:"error,omitempty"`

	CPUPct float64 `json:"cpu_pct"` // over the window after the ramp-up
	// UserPct and SysPct split CPUPct into user and system time (the
	// kernel's work in the servers' system calls) in the proportion of
	// utime and stime over the window
	UserPct float64 `json:"user_pct"`
	SysPct  float64 `json:"sys_pct"`
	// JoinCPUPct is the CPU from the start of the run to the window: the
	// clients joining over the ramp-up and the settle after it.
	JoinCPUPct float64   `json:"join_cpu_pct"`
	PeakRSSMB  float64   `json:"peak_rss_mb"` // VmHWM summed over the server processes
	InGame     int       `json:"in_game"`     // clients in game at the end
	Expected   int       `json:"expected"`    // clients started
	RxBps      float64   `json:"rx_bytes_per_sec_per_client"`
	TxBps      float64   `json:"tx_bytes_per_sec_per_client"`
	SnapsMin   float64   `json:"snaps_per_sec_per_client_min"`
	SnapsMean  float64   `json:"snaps_per_sec_per_client_mean"`
	JoinMs     float64   `json:"join_ms_mean"`
	JoinMsMax  float64   `json:"join_ms_max"`
	JoinTimes  []float64 `json:"join_ms,omitempty"` // every client's, in client order
	Errors     int64     `json:"errors"`            // failed clients and bad snapshots, items and messages
	// Extensions counts the items and messages the vanilla decoders
	// rejected when -ddnet-extensions says they are not errors.
	Extensions int64          `json:"ddnet_extensions,omitempty"`
	Failures   map[string]int `json:"failures,omitempty"`
	TickMs     float64        `json:"tick_ms_mean,omitempty"` // mean tick work over the window (/metrics)

	Series []benchPoint        `json:"series"`
	Load   *loadclient.Summary `json:"load,omitempty"`
	// Phases are the figures of a scenario's phases (the plots show them
	// as bands over Series).
	Phases []phaseReport `json:"phases,omitempty"`
}

// fill computes the row's figures from the samples and the load summary;
// the window starts at rampEnd seconds into the series. With
// extensionsOK, snapshot items and messages twload's vanilla decoders
// reject (DDNet-Server's own extensions) are reported, not errors.
func (r *benchRow) fill(smp *sampler, sum *loadclient.Summary, rampEndS float64, extensionsOK bool) {
	smp.mu.Lock()
	r.Series = smp.points
	r.PeakRSSMB = round2(float64(smp.peakHWM) / 1024)
	smp.mu.Unlock()
	var first *benchPoint
	var ticks []float64
	for i := range r.Series {
		p := &r.Series[i]
		if p.T < rampEndS {
			continue
		}
		if first == nil && p.T > r.Series[0].T {
			r.JoinCPUPct = round2(float64(p.cpuNanos-r.Series[0].cpuNanos) / ((p.T - r.Series[0].T) * 1e9) * 100)
		}
		if first == nil {
			first = p
		} else if p.TickMs > 0 {
			ticks = append(ticks, p.TickMs)
		}
	}
	if last := len(r.Series) - 1; first != nil && last >= 0 && r.Series[last].T > first.T {
		l := &r.Series[last]
		r.CPUPct = round2(float64(l.cpuNanos-first.cpuNanos) / ((l.T - first.T) * 1e9) * 100)
		if du, ds := l.userTicks-first.userTicks, l.sysTicks-first.sysTicks; du+ds > 0 {
			r.SysPct = round2(r.CPUPct * float64(ds) / float64(du+ds))
			r.UserPct = round2(r.CPUPct - r.SysPct)
		}
	}
	if len(ticks) > 0 {
		r.TickMs = round2(mean(ticks))
	}
	if sum == nil {
		return
	}
	r.InGame, r.Expected = sum.Connected, sum.Clients
	r.RxBps, r.TxBps = sum.BytesInPerSec.Mean, sum.BytesOutPerSec.Mean
	r.SnapsMin, r.SnapsMean = sum.SnapsPerSec.Min, sum.SnapsPerSec.Mean
	r.JoinMs, r.JoinMsMax = sum.ConnectMs.Mean, sum.ConnectMs.Max
	r.Errors = int64(sum.Failed) + sum.CRCErrors + sum.DeltaErrors
	if extensionsOK {
		r.Extensions = sum.BadItems + sum.BadMessages
	} else {
		r.Errors += sum.BadItems + sum.BadMessages
	}
	if len(sum.Failures) > 0 {
		r.Failures = sum.Failures
	}
	for _, st := range sum.PerClient {
		if st.Entered {
			r.JoinTimes = append(r.JoinTimes, round2(float64(st.ConnectTime)/1e6))
		}
	}
	load := *sum
	load.PerClient = nil
	r.Load = &load
	if r.Error == "" && (r.Errors > 0 || sum.Connected < sum.Clients) {
		r.Error = fmt.Sprintf("%d/%d clients in game, %d errors", sum.Connected, sum.Clients, r.Errors)
		if sum.FirstBadNote != "" {
			r.Error += ": " + sum.FirstBadNote
		}
		for f, n := range sum.Failures {
			r.Error += fmt.Sprintf("; %d failed: %s", n, f)
		}
	}
}

// spread is a median with the smallest and largest value.
type spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

func spreadOf(v []float64) spread {
	if len(v) == 0 {
		return spread{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{Median: round2(m), Min: round2(s[0]), Max: round2(s[len(s)-1]), N: len(s)}
}

func (s spread) String() string {
	if s.N == 0 {
		return "-"
	}
	if s.N == 1 || s.Min == s.Max {
		return trimFloat(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", trimFloat(s.Median), trimFloat(s.Min), trimFloat(s.Max))
}

// trimFloat prints v with 3 significant digits at most 2 decimals.
func trimFloat(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// benchAgg is one server at one client count over the windows.
type benchAgg struct {
	Server    string `json:"server"`
	Clients   int    `json:"clients"`
	CPUPct    spread `json:"cpu_pct"`
	UserPct   spread `json:"user_pct"`
	SysPct    spread `json:"sys_pct"`
	JoinCPU   spread `json:"join_cpu_pct"`
	PeakRSSMB spread `json:"peak_rss_mb"`
	RxBps     spread `json:"rx_bytes_per_sec_per_client"`
	SnapsMin  spread `json:"snaps_per_sec_per_client_min"`
	SnapsMean spread `json:"snaps_per_sec_per_client_mean"`
	JoinMs    spread `json:"join_ms_mean"`
	TickMs    spread `json:"tick_ms_mean"`
	InGame    []int  `json:"in_game"` // per window
	Errors    int64  `json:"errors"`  // over the windows
}

// benchRatio compares the first server with another at one client count:
// the median and range of the per-window ratios first/other.
type benchRatio struct {
	Clients int    `json:"clients"`
	Server  string `json:"server"` // the first server
	Other   string `json:"other"`
	CPU     spread `json:"cpu"`
	RSS     spread `json:"peak_rss"`
	Bytes   spread `json:"rx_bytes_per_client"`
	// Excluded names the windows left out of the ratios because a server
	// did not serve every client without error (refused, failed or bad
	// snapshots): such a window's load differs between the two servers.
	Excluded []string `json:"excluded,omitempty"`
}

// benchMachine is where the bench ran.
type benchMachine struct {
	CPUs    int    `json:"cpus"`
	GoArch  string `json:"goarch"`
	LoadAvg string `json:"loadavg_at_start"`
	Kernel  string `json:"kernel,omitempty"`
}

func machineInfo() benchMachine {
	m := benchMachine{CPUs: runtime.NumCPU(), GoArch: runtime.GOARCH}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// benchReport is everything `twload bench` measured (report.json).
type benchReport struct {
	Config  benchConfig  `json:"config"`
	Started string       `json:"started"`
	Machine benchMachine `json:"machine"`
	OK      bool         `json:"ok"`
	// ServerSampled: the server processes' CPU and memory were measured
	// (always by bench; by a single run only with -pid).
	ServerSampled bool         `json:"server_sampled"`
	FirstProblem  string       `json:"first_problem,omitempty"`
	Rows          []benchRow   `json:"rows"`
	Summary       []benchAgg   `json:"summary"`
	Ratios        []benchRatio `json:"ratios"`
}

func (rep *benchReport) fail(format string, a ...any) {
	if rep.OK {
		rep.FirstProblem = fmt.Sprintf(format, a...)
	}
	rep.OK = false
}

// summarize fills Summary and Ratios from the rows.
func (rep *benchReport) summarize() {
	rep.Summary, rep.Ratios = nil, nil
	for _, n := range rep.Config.Clients {
		for _, s := range rep.Config.Servers {
			a := benchAgg{Server: s.Name, Clients: n}
			var cpu, user, sys, rss, rx, smin, smean, join, tick, joinCPU []float64
			for _, r := range rep.rows(s.Name, n) {
				cpu, rss = append(cpu, r.CPUPct), append(rss, r.PeakRSSMB)
				user, sys = append(user, r.UserPct), append(sys, r.SysPct)
				if n > 0 {
					joinCPU = append(joinCPU, r.JoinCPUPct)
					rx, smin, smean, join = append(rx, r.RxBps), append(smin, r.SnapsMin), append(smean, r.SnapsMean), append(join, r.JoinMs)
				}
				if r.TickMs > 0 {
					tick = append(tick, r.TickMs)
				}
				a.InGame = append(a.InGame, r.InGame)
				a.Errors += r.Errors
			}
			a.CPUPct, a.PeakRSSMB, a.RxBps = spreadOf(cpu), spreadOf(rss), spreadOf(rx)
			a.UserPct, a.SysPct, a.JoinCPU = spreadOf(user), spreadOf(sys), spreadOf(joinCPU)
			a.SnapsMin, a.SnapsMean, a.JoinMs, a.TickMs = spreadOf(smin), spreadOf(smean), spreadOf(join), spreadOf(tick)
			rep.Summary = append(rep.Summary, a)
		}
		if len(rep.Config.Servers) < 2 {
			continue
		}
		base := rep.Config.Servers[0].Name
		for _, o := range rep.Config.Servers[1:] {
			r := benchRatio{Clients: n, Server: base, Other: o.Name}
			var cpu, rss, bytes []float64
			for w := 1; w <= rep.Config.Windows; w++ {
				a, b := rep.row(base, n, w), rep.row(o.Name, n, w)
				if a == nil || b == nil {
					continue
				}
				if why := incomparable(a, b); why != "" {
					r.Excluded = append(r.Excluded, fmt.Sprintf("window %d: %s", w, why))
					continue
				}
				cpu = appendRatio(cpu, a.CPUPct, b.CPUPct)
				rss = appendRatio(rss, a.PeakRSSMB, b.PeakRSSMB)
				bytes = appendRatio(bytes, a.RxBps, b.RxBps)
			}
			r.CPU, r.RSS, r.Bytes = spreadOf(cpu), spreadOf(rss), spreadOf(bytes)
			rep.Ratios = append(rep.Ratios, r)
		}
	}
}

// incomparable says why two runs of one window did not carry the same
// load ("" when they did): a server that refused or lost clients, or
// served bad snapshots, did less work than the other.
func incomparable(rows ...*benchRow) string {
	var why []string
	for _, r := range rows {
		switch {
		case r.InGame < r.Expected && r.Errors > 0:
			why = append(why, fmt.Sprintf("%s had %d of %d clients in game and %d errors", r.Server, r.InGame, r.Expected, r.Errors))
		case r.InGame < r.Expected:
			why = append(why, fmt.Sprintf("%s had %d of %d clients in game", r.Server, r.InGame, r.Expected))
		case r.Errors > 0:
			why = append(why, fmt.Sprintf("%s had %d errors", r.Server, r.Errors))
		}
	}
	return strings.Join(why, "; ")
}

func appendRatio(v []float64, a, b float64) []float64 {
	if a > 0 && b > 0 {
		return append(v, a/b)
	}
	return v
}

// rows returns the runs of server at n clients that completed.
func (rep *benchReport) rows(server string, n int) []*benchRow {
	var out []*benchRow
	for i := range rep.Rows {
		if r := &rep.Rows[i]; r.Server == server && r.Clients == n && len(r.Series) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// row returns the run of server at n clients in window w, nil if none.
func (rep *benchReport) row(server string, n, w int) *benchRow {
	for _, r := range rep.rows(server, n) {
		if r.Window == w {
			return r
		}
	}
	return nil
}

// writeText prints the summary table and the ratios.
func (rep *benchReport) writeText(w io.Writer) {
	c := &rep.Config
	fmt.Fprintf(w, "twload bench, %s: %d windows of %gs after %gs ramp-up and %gs settle, %d game(s) per server, proto %s, pattern %s; median (min–max) over the windows (join CPU: from the start to the window)\n",
		rep.Started, c.Windows, c.WindowS, c.RampUpS, c.SettleS, c.Games, c.Proto, c.Pattern)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "clients/game\tserver\tCPU % of a core\tuser %\tsystem %\tjoin CPU %\tpeak RSS MB\trx B/s per client\tsnaps/s per client (min)\tjoin ms\ttick ms\tin game\terrors")
	for _, a := range rep.Summary {
		ing := make([]string, len(a.InGame))
		for i, v := range a.InGame {
			ing[i] = fmt.Sprint(v)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", a.Clients, a.Server, a.CPUPct, a.UserPct, a.SysPct, a.JoinCPU, a.PeakRSSMB, a.RxBps,
			a.SnapsMin, a.JoinMs, a.TickMs, strings.Join(ing, ","), a.Errors)
	}
	tw.Flush()
	for _, r := range rep.Ratios {
		if r.CPU.N == 0 && len(r.Excluded) > 0 {
			fmt.Fprintf(w, "ratio %s/%s at %d clients: not comparable (%s)\n", r.Server, r.Other, r.Clients, strings.Join(r.Excluded, "; "))
			continue
		}
		fmt.Fprintf(w, "ratio %s/%s at %d clients: CPU %s, peak RSS %s, bytes per client %s\n", r.Server, r.Other, r.Clients, r.CPU, r.RSS, r.Bytes)
		for _, e := range r.Excluded {
			fmt.Fprintf(w, "  left out of that ratio: %s\n", e)
		}
	}
}

// writeReport writes report.json and report.html into dir.
func writeReport(rep *benchReport, dir string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return writeHTML(filepath.Join(dir, "report.html"), b)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// writeLoadReport writes the report of a single load run (twload -o):
// one server, one window, the clients' time series and, with a -pid, the
// server process's CPU and memory.
func writeLoadReport(dir string, smp *sampler, sum *loadclient.Summary, rc loadclient.RunConfig, pid int, phases []phaseReport) error {
	smp.sample(time.Now())
	name := sum.Server
	cmd := "(not started by twload)"
	if pid > 0 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			cmd = strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	rep := benchReport{
		Config: benchConfig{Servers: []benchServer{{Name: name, Cmd: cmd}}, Clients: []int{sum.Clients / max(1, len(sum.Targets))},
			Games: max(1, len(sum.Targets)), Windows: 1, WindowS: rc.Duration.Seconds(), RampUpS: rc.RampUp.Seconds(),
			Proto: sum.Proto, Pattern: sum.Pattern},
		Started: smp.start.UTC().Format(time.RFC3339), Machine: machineInfo(), OK: true, ServerSampled: pid > 0,
	}
	row := benchRow{Server: name, Clients: rep.Config.Clients[0], Games: rep.Config.Games, Window: 1, Order: 1}
	row.fill(smp, sum, rc.RampUp.Seconds(), false)
	row.Phases = phases
	serverPhases(row.Phases, row.Series)
	if row.Error != "" {
		rep.fail("%s", row.Error)
	}
	rep.Rows = []benchRow{row}
	rep.summarize()
	return writeReport(&rep, dir)
}
