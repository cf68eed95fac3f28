package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"twserver/teehist"
)

// TestIndexAndFind: two recordings (twserver's LMS game, a DDNet one) are
// indexed, a second Update changes nothing, a removed file is forgotten;
// Find answers games by player, map, type and time, and events (the LMS
// game's kills and deaths from its replay; the DDNet file's join and
// leave, its kills unknown).
func TestIndexAndFind(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{"lms.teehistorian": "../testdata/twserver_lms.teehistorian",
		"ddnet.teehistorian": "../testdata/ddnet_07.teehistorian"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	st, err := Update(ctx, db, dir, "")
	if err != nil || st.Indexed != 2 || len(st.Failed) != 0 {
		t.Fatalf("update: %+v %v", st, err)
	}
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 0 || st.Unchanged != 2 {
		t.Fatalf("second update: %+v %v", st, err)
	}
	count := func(q Query) int {
		t.Helper()
		res, err := Find(ctx, db, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return len(res)
	}
	lmsStart := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		q    Query
		want int
	}{
		{"all games", Query{}, 2},
		{"by player", Query{Player: "twload3"}, 1},
		{"unknown player", Query{Player: "nobody"}, 0},
		{"by map", Query{Map: "dm1"}, 1},
		{"by type", Query{Type: "LMS"}, 1},
		{"since", Query{Since: lmsStart}, 1},
		{"until", Query{Until: lmsStart}, 1},
		{"joins", Query{Event: EventJoin}, 5 + 1},
		{"leaves", Query{Event: EventLeave}, 5 + 1},
		// the LMS game's kill messages (in its demo): twload0 kills twload4
		// at tick 344; six more deaths by the world or the deceased's own
		// grenade; two players leaving at the end (not deaths)
		{"kills of a player", Query{Event: EventKill, Player: "twload0"}, 1},
		{"kills", Query{Event: EventKill}, 1},
		{"deaths", Query{Event: EventDeath}, 7},
		{"deaths of a player", Query{Event: EventDeath, Player: "twload0"}, 2},
		{"captures", Query{Event: EventCapture}, 0},
		{"limit", Query{Event: EventJoin, Limit: 2}, 2},
	} {
		if got := count(tc.q); got != tc.want {
			t.Errorf("%s: %d results, want %d", tc.name, got, tc.want)
		}
	}
	deaths, err := Find(ctx, db, Query{Event: EventDeath, Type: "lms"})
	if err != nil || len(deaths) == 0 {
		t.Fatalf("deaths: %d, %v", len(deaths), err)
	}
	if d := deaths[0]; d.File != "lms.teehistorian" || d.Map != "twsrv_arena" || d.Tick <= 0 || d.Player == "" || d.GameUUID == "" {
		t.Errorf("first death %+v", d)
	}
	if _, err := Find(ctx, db, Query{Event: "chat"}); err != ErrChat {
		t.Errorf("chat query: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "ddnet.teehistorian")); err != nil {
		t.Fatal(err)
	}
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Removed != 1 || count(Query{}) != 1 {
		t.Fatalf("after removing a file: %+v %v", st, err)
	}
}

// FuzzScan: any file either fails to read or is indexed without panics,
// with its events bounded.
func FuzzScan(f *testing.F) {
	for _, p := range []string{"../testdata/twserver_lms.teehistorian", "../testdata/ddnet_07.teehistorian"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b[:min(len(b), 4000)])
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := teehist.NewReader(bytes.NewReader(data)).ReadHeader(); err != nil {
			return
		}
		path := filepath.Join(dir, "f.teehistorian")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := scan(path, "")
		if err != nil {
			return
		}
		if len(g.events) > MaxEventsPerFile || len(g.names) > MaxEventsPerFile {
			t.Fatalf("%d events, %d names", len(g.events), len(g.names))
		}
	})
}
