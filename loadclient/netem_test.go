package loadclient

import (
	"strings"
	"testing"
	"time"
)

func TestParseImpair(t *testing.T) {
	base := Impair{Loss: 0.05, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	tests := []struct {
		spec string
		want Impair
		err  string
	}{
		{"", base, ""},
		{"loss=10%", Impair{Loss: 0.10, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}, ""},
		{"loss=0.2, delay=100ms,jitter=50ms,reorder=10%,dup=1%", Impair{Loss: 0.2, Delay: 100 * time.Millisecond, Jitter: 50 * time.Millisecond, Reorder: 0.1, Dup: 0.01}, ""},
		{"loss=5", Impair{}, "not a share"},
		{"loss=-1%", Impair{}, "not a share"},
		{"loss=101%", Impair{}, "not a share"},
		{"delay=2s,jitter=1ms", Impair{}, "at most"},
		{"delay=-1ms", Impair{}, ">= 0"},
		{"speed=1", Impair{}, "unknown key"},
		{"loss", Impair{}, "key=value"},
		{"jitter=fast", Impair{}, "jitter"},
	}
	for _, tt := range tests {
		got, err := ParseImpair(base, tt.spec)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one containing %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
		if back, err := ParseImpair(Impair{}, got.String()); err != nil || back != got {
			t.Errorf("%q: String %q parses to %+v, %v", tt.spec, got.String(), back, err)
		}
	}
}

func TestParseBlackout(t *testing.T) {
	l, at, err := ParseBlackout("2s@30s")
	if err != nil || l != 2*time.Second || at != 30*time.Second {
		t.Fatalf("2s@30s: %v %v %v", l, at, err)
	}
	for _, bad := range []string{"2s", "2s@", "@30s", "0s@1s", "2m@1s", "1s@-1s", "x@1s"} {
		if _, _, err := ParseBlackout(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// collect is a link output recording the first byte of every datagram and
// the time it came out.
type collect struct {
	now  time.Duration
	got  []byte
	when []time.Duration
}

func (c *collect) out(b []byte) {
	c.got = append(c.got, b[0])
	c.when = append(c.when, c.now)
}

// runLink offers n one-byte datagrams numbered 0.. one per ms and releases
// every ms until all are out.
func runLink(imp Impair, n *Netem, count int, seed uint64) (*collect, LinkStats) {
	l := newLink(imp, n, seed, 1)
	c := &collect{}
	for ms := 0; ms < count+3000; ms++ {
		c.now = time.Duration(ms) * time.Millisecond
		l.release(c.now, c.out)
		if ms < count {
			l.admit(c.now, []byte{byte(ms)}, c.out)
		}
	}
	return c, l.stats
}

func TestLinkLossDupDeterministic(t *testing.T) {
	imp := Impair{Loss: 0.2, Dup: 0.05}
	c1, s1 := runLink(imp, &Netem{}, 10000, 7)
	c2, s2 := runLink(imp, &Netem{}, 10000, 7)
	_, s3 := runLink(imp, &Netem{}, 10000, 8)
	if s1 != s2 || string(c1.got) != string(c2.got) {
		t.Fatalf("same seed, different outcome: %+v %+v", s1, s2)
	}
	if s1 == s3 {
		t.Errorf("different seeds, same counters %+v", s1)
	}
	if s1.Dropped < 1800 || s1.Dropped > 2200 {
		t.Errorf("dropped %d of 10000 at 20%%", s1.Dropped)
	}
	if s1.Duplicated < 300 || s1.Duplicated > 520 {
		t.Errorf("duplicated %d of 8000 kept at 5%%", s1.Duplicated)
	}
	if want := s1.Datagrams - s1.Dropped + s1.Duplicated; int64(len(c1.got)) != want {
		t.Errorf("%d datagrams out, want %d", len(c1.got), want)
	}
	if s1.Delayed != 0 || s1.Overflow != 0 {
		t.Errorf("no delay configured: %+v", s1)
	}
}

func TestLinkDelayJitterReorder(t *testing.T) {
	imp := Impair{Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond, Reorder: 0.1}
	c, st := runLink(imp, &Netem{}, 2000, 1)
	if len(c.got) != 2000 || st.Delayed != 2000 || st.Overflow != 0 {
		t.Fatalf("%d out, %+v", len(c.got), st)
	}
	var inverted int
	for i := range c.got {
		sent := time.Duration(c.got[i]) // the byte wraps at 256 ms: compare within the window
		d := (c.when[i] - sent*time.Millisecond) % (256 * time.Millisecond)
		if d < 20*time.Millisecond || d > 110*time.Millisecond {
			t.Fatalf("datagram %d held %v, want 20..110 ms (40±20, +50 when reordered)", i, d)
		}
		if i > 0 && c.got[i] < c.got[i-1] && c.got[i-1]-c.got[i] < 128 {
			inverted++
		}
	}
	if st.Reordered < 150 || st.Reordered > 250 || inverted == 0 {
		t.Errorf("reordered %d of 2000 at 10%%, %d inversions", st.Reordered, inverted)
	}
}

func TestLinkBlackoutAndOverflow(t *testing.T) {
	n := &Netem{BlackoutAt: 100 * time.Millisecond, Blackout: 50 * time.Millisecond}
	c, st := runLink(Impair{Delay: 10 * time.Millisecond}, n, 300, 1)
	// sent at 90..99 ms fall due in the blackout (100..149), sent at
	// 100..149 are dropped on admission
	if st.Blackout != 60 || len(c.got) != 240 {
		t.Errorf("blackout dropped %d, %d out; want 60, 240", st.Blackout, len(c.got))
	}
	for i, w := range c.when {
		if w >= n.BlackoutAt && w < n.BlackoutAt+n.Blackout {
			t.Fatalf("datagram %d came out at %v, in the blackout", c.got[i], w)
		}
	}
	// a delay longer than MaxHeld datagrams at one per ms
	_, st = runLink(Impair{Delay: time.Second}, &Netem{}, 1000, 1)
	if st.Overflow != 1000-MaxHeld || st.Delayed != MaxHeld {
		t.Errorf("overflow %d delayed %d, want %d and %d", st.Overflow, st.Delayed, 1000-MaxHeld, MaxHeld)
	}
}

func TestLinkAllocs(t *testing.T) {
	l := newLink(Impair{Loss: 0.1, Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond, Reorder: 0.1, Dup: 0.01}, &Netem{}, 1, 1)
	b := make([]byte, 600)
	var now time.Duration
	out := func([]byte) {}
	if a := testing.AllocsPerRun(1000, func() {
		now += 5 * time.Millisecond
		l.admit(now, b, out)
		l.release(now, out)
	}); a != 0 {
		t.Fatalf("%v allocations per datagram", a)
	}
}

func FuzzParseImpair(f *testing.F) {
	f.Add("loss=10%,delay=100ms,jitter=50ms,reorder=10%,dup=1%")
	f.Add("loss=0.5")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseImpair(Impair{}, s)
		if err != nil {
			return
		}
		if m.Validate() != nil {
			t.Fatalf("%q parsed to an invalid %+v", s, m)
		}
		if back, err := ParseImpair(Impair{}, m.String()); err != nil || back.Delay != m.Delay || back.Jitter != m.Jitter {
			t.Fatalf("%q: %+v does not round-trip via %q: %+v %v", s, m, m.String(), back, err)
		}
	})
}
