package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")

	"twserver/gamemsg"
	"twserver/netproto"
	"twserver/teehist"
	"twserver/teehist/replay"
	"twserver/world"
)

// DBName is the index file Update creates in the recordings directory.
const DBName = ".twhist-index.sqlite"

// Bounds of one indexed file.
const (
	// MaxEventsPerFile bounds the events kept of one recording (a hostile
	// file cannot grow the index without end); later ones are dropped.
	MaxEventsPerFile = 1 << 20
	// MaxNameLen bounds a stored player name, in bytes.
	MaxNameLen = 64
	// MaxChatLen bounds a stored chat line, in bytes (the server keeps
	// 127).
	MaxChatLen = 256
)

// InProgressAge tells a game still being recorded: a file that does not
// end with FINISH and changed less than this long ago. Update leaves it for
// a later run instead of indexing it half-recorded, and replaying it again
// at every change while it grows (twhist serve updates every few seconds);
// a file that stopped growing without FINISH (its server was killed) is
// indexed once it is this old.
const InProgressAge = 2 * time.Minute

// SchemaVersion is the index's layout (SQLite user_version). Open rebuilds
// an index of an older version from scratch (the next Update reads every
// file again) and refuses a newer one.
const SchemaVersion = 3 // 3: names.bot

// ErrNewerIndex is returned by Open for an index a newer twhist wrote.
var ErrNewerIndex = errors.New("index: written by a newer twhist (delete it to rebuild)")

// Event kinds stored in the index.
const (
	EventJoin    = "join"
	EventLeave   = "leave"
	EventKill    = "kill"
	EventDeath   = "death"
	EventCapture = "capture"
	// EventChat is a chat line to everybody: the speaker (player, cid) and
	// the line (Result.Text), from the file's SERVER_MESSAGE records.
	EventChat = "chat"
)

const schema = `
CREATE TABLE IF NOT EXISTS games (
	file TEXT PRIMARY KEY, size INTEGER, mtime INTEGER,
	game_uuid TEXT, map TEXT, type TEXT, start INTEGER, ticks INTEGER, finished INTEGER, note TEXT);
CREATE TABLE IF NOT EXISTS names (file TEXT, cid INTEGER, name TEXT, tick INTEGER, bot INTEGER);
CREATE TABLE IF NOT EXISTS events (file TEXT, tick INTEGER, kind TEXT, cid INTEGER, player TEXT, other TEXT, weapon INTEGER);
CREATE INDEX IF NOT EXISTS events_file ON events(file);
CREATE INDEX IF NOT EXISTS events_player ON events(player);
CREATE INDEX IF NOT EXISTS names_name ON names(name);
`

// Open opens (creating it if needed) the index of directory dir.
func Open(dir string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", filepath.Join(dir, DBName))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := migrate(db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrate creates the tables, dropping those of an older schema version.
func migrate(db *sql.DB) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("%w: version %d, this twhist reads %d", ErrNewerIndex, v, SchemaVersion)
	case v < SchemaVersion:
		if _, err := db.Exec(`DROP TABLE IF EXISTS games; DROP TABLE IF EXISTS names; DROP TABLE IF EXISTS events;`); err != nil {
			return err
		}
	}
	if _, err := db.Exec(schema); err != nil {
		return err
	}
	_, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion))
	return err
}

// Stats says what Update did.
type Stats struct {
	Indexed, Unchanged, Removed int
	// InProgress counts the games still being recorded, left for a later
	// Update (InProgressAge).
	InProgress int
	// Failed lists files that could not be read at all, with the reason.
	Failed []string
}

