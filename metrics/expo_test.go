package metrics

import (
	"strings"
	"testing"
	"time"

	"twserver/edge"
)

// TestEscape: label values escape backslash, double quote and newline;
// HELP text escapes backslash and newline only; bytes that are not UTF-8
// become U+FFFD; other text passes unchanged.
func TestEscape(t *testing.T) {
	for _, c := range []struct {
		in, label, help string
	}{
		{"", "", ""},
		{"plain name", "plain name", "plain name"},
		{`a\b`, `a\\b`, `a\\b`},
		{`say "gg"`, `say \"gg\"`, `say "gg"`},
		{"two\nlines", `two\nlines`, `two\nlines`},
		{`\"` + "\n", `\\\"\n`, `\\"\n`},
		{"tab\there", "tab\there", "tab\there"},
		{"ünï ✓", "ünï ✓", "ünï ✓"},
		{"bad\xffbyte", "bad\uFFFDbyte", "bad\uFFFDbyte"},
		{"cut\xe2\x9c", "cut\uFFFD\uFFFD", "cut\uFFFD\uFFFD"},
	} {
		if got := string(appendEscaped(nil, c.in, true)); got != c.label {
			t.Errorf("label value %q: %q, want %q", c.in, got, c.label)
		}
		if got := string(appendEscaped(nil, c.in, false)); got != c.help {
			t.Errorf("help %q: %q, want %q", c.in, got, c.help)
		}
	}
}

// TestFamiliesWellFormed: every family has a distinct valid name, a help
// text and a known type, and the exposition order is by name.
func TestFamiliesWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for i, f := range sortedFamilies {
		if seen[f.name] {
			t.Errorf("family %s twice", f.name)
		}
		seen[f.name] = true
		if i > 0 && sortedFamilies[i-1].name >= f.name {
			t.Errorf("%s sorted after %s", f.name, sortedFamilies[i-1].name)
		}
		if f.help == "" || strings.Trim(f.name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("family %q: bad name or empty help", f.name)
		}
		switch f.typ {
		case typeGauge, typeCounter, typeHistogram, typeSummary:
		default:
			t.Errorf("family %s: type %q", f.name, f.typ)
		}
	}
}

// TestLabelOrder: labels are written sorted by name, the game label in
// its place among them, and left out when there is no game.
func TestLabelOrder(t *testing.T) {
	var x expo
	x.reset()
	x.float(descClients, 2, "ingame", "0.7")
	x.game = "8303"
	x.float(descClients, 3, "auth", "0.6")
	x.uint(descTicks, 7)
	want := "teeworlds_server_clients{dialect=\"0.7\",state=\"ingame\"} 2\n" +
		"teeworlds_server_clients{dialect=\"0.6\",game=\"8303\",state=\"auth\"} 3\n"
	if got := string(x.body[descClients.id]); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	if got := string(x.body[descTicks.id]); got != "twserver_ticks_total{game=\"8303\"} 7\n" {
		t.Errorf("got %q", got)
	}
}

// scrapeSource is a Source with a few figures set, for the allocation checks.
type scrapeSource struct {
	stats  edge.Stats
	gauges Gauges
	ticks  TickTiming
}

func (s *scrapeSource) Stats() *edge.Stats                { return &s.stats }
func (s *scrapeSource) Gauges() *Gauges                   { return &s.gauges }
func (s *scrapeSource) TickTiming() *TickTiming           { return &s.ticks }
func (s *scrapeSource) RecordCounters() map[string]uint64 { return nil }

// allocEndpoint is an endpoint of two games with figures and a registration.
func allocEndpoint(tb testing.TB) *Endpoint {
	var games []Game
	for _, name := range []string{"8303", "8304"} {
		src := &scrapeSource{}
		src.gauges.PublishInfo("a \"name\"", "DM", "dm1")
		src.gauges.SnapshotBytes.Observe(900)
		src.ticks.ObserveWork(300*time.Microsecond, time.Unix(1000, 0))
		src.stats.Received.Add(1234567)
		reg := []RegisterState{{Protocol: "tw-0.7+udp/ipv4", Registered: true}}
		games = append(games, Game{Name: name, Source: src, Register: func() []RegisterState { return reg }})
	}
	e, err := NewGames(games, Options{Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// TestScrapeAllocs: once its buffers have grown, a scrape of two games
// allocates nothing.
func TestScrapeAllocs(t *testing.T) {
	e := allocEndpoint(t)
	var s scrape
	e.expose(&s)
	if n := testing.AllocsPerRun(20, func() { e.expose(&s) }); n != 0 {
		t.Errorf("a scrape allocates %.1f times", n)
	}
}

// BenchmarkScrape measures a scrape of two games, without HTTP.
func BenchmarkScrape(b *testing.B) {
	e := allocEndpoint(b)
	var s scrape
	b.ReportAllocs()
	for b.Loop() {
		e.expose(&s)
	}
}
