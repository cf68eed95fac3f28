package waketimer

import (
	"runtime"
	"sync/atomic"
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
			tm.Wait()
			if el := time.Since(start); el < 30*time.Millisecond || el > 2*time.Second {
				t.Errorf("fired after %v, want 30 ms", el)
			}
			// Zero and negative durations fire at once (a zero timerfd
			// would be disarmed and never fire).
			for _, d := range []time.Duration{0, -time.Second, 1} {
				tm.Reset(d)
				if !waits(t, tm, 2*time.Second) {
					t.Fatalf("Reset(%v) did not fire", d)
				}
			}
			// A Reset replaces the arming before it.
			tm.Reset(time.Hour)
			tm.Reset(20 * time.Millisecond)
			if !waits(t, tm, 2*time.Second) {
				t.Fatal("a re-armed timer did not fire")
			}
			tm.Reset(50 * time.Millisecond)
			tm.Reset(time.Hour)
			quiet(t, tm, 150*time.Millisecond, "the replaced arming fired")
			// An expiry that no Wait returned for is forgotten by a Reset.
			tm.Reset(0)
			time.Sleep(20 * time.Millisecond)
			tm.Reset(time.Hour)
			quiet(t, tm, 50*time.Millisecond, "an expiry from before the Reset ended a Wait")
			// A Poke ends a Wait at once, from another goroutine, while
			// it waits or before it waits; a Reset keeps it; two Pokes
			// before a Wait end one Wait.
			tm.Reset(time.Hour)
			go func() {
				time.Sleep(20 * time.Millisecond)
				tm.Poke()
			}()
			if !waits(t, tm, 2*time.Second) {
				t.Fatal("a Poke while waiting did not end the Wait")
			}
			tm.Poke()
			tm.Poke()
			tm.Reset(time.Hour)
			if !waits(t, tm, 2*time.Second) {
				t.Fatal("a Poke before the Reset and Wait did not end the Wait")
			}
			tm.Reset(time.Hour)
			quiet(t, tm, 50*time.Millisecond, "a second Poke before one Wait ended a second Wait")
			// After a Poke-ended Wait the arming is gone: a Reset arms
			// it again.
			tm.Reset(20 * time.Millisecond)
			tm.Poke()
			tm.Wait()
			tm.Reset(20 * time.Millisecond)
			if !waits(t, tm, 2*time.Second) {
				t.Fatal("a Reset after a Poke-ended Wait did not fire")
			}
		})
	}
}

// waits reports whether tm's Wait returns within d. A Wait that does not
// is ended by a Poke after d, so tm can still be used; one that a Poke
// does not end within 2 s fails the test.
func waits(t *testing.T, tm *Timer, d time.Duration) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		tm.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
	}
	tm.Poke()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("a Poke did not end a Wait")
	}
	return false
}

// quiet fails the test with why when tm's Wait returns within d.
func quiet(t *testing.T, tm *Timer, d time.Duration, why string) {
	t.Helper()
	if waits(t, tm, d) {
		t.Fatal(why)
	}
}

// TestPokeRace: Pokes from other goroutines, each after leaving work,
// racing the owner's Reset and Wait: no work is left unseen at a Wait's
// return for longer than the owner's arming (one hour here, so a lost Poke
// hangs the test).
func TestPokeRace(t *testing.T) {
	for _, tm := range kinds(t) {
		t.Run(tm.Kind(), func(t *testing.T) {
			defer tm.Stop()
			const pokers, each = 4, 500
			var left atomic.Int64
			for range pokers {
				go func() {
					for range each {
						left.Add(1)
						tm.Poke()
						runtime.Gosched()
					}
				}()
			}
			deadline := time.Now().Add(20 * time.Second)
			for seen := int64(0); seen < pokers*each; {
				tm.Reset(time.Hour)
				if !waits(t, tm, time.Until(deadline)) {
					t.Fatalf("a Wait outlived the Pokes: %d of %d seen", seen, pokers*each)
				}
				seen += left.Swap(0)
			}
		})
	}
}

// TestStopEndsWait: Stop ends a Wait in progress, and a Wait after Stop
// returns at once.
func TestStopEndsWait(t *testing.T) {
	for _, tm := range kinds(t) {
		t.Run(tm.Kind(), func(t *testing.T) {
			tm.Reset(time.Hour)
			done := make(chan struct{})
			go func() {
				tm.Wait()
				tm.Wait()
				close(done)
			}()
			time.Sleep(20 * time.Millisecond)
			tm.Stop()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("Wait did not return after Stop")
			}
		})
	}
}

func TestAllocs(t *testing.T) {
	for _, tm := range kinds(t) {
		t.Run(tm.Kind(), func(t *testing.T) {
			defer tm.Stop()
			if a := testing.AllocsPerRun(20, func() {
				tm.Reset(100 * time.Microsecond)
				tm.Wait()
				tm.Reset(time.Hour)
				tm.Poke()
				tm.Wait()
			}); a != 0 {
				t.Errorf("%.1f allocations per Reset, Poke and Wait, want 0", a)
			}
		})
	}
}
