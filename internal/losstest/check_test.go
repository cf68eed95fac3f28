package losstest

import (
	"testing"
	"time"

	"twserver/loadclient"
)

func TestBinomial(t *testing.T) {
	for _, tc := range []struct {
		k, n int64
		p    float64
		ok   bool
	}{
		{1000, 10000, 0.10, true},
		{1180, 10000, 0.10, true}, // 6 sigma is 180
		{1200, 10000, 0.10, false},
		{0, 10000, 0.10, false}, // a lossless link asked for 10 % loss
		{0, 10000, 0, true},
		{1, 10000, 0, false},
		{10000, 10000, 1, true},
		{5, 4, 0.5, false},
		{0, 0, 0.2, true},
	} {
		if err := Binomial(tc.k, tc.n, tc.p); (err == nil) != tc.ok {
			t.Errorf("Binomial(%d, %d, %v) = %v, want ok %v", tc.k, tc.n, tc.p, err, tc.ok)
		}
	}
}

// TestCheckLink: the counters of a faithful impairment pass, and each
// impairment left out (the defects a lossy path could have) is caught.
func TestCheckLink(t *testing.T) {
	p2 := loadclient.Impair{Loss: 0.10, Reorder: 0.10, Dup: 0.01, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond}
	good := loadclient.LinkStats{Datagrams: 100000, Dropped: 10000, Duplicated: 900, Reordered: 9090, Delayed: 90900}
	for _, tc := range []struct {
		name     string
		s        loadclient.LinkStats
		imp      loadclient.Impair
		blackout bool
		ok       bool
	}{
		{"P2 as asked", good, p2, false, true},
		{"no loss", func() loadclient.LinkStats { s := good; s.Dropped = 0; return s }(), p2, false, false},
		{"no duplicates", func() loadclient.LinkStats { s := good; s.Duplicated = 0; return s }(), p2, false, false},
		{"no reorders", func() loadclient.LinkStats { s := good; s.Reordered = 0; return s }(), p2, false, false},
		{"no delay", func() loadclient.LinkStats { s := good; s.Delayed = 0; return s }(), p2, false, false},
		{"overflow counted as held", func() loadclient.LinkStats { s := good; s.Delayed -= 10; s.Overflow = 10; return s }(), p2, false, true},
		{"too little traffic", loadclient.LinkStats{Datagrams: 50, Dropped: 5}, loadclient.Impair{Loss: 0.1}, false, false},
		{"unimpaired", loadclient.LinkStats{Datagrams: 5000}, loadclient.Impair{}, false, true},
		{"loss where none was asked", loadclient.LinkStats{Datagrams: 5000, Dropped: 3}, loadclient.Impair{}, false, false},
		{"blackout", loadclient.LinkStats{Datagrams: 5000, Blackout: 600}, loadclient.Impair{}, true, true},
		{"blackout that dropped nothing", loadclient.LinkStats{Datagrams: 5000}, loadclient.Impair{}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := CheckLink(tc.s, tc.imp, tc.blackout)
			if (len(errs) == 0) != tc.ok {
				t.Errorf("CheckLink = %v, want ok %v", errs, tc.ok)
			}
		})
	}
}
