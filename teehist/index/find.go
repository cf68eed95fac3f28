package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Query selects games, or events when Event is set. Empty fields match all.
type Query struct {
	Player string // a name the player had in the game (any of them)
	Map    string
	Type   string // dm, tdm, ctf, lms, lts
	Since  time.Time
	Until  time.Time
	Event  string // EventJoin, EventLeave, EventKill, EventDeath, EventCapture, EventChat
	// Text selects chat lines holding it (case-insensitive for ASCII
	// letters, taken as plain text: no wildcards); it implies EventChat.
	Text string
	// Limit bounds the results (0: MaxResults).
	Limit int
}

// MaxResults bounds what one Find returns.
const MaxResults = 10000

// ErrEventKind is returned for an unknown event kind.
var ErrEventKind = errors.New("index: unknown event kind")

// Result is one game (Tick -1) or one event of a game.
type Result struct {
	File     string    `json:"file"`
	GameUUID string    `json:"game_uuid"`
	Map      string    `json:"map"`
	Type     string    `json:"type"`
	Start    time.Time `json:"start"`
	Ticks    int32     `json:"ticks"`
	Tick     int32     `json:"tick"`
	Event    string    `json:"event,omitempty"`
	CID      int       `json:"cid"`
	Player   string    `json:"player"`
	Other    string    `json:"other,omitempty"`
	Text     string    `json:"text,omitempty"` // a chat line, as said
	Weapon   int32     `json:"weapon,omitempty"`
	Players  []string  `json:"players,omitempty"` // games: every name seen
	Bots     []string  `json:"bots,omitempty"`    // games: the names among Players that were bots
}

// Find answers q from the index db.
func Find(ctx context.Context, db *sql.DB, q Query) ([]Result, error) {
	if q.Text != "" && q.Event == "" {
		q.Event = EventChat
	}
	switch q.Event {
	case "", EventJoin, EventLeave, EventKill, EventDeath, EventCapture, EventChat:
	default:
		return nil, fmt.Errorf("%w %q (want join, leave, kill, death, capture or chat)", ErrEventKind, q.Event)
	}
	if q.Text != "" && q.Event != EventChat {
		return nil, fmt.Errorf("%w: a text selects chat lines, not %s events", ErrEventKind, q.Event)
	}
	limit := q.Limit
	if limit <= 0 || limit > MaxResults {
		limit = MaxResults
	}
	var where []string
	var args []any
	add := func(cond string, a ...any) { where, args = append(where, cond), append(args, a...) }
	if q.Map != "" {
		add("g.map = ?", q.Map)
	}
	if q.Type != "" {
		add("g.type = ?", strings.ToLower(q.Type))
	}
	if !q.Since.IsZero() {
		add("g.start >= ?", q.Since.Unix())
	}
	if !q.Until.IsZero() {
		add("g.start <= ?", q.Until.Unix())
	}
	var sqlq string
	if q.Event == "" {
		if q.Player != "" {
			add("g.file IN (SELECT file FROM names WHERE name = ?)", q.Player)
		}
		sqlq = `SELECT g.file, g.game_uuid, g.map, g.type, g.start, g.ticks, -1, '', -1, '', '', 0 FROM games g`
	} else {
		add("e.kind = ?", q.Event)
		if q.Player != "" {
			add("e.player = ?", q.Player)
		}
		if q.Text != "" { // instr, not LIKE: the text is data, % and _ included
			add("instr(lower(e.other), lower(?)) > 0", q.Text)
		}
		sqlq = `SELECT g.file, g.game_uuid, g.map, g.type, g.start, g.ticks, e.tick, e.kind, e.cid, e.player, e.other, e.weapon
			FROM events e JOIN games g ON g.file = e.file`
	}
	if len(where) > 0 {
		sqlq += " WHERE " + strings.Join(where, " AND ")
	}
	sqlq += " ORDER BY g.start, g.file"
	if q.Event != "" {
		sqlq += ", e.tick"
	}
	sqlq += fmt.Sprintf(" LIMIT %d", limit)
	rows, err := db.QueryContext(ctx, sqlq, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var start int64
		if err := rows.Scan(&r.File, &r.GameUUID, &r.Map, &r.Type, &start, &r.Ticks, &r.Tick, &r.Event, &r.CID,
			&r.Player, &r.Other, &r.Weapon); err != nil {
			return nil, err
		}
		r.Start = time.Unix(start, 0).UTC()
		if r.Event == EventChat {
			r.Text, r.Other = r.Other, ""
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if q.Event == "" {
		if err := addPlayers(ctx, db, out); err != nil {
			return nil, err
		}
		if q.Player != "" {
			for i := range out {
				out[i].Player = q.Player
			}
		}
	}
	return out, nil
}

// addPlayers fills in the distinct names of the players of every game of
// out, in order of appearance, and those of them that were bots, with one
// query.
func addPlayers(ctx context.Context, db *sql.DB, out []Result) error {
	if len(out) == 0 {
		return nil
	}
	files := make([]string, len(out))
	at := make(map[string][]int, len(out)) // file -> its results
	for i := range out {
		files[i] = out[i].File
		at[files[i]] = append(at[files[i]], i)
	}
	list, err := json.Marshal(files)
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT file, name, MAX(bot) FROM names WHERE file IN (SELECT value FROM json_each(?))
		GROUP BY file, name ORDER BY file, MIN(tick), name`, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var f, n string
		var bot bool
		if err := rows.Scan(&f, &n, &bot); err != nil {
			return err
		}
		for _, i := range at[f] {
			out[i].Players = append(out[i].Players, n)
			if bot {
				out[i].Bots = append(out[i].Bots, n)
			}
		}
	}
	return rows.Err()
}
