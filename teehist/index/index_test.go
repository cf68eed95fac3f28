package index

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"twserver/teehist"
)

// copyTestdata copies teehist/testdata files into dir under the given names.
func copyTestdata(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		b, err := os.ReadFile("../testdata/" + src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChat: the chat lines to everybody of a recorded game (record's
// TestChatGame: players say lines with quotes, % and _, a team line and a
// server line) are indexed with speaker, tick and the raw text, and a
// text search takes the text as data.
func TestChat(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"chat.teehistorian": "twserver_chat.teehistorian",
		"lms.teehistorian": "twserver_lms.teehistorian"})
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 2 {
		t.Fatalf("update: %+v %v", st, err)
	}
	all, err := Find(ctx, db, Query{Event: EventChat})
	if err != nil || len(all) != 5 {
		t.Fatalf("chat lines: %d, %v", len(all), err)
	}
	if c := all[1]; c.File != "chat.teehistorian" || c.Map != "twsrv_arena" || c.Player != "playerb" || c.CID != 1 ||
		c.Text != "it's 100% fair" || c.Tick != all[0].Tick+40 || c.Event != EventChat || c.Other != "" {
		t.Errorf("second line %+v (first at tick %d)", c, all[0].Tick)
	}
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"word", Query{Text: "gg"}, []string{"gg all", "snake_case GG"}},
		{"word and player", Query{Text: "GG", Player: "playera"}, []string{"gg all"}},
		{"percent is a character", Query{Text: "%"}, []string{"it's 100% fair"}},
		{"underscore is a character", Query{Text: "snake_case"}, []string{"snake_case GG"}},
		{"quote", Query{Text: "'"}, []string{"it's 100% fair", "' OR 1=1 --"}},
		{"sql", Query{Text: "' OR 1=1 --"}, []string{"' OR 1=1 --"}},
		{"quote closing the string", Query{Text: "x' OR '1'='1"}, nil},
		{"team line and server line not indexed", Query{Text: "team only"}, nil},
		{"server line", Query{Text: "from the server"}, nil},
		{"no such word", Query{Text: "zzz"}, nil},
		{"other map", Query{Text: "gg", Map: "dm1"}, nil},
	} {
		res, err := Find(ctx, db, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := Find(ctx, db, Query{Text: "gg", Event: EventKill}); !errors.Is(err, ErrEventKind) {
		t.Errorf("text with kill events: %v", err)
	}
	// incremental: a changed file is read again, its lines not doubled
	now := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "chat.teehistorian"), now, now); err != nil {
		t.Fatal(err)
	}
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 1 || st.Unchanged != 1 {
		t.Fatalf("update after a change: %+v %v", st, err)
	}
	if res, err := Find(ctx, db, Query{Event: EventChat}); err != nil || len(res) != 5 {
		t.Fatalf("chat lines after re-indexing: %d, %v", len(res), err)
	}
}

// TestSchemaVersion: an index of the schema before chat lines (no
// user_version) is rebuilt, so every file is read again; an index of a
// newer version is refused.
func TestSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"chat.teehistorian": "twserver_chat.teehistorian"})
	old, err := sql.Open("sqlite", filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "chat.teehistorian"))
	if err != nil {
		t.Fatal(err)
	}
	// the old layout, with the file recorded as indexed (and no chat)
	if _, err := old.Exec(schema); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`INSERT INTO games (file, size, mtime) VALUES (?, ?, ?)`, "chat.teehistorian", fi.Size(),
		fi.ModTime().UnixNano()); err != nil {
		t.Fatal(err)
	}
	old.Close()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 1 {
		t.Fatalf("update of an old index: %+v %v", st, err)
	}
	if res, err := Find(ctx, db, Query{Text: "gg"}); err != nil || len(res) != 2 {
		t.Fatalf("chat after rebuilding: %d, %v", len(res), err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err := Open(dir); !errors.Is(err, ErrNewerIndex) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("newer index: %v", err)
	}
}

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
	if res, err := Find(ctx, db, Query{Event: EventChat}); err != nil || len(res) != 0 {
		t.Errorf("chat query: %d results, %v (the files hold no chat)", len(res), err)
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
	for _, p := range []string{"../testdata/twserver_lms.teehistorian", "../testdata/ddnet_07.teehistorian", "../testdata/twserver_chat.teehistorian"} {
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

// TestIndexBots: the index knows which players were bots (PLAYER_BOT) and
// find lists them apart; a human in a bot's former slot is no bot.
func TestIndexBots(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"bots.teehistorian": "twserver_bots.teehistorian"})
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 1 {
		t.Fatalf("update: %+v %v", st, err)
	}
	res, err := Find(ctx, db, Query{})
	if err != nil || len(res) != 1 {
		t.Fatalf("find: %v %v", res, err)
	}
	slices.Sort(res[0].Bots)
	if got := strings.Join(res[0].Bots, ","); got != "Juniper,Pebble,Quartz" {
		t.Errorf("bots %q, want Juniper, Pebble, Quartz (players %q)", got, res[0].Players)
	}
	if !slices.Contains(res[0].Players, "bob") || !slices.Contains(res[0].Players, "alice") || len(res[0].Players) != 5 {
		t.Errorf("players %q", res[0].Players)
	}
}
