package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/procfs"
	"twserver/internal/testport"
	"twserver/watch/watchtest"
)

// TestLoad measures the goal "20 viewers leave the games' tick timing
// untouched" on the game server (docs/performance.md, "The recorded-game
// viewer"): a twserver built from this tree (a dm1 game recording its
// teehistorian, the web page on) with twload clients playing, and per
// round two phases: none (no viewer) and burst (20 viewers open 20
// recordings the page has not built yet, as the page asks: the page, the
// info every second until built, the map and the chunks, 202 asked again
// after 250 ms, then a chunk per 5 s of play). Every phase reports the
// server's CPU and its loop's tick lateness from /metrics. It runs with
// TWSERVER_WATCH_LOAD=1; TWSERVER_WATCH_LOAD_DIR keeps the generated
// recordings, TWSERVER_WATCH_LOAD_ROUNDS (3), _CLIENTS (16) and _PHASE (30s)
// shape it; TWSERVER_WATCH_LOAD_SERVERS=LABEL=PATH,... measures those
// twserver binaries one after the other in the same run (the same
// recordings, each server new) instead of building this tree's. Loopback only; every process started here is stopped.
func TestLoad(t *testing.T) {
	if os.Getenv("TWSERVER_WATCH_LOAD") != "1" {
		t.Skip("TWSERVER_WATCH_LOAD=1 measures the viewers' cost to the games")
	}
	rounds := envInt(t, "TWSERVER_WATCH_LOAD_ROUNDS", 3, 1, 10)
	clients := envInt(t, "TWSERVER_WATCH_LOAD_CLIENTS", 16, 1, 63)
	phase := time.Duration(envInt(t, "TWSERVER_WATCH_LOAD_PHASE", 30, 10, 300)) * time.Second
	const viewers = 20
	dir := os.Getenv("TWSERVER_WATCH_LOAD_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	dir, _ = filepath.Abs(dir)
	recDir, mapDir := filepath.Join(dir, "rec"), filepath.Join(dir, "maps")
	for _, d := range []string{recDir, mapDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := watchtest.Map()
	if err != nil {
		t.Fatal(err)
	}
	dm1, err := os.ReadFile("/usr/share/games/teeworlds/data/maps/dm1.map")
	if err != nil {
		t.Skipf("teeworlds-data's dm1: %v", err)
	}
	for name, data := range map[string][]byte{watchtest.MapName + ".map": m.Data, "dm1.map": dm1} {
		if err := os.WriteFile(filepath.Join(mapDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := func(round, i int) string { return fmt.Sprintf("load-r%d-v%02d.teehistorian", round, i) }
	for r := range rounds {
		for i := range viewers {
			p := filepath.Join(recDir, name(r, i))
			if _, err := os.Stat(p); err == nil {
				continue
			}
			g, err := watchtest.Game(recDir, 5*60*50, uint64(1000+r*viewers+i))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(g, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	bin := t.TempDir()
	type server struct{ label, path string }
	servers := []server{{"this tree", filepath.Join(bin, "twserver")}}
	builds := []string{"twserver", "twload"}
	if list := os.Getenv("TWSERVER_WATCH_LOAD_SERVERS"); list != "" {
		servers, builds = nil, builds[1:]
		for _, s := range strings.Split(list, ",") {
			label, path, ok := strings.Cut(s, "=")
			if !ok {
				t.Fatalf("TWSERVER_WATCH_LOAD_SERVERS: %q is not LABEL=PATH", s)
			}
			servers = append(servers, server{label, path})
		}
	}
	for _, cmd := range builds {
		b := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(bin, cmd), "twserver/cmd/"+cmd)
		b.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := b.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", cmd, err, out)
		}
	}
	heavytest.Lock(t) // the recordings generated and the binaries built first
	for _, sv := range servers {
		t.Logf("server %s (%s)", sv.label, sv.path)
		func() {
			port, hport, mport := testport.Pick(t), testport.Pick(t), testport.Pick(t)
			for hport == port || mport == port || mport == hport {
				hport, mport = testport.Pick(t), testport.Pick(t)
			}
			cfg := fmt.Sprintf(`[server]
bind = "127.0.0.1"
port = %d
max_clients = 64
player_slots = 16
max_clients_per_ip = 4
[map]
file = %q
[game]
inactive_kick_time = 0
[record]
teehistorian = true
dir = %q
max_dir_mb = 0
[metrics]
listen = "127.0.0.1:%d"
[web]
listen = "127.0.0.1:%d"
recordings = "public"
`, port, filepath.Join(mapDir, "dm1.map"), recDir, mport, hport)
			cfgPath := filepath.Join(bin, "twserver.toml")
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := exec.CommandContext(ctx, sv.path, "-config", cfgPath, "-no-console", "-log-level", "warn")
			srv.Dir = bin
			srvLog, _ := os.Create(filepath.Join(dir, "server.log")) // kept with the recordings
			srv.Stdout, srv.Stderr = srvLog, srvLog
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
			metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", mport)
			for deadline := time.Now().Add(10 * time.Second); ; {
				if _, err := scrape(metricsURL); err == nil {
					break
				}
				if time.Now().After(deadline) {
					b, _ := os.ReadFile(filepath.Join(dir, "server.log"))
					t.Fatalf("the server did not start: %s", b)
				}
				time.Sleep(100 * time.Millisecond)
			}
			total := time.Duration(2*rounds)*(phase+10*time.Second) + 30*time.Second
			load := exec.CommandContext(ctx, filepath.Join(bin, "twload"), "-addr", fmt.Sprintf("127.0.0.1:%d", port),
				"-n", strconv.Itoa(clients), "-rampup", "5s", "-duration", total.String(), "-pattern", "random",
				"-sources", "16", "-source-base", "127.0.0.2", "-status", "off", "-json", filepath.Join(bin, "twload.json"))
			if err := load.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = load.Process.Kill(); _ = load.Wait() }()
			time.Sleep(15 * time.Second) // ramp-up and settling
			base := fmt.Sprintf("http://127.0.0.1:%d/watch/", hport)
			var rows []loadRow
			for r := range rounds {
				for _, burst := range []bool{false, true} {
					row := loadRow{round: r + 1, burst: burst}
					m0, err := scrape(metricsURL)
					if err != nil {
						t.Fatal(err)
					}
					c0, w0 := procCPU(t, srv.Process.Pid), time.Now()
					if burst {
						row.built, row.firstChunk = viewBurst(t, base, r, viewers, phase, name)
					} else {
						time.Sleep(phase)
					}
					m1, err := scrape(metricsURL)
					if err != nil {
						t.Fatal(err)
					}
					row.cpu = float64(procCPU(t, srv.Process.Pid)-c0) / float64(time.Since(w0)) * 100
					row.timing = tickTiming(m0, m1)
					if row.timing.ticks < phase.Seconds()*10 || math.IsNaN(row.timing.p99) {
						t.Fatalf("%s: the loop's lateness was not read (%v)", sv.label, row)
					}
					if burst && (row.built == 0 || row.firstChunk == 0) {
						t.Errorf("%s: the viewers did not all get their recordings (%v)", sv.label, row)
					}
					rows = append(rows, row)
					t.Log(row)
					time.Sleep(5 * time.Second) // the burst's tail settles
				}
			}
			for _, burst := range []bool{false, true} {
				var p50, p99, over5, skipped, cpu []float64
				for _, r := range rows {
					if r.burst == burst {
						p50, p99 = append(p50, r.timing.p50), append(p99, r.timing.p99)
						over5, skipped, cpu = append(over5, r.timing.over5), append(skipped, r.timing.skipped), append(cpu, r.cpu)
					}
				}
				what := "no viewer"
				if burst {
					what = fmt.Sprintf("%d new viewers", viewers)
				}
				t.Logf("%s, %s over %d rounds (median [min, max]): lateness p50 %s ms, p99 %s ms, ticks > 5 ms late %s, skipped %s; server CPU %s %% of a core",
					sv.label, what, rounds, spread(p50, 3), spread(p99, 3), spread(over5, 0), spread(skipped, 0), spread(cpu, 1))
			}
		}()
	}
}

// loadRow is one phase of TestLoad.
type loadRow struct {
	round             int
	burst             bool
	cpu               float64
	timing            lateness
	built, firstChunk time.Duration // the burst's: every recording built; every viewer's first chunk
}

func (r loadRow) String() string {
	what := "none "
	if r.burst {
		what = "burst"
	}
	return fmt.Sprintf("round %d %s: server CPU %.1f %% of a core; %d wake-ups, lateness p50 %.3f ms, p99 %.3f ms, max <= %s ms, > 5 ms late %.0f, skipped %.0f; built %v, first chunks %v",
		r.round, what, r.cpu, int(r.timing.ticks), r.timing.p50, r.timing.p99, r.timing.max, r.timing.over5, r.timing.skipped,
		r.built.Round(10*time.Millisecond), r.firstChunk.Round(10*time.Millisecond))
}

// viewBurst opens n recordings of round r at once as n pages do and
// plays them at 1x until d has passed; it returns when the last one was
// built and when the last viewer had its first chunk.
func viewBurst(t *testing.T, base string, r, n int, d time.Duration, name func(int, int) string) (built, first time.Duration) {
	start := time.Now()
	end := start.Add(d)
	var builtMax, firstMax atomic.Int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// every viewer from its own address, as people are (the page's
			// bounds per address)
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 2, byte(1+i))}}
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
			defer client.CloseIdleConnections()
			get := func(url string) int { return viewerGet(client, url) }
			u := base + name(r, i)
			if s := get(u); s != http.StatusOK {
				t.Errorf("%s: %d", u, s)
				return
			}
			done, haveMap, k := false, false, 0
			nextInfo, nextChunk := time.Now(), time.Now()
			for time.Now().Before(end) {
				now := time.Now()
				if !done && !now.Before(nextInfo) {
					if get(u+"/info") > 1000 {
						done = true
						storeMax(&builtMax, time.Since(start))
					}
					nextInfo = now.Add(time.Second)
				}
				if !haveMap {
					haveMap = get(u+"/map") == http.StatusOK
				}
				if haveMap && !now.Before(nextChunk) {
					switch get(fmt.Sprintf("%s/chunk/%d", u, k)) {
					case http.StatusOK:
						if k == 0 {
							storeMax(&firstMax, time.Since(start))
						}
						k++
						nextChunk = now.Add(ChunkTicks * 20 * time.Millisecond)
					default:
						nextChunk = now.Add(250 * time.Millisecond)
					}
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	return time.Duration(builtMax.Load()), time.Duration(firstMax.Load())
}

// viewerGet asks for url; the status, plus 1000 for an info that says the
// recording is built.
func viewerGet(client *http.Client, url string) int {
	resp, err := client.Get(url)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if strings.HasSuffix(url, "/info") {
		b, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(b), `"done":true`) {
			return 1000 + resp.StatusCode
		}
		return resp.StatusCode
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func storeMax(a *atomic.Int64, d time.Duration) {
	for {
		old := a.Load()
		if int64(d) <= old || a.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// lateness is the loop's tick timing over a phase.
type lateness struct {
	ticks, p50, p99, over5, skipped float64 // p50, p99 in ms
	max                             string  // the upper bound of the highest non-empty bucket
}

// tickTiming is the tick timing between two /metrics texts.
func tickTiming(a, z map[string]float64) lateness {
	const name = "twserver_tick_lateness_seconds"
	type bucket struct{ le, n float64 }
	var bs []bucket
	for k, v := range z {
		_, rest, ok := strings.Cut(k, `le="`)
		if ok && strings.HasPrefix(k, name+"_bucket{") {
			rest, _, _ = strings.Cut(rest, `"`)
			le, err := strconv.ParseFloat(rest, 64) // "+Inf" too
			if err == nil {
				bs = append(bs, bucket{le, v - a[k]})
			}
		}
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
	l := lateness{ticks: z[name+"_count"] - a[name+"_count"], skipped: z["twserver_ticks_skipped_total"] - a["twserver_ticks_skipped_total"]}
	q := func(f float64) float64 {
		lower, below := 0.0, 0.0
		for _, b := range bs {
			if b.n >= f*l.ticks && l.ticks > 0 {
				if math.IsInf(b.le, 1) || b.n == below {
					return lower * 1000
				}
				return (lower + (b.le-lower)*(f*l.ticks-below)/(b.n-below)) * 1000
			}
			lower, below = b.le, b.n
		}
		return math.NaN()
	}
	l.p50, l.p99 = q(0.5), q(0.99)
	below := 0.0
	for _, b := range bs {
		if b.le <= 0.005 {
			below = b.n
		}
		if b.n < l.ticks || l.max != "" {
			continue
		}
		l.max = strconv.FormatFloat(b.le*1000, 'g', -1, 64)
	}
	l.over5 = l.ticks - below
	return l
}

// scrape reads the sample lines of a /metrics text.
func scrape(url string) (map[string]float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if i := strings.LastIndexByte(line, ' '); ok && i > 0 {
			k, v = line[:i], line[i+1:]
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			out[k] += f
		}
	}
	return out, sc.Err()
}

// procCPU is the CPU time of process pid, its ended threads and its
// waited-for children included (/proc/PID/stat's utime, stime, cutime and
// cstime: builds in the process's threads end with them, so the sum over
// /proc/PID/task would lose theirs; builds in child processes count once
// they ended).
func procCPU(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	rest, ok := procfs.AfterComm(b)
	if !ok {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	f := strings.Fields(string(rest)) // from field 3 (state) on
	if len(f) < 15 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:15] { // utime, stime, cutime, cstime
		v, _ := strconv.ParseInt(s, 10, 64)
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond // USER_HZ is 100
}

// envInt reads a bounded integer from the environment.
func envInt(t *testing.T, key string, def, lo, hi int) int {
	s := os.Getenv(key)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		t.Fatalf("%s=%q: want %d..%d", key, s, lo, hi)
	}
	return v
}

// spread formats the median and the range of v.
func spread(v []float64, prec int) string {
	if len(v) == 0 {
		return "-"
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	return fmt.Sprintf("%s [%s, %s]", f(s[len(s)/2]), f(s[0]), f(s[len(s)-1]))
}
