package edge

import (
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBanExportImport: the bans pass through JSON with their expiry and
// order; an expired one is left out; the imported list refuses the
// addresses the exported one refused, and only those.
func TestBanExportImport(t *testing.T) {
	now := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	var old BanList
	a, b, c, d := netip.MustParseAddr("127.0.0.7"), netip.MustParseAddr("::1"), netip.MustParseAddr("127.0.0.9"), netip.MustParseAddr("127.0.0.10")
	old.Add(a, 30*time.Minute, "camping", now)
	old.Add(b, 0, "for life", now)
	old.Add(c, time.Minute, "short", now)
	later := now.Add(2 * time.Minute) // c has expired
	js, err := json.Marshal(old.Export(later))
	if err != nil {
		t.Fatal(err)
	}
	var recs []BanRecord
	if err := json.Unmarshal(js, &recs); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Addr.String())
	}
	if !slices.Equal(got, []string{a.String(), b.String()}) {
		t.Fatalf("exported %s, want %s then %s (oldest first, the expired one left out)", js, a, b)
	}
	var nl BanList
	if err := nl.Import(recs, later); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []netip.Addr{a, b} {
		if _, banned := nl.Check(ip, later); !banned {
			t.Errorf("%s is not banned after the import", ip)
		}
	}
	for _, ip := range []netip.Addr{c, d} {
		if _, banned := nl.Check(ip, later); banned {
			t.Errorf("%s is banned after the import", ip)
		}
	}
	if got, want := nl.Lookup(a).Until, now.Add(30*time.Minute); !got.Equal(want) {
		t.Errorf("the ban of %s ends %v, want %v", a, got, want)
	}
	if _, banned := nl.Check(a, now.Add(31*time.Minute)); banned {
		t.Errorf("the ban of %s did not end with its expiry", a)
	}
	if !nl.Lookup(b).Until.IsZero() || nl.Lookup(b).Reason != "for life" {
		t.Errorf("the ban of %s: %+v", b, *nl.Lookup(b))
	}
}

// TestBanImportRefuses: bad records are refused and nothing is added.
func TestBanImportRefuses(t *testing.T) {
	now := time.Now()
	ok := BanRecord{Addr: netip.MustParseAddr("127.0.0.1"), Reason: "x"}
	for name, recs := range map[string][]BanRecord{
		"no address":  {ok, {Reason: "x"}},
		"long reason": {ok, {Addr: ok.Addr, Reason: strings.Repeat("r", MaxBanReasonLen+1)}},
		"bad utf-8":   {ok, {Addr: ok.Addr, Reason: "\xff"}},
		"too many":    slices.Repeat([]BanRecord{ok}, MaxBans+1),
	} {
		var l BanList
		if err := l.Import(recs, now); err == nil || l.Len() != 0 {
			t.Errorf("%s: error %v, %d bans", name, err, l.Len())
		}
	}
	var l BanList // the positive control
	if err := l.Import([]BanRecord{ok}, now); err != nil || l.Len() != 1 {
		t.Errorf("a good record: error %v, %d bans", err, l.Len())
	}
}

// FuzzBanImport: any JSON either is refused or gives a list within its bound.
func FuzzBanImport(f *testing.F) {
	f.Add([]byte(`[{"addr":"127.0.0.1","until":"2030-01-01T00:00:00Z","reason":"r"}]`))
	f.Add([]byte(`[{"addr":"::ffff:1.2.3.4","reason":""}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var recs []BanRecord
		if json.Unmarshal(b, &recs) != nil {
			return
		}
		var l BanList
		if err := l.Import(recs, time.Unix(1e9, 0)); err == nil && l.Len() > MaxBans {
			t.Fatalf("%d bans", l.Len())
		}
	})
}