// Update brings the index of dir up to date: new and changed
// *.teehistorian files (by size and modification time) are read, removed
// ones forgotten. Maps for the replay (kills, deaths, captures) come from
// mapDir (NAME.map) or are the embedded map; a file that cannot be
// replayed (another server's) is indexed with its joins and leaves only.
func Update(ctx context.Context, db *sql.DB, dir, mapDir string) (*Stats, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.teehistorian"))
	if err != nil {
		return nil, err
	}
	known := map[string][2]int64{}
	rows, err := db.QueryContext(ctx, `SELECT file, size, mtime FROM games`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var f string
		var size, mtime int64
		if err := rows.Scan(&f, &size, &mtime); err != nil {
			rows.Close()
			return nil, err
		}
		known[f] = [2]int64{size, mtime}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	st := &Stats{}
	present := map[string]bool{}
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		name := filepath.Base(path)
		present[name] = true
		fi, err := os.Stat(path)
		if err != nil {
			st.Failed = append(st.Failed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		if k, ok := known[name]; ok && k == [2]int64{fi.Size(), fi.ModTime().UnixNano()} {
			st.Unchanged++
			continue
		}
		if time.Since(fi.ModTime()) < InProgressAge && !endsWithFinish(path, fi.Size()) {
			st.InProgress++
			continue
		}
		g, err := scan(ctx, path, mapDir)
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err != nil {
			st.Failed = append(st.Failed, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		g.size, g.mtime = fi.Size(), fi.ModTime().UnixNano()
		if err := store(ctx, db, name, g); err != nil {
			return st, err
		}
		st.Indexed++
	}
	for f := range known {
		if !present[f] {
			if err := forget(ctx, db, f); err != nil {
				return st, err
			}
			st.Removed++
		}
	}
	return st, nil
}

// endsWithFinish reports whether the file at path (of size bytes) ends
// with a FINISH message, the last byte a whole recording writes.
func endsWithFinish(path string, size int64) bool {
	if size < 1 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [1]byte
	_, err = f.ReadAt(b[:], size-1)
	return err == nil && b[0] == finishByte
}

// finishByte is FINISH's encoding: the varint of teehist.KindFinish (-1).
var finishByte = netproto.AppendInt(nil, int32(teehist.KindFinish))[0]

// game is what scan read of one file.
type game struct {
	size, mtime int64
	h           *teehist.Header
	ticks       int32
	finished    bool
	note        string // why kills and deaths are missing, if they are
	names       []nameAt
	events      []event
}

type nameAt struct {
	cid  int
	name string
	tick int32
	bot  bool // the slot's connection is a bot (PLAYER_BOT)
}

type event struct {
	tick          int32
	kind          string
	cid           int
	player, other string
	weapon        int32
}

func (g *game) add(e event) {
	if len(g.events) < MaxEventsPerFile {
		g.events = append(g.events, e)
	}
}

// scan reads one recording: the header, names, joins and leaves from the
// messages, then kills, deaths and captures from a replay.
func scan(ctx context.Context, path, mapDir string) (*game, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		return nil, err
	}
	g := &game{h: h}
	var names [teehist.MaxClients]string
	var ingame, bot [teehist.MaxClients]bool
	var m teehist.Message
	var fields []teehist.ExField
	var up netproto.Unpacker
	for {
		err := r.Next(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			g.note = "read to " + err.Error()
			break
		}
		g.ticks = m.Tick
		cid := int(m.CID)
		switch m.Kind {
		case teehist.KindFinish:
			g.finished = true
		case teehist.KindJoin:
			if cid >= 0 && cid < teehist.MaxClients {
				bot[cid] = false // a new connection
			}
		case teehist.KindDrop:
			if cid >= 0 && cid < teehist.MaxClients && ingame[cid] {
				ingame[cid] = false
				g.add(event{tick: m.Tick, kind: EventLeave, cid: cid, player: names[cid], other: clip(m.Reason)})
			}
		case teehist.KindEx:
			if m.Ex == teehist.ExServerMsg {
				g.chat(&up, m.Tick, m.Data, &names)
				continue
			}
			if m.Ex != teehist.ExPlayerName && m.Ex != teehist.ExPlayerReady && m.Ex != teehist.ExPlayerBot {
				continue
			}
			if fields, err = teehist.AppendEx(fields[:0], m.Ex, m.Data); err != nil || len(fields) == 0 {
				continue
			}
			cid := int(fields[0].Int)
			if cid < 0 || cid >= teehist.MaxClients {
				continue
			}
			if m.Ex == teehist.ExPlayerBot {
				bot[cid] = true
			} else if m.Ex == teehist.ExPlayerName && len(fields) == 2 {
				names[cid] = clip(fields[1].Str)
				if len(g.names) < MaxEventsPerFile {
					g.names = append(g.names, nameAt{cid, names[cid], m.Tick, bot[cid]})
				}
			} else if m.Ex == teehist.ExPlayerReady {
				ingame[cid] = true
				g.add(event{tick: m.Tick, kind: EventJoin, cid: cid, player: names[cid]})
			}
		}
	}
	if err := replayEvents(ctx, path, mapDir, g); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		g.note = "no kills, deaths or captures: " + err.Error()
	}
	return g, nil
}

// chat adds the chat line to everybody that SERVER_MESSAGE data holds, if
// it holds one from a player (not the server's, a team line or a whisper).
func (g *game) chat(up *netproto.Unpacker, tick int32, data []byte, names *[teehist.MaxClients]string) {
	id, sys, n, err := netproto.ParseMsgHeader(data)
	if err != nil || sys || id != gamemsg.MsgSvChat {
		return
	}
	up.Reset(data[n:])
	var c gamemsg.SvChat
	if c.Decode(up) != nil || c.Mode != gamemsg.ChatAll || c.ClientID < 0 || int(c.ClientID) >= teehist.MaxClients {
		return
	}
	g.add(event{tick: tick, kind: EventChat, cid: int(c.ClientID), player: names[c.ClientID], other: clipN(c.Message, MaxChatLen)})
}

// clip bounds a stored name or reason, in a copy of its own.
func clip(s string) string { return clipN(s, MaxNameLen) }

// clipN returns s cut to n bytes and made valid UTF-8, in a copy: what is
// kept of a file must not keep alive the string it was cut from (a
// payload of up to teehist.MaxDataSize bytes).
func clipN(s string, n int) string { return strings.Clone(strings.ToValidUTF8(truncate(s, n), "?")) }

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// killWatcher is a replay.Observer collecting kills, deaths and captures.
type killWatcher struct {
	w *world.World
	g *game
}

func (k *killWatcher) name(cid int32) string {
	if info, ok := k.w.Info(int(cid)); ok {
		return clip(info.Name)
	}
	return ""
}

func (k *killWatcher) AfterTick(*world.World, bool) {}

func (k *killWatcher) Event(e world.Event) {
	tick := k.w.CurrentTick()
	switch {
	case e.FeedKill():
		killer, victim := k.name(e.Args[0]), k.name(e.Args[1])
		if e.Args[0] != e.Args[1] && e.Args[0] >= 0 {
			k.g.add(event{tick: tick, kind: EventKill, cid: int(e.Args[0]), player: killer, other: victim, weapon: e.Args[2]})
		}
		k.g.add(event{tick: tick, kind: EventDeath, cid: int(e.Args[1]), player: victim, other: killer, weapon: e.Args[2]})
	case e.Kind == world.EvGameMsg && e.Args[0] == world.GameMsgCTFCapture:
		k.g.add(event{tick: tick, kind: EventCapture, cid: int(e.Args[2]), player: k.name(e.Args[2]), weapon: -1})
	}
}

func (k *killWatcher) Message(gamemsg.Message)   {}
func (k *killWatcher) Enter(int)                 {}
func (k *killWatcher) Leave(int, string, string) {}

// replayEvents replays the file and adds its kills, deaths and captures to
// g, skipping idle stretches; a file over its budget (replay.ErrBudget) or
// the end of ctx stops it.
func replayEvents(ctx context.Context, path, mapDir string, g *game) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := teehist.NewReader(f)
	h, err := r.ReadHeader()
	if err != nil {
		return err
	}
	m, err := replay.LoadMap(mapDir, h.MapName)
	if err != nil {
		return err
	}
	e, err := replay.New(h, m)
	if err != nil {
		return err
	}
	e.SetObserver(&killWatcher{w: e.World(), g: g})
	e.SetSkipIdle(true)
	res, err := e.Run(ctx, r)
	if err != nil {
		return err
	}
	if res.Divergence != nil {
		return fmt.Errorf("%w at %v", replay.ErrDivergence, res.Divergence)
	}
	return nil
}

// forget removes what the index holds of file, in one transaction.
func forget(ctx context.Context, db *sql.DB, file string) error { return store(ctx, db, file, nil) }

// remove deletes the rows of file in tx.
func remove(ctx context.Context, tx *sql.Tx, file string) error {
	for _, q := range []string{`DELETE FROM games WHERE file = ?`, `DELETE FROM names WHERE file = ?`, `DELETE FROM events WHERE file = ?`} {
		if _, err := tx.ExecContext(ctx, q, file); err != nil {
			return err
		}
	}
	return nil
}

// store replaces what the index holds of file by g (nil: nothing), in one
// transaction.
func store(ctx context.Context, db *sql.DB, file string, g *game) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if err := remove(ctx, tx, file); err != nil || g == nil {
		if err != nil {
			return err
		}
		return tx.Commit()
	}
	h := g.h
	if _, err := tx.ExecContext(ctx, `INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?)`, file, g.size, g.mtime,
		h.GameUUID.String(), clip(h.MapName), strings.ToLower(clip(h.GameType)), h.StartTime.Unix(), g.ticks, g.finished, g.note); err != nil {
		return err
	}
	ns, err := tx.PrepareContext(ctx, `INSERT INTO names VALUES (?,?,?,?,?)`)
	if err != nil {
		return err
	}
	for _, n := range g.names {
		if _, err := ns.ExecContext(ctx, file, n.cid, n.name, n.tick, n.bot); err != nil {
			return err
		}
	}
	es, err := tx.PrepareContext(ctx, `INSERT INTO events VALUES (?,?,?,?,?,?,?)`)
	if err != nil {
		return err
	}
	for _, e := range g.events {
		if _, err := es.ExecContext(ctx, file, e.tick, e.kind, e.cid, e.player, e.other, e.weapon); err != nil {
			return err
		}
	}
	return tx.Commit()
}
