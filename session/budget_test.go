package session

import (
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestBudgetModel compares Budget with a token bucket of the same rate and
// burst (golang.org/x/time/rate, which the server used before) on random
// arrivals: floods, pauses and steady streams, decision by decision.
func TestBudgetModel(t *testing.T) {
	for _, perSecond := range []int{MaxClientPacketsPerSecond, MaxDownloadPacketsPerSecond, 3} {
		rng := rand.New(rand.NewPCG(uint64(perSecond), 1))
		b := NewBudget(perSecond)
		model := rate.NewLimiter(rate.Limit(perSecond), perSecond)
		epoch := time.Unix(1000, 0)
		now := time.Duration(rng.Int64N(int64(time.Second)))
		allowed := 0
		for i := range 200000 {
			switch rng.IntN(4) {
			case 0: // a flood: the same instant
			case 1:
				now += time.Duration(rng.Int64N(int64(time.Second) / int64(perSecond) * 2))
			case 2:
				now += time.Duration(rng.Int64N(int64(time.Millisecond)))
			default:
				if rng.IntN(1000) == 0 {
					now += time.Duration(rng.Int64N(int64(3 * time.Second)))
				}
			}
			got, want := b.Allow(now), model.AllowN(epoch.Add(now), 1)
			if got != want {
				t.Fatalf("rate %d, arrival %d at %v: Allow %v, the token bucket %v", perSecond, i, now, got, want)
			}
			if got {
				allowed++
			}
		}
		if allowed == 0 || allowed == 200000 {
			t.Fatalf("rate %d: %d of 200000 allowed: the arrivals did not test the bound", perSecond, allowed)
		}
	}
}

// TestBudgetBounds: a full budget allows one second's worth at once and
// then one packet per interval; the zero Budget refuses; Unlimited allows.
func TestBudgetBounds(t *testing.T) {
	b := NewBudget(250)
	for i := range 250 {
		if !b.Allow(5 * time.Second) {
			t.Fatalf("packet %d of the burst refused", i)
		}
	}
	if b.Allow(5 * time.Second) {
		t.Fatal("packet 251 of the burst allowed")
	}
	if b.Allow(5*time.Second + 3999*time.Microsecond) {
		t.Fatal("allowed before a token came back (4 ms)")
	}
	if !b.Allow(5*time.Second + 4*time.Millisecond) {
		t.Fatal("refused after a token came back")
	}
	var zero Budget
	if zero.Allow(time.Hour) {
		t.Fatal("the zero Budget allowed a packet")
	}
	zero.Unlimited()
	for range 100000 {
		if !zero.Allow(0) {
			t.Fatal("Unlimited refused a packet")
		}
	}
	if a := testing.AllocsPerRun(100, func() { b.Allow(time.Minute) }); a != 0 {
		t.Fatalf("Allow allocates %v times", a)
	}
}

// BenchmarkBudgetAllow is the check every datagram of a client makes.
func BenchmarkBudgetAllow(b *testing.B) {
	bud := NewClientBudget()
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 20 * time.Millisecond
		bud.Allow(now)
	}
}

// BenchmarkRateLimiterAllow is the same check with the token bucket the
// server used before (golang.org/x/time/rate), for comparison.
func BenchmarkRateLimiterAllow(b *testing.B) {
	l := rate.NewLimiter(MaxClientPacketsPerSecond, MaxClientPacketsPerSecond)
	epoch := time.Unix(1000, 0)
	now := time.Duration(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 20 * time.Millisecond
		l.AllowN(epoch.Add(now), 1)
	}
}
