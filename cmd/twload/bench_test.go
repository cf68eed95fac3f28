package main

import (
	"bytes"
	"fmt"
	"math"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"twserver/internal/heavytest"
	"twserver/internal/nodns"
	"twserver/internal/refserver"
	"twserver/internal/testenv"
)

// refBenchCmd is the 0.7.5 reference server as a bench -server: loopback
// only, never registering, 64 slots of which 16 play, on dm1.
const refBenchCmd = "'{ref}' 'bindaddr 127.0.0.1; sv_port {port}; sv_register 0; sv_map dm1; sv_max_clients 64; sv_max_clients_per_ip 4; sv_player_slots 16; sv_spamprotection 0; sv_inactivekick_time 0'"

// TestBenchTwserverVsReference is the side-by-side measurement as CI runs
// it: `twload bench` with twserver (its games in one process through
// {configs}, /metrics on) and teeworlds-server 0.7.5 at 0 and 4 clients in
// 2 short windows. The report must hold both servers' rows for every
// window, each with non-zero CPU and memory, all clients in game with
// snapshots, the tick work from twserver's /metrics, the ratios, and a
// time series.
func TestBenchTwserverVsReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the bench against the reference server")
	}
	ref := refserver.Path()
	if ref == "" {
		t.Skip(refserver.SkipReason)
	}
	heavytest.Lock(t)
	tws := buildTwserver(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "-server", "'" + tws + "' {configs}", "-name", "twserver",
		"-server", strings.ReplaceAll(refBenchCmd, "{ref}", ref), "-name", "reference",
		"-clients", "0,4", "-windows", "2", "-window", "3s", "-rampup", "1s", "-settle", "500ms", "-metrics", "-o", out}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("twload bench exit %d", code)
	}
	rep := readReport(t, out)
	if !rep.OK || len(rep.Rows) != 8 {
		t.Fatalf("report ok %v with %d rows, want 8: %s", rep.OK, len(rep.Rows), rep.FirstProblem)
	}
	for _, r := range rep.Rows {
		if r.UserPct < 0 || r.SysPct < 0 || r.UserPct+r.SysPct > 0 && math.Abs(r.UserPct+r.SysPct-r.CPUPct) > 0.02 {
			t.Errorf("%s at %d clients, window %d: user %v + system %v %% is not the CPU %v %%", r.Server, r.Clients, r.Window, r.UserPct, r.SysPct, r.CPUPct)
		}
		if r.CPUPct <= 0 || r.PeakRSSMB <= 0 || len(r.Series) < 4 {
			t.Errorf("%s at %d clients, window %d: CPU %v %%, peak RSS %v MB, %d points", r.Server, r.Clients, r.Window, r.CPUPct, r.PeakRSSMB, len(r.Series))
		}
		if r.Clients > 0 && r.JoinCPUPct <= 0 {
			t.Errorf("%s at %d clients, window %d: join CPU %v %%", r.Server, r.Clients, r.Window, r.JoinCPUPct)
		}
		if r.InGame != r.Clients || r.Errors != 0 || r.Clients > 0 && (r.SnapsMin <= 0 || len(r.JoinTimes) != r.Clients) {
			t.Errorf("%s at %d clients, window %d: %d in game, %d errors, min %v snapshots/s", r.Server, r.Clients, r.Window, r.InGame, r.Errors, r.SnapsMin)
		}
		// An empty twserver game sleeps (no ticks), so tick work is
		// wanted only with clients.
		if r.Server == "twserver" && r.Clients > 0 && r.TickMs <= 0 {
			t.Errorf("twserver at %d clients, window %d: no tick work from /metrics", r.Clients, r.Window)
		}
	}
	if first := rep.Rows[0].Server; first != "twserver" || rep.Rows[2].Server != "reference" {
		t.Errorf("window 1 ran %s first, window 2 %s: want twserver, then reference", first, rep.Rows[2].Server)
	}
	if len(rep.Ratios) != 2 || rep.Ratios[1].CPU.N != 2 || rep.Ratios[1].Bytes.N != 2 {
		t.Errorf("ratios %+v", rep.Ratios)
	}
	for _, want := range []string{"ratio twserver/reference at 4 clients: CPU", "clients/game"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout does not say %q", want)
		}
	}
	// bars: CPU, RSS, bytes, snapshots, join time, tick work; lines at 0
	// clients: CPU, RSS (no tick work: the empty game sleeps); at 4: those,
	// tick work, snapshots, join times
	checkReportInBrowser(t, filepath.Join(out, "report.html"), 13)
}

