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
	"unsafe"

	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world/twmap"
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
// with its events bounded, within a bounded time (the replay's budget, and
// a deadline for each input that the replay must heed inside the file).
func FuzzScan(f *testing.F) {
	for _, p := range []string{"../testdata/twserver_lms.teehistorian", "../testdata/ddnet_07.teehistorian", "../testdata/twserver_chat.teehistorian"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4000)])
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
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		g, err := scan(ctx, path, "")
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("scan took %v", took)
		}
		if err != nil {
			return
		}
		if len(g.events) > MaxEventsPerFile || len(g.names) > MaxEventsPerFile {
			t.Fatalf("%d events, %d names", len(g.events), len(g.names))
		}
	})
}

// hostileFile writes name in dir: the header of twserver_chat.teehistorian
// (the embedded map, replayable), a pause at tick 1 (the world is never
// idle), pad bytes of console lines, then one skip to tick to.
func hostileFile(t *testing.T, dir, name string, pad int, to int32) {
	t.Helper()
	craftFile(t, dir, name, nil, pad, to)
}

// craftFile is hostileFile with the header changed by mod.
func craftFile(t *testing.T, dir, name string, mod func(*teehist.Header), pad int, to int32) {
	t.Helper()
	f, err := os.Open("../testdata/twserver_chat.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := teehist.NewReader(f).ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(h)
	}
	e := teehist.NewEncoder()
	e.WriteHeader(h)
	e.BeginTick(1)
	e.RecordConsoleCommand(-1, 0, "pause", nil)
	for n := 0; n < pad; n += 16000 {
		e.RecordConsoleCommand(-1, 0, "pad", []string{strings.Repeat("p", 16000)})
	}
	e.BeginTick(to)
	e.RecordConsoleCommand(-1, 0, "say", []string{"end"})
	e.Finish()
	if err := os.WriteFile(filepath.Join(dir, name), e.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostileFile: a small file that asks for 2^24 ticks is indexed in
// about the time of the ticks its size pays for, with the reason it has no
// kills; a large one is cancelled in the middle of its replay. The unit of
// time is the indexing of a skip of FreeTicks/2 ticks (within the budget:
// replayed whole), so that a loaded machine or the race detector slows
// both alike.
func TestHostileFile(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	index := func(name string, to int32) (note string, took time.Duration) {
		t.Helper()
		hostileFile(t, dir, name, 0, to)
		start := time.Now()
		st, err := Update(context.Background(), db, dir, "")
		took = time.Since(start)
		if err != nil || st.Indexed != 1 {
			t.Fatalf("update: %+v %v", st, err)
		}
		if err := db.QueryRow(`SELECT note FROM games WHERE file = ?`, name).Scan(&note); err != nil {
			t.Fatal(err)
		}
		return note, took
	}
	if note, _ := index("warm.teehistorian", 1000); note != "" { // the first replay loads the map
		t.Fatalf("a short skip: %s", note)
	}
	note, unit := index("unit.teehistorian", replay.FreeTicks/2)
	if note != "" {
		t.Fatalf("a skip within the budget: %s", note)
	}
	note, took := index("skip.teehistorian", replay.MaxTicks)
	if !strings.Contains(note, replay.ErrBudget.Error()) {
		t.Fatalf("note %q", note)
	}
	t.Logf("indexed in %v (%v for %d ticks): %s", took, unit, replay.FreeTicks/2, note)
	if took > 4*unit+time.Second { // about 2 units; the whole skip would take 186
		t.Errorf("indexing took %v", took)
	}

	dir = t.TempDir()
	hostileFile(t, dir, "big.teehistorian", 1<<20, replay.MaxTicks)
	db2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	st, err := Update(ctx, db2, dir, "")
	took = time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || st.Indexed != 0 {
		t.Fatalf("cancelled update: %+v %v after %v", st, err, took)
	}
	if took > 150*time.Millisecond+unit/10+time.Second { // CheckEvery ticks are unit/88
		t.Errorf("cancelling took %v", took)
	}
	// positive control: the file's replay runs past a longer deadline
	// (its budget pays for millions of ticks)
	ctx, cancel = context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := scan(ctx, filepath.Join(dir, "big.teehistorian"), ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("scan with a deadline of 500 ms: %v after %v", err, time.Since(start))
	}
	t.Logf("cancelled after %v", took)
}

// TestMapOutsideDir: a header naming ../secret does not reach secret.map
// beside the map directory; the same map named secret in the directory
// that holds it is found and replayed (the positive control).
func TestMapOutsideDir(t *testing.T) {
	top := t.TempDir()
	dir, mapDir := filepath.Join(top, "rec"), filepath.Join(top, "maps")
	for _, d := range []string{dir, mapDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret, err := twmap.Load("secret", twmap.Default().Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "secret.map"), secret.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../secret", "secret"} {
		craftFile(t, dir, "a.teehistorian", func(h *teehist.Header) { h.MapName, h.MapSHA256 = name, secret.SHA256 }, 0, 100)
		md := mapDir
		if name == "secret" {
			md = top
		}
		g, err := scan(context.Background(), filepath.Join(dir, "a.teehistorian"), md)
		if err != nil {
			t.Fatal(err)
		}
		if want := name == "../secret"; want != strings.Contains(g.note, replay.ErrMapName.Error()) || !want && g.note != "" {
			t.Errorf("map %q: note %q", name, g.note)
		}
	}
}

// TestFindPlayers: the games Find returns carry the distinct names of their
// players in order of appearance, each game its own (read in one query).
func TestFindPlayers(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"twserver_chat.teehistorian": "twserver_chat.teehistorian",
		"twserver_lms.teehistorian": "twserver_lms.teehistorian", "ddnet.teehistorian": "ddnet_07.teehistorian"})
	hostileFile(t, dir, "empty.teehistorian", 0, 10) // no player
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 4 {
		t.Fatalf("update: %+v %v", st, err)
	}
	games, err := Find(ctx, db, Query{})
	if err != nil || len(games) != 4 {
		t.Fatalf("%d games, %v", len(games), err)
	}
	for _, g := range games {
		// the oracle: the file's PLAYER_NAME records, first appearance first
		sg, err := scan(ctx, filepath.Join(dir, g.File), "")
		if err != nil {
			t.Fatal(err)
		}
		first := map[string]int32{}
		var want []string
		for _, n := range sg.names {
			if _, ok := first[n.name]; !ok {
				first[n.name] = n.tick
				want = append(want, n.name)
			}
		}
		slices.SortStableFunc(want, func(a, b string) int {
			if first[a] != first[b] {
				return int(first[a] - first[b])
			}
			return strings.Compare(a, b)
		})
		if !slices.Equal(g.Players, want) || strings.HasPrefix(g.File, "twserver") && len(want) < 2 {
			t.Errorf("%s: players %q, want %q", g.File, g.Players, want)
		}
	}
}

