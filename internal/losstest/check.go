package losstest

import (
	"errors"
	"fmt"
	"math"

	"twserver/loadclient"
)

// BinomialZ is how many standard deviations a count may lie from its
// expectation before Binomial calls it wrong: at 6 a correct impairment
// fails one check in about 500 million, while a missing one (a lossless
// link where 5 % loss was asked for, over the thousands of datagrams a run
// sends) lies hundreds of deviations away.
const BinomialZ = 6

// Binomial checks that k successes in n trials fit a success probability
// p: |k - np| at most BinomialZ standard deviations (plus 1 for the
// rounding of small counts). p = 0 wants k = 0, p = 1 wants k = n.
func Binomial(k, n int64, p float64) error {
	switch {
	case n < 0 || k < 0 || k > n:
		return fmt.Errorf("%d of %d is not a count", k, n)
	case p <= 0:
		if k != 0 {
			return fmt.Errorf("%d of %d, want none", k, n)
		}
		return nil
	case p >= 1:
		if k != n {
			return fmt.Errorf("%d of %d, want all", k, n)
		}
		return nil
	}
	mean := float64(n) * p
	bound := BinomialZ*math.Sqrt(mean*(1-p)) + 1
	if d := math.Abs(float64(k) - mean); d > bound {
		return fmt.Errorf("%d of %d (%.2f%%), want %.2f%% (%.0f±%.0f)", k, n, 100*float64(k)/float64(max(n, 1)), 100*p, mean, bound)
	}
	return nil
}

// MinDatagrams is the least traffic CheckLink wants through an impaired
// direction: with fewer, the counts prove too little.
const MinDatagrams = 1000

// CheckLink checks what one direction's impairment did (s) against what
// was asked (imp, and whether the run had a blackout): the random drops,
// duplicates and reorders are binomial in the datagrams that reached each
// draw, every copy of a delayed direction was held, and nothing was done
// that was not asked for. It returns every disagreement.
func CheckLink(s loadclient.LinkStats, imp loadclient.Impair, blackout bool) []error {
	var errs []error
	check := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	if (imp.Active() || blackout) && s.Datagrams < MinDatagrams {
		errs = append(errs, fmt.Errorf("%d datagrams, want at least %d to check the impairment", s.Datagrams, MinDatagrams))
	}
	if blackout && s.Blackout == 0 {
		errs = append(errs, errors.New("blackout: no datagram dropped in it"))
	} else if !blackout && s.Blackout != 0 {
		errs = append(errs, fmt.Errorf("blackout: %d dropped without one", s.Blackout))
	}
	// Datagrams dropped in the blackout never reach the loss draw; with a
	// blackout, some of its count are held ones that fell due in it, so the
	// draws are bounded by Datagrams-Blackout from below, Datagrams above.
	drawn := s.Datagrams - s.Blackout
	if blackout && imp.Loss > 0 {
		errs = append(errs, errors.New("a run with both loss and a blackout cannot be checked"))
	}
	check("loss", Binomial(s.Dropped, drawn, imp.Loss))
	kept := drawn - s.Dropped
	check("duplicates", Binomial(s.Duplicated, kept, imp.Dup))
	copies := kept + s.Duplicated
	check("reorders", Binomial(s.Reordered, copies, imp.Reorder))
	switch {
	case imp.Delay > imp.Jitter:
		// every copy is held (its delay is > 0), or dropped when MaxHeld
		// were already held
		if !blackout && s.Delayed+s.Overflow != copies {
			errs = append(errs, fmt.Errorf("delay: %d copies held and %d overflowed, want all %d held", s.Delayed, s.Overflow, copies))
		}
	case imp.Delay == 0 && imp.Jitter == 0 && imp.Reorder == 0:
		if s.Delayed != 0 || s.Overflow != 0 {
			errs = append(errs, fmt.Errorf("delay: %d copies held, %d overflowed without a delay", s.Delayed, s.Overflow))
		}
	}
	return errs
}
