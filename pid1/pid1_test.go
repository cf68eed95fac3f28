package pid1

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"twserver/handover"
)

// The test binary plays three roles besides the tests, by PID1_ROLE: the
// init, the server it starts (which on SIGUSR2 starts its successor,
// announces it with handover.NotifyMainPID and exits 0, like an upgrade),
// and an orphan the server leaves behind for the init to reap.
func TestMain(m *testing.M) {
	switch os.Getenv("PID1_ROLE") {
	case "init":
		os.Setenv("PID1_ROLE", "server")
		os.Exit(Run(os.Args[0], nil, Options{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
	case "server":
		os.Exit(fakeServer())
	case "orphan-parent":
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "PID1_ROLE=orphan")
		if err := c.Start(); err != nil {
			os.Exit(1)
		}
		os.Exit(0) // the orphan is reparented to the nearest reaper: the init
	case "orphan":
		record("orphan")
		time.Sleep(100 * time.Millisecond)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// record appends "what pid" to the file PID1_OUT.
func record(what string) {
	f, err := os.OpenFile(os.Getenv("PID1_OUT"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, os.Getpid())
	f.Close()
}

// fakeServer is the server role: see TestMain. PID1_EXIT makes it exit at
// once with that status ("kill": by SIGKILL).
func fakeServer() int {
	switch os.Getenv("PID1_EXIT") {
	case "":
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	default:
		n, _ := strconv.Atoi(os.Getenv("PID1_EXIT"))
		return n
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR2, syscall.SIGTERM)
	record("started")
	op := exec.Command(os.Args[0])
	op.Env = append(os.Environ(), "PID1_ROLE=orphan-parent")
	_ = op.Run()
	// One signal: SIGTERM stops, anything else (SIGUSR2) hands over.
	if s := <-sigs; s == syscall.SIGTERM {
		record("stopped")
		return 7
	}
	next := exec.Command(os.Args[0])
	next.Env = withoutEnv(os.Environ(), "PID1_SLOW")
	next.Stdout, next.Stderr = os.Stdout, os.Stderr
	if err := next.Start(); err != nil {
		return 1
	}
	// The new one says it serves before the old one exits.
	waitRecord(fmt.Sprintf("started %d", next.Process.Pid))
	if os.Getenv("PID1_SLOW") != "" {
		record("handing")
		for s := range sigs {
			if s == syscall.SIGTERM {
				record("ignored") // an upgrade's old process goes on with it
				break
			}
		}
	}
	if err := handover.NotifyMainPID(next.Process.Pid); err != nil {
		return 1
	}
	return 0
}

func waitRecord(line string) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(os.Getenv("PID1_OUT"))
		if strings.Contains(string(b), line+"\n") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// lines returns the pids recorded as what, in order.
func lines(t *testing.T, out, what string) []int {
	t.Helper()
	b, _ := os.ReadFile(out)
	var pids []int
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, what+" "); ok {
			n, _ := strconv.Atoi(v)
			pids = append(pids, n)
		}
	}
	return pids
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// procState is the state letter of pid in /proc ("" when it is gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return "?"
	}
	return s[i+2 : i+3]
}

func startInit(t *testing.T, env ...string) (*exec.Cmd, string, chan error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{"PID1_ROLE=init", "PID1_OUT=" + out}, env...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-done
		}
		// A failed test may leave its server processes, orphaned: end
		// them by the pids they recorded, if the pid is still one of
		// them (its environment names this test's file).
		for _, pid := range lines(t, out, "started") {
			env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if strings.Contains(string(env), "\x00PID1_OUT="+out+"\x00") {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return cmd, out, done
}

func exitOf(t *testing.T, done chan error) int {
	t.Helper()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(10 * time.Second):
		t.Fatal("the init did not exit")
	}
	return -1
}

// TestFollowUpgrades: two upgrades by SIGUSR2 sent to the init, each
// followed to the new server process; the old ones and the orphans they
// leave are reaped (no zombie stays); SIGTERM reaches the third process,
// and the init exits with its status.
func TestFollowUpgrades(t *testing.T) {
	cmd, out, done := startInit(t)
	waitFor(t, "the first server", func() bool { return len(lines(t, out, "started")) == 1 })
	for i := 1; i <= 2; i++ {
		old := lines(t, out, "started")[i-1]
		if err := cmd.Process.Signal(syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("server %d", i+1), func() bool { return len(lines(t, out, "started")) == i+1 })
		// The old process exits 0 and is reaped: gone, not a zombie.
		waitFor(t, fmt.Sprintf("process %d reaped", old), func() bool { return procState(old) == "" })
	}
	// The orphans (each one lived: it recorded itself) were reaped too.
	orphans := lines(t, out, "orphan")
	waitFor(t, "3 orphans", func() bool { orphans = lines(t, out, "orphan"); return len(orphans) == 3 })
	for _, o := range orphans {
		waitFor(t, fmt.Sprintf("orphan %d reaped (state %q)", o, procState(o)), func() bool { return procState(o) == "" })
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitOf(t, done); code != 7 {
		t.Errorf("init exit status %d, want 7 (the third server's)", code)
	}
	started, stopped := lines(t, out, "started"), lines(t, out, "stopped")
	if len(stopped) != 1 || stopped[0] != started[2] {
		t.Errorf("stopped %v, want only the third server of %v", stopped, started)
	}
}

// TestStopDuringUpgrade: a SIGTERM that comes while the old process hands
// over (it goes on with the upgrade) is passed on to the new process once
// the init follows it, so `docker stop` during an upgrade still stops.
func TestStopDuringUpgrade(t *testing.T) {
	cmd, out, done := startInit(t, "PID1_SLOW=1")
	waitFor(t, "the first server", func() bool { return len(lines(t, out, "started")) == 1 })
	cmd.Process.Signal(syscall.SIGUSR2)
	waitFor(t, "the hand-over", func() bool { return len(lines(t, out, "handing")) == 1 })
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitOf(t, done); code != 7 {
		t.Errorf("init exit status %d, want 7 (the new server's, stopped)", code)
	}
	started, ignored, stopped := lines(t, out, "started"), lines(t, out, "ignored"), lines(t, out, "stopped")
	if len(started) != 2 || len(ignored) != 1 || ignored[0] != started[0] || len(stopped) != 1 || stopped[0] != started[1] {
		t.Errorf("started %v, ignored %v, stopped %v: want the SIGTERM ignored by the old and stopping the new", started, ignored, stopped)
	}
}

// TestExitStatus: the init exits with the server's status when it ends
// without handing over, 128+N for a signal.
func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		exit string
		want int
	}{{"0", 0}, {"3", 3}, {"kill", 128 + 9}} {
		_, _, done := startInit(t, "PID1_EXIT="+c.exit)
		if code := exitOf(t, done); code != c.want {
			t.Errorf("server exit %s: init exit status %d, want %d", c.exit, code, c.want)
		}
	}
}

func TestParseMainPID(t *testing.T) {
	for msg, want := range map[string]int{
		"MAINPID=42\n":                 42,
		"READY=1\nMAINPID=7":           7,
		"MAINPID=-3\n":                 0,
		"MAINPID=x\n":                  0,
		"STATUS=MAINPID=9\n":           0,
		"":                             0,
		"MAINPID=99999999999999999999": 0,
	} {
		if got := ParseMainPID([]byte(msg)); got != want {
			t.Errorf("ParseMainPID(%q) = %d, want %d", msg, got, want)
		}
	}
}

func FuzzParseMainPID(f *testing.F) {
	f.Add([]byte("MAINPID=1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if n := ParseMainPID(b); n < 0 {
			t.Fatal(n)
		}
	})
}