// TestBenchRefusesWildcard: a server that binds every address (twserver
// without -bind) is stopped and refused, with the setting that fixes it.
func TestBenchRefusesWildcard(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tws := buildTwserver(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "-server", tws + " -port {port}", "-clients", "0", "-windows", "1", "-window", "1s", "-o", t.TempDir()}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "not a loopback address (bind it to 127.0.0.1") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

func TestBenchUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{}, "give 1..8 -server"},
		{[]string{"-server", "x 'y"}, "unterminated ' quote"},
		{[]string{"-server", "x {port} {configs}"}, "exclude each other"},
		{[]string{"-server", "x", "-games", "2"}, "needs {port}"},
		{[]string{"-server", "x {port}", "-clients", "4,65"}, "not a count"},
		{[]string{"-server", "x {port}", "-games", "33", "-clients", "1"}, "at most 32 games"},
		{[]string{"-server", "x {port}", "-windows", "0"}, "-windows"},
		{[]string{"-server", "x {port}", "-window", "11m"}, "-window"},
		{[]string{"-server", "x {port}", "-proto", "05"}, "proto must be"},
		{[]string{"-server", "x", "-name", "a", "-name", "b"}, "more -name"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"bench"}, tt.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		`a b  c`: {"a", "b", "c"},
		`/usr/games/x 'sv_port 1; bindaddr 127.0.0.1'`: {"/usr/games/x", "sv_port 1; bindaddr 127.0.0.1"},
		`a"b c"d 'e'"f"`:       {"ab cd", "ef"},
		`"a \" \\ \$ \n" b\ c`: {`a " \ $ \n`, "b c"},
		`''`:                   {""},
		"x\ty\n":               {"x", "y"},
	} {
		got, err := splitWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `   `, `'a`, `"a`, `a\`} {
		if _, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q) accepted", bad)
		}
	}
}

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{`a 'b c' "d\"e" f\ g`, `'`, `"\`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := splitWords(s)
		if err == nil && (len(w) == 0 || len(w) > maxCmdWords+1) {
			t.Fatalf("%q: %d words", s, len(w))
		}
	})
}

// TestProcTree: the tree of this test process holds a child it started
// and that child's own child (from the parents in /proc/PID/stat).
func TestProcTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 5 & wait")
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var tree []int
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if tree = procTree(os.Getpid()); len(tree) >= 3 {
			break
		}
	}
	if len(tree) < 3 || tree[0] != os.Getpid() || !slices.Contains(tree, cmd.Process.Pid) {
		t.Fatalf("tree of %d: %v, want it, sh %d and sleep", os.Getpid(), tree, cmd.Process.Pid)
	}
	if p, ok := ppid(tree[len(tree)-1]); !ok || !slices.Contains(tree[:len(tree)-1], p) {
		t.Errorf("the last of the tree %v has parent %d (%v), not in the tree", tree, p, ok)
	}
}