// TestClipCopies: what the index keeps of a string is a copy, never a
// part of the (possibly large) string it was cut from.
func TestClipCopies(t *testing.T) {
	for _, s := range []string{strings.Repeat("a", 70000), "short", "bad \xff utf-8", strings.Repeat("é", 200)} {
		for _, c := range []string{clip(s), clipN(s, MaxChatLen)} {
			p, q := uintptr(unsafe.Pointer(unsafe.StringData(c))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
			if p >= q && p < q+uintptr(len(s)) {
				t.Errorf("clip of %d bytes shares its memory", len(s))
			}
			if len(c) == 0 || len(c) > MaxChatLen {
				t.Errorf("clip of %d bytes: %d bytes", len(s), len(c))
			}
		}
	}
	// positive control: a plain cut does share it
	s := strings.Repeat("a", 100)
	if unsafe.StringData(truncate(s, 10)) != unsafe.StringData(s) {
		t.Fatal("the sharing check sees nothing")
	}
}

// TestForgetAtomic: forget removes a file's rows all together or not at
// all (a failing delete of its events keeps its game and names).
func TestForgetAtomic(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"chat.teehistorian": "twserver_chat.teehistorian"})
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := Update(ctx, db, dir, ""); err != nil {
		t.Fatal(err)
	}
	rowsOf := func() (n int) {
		for _, tb := range []string{"games", "names", "events"} {
			var k int
			if err := db.QueryRow(`SELECT count(*) FROM ` + tb + ` WHERE file = 'chat.teehistorian'`).Scan(&k); err != nil {
				t.Fatal(err)
			}
			n += min(k, 1)
		}
		return n
	}
	if rowsOf() != 3 {
		t.Fatal("the file is not in all three tables")
	}
	if _, err := db.Exec(`CREATE TRIGGER keep BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'kept'); END`); err != nil {
		t.Fatal(err)
	}
	if err := forget(ctx, db, "chat.teehistorian"); err == nil {
		t.Fatal("forget passed the trigger")
	}
	if n := rowsOf(); n != 3 {
		t.Fatalf("a failed forget left the file in %d of 3 tables", n)
	}
	if _, err := db.Exec(`DROP TRIGGER keep`); err != nil {
		t.Fatal(err)
	}
	if err := forget(ctx, db, "chat.teehistorian"); err != nil || rowsOf() != 0 {
		t.Fatalf("forget: %v", err)
	}
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

// TestInProgress: a recording without its FINISH that changed a moment ago
// is a game still being recorded: Update leaves it out (and does not
// replay it) until it ends or has not changed for InProgressAge; a whole
// recording as recent is indexed at once.
func TestInProgress(t *testing.T) {
	dir := t.TempDir()
	copyTestdata(t, dir, map[string]string{"done.teehistorian": "twserver_chat.teehistorian"})
	whole, err := os.ReadFile("../testdata/twserver_chat.teehistorian")
	if err != nil {
		t.Fatal(err)
	}
	if whole[len(whole)-1] != finishByte {
		t.Fatalf("the whole recording ends with %#x, not FINISH", whole[len(whole)-1])
	}
	growing := filepath.Join(dir, "growing.teehistorian")
	if err := os.WriteFile(growing, whole[:len(whole)-1], 0o644); err != nil { // all but FINISH
		t.Fatal(err)
	}
	db := openIndex(t, dir)
	ctx := context.Background()
	files := func() map[string]bool {
		t.Helper()
		rs, err := Find(ctx, db, Query{})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, r := range rs {
			m[r.File] = true
		}
		return m
	}
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 1 || st.InProgress != 1 {
		t.Fatalf("update: %+v %v", st, err)
	}
	if got := files(); !got["done.teehistorian"] || got["growing.teehistorian"] {
		t.Fatalf("indexed %v, want the whole recording only", got)
	}
	// the server was killed: the file stopped growing without FINISH
	old := time.Now().Add(-InProgressAge - time.Second)
	if err := os.Chtimes(growing, old, old); err != nil {
		t.Fatal(err)
	}
	if st, err := Update(ctx, db, dir, ""); err != nil || st.Indexed != 1 || st.InProgress != 0 || st.Unchanged != 1 {
		t.Fatalf("update after %v: %+v %v", InProgressAge, st, err)
	}
	if got := files(); !got["growing.teehistorian"] {
		t.Fatalf("indexed %v, want the stopped recording too", got)
	}
}

// openIndex opens dir's index for the test, closed when it ends.
func openIndex(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
