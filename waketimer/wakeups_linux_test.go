package waketimer

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// switches returns the voluntary context switches of every thread of the
// process so far.
func switches(t *testing.T) int {
	paths, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(paths) == 0 {
		t.Fatalf("threads: %v", err)
	}
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread exited
		}
		for l := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			}
		}
	}
	return n
}

// perExpiry returns the process's voluntary context switches per expiry of
// tm over a loop like the game's: wait for the timer, a little work,
// re-arm for the next instant of a 20 ms grid.
func perExpiry(t *testing.T, tm *Timer) float64 {
	const n = 60
	start := time.Now()
	tm.Reset(0)
	tm.Wait()
	s0 := switches(t)
	for i := 1; i <= n; i++ {
		tm.Reset(time.Until(start.Add(time.Duration(i)*20*time.Millisecond + 7300*time.Microsecond)))
		tm.Wait()
		x := 0
		for j := range 20000 {
			x += j * j
		}
		_ = x
	}
	return float64(switches(t)-s0) / n
}

// TestWakeupsPerExpiry: with one P (the game process below a quarter of a
// core), an expiry of the timerfd costs one context switch; a runtime
// timer's costs about four (the poller thread's two, sysmon's two), which
// is the control that the count sees them.
func TestWakeupsPerExpiry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's own thread wakes on its own schedule")
	}
	if testing.Short() {
		t.Skip("2.5 s of timing")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	fd, rt := New(time.Hour), NewRuntime(time.Hour)
	defer fd.Stop()
	defer rt.Stop()
	if fd.Kind() != KindTimerfd {
		t.Fatalf("New made a %s timer", fd.Kind())
	}
	var got, ctl float64
	for range 2 { // the better of two rounds each: a busy machine adds switches
		g, c := perExpiry(t, fd), perExpiry(t, rt)
		if got == 0 || g < got {
			got = g
		}
		if ctl == 0 || c < ctl {
			ctl = c
		}
	}
	t.Logf("voluntary switches per expiry: timerfd %.2f, runtime timer %.2f", got, ctl)
	if got > 1.5 {
		t.Errorf("timerfd: %.2f switches per expiry, want at most 1.5", got)
	}
	if ctl < got+1 {
		t.Errorf("control: a runtime timer costs %.2f switches per expiry, not more than the timerfd's %.2f", ctl, got)
	}
}