// TestUserSysTicks: user time grows with work in this process's own code,
// system time with system calls; a process that is gone reads as zeros.
// The kernel samples both at clock ticks, so each kind of work runs until
// its counter moves (a loaded machine may not run this process for a
// while), up to a deadline that only a counter that never moves reaches.
func TestUserSysTicks(t *testing.T) {
	const hz = 100 // USER_HZ on Linux
	u0, s0 := userSysTicks(os.Getpid())
	x := uint64(1)
	deadline := time.Now().Add(10 * time.Second)
	for u, _ := userSysTicks(os.Getpid()); u-u0 < hz/10 && time.Now().Before(deadline); u, _ = userSysTicks(os.Getpid()) {
		for range 1_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	// Reading /dev/zero into a large buffer keeps the kernel busy
	// clearing it; the few instructions around each call are the
	// user time, a small part of the whole.
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1<<20)
	for _, s := userSysTicks(os.Getpid()); s-s0 < 2 && time.Now().Before(deadline); _, s = userSysTicks(os.Getpid()) {
		for range 16 {
			if _, err := f.Read(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	u1, s1 := userSysTicks(os.Getpid())
	if u1-u0 < hz/10 || s1-s0 < 2 {
		t.Errorf("user %d -> %d, system %d -> %d ticks in 10 s (x %d): want both to grow", u0, u1, s0, s1, x)
	}
	if u, s := userSysTicks(1 << 30); u != 0 || s != 0 {
		t.Errorf("no such process: %d, %d", u, s)
	}
}

func TestParseProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		"0100007F:1F6F":                         "127.0.0.1:8047",
		"00000000:0035":                         "0.0.0.0:53",
		"00000000000000000000000001000000:20AF": "[::1]:8367",
		"0000000000000000FFFF00000100007F:1F6F": "127.0.0.1:8047",
	} {
		got, err := parseProcAddr(in)
		if err != nil || got != netip.MustParseAddrPort(want) {
			t.Errorf("parseProcAddr(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "01007F:1", "0100007F:x", "zz00007F:1"} {
		if _, err := parseProcAddr(bad); err == nil {
			t.Errorf("parseProcAddr(%q) accepted", bad)
		}
	}
	if what, ok := offLoopback([]sock{{Proto: "udp", Local: netip.MustParseAddrPort("0.0.0.0:8303")}}); ok || !strings.Contains(what, "0.0.0.0:8303") {
		t.Errorf("a wildcard bind passed: %q", what)
	}
	if _, ok := offLoopback([]sock{{Proto: "udp", Local: netip.MustParseAddrPort("127.0.0.1:8303"), Remote: netip.MustParseAddrPort("127.0.0.2:5000")}}); !ok {
		t.Errorf("a loopback socket refused")
	}
}

func FuzzParseProcAddr(f *testing.F) {
	f.Add("0100007F:1F6F")
	f.Add("00000000000000000000000001000000:20AF")
	f.Fuzz(func(t *testing.T, s string) { parseProcAddr(s) })
}

// TestBenchGames: -games 2 runs two games in one twserver process
// ({configs}) against two twserver processes ({port}), each game loaded
// with its own clients; the one process binds both ports, the other side
// is two process trees, and every row has all 2 x 2 clients in game.
func TestBenchGames(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tws := buildTwserver(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "-server", tws + " {configs} -no-console", "-name", "one",
		"-server", tws + " -bind 127.0.0.1 -port {port} -max-clients 16 -no-console", "-name", "each",
		"-games", "2", "-clients", "2", "-windows", "1", "-window", "2s", "-rampup", "500ms", "-settle", "0s", "-o", out}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rep := readReport(t, out)
	for _, r := range rep.Rows {
		if len(r.Ports) != 2 || r.Ports[0] == r.Ports[1] || r.InGame != 4 || r.CPUPct <= 0 {
			t.Errorf("%s: ports %v, %d in game, CPU %v", r.Server, r.Ports, r.InGame, r.CPUPct)
		}
	}
	procs, _ := filepath.Glob(filepath.Join(out, "runs", "each-c2-w1", "p*"))
	one, _ := filepath.Glob(filepath.Join(out, "runs", "one-c2-w1", "p*"))
	if len(procs) != 2 || len(one) != 1 {
		t.Errorf("process directories: %d for {port}, %d for {configs}; want 2 and 1", len(procs), len(one))
	}
}

// TestBenchRatioExcludesRefused: a window in which one server did not
// serve every client (it refused some: "server full") is left out of the
// ratios, and a count with no comparable window says so instead of a
// ratio; a window both served fully still counts.
func TestBenchRatioExcludesRefused(t *testing.T) {
	row := func(server string, n, w, inGame int, cpu float64) benchRow {
		return benchRow{Server: server, Clients: n, Window: w, InGame: inGame, Expected: n, CPUPct: cpu, PeakRSSMB: 10, RxBps: 1000,
			Series: []benchPoint{{T: 1}}}
	}
	rep := &benchReport{Config: benchConfig{Servers: []benchServer{{Name: "twserver"}, {Name: "reference"}}, Clients: []int{4, 16}, Windows: 2}}
	rep.Rows = []benchRow{
		row("twserver", 4, 1, 4, 1), row("reference", 4, 1, 4, 2),
		row("twserver", 4, 2, 4, 1), row("reference", 4, 2, 3, 4), // window 2: the reference lost one
		row("twserver", 16, 1, 16, 2), row("reference", 16, 1, 8, 1),
		row("twserver", 16, 2, 16, 2), row("reference", 16, 2, 8, 1),
	}
	rep.summarize()
	if len(rep.Ratios) != 2 {
		t.Fatalf("ratios %+v", rep.Ratios)
	}
	if r := rep.Ratios[0]; r.CPU.N != 1 || r.CPU.Median != 0.5 || len(r.Excluded) != 1 || !strings.Contains(r.Excluded[0], "reference had 3 of 4") {
		t.Errorf("at 4 clients: %+v", r)
	}
	if r := rep.Ratios[1]; r.CPU.N != 0 || len(r.Excluded) != 2 {
		t.Errorf("at 16 clients: %+v", r)
	}
	var out strings.Builder
	rep.writeText(&out)
	for _, want := range []string{"ratio twserver/reference at 4 clients: CPU 0.5", "left out of that ratio: window 2", "at 16 clients: not comparable (window 1: reference had 8 of 16"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}

// TestStartProcConfines: a bench server runs in a mount namespace of its
// own whose /etc/nsswitch.conf looks host names up in files only and whose
// /etc/hosts names localhost alone (internal/nodns), in twload's network
// namespace, under the process id twload started; twload's own files are
// the host's (the control: they differ from the confined ones).
func TestStartProcConfines(t *testing.T) {
	testenv.Require(t, "a private mount namespace (unshare --mount, root or user namespaces)", nodns.Check())
	dir := t.TempDir()
	p, err := startProc([]string{"sh", "-c", "cat /etc/nsswitch.conf /etc/hosts >seen; echo $$ >pid; exec sleep 10"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	var seen, pid []byte
	for deadline := time.Now().Add(5 * time.Second); len(pid) == 0 || pid[len(pid)-1] != '\n'; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never wrote its pid")
		}
		pid, _ = os.ReadFile(filepath.Join(dir, "pid"))
	}
	seen, _ = os.ReadFile(filepath.Join(dir, "seen"))
	if got := strings.TrimSpace(string(pid)); got != strconv.Itoa(p.cmd.Process.Pid) {
		t.Errorf("the server runs as pid %s, twload started %d", got, p.cmd.Process.Pid)
	}
	if !strings.HasPrefix(string(seen), "hosts: files\n") || strings.Contains(string(seen), "dns") || strings.Contains(string(seen), "mdns") {
		t.Errorf("the server's nsswitch.conf and hosts:\n%s", seen)
	}
	ns := func(pid int, kind string) string {
		s, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, kind))
		return s
	}
	if ns(p.cmd.Process.Pid, "mnt") == ns(os.Getpid(), "mnt") {
		t.Errorf("the server shares twload's mount namespace")
	}
	if ns(p.cmd.Process.Pid, "net") != ns(os.Getpid(), "net") {
		t.Errorf("the server is not in twload's network namespace")
	}
	host, err := os.ReadFile("/etc/nsswitch.conf")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(seen, host) {
		t.Errorf("control: twload's own nsswitch.conf is the confined one:\n%s", host)
	}
}
