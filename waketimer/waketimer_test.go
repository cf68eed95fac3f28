package waketimer

import (
	"runtime"
	"testing"
	"time"
)

// kinds returns a Timer of every kind this system has.
func kinds(t *testing.T) []*Timer {
	ts := []*Timer{NewRuntime(time.Hour)}
	if n := New(time.Hour); n.Kind() != KindRuntime {
		ts = append(ts, n)
	} else {
		n.Stop()
		if runtime.GOOS == "linux" {
			t.Errorf("New on Linux made a %s timer", n.Kind())
		}
	}
	return ts
}

func TestTimer(t *testing.T) {
	for _, tm := range kinds(t) {
		t.Run(tm.Kind(), func(t *testing.T) {
			defer tm.Stop()
			// Fires after its duration, not before.
			start := time.Now()
			tm.Reset(30 * time.Millisecond)
			<-tm.C
			if el := time.Since(start); el < 30*time.Millisecond || el > 2*time.Second {
				t.Errorf("fired after %v, want 30 ms", el)
			}
			// Zero and negative durations fire at once (a zero timerfd
			// would be disarmed and never fire).
			for _, d := range []time.Duration{0, -time.Second, 1} {
				tm.Reset(d)
				select {
				case <-tm.C:
				case <-time.After(2 * time.Second):
					t.Fatalf("Reset(%v) did not fire", d)
				}
			}
			// A Reset replaces the arming before it.
			tm.Reset(time.Hour)
			tm.Reset(20 * time.Millisecond)
			select {
			case <-tm.C:
			case <-time.After(2 * time.Second):
				t.Fatal("a re-armed timer did not fire")
			}
			tm.Reset(50 * time.Millisecond)
			tm.Reset(time.Hour)
			quiet(t, tm, 150*time.Millisecond, "the replaced arming fired")
			// A Reset drains an expiry left on C.
			tm.Reset(0)
			time.Sleep(20 * time.Millisecond)
			tm.Reset(time.Hour)
			quiet(t, tm, 50*time.Millisecond, "an expiry from before the Reset arrived")
		})
	}
}

// quiet fails the test with why when tm fires within d.
func quiet(t *testing.T, tm *Timer, d time.Duration, why string) {
	t.Helper()
	select {
	case <-tm.C:
		t.Fatal(why)
	case <-time.After(d):
	}
}

func TestStopEndsGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	tms := make([]*Timer, 8)
	for i := range tms {
		tms[i] = New(time.Hour)
		tms[i].Reset(time.Millisecond)
	}
	for _, tm := range tms {
		tm.Stop()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Stop, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAllocs(t *testing.T) {
	for _, tm := range kinds(t) {
		t.Run(tm.Kind(), func(t *testing.T) {
			defer tm.Stop()
			if a := testing.AllocsPerRun(20, func() {
				tm.Reset(100 * time.Microsecond)
				<-tm.C
			}); a != 0 {
				t.Errorf("%.1f allocations per Reset and expiry, want 0", a)
			}
		})
	}
}
